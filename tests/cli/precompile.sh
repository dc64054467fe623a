#!/usr/bin/env bash
# `epigemm precompile` without a GPU: the first operators' kernels go into a
# fresh disk cache (one for the GEMM, one more where A is copied first), a
# second call finds them there, and a disabled cache is an error.
#   precompile.sh EPIGEMM_BINARY
set -u
binary=$1
export EPIGEMM_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$EPIGEMM_CACHE_DIR"' EXIT
failed=0
fail() { echo "$1"; echo "$2" | tail -8; failed=1; }
epilogue="def epi(accum, alpha, C): F = accum * alpha + C * 2.0; D = relu(F); return D, F"
flags=(--target-sm 90 --mnkl 1024,768,512,1 --ab-dtype bf16 --epilogue "$epilogue" --scalar alpha=3)

out=$("$binary" precompile "${flags[@]}" --operators 2 2>&1) || fail "precompile failed" "$out"
[[ $(grep -c ': 1 kernel, 1 compiled now, 0 in the cache already' <<< "$out") == 2 ]] ||
  fail "precompile: want two operators of one new kernel each" "$out"
[[ $("$binary" cache list | head -1) == *": 2 kernels,"* ]] || fail "the cache should hold 2 kernels" "$("$binary" cache list)"
out=$("$binary" precompile "${flags[@]}" --operators 2 2>&1) || fail "precompile again failed" "$out"
[[ $(grep -c ': 1 kernel, 0 compiled now, 1 in the cache already' <<< "$out") == 2 ]] ||
  fail "precompile again: want both kernels found in the cache" "$out"

# K = 511: A's rows are not 16-byte multiples, so A is copied before the GEMM.
out=$("$binary" precompile --target-sm 90 --mnkl 1024,768,511,1 --ab-dtype bf16 2>&1) || fail "precompile K = 511 failed" "$out"
grep -q ': 2 kernels, 2 compiled now, 0 in the cache already' <<< "$out" || fail "K = 511: want the GEMM and the copy" "$out"

out=$(EPIGEMM_DISABLE_DISK_CACHE=1 "$binary" precompile "${flags[@]}" 2>&1)
status=$?
(( status == 1 )) && grep -q 'disk kernel cache, which is disabled' <<< "$out" ||
  fail "precompile with the cache disabled: want exit 1 and the reason (exit $status)" "$out"
exit "$failed"
