#!/usr/bin/env bash
# The GPU check in one device call (~5 minutes on an H100): builds test_gpu
# and the CLI into build/ and, beside them, the benchmarks into build-bench/,
# then runs every GPU test (`ctest -L gpu -j8`). Logs go to $OUT (or
# build/device_check). On the same warm machine the suite then runs from the
# benchmarks built here, in a second call:
#   EPIGEMM_BENCH_COMMIT=<sha> EPIGEMM_BENCH_TIMEOUT=560 bench/run.sh --no-build
# (bench/run.sh copies RESULTS.md, the chart and the log to $OUT).
#   usage (repository root, on the device): bench/sm90_dev/device_check.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/build/device_check}
mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv \
  > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEPIGEMM_BUILD_PYTHON=OFF > "$out/configure.log" 2>&1 \
  || { tail -20 "$out/configure.log"; exit 1; }
( cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF -DEPIGEMM_BUILD_BENCH=ON \
    -DEPIGEMM_BUILD_PYTHON=OFF && cmake --build build-bench --target epilogue_bench runtime_bench -j6 ) \
  > "$out/bench_build.log" 2>&1 &
bench_build=$!
cmake --build build --target test_gpu epigemm_cli -j10 > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "tests built in $(( $(date +%s) - t0 )) s"
ctest --test-dir build -L gpu -j8 --timeout 400 --output-on-failure > "$out/ctest.log" 2>&1
status=$?
echo "ctest exit $status at $(( $(date +%s) - t0 )) s"
grep -E "tests passed|Failed|\*\*\*|Total Test time" "$out/ctest.log" | head -30
wait "$bench_build" && echo "benchmarks built" || { echo "benchmark build failed"; tail -20 "$out/bench_build.log"; }
exit "$status"
