#!/usr/bin/env bash
# The benchmark in one command: builds epigemm (Release) and bench/epilogue_bench,
# runs it (epigemm vs cuBLASLt, interleaved, L2 flushed, medians, spot-checked),
# then bench/report.py writes bench/RESULTS.md and bench/results.png and prints the table last
# (with --sweep, shapes beyond the suite: bench/SWEEP.md and bench/sweep.png).
#
# usage: bench/run.sh [--no-build] [epilogue_bench flags: --quick, --sweep, --only TEXT, --shape MxNxK, ...]
#   --no-build               use the binary already in the build directory (e.g. one built on another machine)
#   EPIGEMM_BENCH_BUILD=DIR  build directory (default: build-bench in the repository)
#   EPIGEMM_BENCH_JOBS=N     build parallelism (default: nproc)
#   EPIGEMM_BENCH_COMMIT=SHA commit to record where the tree has no .git (default: git rev-parse HEAD)
#   EPIGEMM_BENCH_TIMEOUT=S  stop the benchmark after S seconds (the rows done so far are still reported)
#   OUT=DIR                  also copy the results, the chart and the log there
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EPIGEMM_BENCH_BUILD:-$root/build-bench}
command="bench/run.sh $*"

no_build=0
args=()
# --sweep (shapes beyond the suite) reports to bench/SWEEP.md, the suite to bench/RESULTS.md.
markdown=$root/bench/RESULTS.md
png=$root/bench/results.png
for a in "$@"; do
  if [[ $a == --no-build ]]; then no_build=1; else args+=("$a"); fi
  if [[ $a == --sweep ]]; then markdown=$root/bench/SWEEP.md; png=$root/bench/sweep.png; fi
done

if [[ $no_build == 0 ]]; then
  generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DEPIGEMM_BUILD_TESTS=OFF \
    -DEPIGEMM_BUILD_BENCH=ON -DEPIGEMM_BUILD_PYTHON=OFF > "$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; echo "run.sh: cmake configure failed"; exit 1; }
  cmake --build "$build" --target epilogue_bench runtime_bench -j "${EPIGEMM_BENCH_JOBS:-$(nproc)}" \
    || { echo "run.sh: build failed"; exit 1; }
fi
bin=$build/bench/epilogue_bench
[[ -x $bin ]] || { echo "run.sh: $bin not found (build it, or drop --no-build)"; exit 1; }

commit=${EPIGEMM_BENCH_COMMIT:-}
if [[ -z $commit ]]; then
  if commit=$(git -C "$root" rev-parse HEAD 2> /dev/null); then
    [[ -n $(git -C "$root" status --porcelain 2> /dev/null) ]] && commit="$commit (with uncommitted changes)"
  else
    commit="unknown (no git here; set EPIGEMM_BENCH_COMMIT)"
  fi
fi
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2> /dev/null | head -n 1)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv \
  2> /dev/null || echo "run.sh: nvidia-smi is not available"

results=$build/bench/epilogue_bench.jsonl
log=$build/bench/epilogue_bench.log
rm -f "$results"
limit=()
[[ -n ${EPIGEMM_BENCH_TIMEOUT:-} ]] && limit=(timeout "$EPIGEMM_BENCH_TIMEOUT")
"${limit[@]}" "$bin" --json "$results" "${args[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "epilogue_bench exited with status $status"
[[ -s $results ]] || { echo "run.sh: no results in $results"; exit "$((status == 0 ? 1 : status))"; }

if [[ -n ${OUT:-} ]]; then
  mkdir -p "$OUT"
  cp "$results" "$log" "$OUT/" 2> /dev/null
fi
python3 "$root/bench/report.py" "$results" --markdown "$markdown" --png "$png" \
  --commit "$commit" --command "$command" --driver "${driver:-unknown}" --status "$status" > "$build/bench/report.txt" 2>&1
report_status=$?
# The runtime's numbers (compile, disk-cache load, warm run() overhead), with the suite.
if [[ -x $build/bench/runtime_bench && $markdown == */RESULTS.md ]]; then
  "$build/bench/runtime_bench" > "$build/bench/runtime.md" 2>&1 && cat "$build/bench/runtime.md" >> "$markdown"
  cat "$build/bench/runtime.md" >> "$build/bench/report.txt"
fi
if [[ -n ${OUT:-} ]]; then
  cp "$markdown" "$png" "$build/bench/report.txt" "$OUT/" 2> /dev/null
fi
cat "$build/bench/report.txt"
[[ $report_status == 0 ]] || exit "$report_status"
exit "$status"
