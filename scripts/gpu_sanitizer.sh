#!/usr/bin/env bash
# The GPU tests under compute-sanitizer memcheck (on a machine with a GPU,
# after scripts/setup.sh), split into gtest shards that run side by side:
# the kernels' NVRTC compiles, not the GPU, set the pace.
#   scripts/gpu_sanitizer.sh [SHARDS [GTEST_FILTER]]   (default: 4, every test)
# SANITIZER_TOOL=racecheck (or synccheck, initcheck) runs that tool instead.
# Logs go to build/<tool>/shard_N.log. Exits 0 when every shard's tests
# passed and the tool reported no error.
set -uo pipefail
cd "$(dirname "$0")/.."

shards=${1:-4}
filter=${2:-*}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[[ -x "$sanitizer" ]] || { echo "compute-sanitizer not found at $sanitizer (set COMPUTE_SANITIZER)" >&2; exit 2; }
[[ -x build/tests/test_gpu ]] || { echo "build/tests/test_gpu is not built: run scripts/setup.sh" >&2; exit 2; }
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "SHARDS must be a positive whole number, not '$shards'" >&2; exit 2; }

tool=${SANITIZER_TOOL:-memcheck}
tests=$(build/tests/test_gpu --gtest_list_tests --gtest_filter="$filter" | grep -c '^  ')
[[ $tests -gt 0 ]] || { echo "no GPU test matches '$filter'" >&2; exit 2; }
(( shards > tests )) && shards=$tests  # a shard without tests would fail

mkdir -p "build/$tool"
pids=()
for ((i = 0; i < shards; ++i)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$sanitizer" --tool "$tool" --error-exitcode 99 \
    --print-limit 20 build/tests/test_gpu --gtest_filter="$filter" > "build/$tool/shard_$i.log" 2>&1 &
  pids+=($!)
done

status=0
for ((i = 0; i < shards; ++i)); do
  wait "${pids[$i]}"
  code=$?
  log=build/$tool/shard_$i.log
  passed=$(grep -c '^\[       OK \] .* ms)$' "$log")
  failed=$(grep -c '^\[  FAILED  \] .* ms)$' "$log")
  summary=$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" || echo "no $tool summary")
  echo "shard $i: exit $code, $passed passed, $failed failed, ${summary#========= } ($log)"
  [[ $code -eq 0 ]] || status=1
done
exit $status
