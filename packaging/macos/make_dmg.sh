#!/usr/bin/env bash
# Pack dist/SequenceWorkbench.app (built by `pyinstaller packaging/workbench.spec` on a Mac) into
# a .dmg that opens on the app beside a link to /Applications, the layout Mac users expect.
# Usage (from anywhere, on macOS): packaging/macos/make_dmg.sh
# Output: dist/SequenceWorkbench-VERSION-macos-ARCH.dmg. The app is ad-hoc signed by PyInstaller,
# not notarised: the first start needs right-click > Open (packaging/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' workbench/__init__.py)
arch=$(uname -m)
stage=build/dmg
rm -rf "$stage"
mkdir -p "$stage"
cp -R dist/SequenceWorkbench.app "$stage/"
ln -s /Applications "$stage/Applications"
hdiutil create -volname "Sequence Workbench" -srcfolder "$stage" -ov -format UDZO \
    "dist/SequenceWorkbench-${version}-macos-${arch}.dmg"
ls -lh dist/*.dmg
