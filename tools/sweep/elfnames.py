#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""tools/sweep/elfnames.py FILE... - the environment names each file reads,
one "NAME<TAB>METHOD<TAB>FILE" line each (tools/sweep/packages.sh runs it).

ELF objects (x86-64): the getenv call sites.  An object that imports or
defines one of the lookup functions (getenv, secure_getenv and the
wrappers below) is disassembled with objdump; at each call of one (or a
tail jump to it), the string its first argument (%rdi) was last loaded
with in that function, by a rip-relative lea or an absolute mov, is read
from the object's own sections.  That is what the compiler makes of
getenv("NAME") with a literal; a name built at run time or passed in a
variable is not seen (the method's limit, stated in packages.sh).

Interpreted files (Python, Perl, Ruby, JavaScript, by suffix or #! line):
the literal lookups os.environ["X"], os.environ.get("X"), os.getenv("X"),
$ENV{X}, ENV["X"], ENV.fetch("X"), process.env.X and their spellings.
"""
import re
import struct
import subprocess
import sys

LOOKUPS = {
    "getenv", "secure_getenv", "__secure_getenv", "__libc_secure_getenv",
    "g_getenv", "PR_GetEnv", "PR_GetEnvSecure", "safe_getenv", "curl_getenv", "Curl_getenv",
    "_dbus_getenv", "getenv_bool", "getenv_bool_secure", "k5_secure_getenv",
}
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{1,63}$")
CALL = re.compile(r"\s(?:call|jmp)q?\s+[0-9a-f]+ <([A-Za-z_][\w.]*?)(?:@plt)?(?:\+0x[0-9a-f]+)?>")
LEA = re.compile(r"\slea\s+-?0x[0-9a-f]+\(%rip\),%(rdi|edi)\s+# ([0-9a-f]+)")
MOVABS = re.compile(r"\smov[lq]?\s+\$0x([0-9a-f]+),%(rdi|edi)$")
DEST_RDI = re.compile(r",%(rdi|edi|di|dil)$")
FUNC = re.compile(r"^[0-9a-f]+ <.*>:$")

SCRIPT = re.compile(r"\.(py|pm|pl|rb|js|mjs|cjs)$")
SHEBANG = re.compile(rb"^#!.*\b(python[0-9.]*|perl|ruby[0-9.]*|node)\b")
Q = r"""["']([A-Za-z_][A-Za-z0-9_]*)["']"""
SOURCE = [
    ("python", re.compile(r"\b(?:os\.)?environ(?:b)?(?:\.get|\.pop|\.setdefault)?\s*[\[(]\s*b?" + Q)),
    ("python", re.compile(r"\bos\.getenvb?\s*\(\s*" + Q)),
    ("python", re.compile(Q + r"\s+(?:not\s+)?in\s+(?:os\.)?environ\b")),
    ("perl", re.compile(r"\$ENV\s*\{\s*[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?\s*\}")),
    ("ruby", re.compile(r"\bENV(?:\.fetch|\.key\?|\.include\?|\.has_key\?)?\s*[\[(]\s*" + Q)),
    ("node", re.compile(r"\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]*)")),
    ("node", re.compile(r"\bprocess\.env\[\s*" + Q)),
]


class Elf:
    """The allocated sections of a little-endian ELF64 object, and its
    dynamic symbol names."""

    def __init__(self, data):
        self.data = data
        (self.shoff,) = struct.unpack_from("<Q", data, 0x28)
        self.shentsize, self.shnum = struct.unpack_from("<HH", data, 0x3A)
        self.sections = []
        for i in range(self.shnum):
            off = self.shoff + i * self.shentsize
            if off + 64 > len(data):
                break
            (_, typ, flags, addr, offset, size, link, _, _, entsize) = struct.unpack_from(
                "<IIQQQQIIQQ", data, off)
            self.sections.append((typ, flags, addr, offset, size, link, entsize))

    def dynsyms(self):
        names = set()
        for typ, _, _, offset, size, link, entsize in self.sections:
            if typ not in (2, 11) or not entsize or link >= len(self.sections):
                continue  # SHT_SYMTAB, SHT_DYNSYM
            stroff = self.sections[link][3]
            for i in range(size // entsize):
                (name,) = struct.unpack_from("<I", self.data, offset + i * entsize)
                end = self.data.find(b"\0", stroff + name)
                names.add(self.data[stroff + name:end].decode("ascii", "replace"))
        return names

    def string_at(self, vaddr):
        for typ, flags, addr, offset, size, _, _ in self.sections:
            if flags & 2 and typ != 8 and addr <= vaddr < addr + size:  # SHF_ALLOC, not NOBITS
                start = offset + (vaddr - addr)
                end = self.data.find(b"\0", start, start + 65)
                if end < 0:
                    return None
                return self.data[start:end].decode("ascii", "replace")
        return None


def elf_names(path, data):
    if data[4:6] != b"\x02\x01" or struct.unpack_from("<H", data, 0x12)[0] != 62:
        return set()  # only ELF64, little-endian, x86-64
    elf = Elf(data)
    if not LOOKUPS & elf.dynsyms():
        return set()
    found = set()
    rdi = None
    proc = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", "-M", "att", path],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            errors="replace")
    for line in proc.stdout:
        if FUNC.match(line):
            rdi = None
            continue
        if "%rdi" not in line and "%edi" not in line and "%di" not in line and \
                "call" not in line and "jmp" not in line:
            continue
        m = CALL.search(line)
        if m:
            if m.group(1) in LOOKUPS and rdi is not None:
                s = elf.string_at(rdi)
                if s and NAME.match(s):
                    found.add(s)
            if " call" in line:
                rdi = None
            continue
        line = line.rstrip()
        m = LEA.search(line)
        if m:
            rdi = int(m.group(2), 16)
            continue
        m = MOVABS.search(line)
        if m:
            rdi = int(m.group(1), 16)
            continue
        if DEST_RDI.search(line.split("#")[0].rstrip()):
            rdi = None
    proc.wait()
    return found


def source_names(data):
    found = set()
    text = data.decode("utf-8", "replace")
    for lang, rx in SOURCE:
        for m in rx.finditer(text):
            found.add((m.group(1), lang))
    return found


def main():
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as f:
                data = f.read(64 << 20)
        except OSError:
            continue
        if data[:4] == b"\x7fELF":
            for n in sorted(elf_names(path, data)):
                print(f"{n}\telf\t{path}")
        elif SCRIPT.search(path) or SHEBANG.match(data[:128]):
            for n, lang in sorted(source_names(data)):
                print(f"{n}\t{lang}\t{path}")


if __name__ == "__main__":
    main()
