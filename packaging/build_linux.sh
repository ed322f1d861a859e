#!/usr/bin/env bash
# Build the offline Linux installers: a one-folder app (PyInstaller), packed as a .tar.gz and a .deb.
# Usage (from anywhere): packaging/build_linux.sh      Output: dist/SequenceWorkbench-*.{tar.gz,deb}
set -euo pipefail
cd "$(dirname "$0")/.."
make setup
.venv/bin/python -m pip install -q -c constraints.txt "pyinstaller>=6.5"
.venv/bin/pyinstaller packaging/workbench.spec --noconfirm --distpath dist --workpath build/pyinstaller
version=$(.venv/bin/python -c "import workbench; print(workbench.__version__)")
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
tar -C dist -czf "dist/SequenceWorkbench-${version}-linux-${arch}.tar.gz" SequenceWorkbench

# .deb: the app folder under /opt, a launcher on PATH, a desktop entry for the menus.
root=build/deb
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications"
cp -a dist/SequenceWorkbench "$root/opt/sequence-workbench"
ln -s /opt/sequence-workbench/SequenceWorkbench "$root/usr/bin/SequenceWorkbench"
cp packaging/linux/sequence-workbench.desktop "$root/usr/share/applications/"
cat > "$root/DEBIAN/control" <<CONTROL
Package: sequence-workbench
Version: ${version}
Architecture: ${arch}
Maintainer: Sequence Workbench team
Section: education
Priority: optional
Description: Train, inspect and write with sequence models of text (offline)
 RNN, LSTM, GRU and transformer language models and word embeddings, with live
 inspectors. Ships the Shakespeare corpus (Open Shakespeare / Open Knowledge Foundation).
CONTROL
dpkg-deb --root-owner-group --build "$root" "dist/sequence-workbench_${version}_${arch}.deb"
ls -lh dist/*.tar.gz dist/*.deb
