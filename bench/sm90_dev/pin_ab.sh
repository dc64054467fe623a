#!/usr/bin/env bash
# Two sm90 operators pinned against each other on the benchmark's rows:
# for each case, four processes of bench/epilogue_bench in the order
# X Y Y X, each with one operator pinned (--operator) and cuBLASLt's GEMM
# alone beside it in the same process (block-interleaved, L2 flushed).
# Prints one line per run and row: the pin, both medians and their ratio;
# then per row the mean of Y's medians over the mean of X's.
# With PIN_AB_PATCH, Y runs a second build with that patch applied.
#
# usage: bench/sm90_dev/pin_ab.sh CASES_FILE
#   CASES_FILE: one case per line, "ONLY|BUDGET|SHAPE|X|Y[|YENV]":
#     ONLY   the rows' --only text, e.g. "bf16 8192^3 none"
#     BUDGET seconds per row (--budget)
#     SHAPE  MxNxK for a shape beyond the suite (--shape), or empty
#     X, Y   substrings of the two operators' names (empty: the pick)
#     YENV   optional NAME=VALUE settings (space-separated) for Y's runs only
#   e.g. "bf16 8192^3 none|0.5||128x128x64_c1x1_pingpong_16bit|128x256x64_c1x1_16bit"
#   PIN_AB_GUARD=S  skip the cases left after S seconds (default 520)
#   PIN_AB_PATCH=P  Y runs build-bench-patched: this tree with patch P applied
#   OUT=DIR         the log goes to DIR/pin_ab.log too
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/sm90_dev/patched_tree.sh"
cases=${1:?usage: bench/sm90_dev/pin_ab.sh CASES_FILE}
build=$root/build-bench
bin=$build/bench/epilogue_bench
[[ -n ${OUT:-} ]] && exec > >(tee -a "$OUT/pin_ab.log") 2>&1
start=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv 2> /dev/null
if [[ ! -x $bin ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF \
    -DEPIGEMM_BUILD_BENCH=ON -DEPIGEMM_BUILD_PYTHON=OFF > /dev/null || exit 1
  cmake --build "$build" --target epilogue_bench -j "$(nproc)" | tail -1
fi
bin_y=$bin
if [[ -n ${PIN_AB_PATCH:-} ]]; then
  patched=$root/build-bench-patched
  copy=$(mktemp -d)
  patched_tree "$root" "$(realpath "$PIN_AB_PATCH")" "$copy" || exit 1
  rm -rf "$patched"  # its cache names the last run's copy
  cmake -S "$copy" -B "$patched" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF \
    -DEPIGEMM_BUILD_BENCH=ON -DEPIGEMM_BUILD_PYTHON=OFF > /dev/null || exit 1
  cmake --build "$patched" --target epilogue_bench -j "$(nproc)" | tail -1
  bin_y=$patched/bench/epilogue_bench
fi
echo "build $(( $(date +%s) - start )) s"

work=$(mktemp -d)
run_pinned() {  # tag pin epilogue_bench-flags...
  local tag=$1 pin=$2 exe=$bin settings=(); shift 2
  [[ $tag == Y ]] && exe=$bin_y && read -ra settings <<< "$yenv"
  [[ -n $pin ]] && set -- --operator "$pin" "$@"
  env "${settings[@]}" "$exe" --json "$work/$tag.json" "$@" > "$work/$tag.txt" 2>&1 || tail -5 "$work/$tag.txt"
  python3 - "$tag" "$work/$tag.json" << 'PY'
import json, sys
tag, path = sys.argv[1], sys.argv[2]
for line in open(path):
    r = json.loads(line)
    if "epilogue" not in r:
        continue
    ours, lt = (r.get("epigemm") or {}).get("median_ms"), (r.get("gemm") or {}).get("median_ms")
    print(tag, r.get("shape"), r.get("dtype"), r.get("epilogue"), f"ours {ours:.5f} lt {lt:.5f} ratio {ours / lt:.4f}",
          r.get("operator"), "PASS" if r.get("check_pass") else "FAIL")
PY
}
while IFS='|' read -r only budget shape x y yenv; do
  [[ -z $only || $only == \#* ]] && continue
  if (( $(date +%s) - start > ${PIN_AB_GUARD:-520} )); then echo "time guard: skipping '$only'"; continue; fi
  extra=()
  [[ -n $shape ]] && extra=(--shape "$shape")
  for tag in X Y Y X; do
    pin=$x
    [[ $tag == Y ]] && pin=$y
    run_pinned "$tag" "$pin" --only "$only" --budget "$budget" "${extra[@]}"
  done | tee "$work/case.txt"
  # Per row: the mean of Y's two medians over the mean of X's.
  python3 - "$work/case.txt" << 'PY'
import re, sys
times = {}
for line in open(sys.argv[1]):
    m = re.match(r"([XY]) (.*) ours (\S+) ", line)
    if m:
        times.setdefault(m.group(2), {}).setdefault(m.group(1), []).append(float(m.group(3)))
for row, t in times.items():
    if "X" in t and "Y" in t:
        print(f"Y/X {sum(t['Y']) / len(t['Y']) / (sum(t['X']) / len(t['X'])):.3f} {row}")
PY
  echo "case '$only'${yenv:+ (Y: $yenv)} done $(( $(date +%s) - start )) s"
done < "$cases"
rm -rf "$work"
