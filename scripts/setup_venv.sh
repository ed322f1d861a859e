#!/usr/bin/env bash
# Creates the virtual environment and installs the workbench with the given extras (default: dev).
#
# Why uv, and why pip still decides torch: on a 2-core CI machine pip alone took more than 25
# minutes (13.5 to resolve and download one package at a time, the rest to unpack and compile
# every module), beyond CI's whole 20-minute budget (stop 37). uv downloads and installs in
# parallel, in Rust. But uv does not read pip's configuration, and pip's configuration is what
# points at the CPU build of torch lying on a classroom or CI disk (find-links); a bare
# `torch==2.13.0` from PyPI is the CUDA build of several GB. So pip resolves torch alone (a dry
# run: metadata only, nothing installed) and uv installs that exact file with everything else.
# Where uv cannot be installed or fails, pip does the whole install as before.
#
# Every module is compiled at install, on all cores (uv's --compile-bytecode). Compiling only
# what a start imports left the modules tests import later to be compiled by both test
# processes at once: a fixture waited 204 s for it, and the tests ran twice as slow.
#
# usage: scripts/setup_venv.sh PYTHON VENV [EXTRAS]
set -euo pipefail
python=${1:-python3.11}
venv=${2:-.venv}
extras=${3:-dev}
cd "$(dirname "$0")/.."

command -v "$python" >/dev/null || {
    echo "Python 3.11 is needed (set PYTHON=/path/to/python3.11)"
    exit 1
}
bin="$venv/bin"
# Without pip the venv is made in seconds (ensurepip alone took 2 minutes); uv adds pip below.
test -x "$bin/python" || "$python" -m venv --without-pip "$venv"

pip_install() {
    "$bin/python" -m pip --version >/dev/null 2>&1 || "$bin/python" -m ensurepip
    "$bin/python" -m pip install -q --upgrade pip
    "$bin/python" -m pip install -q -c constraints.txt -e ".[$extras]"
}

# The torch file pip would install here, under constraints.txt and this machine's pip settings:
# the pinned release lying in PIP_FIND_LINKS if it is there (no pip start, a minute on a slow
# machine), else what a dry run of pip chooses.
torch_file() {
    local pin wheel
    pin=$(sed -n 's/^torch==\([0-9.]*\).*/\1/p' constraints.txt)
    for wheel in ${PIP_FIND_LINKS:-}/torch-"$pin"+cpu-cp311-*.whl; do
        if [[ -n "$pin" && -f "$wheel" && "$("$bin/python" -c 'import sys; print(sys.version_info[:2] == (3, 11))')" == True ]]; then
            echo "file://$wheel"
            return
        fi
    done
    "$python" -m pip --python "$bin/python" install --no-deps --ignore-installed --dry-run \
        --quiet --report - -c constraints.txt torch |
        "$bin/python" -c 'import json, sys; print(json.load(sys.stdin)["install"][0]["download_info"]["url"])'
}

installed=""
if "$python" -m pip --python "$bin/python" install -q uv && url=$(torch_file); then
    echo "installing with uv (torch from ${url##*/})"
    if "$bin/uv" pip install --quiet --python "$bin/python" --compile-bytecode -c constraints.txt \
        "torch @ $url" -e ".[$extras]" pip; then
        installed=uv
    else
        echo "uv could not install the environment; installing with pip instead"
    fi
fi
test -n "$installed" || pip_install
