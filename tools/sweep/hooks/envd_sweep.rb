# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# The sweep's recorder for Ruby (tools/sweep/run.sh sets
# RUBYOPT=-r<this file>): every name looked up in ENV is logged with the
# file that asked, and at exit every file loaded, for run.sh's source scan.
# What rubygems looks up before RUBYOPT's -r runs is found by that scan.
module EnvdSweep
  LOG = ENV.to_h['ENVD_SWEEP_LOG']

  def self.write(text)
    return unless LOG

    File.open(LOG, 'a') { |f| f.write(text) }
  rescue StandardError
    nil
  end

  def self.record(name)
    where = caller_locations(2, 1)&.first&.path.to_s
    write("environ\t#{name}\truby:#{File.basename(where)}\n")
  end

  # prepended to ENV's singleton class: the lookups by name
  module Lookups
    %i[[] fetch key? has_key? include? member? values_at].each do |m|
      define_method(m) do |*names, &blk|
        names.each { |n| EnvdSweep.record(n) } if m == :values_at
        EnvdSweep.record(names.first) unless m == :values_at
        super(*names, &blk)
      end
    end
  end
end

ENV.singleton_class.prepend(EnvdSweep::Lookups)
at_exit do
  files = $LOADED_FEATURES.select { |f| f.end_with?('.rb') }
  files << File.expand_path($PROGRAM_NAME) if File.file?($PROGRAM_NAME)
  EnvdSweep.write(files.map { |f| "load\truby\t#{f}\n" }.join)
end
