#!/usr/bin/env bash
# How a kernel's time moves with where its buffers land: one benchmark row,
# each operator pinned in turn, in fresh processes that first hold PAD MiB
# of device memory (--pad-mib), for each PAD. Prints pad, operator, epigemm
# and cuBLASLt GEMM-alone medians (ms) per line.
#
# usage: bench/sm90_dev/placement.sh ONLY SHAPE OPERATOR...
#   ONLY      the row's --only text, e.g. "tf32 4096^3 alpha"
#   SHAPE     MxNxK for a shape beyond the suite (--shape), or "" for the suite's
#   OPERATOR  substrings of the operators' names (--operator)
#   PADS="0 32 64 ..."  the MiB to hold (default: 0 to 480 in steps of 32)
#   BUDGET=S  seconds per row (default 0.5); OUT=DIR also logs to DIR/placement.log
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build-bench/bench/epilogue_bench
[[ -x $bin ]] || { echo "placement.sh: build $bin first (bench/run.sh builds it)"; exit 1; }
only=${1:?usage: placement.sh ONLY SHAPE OPERATOR...}
shape=${2-}
shift 2 || { echo "usage: placement.sh ONLY SHAPE OPERATOR..."; exit 1; }
[[ -n ${OUT:-} ]] && exec > >(tee -a "$OUT/placement.log") 2>&1
extra=()
[[ -n $shape ]] && extra=(--shape "$shape")
json=$(mktemp)
for pad in ${PADS:-0 32 64 96 128 160 192 224 256 288 320 352 384 416 448 480}; do
  for op in "$@"; do
    "$bin" --only "$only" "${extra[@]}" --operator "$op" --pad-mib "$pad" --budget "${BUDGET:-0.5}" \
      --json "$json" > /dev/null 2>&1 || { echo "pad $pad $op: epilogue_bench failed"; continue; }
    python3 - "$pad" "$op" "$json" << 'PY'
import json, sys
pad, op, path = sys.argv[1:4]
for line in open(path):
    r = json.loads(line)
    if "epilogue" in r:
        ours, lt = (r.get("epigemm") or {}).get("median_ms"), (r.get("gemm") or {}).get("median_ms")
        print(f"pad {pad:>4} {op:<34} ours {ours:.5f} lt {lt:.5f}", "PASS" if r.get("check_pass") else "FAIL")
PY
  done
done
rm -f "$json"
