# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# EnvdSweep - the sweep's recorder for Perl (tools/sweep/run.sh sets
# PERL5OPT=-MEnvdSweep): the file of every module perl loads, and the
# script itself, are logged for run.sh's source scan.  %ENV is a plain
# hash to Perl code, so its lookups cannot be seen at run time.
package EnvdSweep;
use strict;
use warnings;

my $log = $ENV{ENVD_SWEEP_LOG};

sub record {
	my ($path) = @_;
	return unless defined $log && defined $path && -f $path;
	open(my $fh, '>>', $log) or return;
	print {$fh} "load\tperl\t$path\n";
	close($fh);
}

# what perl loaded before this module (-M switches on the command line
# come first), then, first in @INC, every later require: the hook finds
# the file where perl will and lets perl load it; at the end, %INC again
# for what an eval or do loaded past the hook
record($_) for values %INC;
END { record($_) for values %INC }
unshift @INC, sub {
	my (undef, $file) = @_;
	for my $dir (@INC) {
		next if ref $dir;
		if (-f "$dir/$file") {
			record("$dir/$file");
			last;
		}
	}
	return;
};
record($0) if $0 ne '-e' && $0 ne '-';

1;
