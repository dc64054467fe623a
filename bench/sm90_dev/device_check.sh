#!/usr/bin/env bash
# The GPU check in one device call (~5 minutes on an H100): builds test_gpu,
# test_runtime, the CLI and (where nanobind imports) the Python module into
# build/ and, beside them, the benchmarks into build-bench/, then runs every
# GPU test (`ctest -L gpu -j8`), the runtime's GPU tests (GpuRuntime.*,
# which the CPU label holds and skips without a GPU) and the Python tests
# (their `cuda` ones through torch). Logs go to $OUT (or build/device_check).
# On the same warm machine the suite and the sweep then run from the
# benchmarks built here, in a second call:
#   COMMIT=<sha> bench/sm90_dev/device_suite.sh
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
python=OFF
python3 -c "import nanobind" 2> /dev/null && python=ON
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEPIGEMM_BUILD_PYTHON=$python > "$out/configure.log" 2>&1 \
  || { tail -20 "$out/configure.log"; exit 1; }
( cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF -DEPIGEMM_BUILD_BENCH=ON \
    -DEPIGEMM_BUILD_PYTHON=OFF && cmake --build build-bench --target epilogue_bench runtime_bench -j6 ) \
  > "$out/bench_build.log" 2>&1 &
bench_build=$!
python_targets=()
[[ $python == ON ]] && python_targets=(epigemm_python)
cmake --build build --target test_gpu test_runtime epigemm_cli "${python_targets[@]}" -j10 > "$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; exit 1; }
echo "tests built in $(( $(date +%s) - t0 )) s"
ctest --test-dir build -L gpu -j8 --timeout 400 --output-on-failure > "$out/ctest.log" 2>&1
status=$?
echo "ctest exit $status at $(( $(date +%s) - t0 )) s"
grep -E "tests passed|Failed|\*\*\*|Total Test time" "$out/ctest.log" | head -30
build/tests/test_runtime --gtest_filter='GpuRuntime.*' > "$out/gpu_runtime.log" 2>&1 || status=1
echo "GpuRuntime: $(grep -E '^\[  (PASSED  |FAILED  |SKIPPED )\] [0-9]+ tests?' "$out/gpu_runtime.log" | tr '\n' ' ')"
if [[ $python == ON ]]; then
  PYTHONPATH=build/python python3 -m pytest -q tests/python > "$out/pytest.log" 2>&1 || status=1
  echo "pytest: $(tail -1 "$out/pytest.log")"
else
  echo "pytest: skipped (nanobind does not import here)"
fi
wait "$bench_build" && echo "benchmarks built" || { echo "benchmark build failed"; tail -20 "$out/bench_build.log"; }
exit "$status"
