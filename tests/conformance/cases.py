"""The environment.d conformance corpus.

Each case lays out files in the directories environment.d reads and says
what must come out.  Directory keys:

  user      $HOME/.config/environment.d
  xdg       {xdg}/environment.d (used when XDG_CONFIG_HOME={xdg}, absolute)
  etc       /etc/environment.d
  run       /run/environment.d
  usrlocal  /usr/local/lib/environment.d
  usr       /usr/lib/environment.d

A directory maps basenames to bytes (file content), Symlink(target),
Dir({...}) or, for a whole system directory, MISSING.  Environment values
may use {home}, {xdg} and {case}, replaced by the case's paths.

expect: the ordered (name, value) list.  For an ordinary case it is checked
against systemd's generator (which wins any disagreement; the runner reports
one as a corpus error) and documents the behaviour.  For a deviation it is
what envd must produce while the generator differs.
"""


class Symlink:
    def __init__(self, target):
        self.target = target

    def __repr__(self):
        return "symlink -> %s" % self.target


class Dir:
    def __init__(self, entries=None):
        self.entries = entries or {}

    def __repr__(self):
        return "directory %r" % (self.entries,) if self.entries else "directory"


class _Missing:
    def __repr__(self):
        return "MISSING"


MISSING = _Missing()
DEVNULL = Symlink("/dev/null")
DANGLING = Symlink("no-such-file-anywhere")


class Case:
    def __init__(self, name, description, files, env, expect, deviation, no_home):
        self.name = name
        self.description = description
        self.files = files
        self.env = env
        self.expect = expect
        self.deviation = deviation
        self.no_home = no_home


CASES = []


def case(name, description, conf=None, files=None, env=None, expect=None, deviation=None,
         no_home=False):
    """conf: content of etc/50-case.conf (shorthand for one file)."""
    files = dict(files or {})
    if conf is not None:
        files.setdefault("etc", {})["50-case.conf"] = conf
    if deviation is not None and expect is None:
        raise ValueError("%s: a deviation needs an expect list" % name)
    CASES.append(Case(name, description, files, list((env or {}).items()), expect, deviation, no_home))


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
