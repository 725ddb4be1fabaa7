"""Compare the machine code of two cubins kernel by kernel (a refactor that must not move speed).

    nvcc -std=c++17 -arch=sm_90 -I <old include> ... -cubin -o old.cubin some.cu
    nvcc -std=c++17 -arch=sm_90 -I lib/include ... -cubin -o new.cubin some.cu
    python3 scripts/cubin_text_diff.py old.cubin new.cubin

Reads both ELF64 files' section headers (standard library only) and compares every
`.text.<kernel>` section of the first with the same section of the second: prints how many
kernels there are, which differ (name and sizes) or are missing, and the non-code sections that
differ (the string table may, when an inlined helper's name changes). Exit status 0 when every
kernel's code is byte-identical, 1 otherwise. No GPU and no CUDA tool besides nvcc is needed
(the CUDA toolkit here has no cuobjdump).
"""

import struct
import sys


def sections(path):
    """{section name: bytes} of an ELF64 little-endian file (NOBITS sections: b"")."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"\x7fELF" or b[4] != 2:
        raise SystemExit("%s: not an ELF64 file" % path)
    shoff = struct.unpack_from("<Q", b, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    out = {}
    for h in headers:
        name = b[names_at + h[0]:b.index(b"\0", names_at + h[0])].decode()
        out[name] = b"" if h[1] == 8 else b[h[4]:h[4] + h[5]]
    return out


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    old, new = sections(argv[1]), sections(argv[2])
    kernels = [n for n in old if n.startswith(".text")]
    differ = [n for n in kernels if n in new and old[n] != new[n]]
    missing = [n for n in kernels if n not in new]
    added = [n for n in new if n.startswith(".text") and n not in old]
    other = [n for n in old if not n.startswith(".text") and old[n] != new.get(n)]
    print("%d kernels: %d identical, %d differ, %d missing in the second, %d new in the second"
          % (len(kernels), len(kernels) - len(differ) - len(missing), len(differ), len(missing), len(added)))
    for n in differ:
        print("  differs: %s (%d -> %d bytes)" % (n, len(old[n]), len(new[n])))
    for n in missing:
        print("  missing: %s" % n)
    if other:
        print("non-code sections that differ: %s" % ", ".join(other))
    return 0 if not differ and not missing else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
