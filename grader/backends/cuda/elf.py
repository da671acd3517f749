"""The thread-local symbols of a compiled module, read from its ELF symbol table.

Static `__shared__` variables become `static thread_local` ones (see tclab_cuda.h), so their
sizes tell us each kernel's static shared memory (for the 48 KiB limit) and their offsets let
the runtime poison them at the start of every block. Pure Python: no binutils needed.
"""

from __future__ import annotations

import struct
from pathlib import Path

SHT_SYMTAB = 2
STT_TLS = 6


def tls_symbols(path: Path) -> list[tuple[str, int, int]]:
    """(name, offset in the TLS segment, size) of every thread-local symbol with a size."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []  # only 64-bit little-endian ELF is expected here
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    out = []
    for _name, type_, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if type_ != SHT_SYMTAB or not entsize:
            continue
        str_off = sections[link][4]
        for k in range(size // entsize):
            st_name, st_info, _other, _shndx, value, sym_size = struct.unpack_from(
                "<IBBHQQ", data, offset + k * entsize)
            if st_info & 0xF != STT_TLS or not sym_size:
                continue
            end = data.index(b"\0", str_off + st_name)
            out.append((data[str_off + st_name : end].decode(), value, sym_size))
    return out
