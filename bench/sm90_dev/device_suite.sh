#!/usr/bin/env bash
# The suite, then the sweep, in one device call of at most CALL_LIMIT seconds (default 570):
# builds bench/epilogue_bench and runtime_bench into build-bench/ (seconds where an earlier call's
# build is still there), runs `bench/run.sh --no-build` stopped short of the limit, and gives the
# sweep (`--sweep`) what is left if that is at least SWEEP_MIN seconds (default 120; the full sweep
# took about two minutes). bench/run.sh copies RESULTS.md / SWEEP.md, the charts and the logs to
# $OUT; this script's logs land there too.
#   usage (repository root, on the device): COMMIT=<sha> OUT=<dir> bench/sm90_dev/device_suite.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:?set OUT}
commit=${COMMIT:?set COMMIT to the commit the tree is (it travels without .git)}
limit=${CALL_LIMIT:-570}
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF -DEPIGEMM_BUILD_BENCH=ON \
  -DEPIGEMM_BUILD_PYTHON=OFF > "$out/bench_build.log" 2>&1 \
  && cmake --build build-bench --target epilogue_bench runtime_bench -j "$(nproc)" >> "$out/bench_build.log" 2>&1 \
  || { tail -30 "$out/bench_build.log"; exit 1; }
echo "benchmarks built at $(elapsed) s"
EPIGEMM_BENCH_COMMIT=$commit EPIGEMM_BENCH_TIMEOUT=$(( limit - $(elapsed) - 20 )) bench/run.sh --no-build \
  > "$out/suite.txt" 2>&1
status=$?
echo "suite exit $status at $(elapsed) s"
sed -n "/issue's targets/,/informational/p" "$out/RESULTS.md" 2> /dev/null | grep -E "targets|\| NO \|"
left=$(( limit - $(elapsed) - 15 ))
if (( left >= ${SWEEP_MIN:-120} )); then
  EPIGEMM_BENCH_COMMIT=$commit EPIGEMM_BENCH_TIMEOUT=$left bench/run.sh --no-build --sweep > "$out/sweep.txt" 2>&1
  echo "sweep exit $? at $(elapsed) s"
else
  echo "sweep skipped: $left s left"
fi
exit "$status"
