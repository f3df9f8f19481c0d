# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""The environment.d conformance corpus.

Each case lays out files in the directories environment.d reads and says
what must come out.  Directory keys:

  user      $HOME/.config/environment.d
  xdg       {xdg}/environment.d (used when XDG_CONFIG_HOME={xdg}, absolute)
  etc       /etc/environment.d
  run       /run/environment.d
  usrlocal  /usr/local/lib/environment.d
  usr       /usr/lib/environment.d

A directory maps basenames to bytes (file content), File(bytes, mode),
Symlink(target), Dir({...}, mode), Socket() or, for a whole system
directory, MISSING.  The key "home" lays out files in $HOME itself, and
"etc_environment" (bytes) stands for /etc/environment, the target of
Debian's /usr/lib/environment.d/99-environment.conf link.  Environment values
may use {home}, {xdg} and {case}, replaced by the case's paths.

expect: the ordered (name, value) list.  For an ordinary case it is checked
against systemd's generator (which wins any disagreement; the runner reports
one as a corpus error) and documents the behaviour.  For a deviation it is
what envd must produce while the generator differs.
"""

import grp
import os
import pwd


class Symlink:
    def __init__(self, target):
        self.target = target

    def __repr__(self):
        return "symlink -> %s" % self.target


class Dir:
    def __init__(self, entries=None, mode=0o755):
        self.entries = entries or {}
        self.mode = mode

    def __repr__(self):
        m = "" if self.mode == 0o755 else " mode %o" % self.mode
        return ("directory%s %r" % (m, self.entries)) if self.entries else "directory" + m


class File:
    """A file with a mode other than 0644."""

    def __init__(self, content, mode):
        self.content = content
        self.mode = mode

    def __repr__(self):
        return "file mode %o %r" % (self.mode, self.content[:60])


class Socket:
    def __repr__(self):
        return "unix socket"


class _Missing:
    def __repr__(self):
        return "MISSING"


MISSING = _Missing()
DEVNULL = Symlink("/dev/null")
DANGLING = Symlink("no-such-file-anywhere")


class Case:
    def __init__(self, name, description, files, env, expect, deviation, no_home, etc_environment=None):
        self.name = name
        self.description = description
        self.files = files
        self.env = env
        self.expect = expect
        self.deviation = deviation
        self.no_home = no_home
        self.etc_environment = etc_environment


CASES = []


def case(name, description, conf=None, files=None, env=None, expect=None, deviation=None,
         no_home=False, etc_environment=None):
    """conf: content of etc/50-case.conf (shorthand for one file)."""
    files = dict(files or {})
    if conf is not None:
        files.setdefault("etc", {})["50-case.conf"] = conf
    if deviation is not None and expect is None:
        raise ValueError("%s: a deviation needs an expect list" % name)
    CASES.append(Case(name, description, files, list((env or {}).items()), expect, deviation, no_home,
                      etc_environment))


def L(*lines):
    """File content: the lines joined, each ended by a newline."""
    return b"".join((ln.encode() if isinstance(ln, str) else ln) + b"\n" for ln in lines)


V252 = ("Debian 12's systemd 252 differs here from systemd >= 254, which envd follows: ")
UTF8 = ("systemd rejects a value that is not valid UTF-8 (as systemd's validator defines it) by "
        "dropping the rest of the file, and the generator then crashes (double free), losing all "
        "output; envd skips only that assignment and carries on.")

# ===========================================================================
# Directories: which ones, in which precedence
# ===========================================================================

case("dir_user", "the user directory $HOME/.config/environment.d is read",
     files={"user": {"a.conf": L("A=user")}},
     expect=[("A", "user")])

case("dir_each_system_dir", "each of the four system directories is read",
     files={"etc": {"1.conf": L("E=etc")}, "run": {"2.conf": L("R=run")},
            "usrlocal": {"3.conf": L("L=usrlocal")}, "usr": {"4.conf": L("U=usr")}},
     expect=[("E", "etc"), ("R", "run"), ("L", "usrlocal"), ("U", "usr")])

case("prec_user_over_etc", "same basename: the user directory's file wins",
     files={"user": {"a.conf": L("A=user")}, "etc": {"a.conf": L("A=etc", "B=etc")}},
     expect=[("A", "user")])

case("prec_etc_over_run", "same basename: /etc wins over /run",
     files={"etc": {"a.conf": L("A=etc")}, "run": {"a.conf": L("A=run", "B=run")}},
     expect=[("A", "etc")])

case("prec_run_over_usrlocal", "same basename: /run wins over /usr/local/lib",
     files={"run": {"a.conf": L("A=run")}, "usrlocal": {"a.conf": L("A=usrlocal", "B=1")}},
     expect=[("A", "run")])

case("prec_usrlocal_over_usr", "same basename: /usr/local/lib wins over /usr/lib",
     files={"usrlocal": {"a.conf": L("A=usrlocal")}, "usr": {"a.conf": L("A=usr", "B=1")}},
     expect=[("A", "usrlocal")])

case("prec_all_five", "same basename in all five directories: only the user's is read",
     files={"user": {"x.conf": L("U=1")}, "etc": {"x.conf": L("E=1")}, "run": {"x.conf": L("R=1")},
            "usrlocal": {"x.conf": L("L=1")}, "usr": {"x.conf": L("S=1")}},
     expect=[("U", "1")])

case("prec_order_not_by_directory",
     "different basenames: sort order decides, not directory precedence (a later /usr/lib file "
     "overrides an earlier user file)",
     files={"user": {"10-user.conf": L("A=user")}, "usr": {"20-usr.conf": L("A=usr")}},
     expect=[("A", "usr")])

case("prec_user_late_name_wins", "the user file sorting last overrides system files",
     files={"user": {"99-me.conf": L("A=user")}, "etc": {"50-site.conf": L("A=etc", "B=etc")}},
     expect=[("A", "user"), ("B", "etc")])

case("sort_strcmp", "one list sorted with strcmp: 10-a < 9-b < B < a",
     files={"etc": {"a.conf": L("O=${O}a"), "B.conf": L("O=${O}B"), "9-b.conf": L("O=${O}9"),
                    "10-a.conf": L("O=${O}10")}},
     expect=[("O", "109Ba")])

case("sort_across_dirs", "the sort is across all directories, interleaving them",
     files={"user": {"30.conf": L("O=${O}-user30")}, "etc": {"20.conf": L("O=${O}-etc20")},
            "run": {"40.conf": L("O=${O}-run40")}, "usrlocal": {"10.conf": L("O=${O}-usrlocal10")},
            "usr": {"50.conf": L("O=${O}-usr50"), "05.conf": L("O=usr05")}},
     expect=[("O", "usr05-usrlocal10-etc20-user30-run40-usr50")])

case("sort_bytes", "strcmp on bytes: punctuation, digits, upper, underscore, lower, then UTF-8",
     files={"etc": {"\u00e9.conf": L("O=${O}e-acute"), "z.conf": L("O=${O}z"), "_.conf": L("O=${O}_"),
                    "Z.conf": L("O=${O}Z"), "0.conf": L("O=${O}0"), "-.conf": L("O=${O}-"),
                    "~.conf": L("O=${O}~")}},
     expect=[("O", "-0Z_z~e-acute")])

case("sort_prefix", "a name that is a prefix of another sorts first: a.conf < a.conf.conf < a0.conf",
     files={"etc": {"a0.conf": L("O=${O}3"), "a.conf.conf": L("O=${O}2"), "a.conf": L("O=${O}1")}},
     expect=[("O", "123")])

case("sort_first_definition_order",
     "variables come out in order of first definition, whatever the file order of later overrides",
     files={"etc": {"a.conf": L("B=1", "A=1"), "b.conf": L("C=2", "A=2", "B=2")}},
     expect=[("B", "2"), ("A", "2"), ("C", "2")])

case("sort_many_files", "200 files in three directories, read in strcmp order",
     files={"etc": {"%03d.conf" % i: L("V%03d=%d" % (i, i), "O=${O}.%d" % i) for i in range(0, 200, 3)},
            "usr": {"%03d.conf" % i: L("V%03d=%d" % (i, i), "O=${O}.%d" % i) for i in range(1, 200, 3)},
            "user": {"%03d.conf" % i: L("V%03d=%d" % (i, i), "O=${O}.%d" % i) for i in range(2, 200, 3)}},
     expect=[("V000", "0"), ("O", "".join(".%d" % i for i in range(200)))] +
            [("V%03d" % i, "%d" % i) for i in range(1, 200)])

# ---- which names count ---------------------------------------------------------

case("suffix_only_conf", "only names ending in .conf are read",
     files={"etc": {"a.conf": L("A=1"), "b.CONF": L("B=1"), "c.Conf": L("C=1"), "d.conf.bak": L("D=1"),
                    "e.confx": L("E=1"), "fconf": L("F=1"), "g.conf~": L("G=1"), "h": L("H=1"),
                    "i.cfg": L("I=1"), "j.conf.d": L("J=1"), "k.env": L("K=1")}},
     expect=[("A", "1")])

case("suffix_trailing_space", "'x.conf ' (trailing space) does not end in .conf",
     files={"etc": {"x.conf ": L("X=1"), "y.conf": L("Y=1")}},
     expect=[("Y", "1")])

case("hidden_skipped", "names starting with a dot are skipped, .conf itself included",
     files={"etc": {".a.conf": L("A=1"), ".conf": L("B=1"), "..conf": L("C=1"), "d.conf": L("D=1")},
            "user": {".hidden.conf": L("H=1")}},
     expect=[("D", "1")])

case("hidden_does_not_mask", "a hidden file does not mask anything, being skipped",
     files={"user": {".a.conf": b""}, "etc": {".a.conf": L("A=etc")}, "usr": {"a.conf": L("A=usr")}},
     expect=[("A", "usr")])

case("not_recursive", "subdirectories are not descended into",
     files={"etc": {"sub": Dir({"x.conf": L("X=1")}), "sub.d": Dir({"y.conf": L("Y=1")}),
                    "z.conf": L("Z=1")}},
     expect=[("Z", "1")])

case("symlink_to_file", "a .conf symlink to a file with another name is read (the target alone is not)",
     files={"etc": {"a.conf": Symlink("real.txt"), "real.txt": L("A=via-link")}},
     expect=[("A", "via-link")])

case("symlink_across_dirs", "a symlink into another system directory reads that file twice",
     files={"etc": {"10-a.conf": Symlink("../../usr/lib/environment.d/20-b.conf")},
            "usr": {"20-b.conf": L("N=${N}x")}},
     expect=[("N", "xx")])

case("symlink_user_to_file", "a symlink in the user directory to a file in the home is followed",
     files={"home": {"dotfiles": Dir({"env.txt": L("A=dotfile")})},
            "user": {"a.conf": Symlink("../../dotfiles/env.txt")}},
     expect=[("A", "dotfile")])

case("symlink_to_directory", "a .conf symlink to a directory reads nothing but masks",
     files={"etc": {"a.conf": Symlink("d"), "d": Dir({"x.conf": L("X=1")})},
            "usr": {"a.conf": L("A=usr")}},
     expect=[])

# ---- masking --------------------------------------------------------------------

case("mask_empty_file", "an empty file masks the same basename lower down",
     files={"user": {"a.conf": b""}, "etc": {"a.conf": L("A=etc")}, "usr": {"b.conf": L("B=usr")}},
     expect=[("B", "usr")])

case("mask_devnull", "a symlink to /dev/null masks",
     files={"etc": {"a.conf": DEVNULL}, "usr": {"a.conf": L("A=usr"), "b.conf": L("B=usr")}},
     expect=[("B", "usr")])

case("mask_directory", "a directory holding the name masks (and reads nothing)",
     files={"etc": {"a.conf": Dir({"inner.conf": L("I=1")})}, "usr": {"a.conf": L("A=usr"), "b.conf": L("B=1")}},
     expect=[("B", "1")])

case("mask_dangling_symlink", "a dangling symlink masks (and reads nothing)",
     files={"run": {"a.conf": DANGLING}, "usr": {"a.conf": L("A=usr"), "b.conf": L("B=1")}},
     expect=[("B", "1")])

case("mask_user_devnull", "the user can mask a system file with a /dev/null symlink",
     files={"user": {"50-site.conf": DEVNULL}, "etc": {"50-site.conf": L("SITE=1")}, "usr": {"60.conf": L("X=1")}},
     expect=[("X", "1")])

case("mask_comment_only", "a file with only comments masks like an empty one",
     files={"etc": {"a.conf": L("# nothing here", "; nor here")}, "usr": {"a.conf": L("A=usr")}},
     expect=[])

case("mask_invalid_only", "a file whose lines are all rejected still masks",
     files={"etc": {"a.conf": L("A=", "export B=1", "no equals")}, "usr": {"a.conf": L("A=usr")}},
     expect=[])

case("mask_only_same_name", "masking is per basename: other files are unaffected",
     files={"etc": {"a.conf": b""}, "usr": {"a.conf": L("A=usr"), "a2.conf": L("A2=usr"), "b.conf": L("B=usr")}},
     expect=[("A2", "usr"), ("B", "usr")])

case("mask_values_invisible", "values of a masked file are not visible to expansion",
     files={"etc": {"10.conf": L("OTHER=1")}, "usr": {"10.conf": L("M=masked")},
            "user": {"20.conf": L("A=${M:-unset}")}},
     expect=[("OTHER", "1"), ("A", "unset")])

case("missing_system_dirs", "missing system directories are simply skipped",
     files={"etc": MISSING, "run": MISSING, "usrlocal": MISSING, "usr": {"a.conf": L("A=1")}},
     expect=[("A", "1")])

case("empty_everything", "no files at all: nothing",
     files={}, expect=[])

# ---- the user directory --------------------------------------------------------------

case("xdg_absolute", "an absolute XDG_CONFIG_HOME replaces ~/.config",
     files={"xdg": {"a.conf": L("A=xdg")}, "user": {"a.conf": L("A=home"), "b.conf": L("B=home")}},
     env={"XDG_CONFIG_HOME": "{xdg}"},
     expect=[("A", "xdg")])

case("xdg_relative", "a relative XDG_CONFIG_HOME is ignored: ~/.config is used",
     files={"xdg": {"a.conf": L("A=xdg")}, "user": {"a.conf": L("A=home")}},
     env={"XDG_CONFIG_HOME": "xdg"},
     expect=[("A", "home")])

case("xdg_dot_relative", "'./xdg' is relative too",
     files={"xdg": {"a.conf": L("A=xdg")}, "user": {"a.conf": L("A=home")}},
     env={"XDG_CONFIG_HOME": "./xdg"},
     expect=[("A", "home")])

case("xdg_empty", "an empty XDG_CONFIG_HOME is ignored",
     files={"user": {"a.conf": L("A=home")}},
     env={"XDG_CONFIG_HOME": ""},
     expect=[("A", "home")])

case("xdg_nonexistent", "an absolute XDG_CONFIG_HOME without environment.d: no fallback to ~/.config",
     files={"user": {"a.conf": L("A=home")}, "etc": {"b.conf": L("B=etc")}},
     env={"XDG_CONFIG_HOME": "{case}/nowhere"},
     expect=[("B", "etc")])

case("xdg_trailing_slash", "XDG_CONFIG_HOME with a trailing slash",
     files={"xdg": {"a.conf": L("A=xdg")}},
     env={"XDG_CONFIG_HOME": "{xdg}/"},
     expect=[("A", "xdg")])

case("xdg_without_home", "an absolute XDG_CONFIG_HOME works without HOME",
     files={"xdg": {"a.conf": L("A=xdg", "H=${HOME:-nohome}")}},
     env={"XDG_CONFIG_HOME": "{xdg}"}, no_home=True,
     expect=[("A", "xdg"), ("H", "nohome")])

case("xdg_in_expansion", "XDG_CONFIG_HOME is part of the expansion base like any variable",
     files={"xdg": {"a.conf": L("C=$XDG_CONFIG_HOME/app")}},
     env={"XDG_CONFIG_HOME": "{xdg}"},
     expect=[("C", "{xdg}/app")])

case("xdg_config_dirs_unused", "XDG_CONFIG_DIRS is not consulted",
     files={"xdg": {"a.conf": L("A=xdg")}, "etc": {"b.conf": L("B=etc")}},
     env={"XDG_CONFIG_DIRS": "{xdg}"},
     expect=[("B", "etc")])

case("home_trailing_slash", "HOME with a trailing slash still finds ~/.config/environment.d",
     files={"user": {"a.conf": L("A=home")}},
     env={"HOME": "{home}/"}, no_home=True,
     expect=[("A", "home")])

case("user_dir_is_file", "~/.config/environment.d being a regular file: the user side is empty",
     files={"home": {".config": Dir({"environment.d": L("A=1")})}, "etc": {"b.conf": L("B=1")}},
     expect=[("B", "1")])

case("user_dir_symlink", "~/.config/environment.d may be a symlink to a directory",
     files={"home": {"envdir": Dir({"a.conf": L("A=linked")}), ".config": Dir({"environment.d": Symlink("../envdir")})}},
     expect=[("A", "linked")])

case("user_config_symlink", "~/.config may be a symlink (dotfile managers)",
     files={"home": {"dots": Dir({"environment.d": Dir({"a.conf": L("A=dots")})}), ".config": Symlink("dots")}},
     expect=[("A", "dots")])

# ===========================================================================
# Syntax: lines, comments, keys
# ===========================================================================

case("basic", "plain assignments", conf=L("A=1", "B=two words", "C=/usr/bin:/bin"),
     expect=[("A", "1"), ("B", "two words"), ("C", "/usr/bin:/bin")])

case("no_final_newline", "the last line needs no newline", conf=b"A=1\nB=2",
     expect=[("A", "1"), ("B", "2")])

case("crlf", "CRLF line ends", conf=b"A=1\r\nB=two\r\n\r\nC=3\r\n",
     expect=[("A", "1"), ("B", "two"), ("C", "3")])

case("cr_only", "CR-only line ends (old Mac)", conf=b"A=1\rB=2\r# c\rC=3",
     expect=[("A", "1"), ("B", "2"), ("C", "3")])

case("mixed_line_ends", "LF, CRLF and CR mixed in one file", conf=b"A=1\nB=2\r\nC=3\rD=4",
     expect=[("A", "1"), ("B", "2"), ("C", "3"), ("D", "4")])

case("blank_lines", "blank and whitespace-only lines are skipped", conf=b"\n\n  \n\t\nA=1\n \t \nB=2\n\n",
     expect=[("A", "1"), ("B", "2")])

case("comments", "# and ; start comments", conf=L("# a comment", "A=1", "; another", "B=2", "#C=3", ";D=4"),
     expect=[("A", "1"), ("B", "2")])

case("comment_indented", "a comment may follow leading blanks", conf=L("   # x=1", "\t; y=2", " \t#Z=3", "A=1"),
     expect=[("A", "1")])

case("comment_not_midline", "a trailing '# x' is part of the value", conf=L("A=1 # not a comment", "B=x#y", "C=x ;y"),
     expect=[("A", "1 # not a comment"), ("B", "x#y"), ("C", "x ;y")])

case("comment_char_value_start", "# or ; right after '=' starts the value", conf=L("A=#x", "B= ;y", "C=  # z"),
     expect=[("A", "#x"), ("B", ";y"), ("C", "# z")])

case("comment_after_quote", "after a closing quote, '# c' is a new unquoted segment (the blank skipped)",
     conf=L('A="x" # c', "B='y' ;d"),
     expect=[("A", "x# c"), ("B", "y;d")])

case("comment_in_key_position_only", "'#' after a key is part of the key (invalid name)",
     conf=L("A#=1", "B;=2", "C=3"),
     expect=[("C", "3")])

case("comment_backslash_inside", "a backslash inside a comment (not at the end) changes nothing",
     conf=L(r"# a\b c", "A=1", r"; \\", "B=2"),
     expect=[("A", "1"), ("B", "2")])

case("comment_double_backslash_end", "a comment ending in two backslashes ends at the newline",
     conf=L("# x\\\\", "A=1"),
     expect=[("A", "1")])

case("comment_backslash_crlf", "a comment ending in backslash before CRLF ends at the LF",
     conf=b"# x\\\r\nA=1\r\nB=2\r\n",
     expect=[("A", "1"), ("B", "2")])

case("comment_backslash_eof", "a comment ending in a backslash at the end of the file",
     conf=b"A=1\n# x\\",
     expect=[("A", "1")])

case("comment_backslash_continuation",
     "a comment ending in a backslash ends at the newline (systemd >= 254)",
     conf=L("# comment \\", "A=1", "B=2"),
     deviation=V252 + "252 continues the comment onto the next line and so drops A=1.",
     expect=[("A", "1"), ("B", "2")])

case("comment_backslash_continuation_chain", "several comment lines ending in backslashes (systemd >= 254)",
     conf=L("; one \\", "# two \\", "A=1", "B=2"),
     deviation=V252 + "252 swallows the following line, A=1, as the comment continues.",
     expect=[("A", "1"), ("B", "2")])

case("key_whitespace", "blanks around the key are trimmed", conf=L("  A=1", "B  =2", "\tC\t=3", " \t D \t = 4"),
     expect=[("A", "1"), ("B", "2"), ("C", "3"), ("D", "4")])

case("key_inner_space", "a key with an inner blank is invalid", conf=L("A B=1", "C\tD=2", "E=3"),
     expect=[("E", "3")])

case("no_equals", "lines without '=' are dropped silently", conf=L("JUSTTEXT", "A=1", "two words", "B=2", "trailing"),
     expect=[("A", "1"), ("B", "2")])

case("no_equals_eof", "a last line without '=' and without newline", conf=b"A=1\nDANGLING",
     expect=[("A", "1")])

case("export_prefix", "'export FOO=1' is an invalid name and is skipped", conf=L("export FOO=1", "BAR=2"),
     expect=[("BAR", "2")])

case("invalid_names", "names must match [A-Za-z_][A-Za-z0-9_]*",
     conf=L("1A=x", "A-B=x", "A.B=x", "A:B=x", "$A=x", "A$=x", "\u00e9=x", '"Q"=x', "'S'=x", "A\\=x", "OK=1"),
     expect=[("OK", "1")])

case("valid_names", "underscores, digits after the first, lower case",
     conf=L("_=u", "_1=a", "a=b", "aB9_z=c", "__x__=d", "Z=e"),
     expect=[("_", "u"), ("_1", "a"), ("a", "b"), ("aB9_z", "c"), ("__x__", "d"), ("Z", "e")])

case("long_name", "a long name (200 characters) is fine",
     conf=L("N" * 200 + "=long"),
     expect=[("N" * 200, "long")])

case("empty_key", "'=x' and '==x' set nothing", conf=L("=x", "==y", " =z", "A=1"),
     expect=[("A", "1")])

case("equals_in_value", "only the first '=' separates", conf=L("A==1", "B=b=c", "C= = "),
     expect=[("A", "=1"), ("B", "b=c"), ("C", "=")])

case("bom", "a UTF-8 byte order mark is part of the first key, which is then invalid",
     conf=b"\xef\xbb\xbfA=1\nB=2\n",
     expect=[("B", "2")])

case("vt_ff_not_blank", "vertical tab and form feed are not blanks: part of key or value",
     conf=b"\x0bA=1\nB=\x0cx\nC=y\x0c\nD=4\n",
     expect=[("B", "\x0cx"), ("C", "y\x0c"), ("D", "4")])

case("nbsp_not_blank", "U+00A0 (no-break space) is not a blank",
     conf=L("\u00a0A=1", "B=\u00a0x\u00a0", "C=3"),
     expect=[("B", "\u00a0x\u00a0"), ("C", "3")])

case("redefine_same_file", "a later line overrides; the position stays the first one", conf=L("A=1", "B=1", "A=2"),
     expect=[("A", "2"), ("B", "1")])

# ===========================================================================
# Syntax: values
# ===========================================================================

case("value_leading_blanks", "blanks after '=' are skipped", conf=L("A=   x", "B=\t\ty", "C= \t z z"),
     expect=[("A", "x"), ("B", "y"), ("C", "z z")])

case("value_trailing_blanks", "unquoted trailing blanks are trimmed, inner ones kept",
     conf=L("A=abc   ", "B=a  b \t", "C=x\t"),
     expect=[("A", "abc"), ("B", "a  b"), ("C", "x")])

case("value_trailing_blanks_crlf", "trailing blanks before CRLF are trimmed", conf=b"A=abc  \r\nB=d\t\r\n",
     expect=[("A", "abc"), ("B", "d")])

case("escape_unquoted", "unquoted \\x gives x for any x",
     conf=L(r"A=a\b\c", r"B=\n\t", r"C=\\", r"D=\"q\"", r"E=\'", r"F=\#", r"G=\ x"),
     expect=[("A", "abc"), ("B", "nt"), ("C", "\\"), ("D", '"q"'), ("E", "'"), ("F", "#"), ("G", " x")])

case("escape_trailing_blank", "an escaped trailing blank is kept; one after it is trimmed",
     conf=L("A=abc\\ ", "B=abc\\  ", "C=abc\\\t", "D=\\ "),
     expect=[("A", "abc "), ("B", "abc "), ("C", "abc\t"), ("D", " ")])

case("continuation_unquoted", "backslash-newline continues; the next line's leading blanks are kept",
     conf=L("A=a\\", "  b", "B=one\\", "two\\", "three"),
     expect=[("A", "a  b"), ("B", "onetwothree")])

case("continuation_keeps_blank_before", "a blank before the continuation backslash is kept",
     conf=L("A=a \\", "b", "B=x \\", "  ", "C=c"),
     expect=[("A", "a b"), ("B", "x "), ("C", "c")])

case("continuation_comment_line", "a continued line that looks like a comment is value",
     conf=L("A=a\\", "# b", "B=2"),
     expect=[("A", "a# b"), ("B", "2")])

case("continuation_swallows_assignment", "'A=\\' continues into the next line, which becomes the value",
     conf=L("A=\\", "B=1", "C=2"),
     expect=[("A", "B=1"), ("C", "2")])

case("continuation_eof", "a backslash at the end of the file is dropped",
     conf=b"A=a\\",
     expect=[("A", "a")])

case("continuation_only_eof", "'A=\\' at the end of the file is an empty value: nothing",
     conf=b"B=1\nA=\\",
     expect=[("B", "1")])

case("continuation_crlf", "backslash before CRLF eats the CR only: the LF still ends the line",
     conf=b"A=a\\\r\nb=1\r\n",
     expect=[("A", "a"), ("b", "1")])

case("continuation_cr", "backslash before a lone CR continues the line",
     conf=b"A=a\\\rb\rC=3",
     expect=[("A", "ab"), ("C", "3")])

case("quotes_literal_in_unquoted", "quotes are literal once an unquoted segment started",
     conf=L('A=a"b c"d', "B=a'b'", 'C=x "y"', "D=a\"b"),
     expect=[("A", 'a"b c"d'), ("B", "a'b'"), ("C", 'x "y"'), ("D", 'a"b')])

case("single_quotes", "single quotes: everything literal",
     conf=L("A='a b'", r"B='a\nb'", r"C='\'", "D=' x '", r"E='\"'"),
     expect=[("A", "a b"), ("B", "a\\nb"), ("C", "\\"), ("D", " x "), ("E", '\\"')])

case("single_quotes_multiline", "a single-quoted value spans lines, newlines kept",
     conf=L("A='line1", "line2", "  line3'", "B=2"),
     expect=[("A", "line1\nline2\n  line3"), ("B", "2")])

case("double_quotes", "double quotes: blanks and # kept", conf=L('A="a b"', 'B=" x "', 'C="# not comment"', 'D="a;b"'),
     expect=[("A", "a b"), ("B", " x "), ("C", "# not comment"), ("D", "a;b")])

case("double_quote_escapes", "in double quotes \\\" \\\\ \\` \\$ give the character",
     conf=L(r'A="a\"b"', r'B="a\\b"', r'C="a\`b"', r'D="a\$-"', r'E="\\\""'),
     expect=[("A", 'a"b'), ("B", "a\\b"), ("C", "a`b"), ("D", "a$-"), ("E", '\\"')])

case("double_quote_other_backslash", "in double quotes other backslashes are kept with their character",
     conf=L(r'A="a\nb"', r'B="\t"', r'C="\x41"', r"D=" + '"' + r"\'" + '"', r'E="a\ b"', r'F="\#"'),
     expect=[("A", "a\\nb"), ("B", "\\t"), ("C", "\\x41"), ("D", "\\'"), ("E", "a\\ b"), ("F", "\\#")])

case("double_quote_continuation", "backslash-newline inside double quotes is removed",
     conf=L('A="a\\', 'b"', 'B="x\\', '  y"'),
     expect=[("A", "ab"), ("B", "x  y")])

case("double_quote_backslash_crlf", "inside double quotes, backslash before CR keeps both (only LF is eaten)",
     conf=b'A="a\\\r\nb"\r\nB=2\r\n',
     expect=[("A", "a\\\r\nb"), ("B", "2")])

case("double_quote_multiline", "raw newlines inside double quotes are kept",
     conf=L('A="one', "two", '  three"'),
     expect=[("A", "one\ntwo\n  three")])

case("double_quote_crlf_inside", "CRLF inside quotes is kept as is",
     conf=b'A="x\r\ny"\r\nB=\'p\r\nq\'\r\n',
     expect=[("A", "x\r\ny"), ("B", "p\r\nq")])

case("segments", "quoted and unquoted segments concatenate",
     conf=L("A=\"a\"'b'c", 'B="x" y', "C='a' \"b\"", 'D="a"b"c"', "E='a'   'b'   c  "),
     expect=[("A", "abc"), ("B", "xy"), ("C", "ab"), ("D", 'ab"c"'), ("E", "abc")])

case("segment_escape_after_quote", "a backslash after a closing quote escapes the next character",
     conf=L('A="a" \\ b', "B='x'\\'y'"),
     expect=[("A", "a b"), ("B", "x'y'")])

case("segment_continuation_after_quote", "backslash-newline after a closing quote continues the value",
     conf=L("A='a' \\", "  b", "C=3"),
     expect=[("A", "a  b"), ("C", "3")])

case("quote_trailing_blanks", "blanks after a closing quote are dropped; quoted blanks kept",
     conf=L('A="x"   ', 'B="x "', "C='y'\t"),
     expect=[("A", "x"), ("B", "x "), ("C", "y")])

case("unterminated_double", "a double quote left open takes the rest of the file",
     conf=L('A="abc', "B=1", "# c"),
     expect=[("A", "abc\nB=1\n# c\n")])

case("unterminated_single", "a single quote left open takes the rest of the file",
     conf=b"X=0\nA='abc\nB=1",
     expect=[("X", "0"), ("A", "abc\nB=1")])

case("unterminated_double_escape_eof", "an open double quote ending in a backslash at EOF",
     conf=b'A="abc\\',
     expect=[("A", "abc")])

case("empty_values", "empty values set nothing: A=, A=  , A=\"\", A=''",
     conf=L("A=", "B=  ", 'C=""', "D=''", 'E="" ""', "F= '' ", "G=\t", "OK=1"),
     expect=[("OK", "1")])

case("empty_value_keeps_previous", "an empty value does not clear an earlier assignment",
     conf=L("A=1", "A=", 'A=""', "A=''"),
     expect=[("A", "1")])

case("empty_value_across_files", "an empty value in a later file does not clear either",
     files={"etc": {"10.conf": L("A=1"), "20.conf": L("A=", 'A=""')}},
     expect=[("A", "1")])

case("empty_value_eof", "'A=' at the end of the file without newline", conf=b"B=1\nA=",
     expect=[("B", "1")])

case("empty_quotes_then_text", "an empty quoted segment followed by text is not empty",
     conf=L('A=""x', "B=''y", 'C="" z'),
     expect=[("A", "x"), ("B", "y"), ("C", "z")])

case("only_blank_quoted", "a quoted blank is a value", conf=L('A=" "', "B='\t'"),
     expect=[("A", " "), ("B", "\t")])

case("control_chars", "values may hold control characters",
     conf=b"A=a\tb\nB=\x1b[1mbold\x1b[0m\nC=\x01\x02\x7f\nD=\"\x07\"\n",
     expect=[("A", "a\tb"), ("B", "\x1b[1mbold\x1b[0m"), ("C", "\x01\x02\x7f"), ("D", "\x07")])

case("utf8_values", "UTF-8 values of 2, 3 and 4 bytes",
     conf=L("A=h\u00e9llo", "B=\u65e5\u672c", "C=\U0001F600", "D='\u00fc ber'", 'E="\u20ac"'),
     expect=[("A", "h\u00e9llo"), ("B", "\u65e5\u672c"), ("C", "\U0001F600"), ("D", "\u00fc ber"), ("E", "\u20ac")])

case("utf8_edges", "the highest valid code points of each length",
     conf=L("A=\u007f", "B=\u07ff", "C=\ufffd", "D=\U0010fffd", "E=\ud7ff".encode("utf-8", "surrogatepass").decode()),
     expect=[("A", "\u007f"), ("B", "\u07ff"), ("C", "\ufffd"), ("D", "\U0010fffd"), ("E", "\ud7ff")])

case("long_value", "a 100000-byte value", conf=L("A=" + "x" * 100000, "B=2"),
     expect=[("A", "x" * 100000), ("B", "2")])

case("many_assignments", "2000 assignments in one file keep their order",
     conf=L(*["V%d=%d" % (i, i) for i in range(2000)]),
     expect=[("V%d" % i, "%d" % i) for i in range(2000)])

case("nul_byte_skips_file", "a file holding a NUL byte is skipped entirely; other files are read",
     files={"etc": {"a.conf": L("A=1"), "b.conf": b"B=2\nC=\x00\nD=4\n", "c.conf": L("E=5")}},
     expect=[("A", "1"), ("E", "5")])

case("nul_in_comment", "a NUL byte in a comment still skips the whole file",
     files={"etc": {"a.conf": b"# \x00\nA=1\n", "b.conf": L("B=2")}},
     expect=[("B", "2")])

case("nul_file_masks", "a file skipped for a NUL byte still masks its basename",
     files={"etc": {"a.conf": b"A=etc\x00"}, "usr": {"a.conf": L("A=usr"), "b.conf": L("B=usr")}},
     expect=[("B", "usr")])

# ===========================================================================
# Invalid UTF-8
# ===========================================================================

case("utf8_invalid_value", "a value with an invalid byte (0xff)",
     conf=b"A=1\nB=x\xffy\nC=3\n", deviation=UTF8,
     expect=[("A", "1"), ("C", "3")])

case("utf8_invalid_later_file", "an invalid value in a later file: earlier and later files still count",
     files={"etc": {"10.conf": L("A=1"), "20.conf": b"B=\xfe\nB2=2\n", "30.conf": L("C=3")}}, deviation=UTF8,
     expect=[("A", "1"), ("B2", "2"), ("C", "3")])

case("utf8_invalid_keeps_previous", "the invalid assignment does not clear an earlier value of the name",
     conf=b"A=good\nA=\xc3\nB=2\n", deviation=UTF8,
     expect=[("A", "good"), ("B", "2")])

case("utf8_overlong", "an overlong encoding (C0 AF for '/') is invalid",
     conf=b"A=\xc0\xaf\nB=2\n", deviation=UTF8,
     expect=[("B", "2")])

case("utf8_surrogate", "an encoded UTF-16 surrogate (ED A0 80) is invalid",
     conf=b"A=\xed\xa0\x80\nB=2\n", deviation=UTF8,
     expect=[("B", "2")])

case("utf8_beyond_10ffff", "a code point above U+10FFFF (F4 90 80 80) is invalid",
     conf=b"A=\xf4\x90\x80\x80\nB=2\n", deviation=UTF8,
     expect=[("B", "2")])

case("utf8_truncated", "a truncated sequence at the end of an open quote",
     conf=b"B=2\nA=\"\xe2\x82", deviation=UTF8,
     expect=[("B", "2")])

case("utf8_noncharacter_fdd0", "systemd's validator also rejects the noncharacters U+FDD0..U+FDEF",
     conf=b"A=\xef\xb7\x90\nB=2\n", deviation=UTF8,
     expect=[("B", "2")])

case("utf8_noncharacter_fffe", "systemd's validator also rejects U+FFFE and U+FFFF (and U+nFFFE/F)",
     conf=b"A=\xef\xbf\xbe\nC=\xef\xbf\xbf\nD=\xf0\x9f\xbf\xbf\nB=2\n", deviation=UTF8,
     expect=[("B", "2")])

case("utf8_invalid_from_base", "a value invalid only after expansion (base variable with byte 0xff)",
     conf=L("A=pre-$BAD", "B=2"), env={"BAD": b"\xff"}, deviation=UTF8,
     expect=[("B", "2")])

case("utf8_invalid_in_comment", "invalid bytes in a comment are harmless", conf=b"# \xff\xfe\nA=1\n",
     expect=[("A", "1")])

case("utf8_invalid_in_key", "an invalid byte in a key: an invalid name, skipped (no crash)",
     conf=b"\xff=1\nA\xc3=2\nB=3\n",
     expect=[("B", "3")])

case("utf8_invalid_no_equals", "invalid bytes on a line without '=' are dropped with it",
     conf=b"\xff\xfe garbage\nA=1\n",
     expect=[("A", "1")])

case("utf8_invalid_bad_name", "an invalid value with an invalid name is skipped for the name (no crash)",
     conf=b"1A=\xff\nexport B=\xff\nC=3\n",
     expect=[("C", "3")])

case("utf8_invalid_masked", "an invalid value in a masked file is never read",
     files={"etc": {"a.conf": L("A=etc")}, "usr": {"a.conf": b"A=\xff\n"}},
     expect=[("A", "etc")])

case("utf8_invalid_expanded_away", "UTF-8 is checked after expansion: invalid bytes expanded away are fine",
     conf=b"A=${UNSET:+\xff}\nB=${HOME:-\xfe}x\nC=3\n",
     expect=[("A", ""), ("B", "{home}x"), ("C", "3")])

# ===========================================================================
# Expansion
# ===========================================================================

case("exp_braceless", "$NAME expands; NAME is the longest run of [A-Za-z0-9_]",
     conf=L("A=$X", "B=$XY", "C=$X-y", "D=$X.y", "E=$X/z", "F=${X}Y", "G=$X_1"),
     env={"X": "xv", "X_1": "x1"},
     expect=[("A", "xv"), ("B", ""), ("C", "xv-y"), ("D", "xv.y"), ("E", "xv/z"), ("F", "xvY"), ("G", "x1")])

case("exp_adjacent", "several references in a row", conf=L("A=$X$Y", "B=${X}${Y}", "C=$X${Y}$X"),
     env={"X": "1", "Y": "2"},
     expect=[("A", "12"), ("B", "12"), ("C", "121")])

case("exp_unset_empty", "an unset variable expands to empty, and the assignment still happens",
     conf=L("A=$UNSET", "B=${UNSET}", "C=x${UNSET}y"),
     expect=[("A", ""), ("B", ""), ("C", "xy")])

case("exp_digit_name", "$1x, $1 and ${1} are invalid names: empty",
     conf=L("A=$1x", "B=$1", "C=${1}", "D=a$9b", "E=${0}"),
     expect=[("A", ""), ("B", ""), ("C", ""), ("D", "a"), ("E", "")])

case("exp_lone_dollar", "a $ followed by a non-name character, or at the end, stays",
     conf=L("A=$", "B=a$", "C=$-", "D=a$ b", "E=$.$/", "F=$@$*$#$?$!", "G='$'", 'H="x$"'),
     expect=[("A", "$"), ("B", "a$"), ("C", "$-"), ("D", "a$ b"), ("E", "$.$/"), ("F", "$@$*$#$?$!"),
             ("G", "$"), ("H", "x$")])

case("exp_dollar_dollar", "$$ is a literal $",
     conf=L("A=$$", "B=$$$$", "C=$$X", "D=$$$X", "E=$${X}", "F=a$$b", "G=$$$"),
     env={"X": "xv"},
     expect=[("A", "$"), ("B", "$$"), ("C", "$X"), ("D", "$xv"), ("E", "${X}"), ("F", "a$b"), ("G", "$$")])

case("exp_braced", "${NAME} expands; ${} and invalid names give empty",
     conf=L("A=${X}", "B=${UNSET}", "C=${}", "D=${X Y}", "E=${X-d}", "F=${X+d}", "G=${#X}", "H=${X/a/b}"),
     env={"X": "xv"},
     expect=[("A", "xv"), ("B", ""), ("C", ""), ("D", ""), ("E", ""), ("F", ""), ("G", ""), ("H", "")])

case("exp_unterminated_brace", "an unterminated ${ stays literal",
     conf=L("A=${X", "B=a${X", "C=${", "D=${X:", "E=${X:-", "F=${X:-d", "G=${U:+a"),
     env={"X": "xv"},
     expect=[("A", "${X"), ("B", "a${X"), ("C", "${"), ("D", "${X:"), ("E", "${X:-"), ("F", "${X:-d"),
             ("G", "${U:+a")])

case("exp_unterminated_after_good", "text before an unterminated ${ is still expanded",
     conf=L("A=$X ${X"), env={"X": "xv"},
     expect=[("A", "xv ${X")])

case("exp_default_unset", "${X:-w} gives w when X is unset",
     conf=L("A=${U:-word}", "B=${U:-two words}", "C=${U:-}", "D=x${U:-}y"),
     expect=[("A", "word"), ("B", "two words"), ("C", ""), ("D", "xy")])

case("exp_default_set", "${X:-w} gives X when set", conf=L("A=${X:-word}"), env={"X": "xv"},
     expect=[("A", "xv")])

case("exp_default_set_empty", "${X:-w} gives empty when X is set but empty (not what the man page says)",
     conf=L("A=${E:-word}", "B=[${E:-word}]"), env={"E": ""},
     expect=[("A", ""), ("B", "[]")])

case("exp_default_empty_from_file", "a variable set empty by an earlier expansion counts as set",
     conf=L("E=${UNSET}", "A=${E:-word}", "B=${E:+alt}"),
     expect=[("E", ""), ("A", ""), ("B", "alt")])

case("exp_alternate", "${X:+w} gives w when X is set, even empty; else empty",
     conf=L("A=${X:+alt}", "B=${E:+alt}", "C=${U:+alt}", "D=[${U:+alt}]"),
     env={"X": "xv", "E": ""},
     expect=[("A", "alt"), ("B", "alt"), ("C", ""), ("D", "[]")])

case("exp_default_recursive", "the default word is expanded",
     conf=L("A=${U:-$X}", "B=${U:-${X}}", "C=${U:-a${X}b$X}", "D=${X:+[$X]}", "E=${U:-$$}", "F=${U:-$U}"),
     env={"X": "xv"},
     expect=[("A", "xv"), ("B", "xv"), ("C", "axvbxv"), ("D", "[xv]"), ("E", "$"), ("F", "")])

case("exp_nested_defaults", "nested ${:-} and ${:+}",
     conf=L("A=${U:-${V:-deep}}", "B=${U:-${X:+in}}", "C=${X:+${U:-dd}}", "D=${U:-${V:-${W:-3}}}",
            "E=${X:+${X}-${X}}"),
     env={"X": "xv"},
     expect=[("A", "deep"), ("B", "in"), ("C", "dd"), ("D", "3"), ("E", "xv-xv")])

case("exp_brace_counting", "braces in the word nest by counting { and }",
     conf=L("A=${U:-a{b}c}", "B=${X:-{}}", "C=${U:-{x}}y", "D=${U:-}}", "E=${U:-a}b}c"),
     env={"X": "xv"},
     expect=[("A", "a{b}c"), ("B", "xv"), ("C", "{x}y"), ("D", "}"), ("E", "ab}c")])

case("exp_brace_unbalanced", "an unbalanced { in the word leaves the rest literal",
     conf=L("A=${U:-{}", "B=${U:-a{b}", "C=x${U:-{}$X"),
     env={"X": "xv"},
     expect=[("A", "${U:-{}"), ("B", "${U:-a{b}"), ("C", "x${U:-{}$X")])

case("exp_empty_name_default", "${:-w} takes the default (empty name is unset)",
     conf=L("A=${:-d}", "B=[${:+a}]"),
     expect=[("A", "d"), ("B", "[]")])

case("exp_unsupported_colon_forms", "${X:=w}, ${X:?w}, ${X:x}, ${X:} and ${X:0:2} stay literal",
     conf=L("A=${X:=w}", "B=${U:?err}", "C=${X:x}", "D=${X:}", "E=${X:0:2}", "F=${U:=w}"),
     env={"X": "xv"},
     expect=[("A", "${X:=w}"), ("B", "${U:?err}"), ("C", "${X:x}"), ("D", "${X:}"), ("E", "${X:0:2}"),
             ("F", "${U:=w}")])

case("exp_unsupported_upsets_later_default", "after an unsupported ':' form, a later ${:-} stays literal, "
     "and with it the rest of the value",
     conf=L("A=${X:=w}${U:-d}", "B=${X:x}${U:-d}$X", "C=${X:?e} ${X:+a} ${X}"),
     env={"X": "xv"},
     expect=[("A", "${X:=w}${U:-d}"), ("B", "${X:x}${U:-d}$X"), ("C", "${X:?e} ${X:+a} ${X}")])

case("exp_unsupported_plain_refs_still_work", "after an unsupported form, ${X} and $X still expand",
     conf=L("A=${X:x}${X}$X", "B=${U:=a} $X ${X}"),
     env={"X": "xv"},
     expect=[("A", "${X:x}xvxv"), ("B", "${U:=a} xv xv")])

case("exp_unsupported_extra_brace_rebalances", "a stray } after an unsupported form lets the next ${:-} close",
     conf=L("A=${X:x}${U:-d}}", "B=${X:x}}${U:-d}"),
     env={"X": "xv"},
     expect=[("A", "${X:x}d}"), ("B", "${X:x}}${U:-d}")])

case("exp_unsupported_next_line_unaffected", "the brace counting is per value: the next line is fine",
     conf=L("A=${X:x}", "B=${U:-d}"),
     env={"X": "xv"},
     expect=[("A", "${X:x}"), ("B", "d")])

case("exp_quoting_does_not_protect", "'$X', \\$X and \"\\$X\" all expand",
     conf=L("A='$X'", r"B=\$X", r'C="\$X"', "D='${X}'", 'E="$X"', r"F='\$X'"),
     env={"X": "xv"},
     expect=[("A", "xv"), ("B", "xv"), ("C", "xv"), ("D", "xv"), ("E", "xv"), ("F", "\\xv")])

case("exp_dollar_dollar_quoted", "$$ inside quotes is still the literal $",
     conf=L("A='$$X'", 'B="$$"', r"C=\$\$X"),
     env={"X": "xv"},
     expect=[("A", "$X"), ("B", "$"), ("C", "$X")])

case("exp_quotes_inside_default", "quotes inside an unquoted ${:-} are literal",
     conf=L('A=${U:-"q"}', "B=${U:-'a b'}", r"C=${U:-a\ b}", r"D=${U:-\$X}"),
     env={"X": "xv"},
     expect=[("A", '"q"'), ("B", "'a b'"), ("C", "a b"), ("D", "xv")])

case("exp_quoted_reference_then_text", "a quoted reference followed by an unquoted segment",
     conf=L('A="${U:-a}"b', "B='$X'\"$X\"$X"),
     env={"X": "xv"},
     expect=[("A", "ab"), ("B", "xvxvxv")])

case("exp_lookup_earlier_beats_base", "a value assigned earlier beats the base environment",
     conf=L("X=file", "A=$X"), env={"X": "base"},
     expect=[("X", "file"), ("A", "file")])

case("exp_lookup_base_before_assignment", "before its assignment, the base value is used",
     conf=L("A=$X", "X=file", "B=$X"), env={"X": "base"},
     expect=[("A", "base"), ("X", "file"), ("B", "file")])

case("exp_lookup_newest", "the newest assignment is used",
     conf=L("X=1", "X=2", "A=$X", "X=3", "B=$X"),
     expect=[("X", "3"), ("A", "2"), ("B", "3")])

case("exp_lookup_across_files", "values set in earlier files are visible",
     files={"usr": {"10-a.conf": L("A=usr")}, "etc": {"20-b.conf": L("B=$A-etc")},
            "user": {"30-c.conf": L("C=$B-user")}},
     expect=[("A", "usr"), ("B", "usr-etc"), ("C", "usr-etc-user")])

case("exp_lookup_later_file_not_yet", "values from later files are not visible yet",
     files={"etc": {"10.conf": L("A=[$B]"), "20.conf": L("B=late")}},
     expect=[("A", "[]"), ("B", "late")])

case("exp_self_reference", "A=$A:x appends to the earlier or base value",
     conf=L("P=$P:x", "Q=$Q:y", "Q=$Q:z"),
     env={"P": "base"},
     expect=[("P", "base:x"), ("Q", ":y:z")])

case("exp_no_reexpansion_base", "expanded text from the base is never expanded again",
     conf=L("A=$X", "B=${Y}"), env={"X": "$Y", "Y": "${X}"},
     expect=[("A", "$Y"), ("B", "${X}")])

case("exp_no_reexpansion_file", "a value holding a $ (from $$) is not expanded when referenced",
     conf=L("A=$$Y", "B=$A", "C=${U:-$A}", "D=${A:+$A}"), env={"Y": "y"},
     expect=[("A", "$Y"), ("B", "$Y"), ("C", "$Y"), ("D", "$Y")])

case("exp_default_not_evaluated_when_unused", "an unused default or alternate word has no effect",
     conf=L("A=${X:-$$$$}", "B=${U:+${V:-x}}"), env={"X": "xv"},
     expect=[("A", "xv"), ("B", "")])

case("exp_home", "the base environment is the process's: HOME", conf=L("A=$HOME/bin", "B=${HOME}"),
     expect=[("A", "{home}/bin"), ("B", "{home}")])

case("exp_path_prepend", "the common PATH prepend", conf=L("PATH=$HOME/bin:$PATH"),
     env={"PATH": "/usr/bin:/bin"},
     expect=[("PATH", "{home}/bin:/usr/bin:/bin")])

case("exp_path_unset", "PATH=$PATH:/x with PATH unset leaves an empty component",
     conf=L("PATH=$PATH:/opt/bin"),
     expect=[("PATH", ":/opt/bin")])

case("exp_path_twice", "two files prepending to PATH in turn",
     files={"usr": {"10.conf": L("PATH=/usr/lib/x:$PATH")}, "user": {"20.conf": L("PATH=$HOME/bin:${PATH}")}},
     env={"PATH": "/bin"},
     expect=[("PATH", "{home}/bin:/usr/lib/x:/bin")])

case("exp_base_not_in_result", "base variables not assigned by the files are not in the result",
     conf=L("A=$X"), env={"X": "1", "Y": "2"},
     expect=[("A", "1")])

case("exp_base_control_chars", "base values with tab and newline are copied as they are",
     conf=L("A=[$X]"), env={"X": "a\tb\nc"},
     expect=[("A", "[a\tb\nc]")])

case("exp_base_utf8", "UTF-8 from the base environment", conf=L("A=$X!"), env={"X": "\u00e9\U0001F600"},
     expect=[("A", "\u00e9\U0001F600!")])

case("exp_name_then_utf8", "a name ends at a non-ASCII byte", conf=L("A=$X\u00e9"), env={"X": "xv"},
     expect=[("A", "xv\u00e9")])

case("exp_empty_result_sets", "an expansion to empty sets an empty value, which then counts as set",
     files={"etc": {"10.conf": L("A=${U}")}, "usr": {"20.conf": L("B=${A-x}${A:-d}", "C=${A:+set}")}},
     expect=[("A", ""), ("B", ""), ("C", "set")])

case("exp_empty_result_overrides", "an expansion to empty overrides an earlier value (unlike A=)",
     conf=L("A=1", "A=$UNSET", "B=2", "B="),
     expect=[("A", ""), ("B", "2")])

case("exp_tilde_not_expanded", "no tilde expansion", conf=L("A=~/bin", "B=~", "C=$HOME/~"),
     expect=[("A", "~/bin"), ("B", "~"), ("C", "{home}/~")])

case("exp_no_command_substitution", "no command substitution or arithmetic",
     conf=L("A=$(id -u)", "B=`id -u`", "C=$((1+2))", "D=%h"),
     expect=[("A", "$(id -u)"), ("B", "`id -u`"), ("C", "$((1+2))"), ("D", "%h")])

case("exp_escaped_dollar_brace", "\\${X} unquoted is ${X}: expanded",
     conf=L(r"A=\${X}", r'B="\${X:-d}"'), env={"X": "xv"},
     expect=[("A", "xv"), ("B", "xv")])

case("exp_in_multiline_value", "expansion works across the lines of a quoted value",
     conf=L('A="$X', '${Y:-y}"'), env={"X": "xv"},
     expect=[("A", "xv\ny")])

case("exp_continuation_splits_name", "a continuation inside a name joins it before expansion",
     conf=L("A=$X\\", "Y"), env={"XY": "joined", "X": "no"},
     expect=[("A", "joined")])

case("exp_dollar_before_quote", "a $ right before a quote is literal",
     conf=L("A=$'x'", 'B=$"y"'),
     expect=[("A", "$'x'"), ("B", '$"y"')])

# ---- names that are invalid but present in the base environment --------------

case("exp_invalid_name_in_base_braceless", "$1x with a variable '1x' in the base gives empty (systemd >= 254)",
     conf=L("A=[$1x]"), env={"1x": "one"},
     deviation=V252 + "252 looks the invalid name up in its environment and gives 'one'.",
     expect=[("A", "[]")])

case("exp_invalid_name_in_base_braced", "${X-d} with a variable 'X-d' in the base gives empty (systemd >= 254)",
     conf=L("A=[${X-d}]"), env={"X-d": "dash"},
     deviation=V252 + "252 gives 'dash'.",
     expect=[("A", "[]")])

case("exp_invalid_name_in_base_default", "${1x:-d} and ${1x:+a} treat the invalid name as unset (systemd >= 254)",
     conf=L("A=${1x:-d}", "B=[${1x:+a}]"), env={"1x": "one"},
     deviation=V252 + "252 gives 'one' and 'a'.",
     expect=[("A", "d"), ("B", "[]")])

# ===========================================================================
# More file kinds
# ===========================================================================

case("case_sensitive_basenames", "A.conf and a.conf are different names: both read, no masking",
     files={"etc": {"A.conf": L("U=upper")}, "usr": {"a.conf": L("L=lower")}},
     expect=[("U", "upper"), ("L", "lower")])

case("symlink_loop", "a symlink loop reads nothing but masks",
     files={"etc": {"a.conf": Symlink("a.conf"), "b.conf": L("B=1")}, "usr": {"a.conf": L("A=usr")}},
     expect=[("B", "1")])

case("symlink_to_dev_zero", "a symlink to /dev/zero: nothing (systemd: NUL bytes; envd: not a regular file)",
     files={"etc": {"a.conf": Symlink("/dev/zero"), "b.conf": L("B=1")}, "usr": {"a.conf": L("A=usr")}},
     expect=[("B", "1")])

case("socket_named_conf", "a socket named *.conf reads nothing but masks",
     files={"etc": {"a.conf": Socket(), "b.conf": L("B=1")}, "usr": {"a.conf": L("A=usr")}},
     expect=[("B", "1")])

case("debian_etc_environment", "Debian's 99-environment.conf link to /etc/environment, parsed as env-file syntax",
     files={"usr": {"99-environment.conf": Symlink("../../../etc/environment")},
            "etc": {"50-site.conf": L("SITE=1")}},
     etc_environment=L("# /etc/environment", 'LANG="en_US.UTF-8"', "PATH=/usr/local/bin:/usr/bin:/bin",
                       "export NOPE=1", "http_proxy='http://proxy:3128/'"),
     expect=[("SITE", "1"), ("LANG", "en_US.UTF-8"), ("PATH", "/usr/local/bin:/usr/bin:/bin"),
             ("http_proxy", "http://proxy:3128/")])

case("debian_etc_environment_masked", "the admin masks Debian's link with /etc/environment.d/99-environment.conf",
     files={"usr": {"99-environment.conf": Symlink("../../../etc/environment")},
            "etc": {"99-environment.conf": DEVNULL}},
     etc_environment=L("LANG=C"),
     expect=[])

case("weird_file_names", "file names with blanks, tabs, newlines and UTF-8 sort as bytes",
     files={"etc": {"a b.conf": L("O=${O}1"), "a\tb.conf": L("O=${O}2"), "a\nb.conf": L("O=${O}3"),
                    "a\u00e9.conf": L("O=${O}4"), "a=b.conf": L("O=${O}5")}},
     expect=[("O", "23154")])

case("c1_control_in_value", "C1 controls and line/paragraph separators are ordinary UTF-8",
     conf=L("A=x\u0085y", "B=\u2028\u2029", "C=\u200b"),
     expect=[("A", "x\u0085y"), ("B", "\u2028\u2029"), ("C", "\u200b")])

case("cr_in_key", "a CR in the middle of a key ends the line: both halves are dropped", conf=b"AB\rCD=1\nE=2\n",
     expect=[("CD", "1"), ("E", "2")])

case("empty_value_cr_only", "'A=' ended by a lone CR", conf=b"A=\rB=1\r",
     expect=[("B", "1")])

case("double_quote_continuation_only", "a double-quoted backslash-newline alone is an empty value",
     conf=L('A="\\', '"', "B=1"),
     expect=[("B", "1")])

case("escaped_quote_unquoted_start", "a value starting with an escaped quote is unquoted",
     conf=L("A=\\'x'", 'B=\\"y"'),
     expect=[("A", "'x'"), ("B", '"y"')])

case("escape_after_quote_trailing_blank", "an escaped blank after a quote, then trailing blanks",
     conf=L('A="a" \\   '),
     expect=[("A", "a ")])

case("exp_default_with_colon_dash", "the word of ${:-} may hold ':' and '-' and '+'",
     conf=L("A=${U:-a:b}", "B=${U:--}", "C=${U:-:-}", "D=${X:+-+}", "E=${U:-x:-y}"),
     env={"X": "xv"},
     expect=[("A", "a:b"), ("B", "-"), ("C", ":-"), ("D", "-+"), ("E", "x:-y")])

case("exp_unsupported_inside_default", "an unsupported form inside a used default word stays literal",
     conf=L("A=${U:-${V:x}}", "B=${U:-[${X:=q}]}"),
     env={"X": "xv"},
     expect=[("A", "${V:x}"), ("B", "[${X:=q}]")])

case("exp_unterminated_inside_default", "an unbalanced inner reference makes the whole reference literal",
     conf=L("A=${U:-${V}", "B=${U:-$X"),
     env={"X": "xv"},
     expect=[("A", "${U:-${V}"), ("B", "${U:-$X")])

case("exp_case_sensitive", "names are case-sensitive", conf=L("A=[$home][$Home][$HOME]"),
     expect=[("A", "[][][{home}]")])

case("exp_nesting_31", "31 nested ${U:-...}, all evaluated",
     conf=L("A=" + "${U:-" * 31 + "deep" + "}" * 31),
     expect=[("A", "deep")])

case("exp_nesting_32", "32 nested ${U:-...}, all evaluated (envd's documented nesting limit is 32)",
     conf=L("A=" + "${U:-" * 32 + "deep" + "}" * 32),
     expect=[("A", "deep")])

case("exp_nesting_unevaluated", "deep nesting that is never evaluated (the default is not used)",
     conf=L("A=${X:-" + "${U:-" * 60 + "deep" + "}" * 61),
     env={"X": "xv"},
     expect=[("A", "xv")])

case("exp_many_references", "a value with 2000 references",
     conf=L("A=" + "$X" * 2000), env={"X": "ab"},
     expect=[("A", "ab" * 2000)])

# ===========================================================================
# Deliberate deviations: limits, policy, permissions
# ===========================================================================

LIMIT = "envd bounds what a user controls (DEVELOPING.md, Limits); systemd has no such bound here: "
POLICY = ("envd applies its name policy to user files (SECURITY.md): loader, shell start-up, "
          "interpreter and session identity variables from the user directory are refused; "
          "systemd's generator sets them.")
UNSAFE = ("envd skips group- or world-writable files and directories (SECURITY.md); "
          "systemd does not check.")

case("limit_entry_boundary", "NAME=VALUE of exactly 128 KiB - 1 bytes is kept",
     conf=L("A=" + "x" * (128 * 1024 - 3), "B=2"),
     expect=[("A", "x" * (128 * 1024 - 3)), ("B", "2")])

case("limit_entry_over", "NAME=VALUE of 128 KiB is skipped",
     conf=L("A=" + "x" * (128 * 1024 - 2), "B=2"),
     deviation=LIMIT + "an assignment over the kernel's per-string limit (128 KiB with its NUL) is skipped.",
     expect=[("B", "2")])

case("limit_entry_over_by_expansion", "an expansion making NAME=VALUE too long is skipped",
     conf=L("X=" + "x" * 70000, "A=$X$X", "B=2"),
     deviation=LIMIT + "an assignment over the kernel's per-string limit (128 KiB with its NUL) is skipped.",
     expect=[("X", "x" * 70000), ("B", "2")])

case("limit_result_total", "the whole result is capped at 1 MiB of NAME=VALUE\\0",
     files={"etc": {"%02d.conf" % i: L("V%d=" % i + "v" * 120000) for i in range(10)}},
     deviation=LIMIT + "assignments that would take the result over 1 MiB are skipped.",
     expect=[("V%d" % i, "v" * 120000) for i in range(8)])

case("limit_file_boundary", "a file of exactly 1 MiB is read",
     files={"etc": {"a.conf": b"A=1\n" + b"#" * (1024 * 1024 - 5) + b"\n"}},
     expect=[("A", "1")])

case("limit_file_over", "a file over 1 MiB is skipped (and still masks)",
     files={"etc": {"a.conf": b"A=1\n" + b"#" * (1024 * 1024 - 4) + b"\n", "b.conf": L("B=2")},
            "usr": {"a.conf": L("A=usr")}},
     deviation=LIMIT + "files over 1 MiB are skipped (systemd: over 64 MiB).",
     expect=[("B", "2")])

case("limit_expansion_budget", "at most 32 MiB are substituted by expansion in one load",
     conf=L("X=" + "x" * 120000, *(["Y=$X"] * 300), "Z=$X", "W=plain"),
     deviation=LIMIT + "once 32 MiB have been substituted, later expansions are skipped.",
     expect=[("X", "x" * 120000), ("Y", "x" * 120000), ("W", "plain")])

case("limit_nesting_over", "40 nested ${U:-...}, all evaluated",
     conf=L("A=" + "${U:-" * 40 + "deep" + "}" * 40, "B=2"),
     deviation=LIMIT + "an assignment nesting ${X:-...} deeper than 32 is skipped.",
     expect=[("B", "2")])

case("policy_user_refused", "loader and shell variables from the user directory",
     files={"user": {"a.conf": L("LD_PRELOAD=/tmp/evil.so", "BASH_ENV=/tmp/x", "PYTHONPATH=/tmp",
                                 "XDG_RUNTIME_DIR=/tmp", "PATH=/opt/bin:$PATH", "EDITOR=vi")}},
     env={"PATH": "/bin"},
     deviation=POLICY,
     expect=[("PATH", "/opt/bin:/bin"), ("EDITOR", "vi")])

case("policy_system_allowed", "the same names from a system directory are set by both",
     files={"etc": {"a.conf": L("LD_PRELOAD=/usr/lib/x.so", "BASH_ENV=/etc/bashenv")}},
     expect=[("LD_PRELOAD", "/usr/lib/x.so"), ("BASH_ENV", "/etc/bashenv")])

case("policy_user_refused_still_expands_system", "a refused user assignment does not hide the system value",
     files={"etc": {"10.conf": L("GIT_SSH=/usr/bin/ssh")}, "user": {"20.conf": L("GIT_SSH=/tmp/evil", "G=$GIT_SSH")}},
     deviation=POLICY,
     expect=[("GIT_SSH", "/usr/bin/ssh"), ("G", "/usr/bin/ssh")])

case("unsafe_world_writable_file", "a world-writable file in a system directory",
     files={"etc": {"a.conf": File(L("A=1"), 0o666), "b.conf": L("B=2")}},
     deviation=UNSAFE, expect=[("B", "2")])

def own_group_private():
    """Whether the running user's primary group is a user-private group as
    envd judges it (lib/ids.c envd_group_private): not root's, named as the
    user, no member but the user, and the account of that name is the user
    with that primary group, and no other local account has it as its
    primary group.  Group write by it is then accepted, as
    systemd accepts it; any other group's is refused."""
    uid, gid = os.getuid(), os.getgid()
    if gid == 0:
        return False
    try:
        me = pwd.getpwuid(uid).pw_name
        group = grp.getgrgid(gid)
        named = pwd.getpwnam(group.gr_name)
    except KeyError:
        return False
    if group.gr_name != me or any(m != me for m in group.gr_mem):
        return False
    if named.pw_uid != uid or named.pw_gid != gid:
        return False
    return not any(p.pw_gid == gid and p.pw_uid != uid for p in pwd.getpwall())


# The files the corpus makes belong to the runner's primary group: where
# that is a user-private group (a build user's, umask 002 on Fedora), envd
# reads a group-writable user file or directory as systemd does.
UPG = own_group_private()
GROUP_WRITABLE = {} if UPG else {"deviation": UNSAFE}

case("unsafe_group_writable_user_file", "a group-writable file in the user directory",
     files={"user": {"a.conf": File(L("A=1"), 0o664), "b.conf": L("B=2")}},
     expect=[("A", "1"), ("B", "2")] if UPG else [("B", "2")], **GROUP_WRITABLE)

case("unsafe_world_writable_system_dir", "a world-writable system directory",
     files={"run": Dir({"a.conf": L("A=1")}, 0o777), "etc": {"b.conf": L("B=2")}},
     deviation=UNSAFE, expect=[("B", "2")])

case("unsafe_group_writable_user_dir", "a group-writable user directory",
     files={"home": {".config": Dir({"environment.d": Dir({"a.conf": L("A=1")}, 0o775)})},
            "etc": {"b.conf": L("B=2")}},
     expect=[("A", "1"), ("B", "2")] if UPG else [("B", "2")], **GROUP_WRITABLE)

case("unsafe_others_writable_user_file", "a file in the user directory writable by others",
     files={"user": {"a.conf": File(L("A=1"), 0o646), "b.conf": L("B=2")}},
     deviation=UNSAFE, expect=[("B", "2")])

case("exp_odd_braced_names", "${ X }, ${\u00e9} and ${X.Y} are invalid names: empty; $\u00e9 stays literal",
     conf=L("A=[${ X }]", "B=[${\u00e9}]", "C=[${X.Y}]", "D=[$\u00e9]"),
     env={"X": "xv"},
     expect=[("A", "[]"), ("B", "[]"), ("C", "[]"), ("D", "[$\u00e9]")])

case("xdg_unnormalized", "XDG_CONFIG_HOME with . and .. components is used as it is",
     files={"xdg": {"a.conf": L("A=xdg")}},
     env={"XDG_CONFIG_HOME": "{case}/./xdg/../xdg"},
     expect=[("A", "xdg")])

case("continuation_chain_empty_lines", "backslash-newlines in a row join into one value",
     conf=b"A=\\\n\\\nx\\\n\\\ny\nB=2\n",
     expect=[("A", "xy"), ("B", "2")])

case("quote_in_key", "a quote in the key position is part of the (invalid) key", conf=L('"A=1"', "'B'=2", "C=3"),
     expect=[("C", "3")])

# ===========================================================================
# Issue 25: the lines `envd check` reports because systemd reads them
# otherwise than they look, and a user value that a system file read later
# replaces (tests/e2e/golden_check.sh pins what check says about each).
# ===========================================================================

case("issue25_no_equals", "'EDITOR vim' has no '=': the line is ignored",
     files={"user": {"50-a.conf": L("EDITOR vim", "B=1")}},
     expect=[("B", "1")])

case("issue25_quote_then_comment", "'\"hello world\"  # c': the blanks dropped, '# c' joined to the value",
     files={"user": {"50-a.conf": L('GREETING="hello world"  # c')}},
     expect=[("GREETING", "hello world# c")])

case("issue25_quotes_joined", "two quoted parts with blanks between them are joined without the blanks",
     files={"user": {"50-a.conf": L("T='single'   'joined'")}},
     expect=[("T", "singlejoined")])

case("issue25_shell_default_forms", "${X-d}, ${X+d}, ${X=d}, ${X?d} expand to nothing, X set or not",
     files={"user": {"50-a.conf": L("A=${X-default}", "B=${X+alt}", "C=${X=d}", "D=${X?e}",
                                    "E=${U-default}")}},
     env={"X": "xv"},
     expect=[("A", ""), ("B", ""), ("C", ""), ("D", ""), ("E", "")])

case("issue25_inner_quote", "a quote inside an unquoted value is kept as a character",
     files={"user": {"50-a.conf": L('C=$HOME/"my dir"', "U=a'b'")}},
     expect=[("C", '{home}/"my dir"'), ("U", "a'b'")])

case("issue25_unterminated", "NAME=\"unterminated takes the rest of the file",
     files={"user": {"50-a.conf": L('NAME="unterminated', "B=1")}},
     expect=[("NAME", "unterminated\nB=1\n")])

case("issue25_xdg_data_dirs_unset", "XDG_DATA_DIRS=...:$XDG_DATA_DIRS with it unset loses the defaults",
     files={"user": {"50-a.conf": L("XDG_DATA_DIRS=$HOME/.local/share/flatpak/exports/share:$XDG_DATA_DIRS",
                                    "FIXED=$HOME/x:${XDG_DATA_DIRS_UNSET:-/usr/local/share:/usr/share}")}},
     expect=[("XDG_DATA_DIRS", "{home}/.local/share/flatpak/exports/share:"),
             ("FIXED", "{home}/x:/usr/local/share:/usr/share")])

case("issue25_system_replaces_user", "a system file whose name sorts later replaces the user's value",
     files={"user": {"10-path.conf": L("PATH=$HOME/.local/bin:$PATH"), "10-editor.conf": L("EDITOR=vim")},
            "etc": {"20-editor.conf": L("EDITOR=nano")},
            "usr": {"99-environment.conf": L('PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"')}},
     env={"PATH": "/bin"},
     expect=[("EDITOR", "nano"), ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")])

case("issue25_user_renamed_wins", "the fix: a user file named to sort later wins, ${PATH} keeps the system's",
     files={"user": {"zz-10-path.conf": L("PATH=$HOME/.local/bin:$PATH"), "zz-10-editor.conf": L("EDITOR=vim")},
            "etc": {"20-editor.conf": L("EDITOR=nano")},
            "usr": {"99-environment.conf": L('PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"')}},
     env={"PATH": "/bin"},
     expect=[("EDITOR", "vim"),
             ("PATH", "{home}/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")])

case("issue25_system_keeps_user", "a later system file with ${PATH} keeps the user's value in it",
     files={"user": {"10-path.conf": L("PATH=$HOME/.local/bin:$PATH")},
            "usr": {"99-path.conf": L("PATH=/opt/bin:${PATH}")}},
     env={"PATH": "/bin"},
     expect=[("PATH", "/opt/bin:{home}/.local/bin:/bin")])
