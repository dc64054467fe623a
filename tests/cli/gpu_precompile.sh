#!/usr/bin/env bash
# `epigemm precompile` fills the cache a GPU run then reads: after it, a run
# of the same problem on the precompiled operator (real device memory,
# where precompile only described host buffers) stores no new kernel, and
# its check passes. A row-major problem, a column-major D (the transposed
# problem) and an A copied first (K = 511). Skips (exit 77) without a GPU.
#   gpu_precompile.sh EPIGEMM_BINARY
set -u
source "$(dirname "$0")/gpu_cli_setup.sh"
failed=0
epilogue="def epi(accum, alpha, C): F = accum * alpha + C * 2.0; D = relu(F); return D, F"
for extra in "--mnkl 1024,768,512,1" "--mnkl 1024,768,512,1 --d-layout col" "--mnkl 640,768,511,1"; do
  # shellcheck disable=SC2206  # the case's words
  flags=($extra --ab-dtype bf16 --epilogue "$epilogue" --scalar alpha=3)
  "$binary" cache clear > /dev/null
  out=$("$binary" precompile "${flags[@]}" 2>&1) || { echo "precompile $extra failed"; echo "$out"; failed=1; continue; }
  op=$(sed -nE 's/^(sm90_[^:]+|sm80_[^:]+|simt[^:]*): [0-9]+ kernels?, .*/\1/p' <<< "$out" | head -1)
  before=$("$binary" cache list | head -1)
  run=$("$binary" run "${flags[@]}" --operator "$op" --iterations 1 2>&1)
  grep -q '^check: passed$' <<< "$run" || { echo "run $extra on $op: the check did not pass"; echo "$run" | tail -8; failed=1; }
  after=$("$binary" cache list | head -1)
  if [[ $before != "$after" ]]; then
    echo "run $extra on $op compiled what precompile had not stored: '$before' -> '$after'"
    failed=1
  fi
done
exit "$failed"
