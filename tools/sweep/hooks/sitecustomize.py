# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""The sweep's recorder for Python (tools/sweep/run.sh puts this directory
on PYTHONPATH): every name looked up in os.environ or os.environb
(os.getenv, environ.get, [], in) is logged with the module that asked, and
at exit the file of every module loaded, for run.sh's source scan.  The
lookups site.py makes before this file is imported are not seen here; the
source scan finds those."""
import os
import sys

_log = os.environ.get("ENVD_SWEEP_LOG")
_skip = ("os", "_collections_abc", "collections.abc", __name__)


def _write(text):
    try:
        fd = os.open(_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except (OSError, TypeError):
        pass


def _caller():
    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__") in _skip:
        f = f.f_back
    return f.f_globals.get("__name__", "?") if f is not None else "?"


def _hook():
    cls = type(os.environ)
    getitem = cls.__getitem__

    copy = cls.copy
    wholesale = []

    def __getitem__(self, key):
        # items() and values() walk every name: no lookup of one
        up = sys._getframe(1)
        if not wholesale and not (
            up.f_code.co_name == "__iter__" and up.f_globals.get("__name__") in _skip
        ):
            name = key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
            _write("environ\t%s\tpython3:%s\n" % (name, _caller()))
        return getitem(self, key)

    def copy_(self):
        wholesale.append(1)
        try:
            return copy(self)
        finally:
            wholesale.pop()

    cls.__getitem__ = __getitem__
    cls.copy = copy_


def _loaded():
    lines = []
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if isinstance(f, str) and f.endswith(".py"):
            lines.append("load\tpython3\t%s\n" % os.path.abspath(f))
    _write("".join(lines))


if _log:
    import atexit

    _hook()
    atexit.register(_loaded)
