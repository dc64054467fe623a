#!/usr/bin/env bash
# Checks and times balance.patch (K balanced between one-wave CTAs, kernels/
# sm90_balance.cuh once applied) on the GPU, in one device run: builds the
# tree as it is (A) and with the patch (B) in two build directories, runs
# the balanced GPU tests and the grouped-k and stream-K ones on B (with
# BALANCE_ALL_GPU=1 every GPU test), then interleaved benchmark rounds
# A B B A A B of the one-wave shapes. Logs and a summary go to $OUT (or
# build-balance/out), packed as $OUT/balance.tgz. The patch ran slower
# everywhere (NOTES.md, Session 38) and is kept for the record.
#   usage (repository root, on the device): bench/sm90_dev/balance_run.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
out=${OUT:-$root/build-balance/out}
work=$out/balance
mkdir -p "$work"
cd "$root"
configure() {  # $1: build directory
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=ON -DEPIGEMM_BUILD_BENCH=ON \
    -DEPIGEMM_BUILD_PYTHON=OFF > "$work/cfg_$(basename "$1").log" 2>&1
}
t0=$(date +%s)
configure build-balance-a && cmake --build build-balance-a -j"$(nproc)" --target epilogue_bench \
  > "$work/build_a.log" 2>&1 || { tail -20 "$work/build_a.log"; exit 1; }
apply() { git apply "$@" bench/sm90_dev/balance.patch 2> /dev/null || patch -p1 -s "$@" < bench/sm90_dev/balance.patch; }
apply || { echo "balance.patch does not apply"; exit 1; }
trap 'cd "$root" && apply -R' EXIT
configure build-balance-b && cmake --build build-balance-b -j"$(nproc)" --target epilogue_bench test_gpu \
  > "$work/build_b.log" 2>&1 || { grep -m5 -A5 error "$work/build_b.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"

t0=$(date +%s)
filter="Sm90Balance*:Sm90GroupedK*:Sm90StreamK*"
if [[ ${BALANCE_ALL_GPU:-0} == 1 ]]; then
  GTEST_BRIEF=1 timeout 400 ctest --test-dir build-balance-b -L gpu -j8 --output-on-failure > "$work/tests.log" 2>&1
else
  timeout 300 build-balance-b/tests/test_gpu --gtest_filter="$filter" --gtest_brief=1 > "$work/tests.log" 2>&1
fi
echo "tests exit $? in $(( $(date +%s) - t0 )) s"; grep -E "PASSED|FAILED|tests passed|Failed" "$work/tests.log" | head -20

round() {  # $1: a or b, $2: round
  timeout 120 "build-balance-$1/bench/epilogue_bench" --shape 16x8192x8192 --shape 128x8192x8192 \
    --shape 1024x1024x1024 --only bf16 --budget 0.3 --json "$work/$1$2.jsonl" > "$work/$1$2.log" 2>&1 ||
    echo "bench $1$2 exit $?"
}
t0=$(date +%s)
round a 1; round b 1; round b 2; round a 2; round a 3; round b 3
echo "rounds in $(( $(date +%s) - t0 )) s"
WORK=$work python3 - <<'PY' | tee "$work/summary.txt"
import glob, json, os
work = os.environ["WORK"]; rows = {}
for f in sorted(glob.glob(work + "/[ab][123].jsonl")):
    tag = os.path.basename(f)[:2]
    for line in open(f):
        r = json.loads(line)
        if "dtype" not in r: continue
        key = "%-9s %-13s %-18s" % (r["b_layout"], r["shape"], r["epilogue"])
        rows.setdefault(key, {})[tag] = "%.4f%s" % (r["epigemm"]["median_ms"] or 0, "" if r["check_pass"] else " FAIL")
for k, v in sorted(rows.items()): print(k, " | ", "  ".join("%s %s" % (t, v[t]) for t in sorted(v)))
PY
tar -czf "$out/balance.tgz" -C "$out" balance && rm -rf "$work"
