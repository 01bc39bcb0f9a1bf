#!/usr/bin/env bash
# Creates a throwaway virtualenv with NVIDIA Warp for the block benchmark.
# Idempotent: re-running only (re)installs missing/mismatched packages.
set -euo pipefail
VENV="${WARP_VENV:-/tmp/warp-venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -r "$(dirname "$0")/requirements.txt"
"$VENV/bin/python" -c "import importlib.metadata as m, sys; print('python', sys.version.split()[0], *[f'{p} {m.version(p)}' for p in ('warp-lang', 'numpy')])"
