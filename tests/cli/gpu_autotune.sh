#!/usr/bin/env bash
# `epigemm run --autotune N` on a GPU: N candidates timed, the fastest named
# as the operator that then runs, and its outputs (poisoned again after the
# candidates wrote them) passing the check; with --flush-l2 too, the timing
# saying so. Skips (exit 77) without a GPU.
#   gpu_autotune.sh EPIGEMM_BINARY
set -u
source "$(dirname "$0")/gpu_cli_setup.sh"
failed=0
check() {  # count epigemm-run-flags...
  local count=$1 out
  shift
  out=$("$binary" run --autotune "$count" --iterations 5 "$@" 2>&1)
  local rc=$? fastest chosen
  fastest=$(awk 'found { print $1; exit } /^autotune:/ { found = 1 }' <<< "$out")  # the first row: fastest first
  chosen=$(awk '$1 == "operator:" { print $2 }' <<< "$out")
  if [[ $rc != 0 ]] || ! grep -q "^autotune: $count candidate(s)" <<< "$out" || [[ -z "$fastest" ]] ||
     [[ "$fastest" != "$chosen" ]] || ! grep -q '^check: passed$' <<< "$out"; then
    echo "FAIL: epigemm run --autotune $count $*"
    echo "$out"
    failed=1
  fi
}
check 3 --mnkl 1000,1032,520,1 --ab-dtype bf16 --scalar alpha=0.5 \
  --epilogue "def epi(accum, alpha, C): F = accum * alpha + C * 2.0; D = relu(F); return D, F"
check 2 --mnkl 777,512,256,2 --ab-dtype f16 --tensor bias=row --output m=scalar:f32 \
  --epilogue "def epi(accum, bias): D = gelu(accum + bias); m = amax(D); return D, m"
check 2 --mnkl 512,512,512,1 --ab-dtype bf16 --turn-ms 10 --epilogue "def epi(accum): D = silu(accum); return D"
flushed=(--mnkl 512,768,1024,1 --ab-dtype bf16 --flush-l2 --epilogue "def epi(accum, C): D = gelu(accum + C); return D")
check 2 "${flushed[@]}"
out=$("$binary" run --iterations 3 "${flushed[@]}" 2>&1)
if ! grep -q '^time: median .*L2 flushed before each' <<< "$out" || ! grep -q '^check: passed$' <<< "$out"; then
  echo "FAIL: epigemm run --iterations 3 ${flushed[*]}"
  echo "$out"
  failed=1
fi
exit $failed
