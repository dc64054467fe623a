#!/usr/bin/env bash
# A problem against its transpose on the sm90 provider: for each case,
# `epigemm run` with a row-major D (X: the problem as given) and with a
# column-major one (Y: run as D^T = B^T A^T, so B^T, K-major where B is
# row-major, is its B), in the order X Y Y X, bf16, A and B row-major, the
# GEMM alone and relu+F, L2 flushed, runs in turns of 300 ms. Each case's
# operands take the same bytes either way; only the orientation the kernel
# sees differs (its picks may too, or TILE pins both). Where Y is faster,
# the swap-AB route (a row-major D run transposed, the kernel storing D'
# column-major) would gain that much. First, one checked run per
# orientation at a small shape. Prints each run and per case mean(Y)/mean(X).
#
# usage: bench/sm90_dev/orientation_ab.sh CASES_FILE
#   CASES_FILE: one case per line, "MNKL|TILE": MNKL e.g. 1536,1536,1536,1;
#     TILE empty for each orientation's pick, or --tile's MxNxK for both
#   EPIGEMM=PATH    the CLI (default build/epigemm, built there if absent)
#   ORIENT_GUARD=S  skip the cases left after S seconds (default 520)
#   OUT=DIR         the log goes to DIR/orientation_ab.log too
set -uo pipefail
cases=${1:?usage: bench/sm90_dev/orientation_ab.sh CASES_FILE}
start=$(date +%s)
log_name=orientation_ab.log
source "$(dirname "$0")/cli_setup.sh"
for d in row col; do
  echo "check, D $d-major: $("$cli" run --mnkl 300,520,136,2 --ab-dtype bf16 --d-layout $d --epilogue "$relu_f" \
    --iterations 1 2>&1 | grep -E '^check:')"
done
# "OPERATOR MEDIAN_US" of one run, or "failed: LAST_LINE": epigemm-run-flags...
median_us() {
  local out
  out=$("$cli" run --ab-dtype bf16 --turn-ms 300 --flush-l2 --skip-ref-check "$@" 2>&1)
  awk '$1 == "operator:" { op = $2 } $1 == "time:" { printf "%s %.2f\n", op, $3 * 1000; found = 1 }
       END { if (!found) exit 1 }' <<< "$out" || echo "failed: $(tail -1 <<< "$out")"
}
while IFS='|' read -r mnkl tile; do
  [[ -z $mnkl || $mnkl == \#* ]] && continue
  if (( $(date +%s) - start > ${ORIENT_GUARD:-520} )); then
    echo "skipped $mnkl: past the guard"
    continue
  fi
  pin=()
  [[ -n $tile ]] && pin=(--tile "$tile")
  for epilogue in none relu+F; do
    flags=(--mnkl "$mnkl" "${pin[@]}")
    [[ $epilogue == relu+F ]] && flags+=(--epilogue "$relu_f")
    sum_x=0 sum_y=0
    for d in row col col row; do
      read -r op us <<< "$(median_us "${flags[@]}" --d-layout $d)"
      if [[ $op == failed: ]]; then
        echo "$mnkl $epilogue D $d-major: failed: $us"
        continue 2
      fi
      echo "$mnkl $epilogue D $d-major: ${op#sm90_wgmma_} $us us"
      if [[ $d == row ]]; then sum_x=$(awk -v a="$sum_x" -v b="$us" 'BEGIN { print a + b }')
      else sum_y=$(awk -v a="$sum_y" -v b="$us" 'BEGIN { print a + b }'); fi
    done
    echo "== $mnkl $epilogue${tile:+ (tile $tile)}: Y/X $(awk -v x="$sum_x" -v y="$sum_y" 'BEGIN { printf "%.3f", y / x }')"
  done
done < "$cases"
