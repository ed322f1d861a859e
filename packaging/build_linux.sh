#!/usr/bin/env bash
# Build the offline Linux installers: a one-folder app (PyInstaller), packed as a .tar.gz and a .deb.
# Usage (from anywhere): packaging/build_linux.sh      Output: dist/SequenceWorkbench-*.{tar.gz,deb}
# Then check them: packaging/check_linux.py (see packaging/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
make setup
.venv/bin/python -m pip install -q -c constraints.txt "pyinstaller>=6.5"
.venv/bin/pyinstaller packaging/workbench.spec --noconfirm --distpath dist --workpath build/pyinstaller
app=dist/SequenceWorkbench

# Many libraries ship with their symbol tables, for debugging only: stripping them saves
# ~150 MB (torch's alone ~100 MB). Not the libraries auditwheel vendored into *.libs folders,
# nor the extensions it patched to load them (an RPATH naming a .libs folder): patchelf's
# layout breaks under strip ("ELF load command address/offset not page-aligned").
find "$app/_internal" -type f \( -name "*.so" -o -name "*.so.*" \) ! -path "*.libs/*" -print0 |
    while IFS= read -r -d '' lib; do
        if readelf -d "$lib" 2>/dev/null | grep -qE 'R(UN)?PATH.*\.libs'; then continue; fi
        strip --strip-unneeded "$lib"
    done

# Libraries only the spec's dropped binaries needed, and the ICU data Qt never reads (~26 MB).
.venv/bin/python packaging/linux/slim_bundle.py "$app"

# Identical files (the libgfortran, libquadmath and libgomp that numpy, scipy, scikit-learn and
# openTSNE each vendor; the plays both corpora hold) become hard links to one copy.
hardlink --quiet "$app"

version=$(.venv/bin/python -c "import workbench; print(workbench.__version__)")
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
tar -C dist -czf "dist/SequenceWorkbench-${version}-linux-${arch}.tar.gz" SequenceWorkbench

# .deb: the app folder under /opt, a launcher on PATH, a desktop entry for the menus.
root=build/deb
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications"
cp -a "$app" "$root/opt/sequence-workbench"
ln -s /opt/sequence-workbench/SequenceWorkbench "$root/usr/bin/SequenceWorkbench"
cp packaging/linux/sequence-workbench.desktop "$root/usr/share/applications/"
installed_kb=$(du -sk "$root" | cut -f1)
# The system libraries Qt's X11 platform needs and the bundle does not hold (a fresh Debian and a
# stock Ubuntu lack some): the list the app itself names when one is missing.
depends=$(.venv/bin/python -c "from workbench.app.x11_libraries import ALL_DEBIAN; print(', '.join(ALL_DEBIAN))")
cat > "$root/DEBIAN/control" <<CONTROL
Package: sequence-workbench
Version: ${version}
Architecture: ${arch}
Maintainer: Sequence Workbench team
Section: education
Priority: optional
Installed-Size: ${installed_kb}
Depends: ${depends}
Description: Train, inspect and write with sequence models of text (offline)
 RNN, LSTM, GRU and transformer language models and word embeddings, with live
 inspectors. Ships the Shakespeare corpus (Open Shakespeare / Open Knowledge Foundation).
CONTROL
dpkg-deb --root-owner-group --build "$root" "dist/sequence-workbench_${version}_${arch}.deb"
du -sh "$app"
ls -lh dist/*.tar.gz dist/*.deb
