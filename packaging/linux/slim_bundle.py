#!/usr/bin/env python3
"""Shrink the built Linux app folder after PyInstaller: two cuts the spec cannot make.

Usage (build_linux.sh runs it after stripping): slim_bundle.py dist/SequenceWorkbench

1. Libraries nothing loads any more. PyInstaller collected each system library because some
   collected binary needed it; the spec then dropped binaries (Qt's network module, the GTK
   platform theme), which leaves their libraries (Kerberos, cairo, pango...) behind. A library
   in the top folder that no remaining binary needs, directly or through others, is removed.
2. ICU's data. Qt Core calls ICU only to convert legacy encodings, collate, name time zones and
   change case (its undefined `*_73` symbols: ucnv_*, ucol_*, ucal_*, u_strTo*); the rest of
   libicudata (break-iterator dictionaries, unit/currency/language/region names,
   transliteration, number spell-out, Unicode character names, StringPrep profiles) is
   dropped with ICU's own `icupkg`, and the library is rebuilt around the smaller archive.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# ICU data items (folders or files of the archive) that no ucnv/ucol/ucal/case call reads
ICU_UNUSED = re.compile(r"^(brkitr|unit|curr|lang|region|translit|rbnf)/|^unames\.icu$|"
                        r"\.spp$|^confusables\.cfu$")
ICU_LIBRARY = re.compile(r"libicudata\.so\.(\d+)$")
ICUPKG = shutil.which("icupkg") or shutil.which("icupkg", path="/usr/sbin:/sbin")  # icu-devtools


def needed_libraries(binary: Path) -> list[str]:
    """The DT_NEEDED names of an ELF file (empty for anything readelf cannot read)."""
    done = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", done.stdout)


def unreachable(needed: dict[str, list[str]], roots: list[str]) -> set[str]:
    """Names in `needed` that no root reaches through its needed libraries (by file name)."""
    by_name: dict[str, list[str]] = {}
    for path in needed:
        by_name.setdefault(Path(path).name, []).append(path)
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in needed.get(path, []):
            stack.extend(by_name.get(name, []))
    return set(needed) - seen


def orphaned_libraries(internal: Path) -> list[Path]:
    """Top-folder libraries that no extension module, package library, Qt plugin or the
    Python library needs, directly or indirectly."""
    binaries = [p for p in internal.rglob("*.so*") if p.is_file() and not p.is_symlink()]
    needed = {str(p): needed_libraries(p) for p in binaries}
    top = {str(p) for p in binaries if p.parent == internal}
    roots = [path for path in needed if path not in top or "libpython" in Path(path).name]
    return sorted(Path(path) for path in unreachable(needed, roots) & top)


def unused_icu_items(items: list[str]) -> list[str]:
    return [item for item in items if ICU_UNUSED.search(item)]


def trim_icu_data(library: Path, work: Path) -> int:
    """Rebuild libicudataNN without the unused items; returns the bytes saved."""
    version = ICU_LIBRARY.search(library.name)[1]
    archive = work / f"icudt{version}l.dat"
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.rodata", str(library),
                    str(archive)], check=True)
    listing = subprocess.run([ICUPKG, "-l", str(archive)], capture_output=True, text=True,
                             check=True).stdout.split()
    unused = unused_icu_items(listing)
    (work / "unused.txt").write_text("\n".join(unused) + "\n")
    subprocess.run([ICUPKG, "-r", str(work / "unused.txt"), str(archive)], check=True,
                   stdout=subprocess.DEVNULL)
    # the one symbol libicuuc looks up, 16-byte aligned as ICU's own build emits it
    source = work / "icudata.S"
    source.write_text(f""".section .rodata
.balign 16
.globl icudt{version}_dat
.type icudt{version}_dat, @object
icudt{version}_dat:
.incbin "{archive}"
.size icudt{version}_dat, . - icudt{version}_dat
.section .note.GNU-stack,"",@progbits
""")
    rebuilt = work / library.name
    subprocess.run(["cc", "-shared", "-nostdlib", f"-Wl,-soname,{library.name}", "-o",
                    str(rebuilt), str(source)], check=True)
    before = library.stat().st_size
    shutil.copyfile(rebuilt, library)
    return before - library.stat().st_size


def main(app: Path) -> int:
    internal = app / "_internal"
    if not internal.is_dir():
        print(f"No {internal}: build the app first.", file=sys.stderr)
        return 2
    orphans = orphaned_libraries(internal)
    freed = sum(p.stat().st_size for p in orphans)
    for path in orphans:
        path.unlink()
    print(f"removed {len(orphans)} libraries nothing loads ({freed / 1e6:.1f} MB): "
          + " ".join(p.name for p in orphans))
    dangling = [p for p in internal.rglob("*") if p.is_symlink() and not p.exists()]
    for link in dangling:  # links PyInstaller made to the Qt libraries the spec dropped
        link.unlink()
    print(f"removed {len(dangling)} links to dropped files: " + " ".join(p.name for p in dangling))
    for library in (p for p in internal.rglob("libicudata.so.*") if not p.is_symlink()):
        if not ICUPKG:
            print("icupkg not found (apt-get install icu-devtools): ICU's data stays whole, "
                  f"{library.stat().st_size / 1e6:.0f} MB")
            continue
        with tempfile.TemporaryDirectory(prefix="icu-trim-") as work:
            saved = trim_icu_data(library, Path(work))
        print(f"{library.name}: {saved / 1e6:.1f} MB of unused ICU data removed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    sys.exit(main(Path(sys.argv[1])))
