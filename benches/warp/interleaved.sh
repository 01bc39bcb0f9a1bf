#!/usr/bin/env bash
# pliant and Warp on the same blocks, alternately, ROUNDS times (the machine
# is shared: both sides see the same load). Prints each round's figures and
# the load average; compare the medians.
#
#   bash benches/warp/interleaved.sh [ROUNDS] [SIZES...]      e.g. 3 5 10 20
set -euo pipefail
ROUNDS="${1:-3}"; shift || true
SIZES="${*:-5 10 20}"
PY="${WARP_VENV:-/tmp/warp-venv}/bin/python"
[ -x "$PY" ] || bash "$(dirname "$0")/setup.sh"
cargo bench --bench fem_block --no-run
BENCH=$(ls -t target/release/deps/fem_block-* | grep -v '\.d$' | head -1)
for r in $(seq "$ROUNDS"); do
  echo "## round $r, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
  # shellcheck disable=SC2086
  "$BENCH" $SIZES --reps 1 | grep -v '^block drop'
  # shellcheck disable=SC2086
  "$PY" "$(dirname "$0")/warp_block.py" --ns $SIZES --t-sim 0.99 2>/dev/null | grep -E '^ *[0-9]'
done
python3 "$(dirname "$0")/compare.py" --ns $SIZES
