#!/usr/bin/env bash
# The pick against the best tile that writes D row-major: for each case,
# `epigemm run` on the first sm90 operator of `epigemm list` (Y) and on the
# first without `_dcol` in its name (X), order X Y Y X, bf16, the GEMM alone,
# relu+F and gelu(acc + bias) with a row bias, L2 flushed, turns of 300 ms;
# prints each line and Y/X. Where the two are the same operator the case
# says so and is skipped. Session 83 timed the column-major-D picks so
# (bench/sm90_dev/NOTES.md).
#
# usage: bench/sm90_dev/dcol_picks.sh CASES_FILE
#   CASES_FILE: one case per line, "MNKL|B_LAYOUT|D_LAYOUT[|X|Y]", e.g.
#     1536,1536,1536,1|row|row ('#' lines are comments); X and Y, where
#     given, are the two operators' full names instead of the two picks
#   EPIGEMM=PATH    the CLI (default build/epigemm, built there if absent)
#   PICKS_GUARD=S   skip the cases left after S seconds (default 520)
#   EPILOGUES=LIST  which of "none relu+F gelu" to time (default all three)
#   OUT=DIR         the log goes to DIR/dcol_picks.log too
set -uo pipefail
cases=${1:?usage: bench/sm90_dev/dcol_picks.sh CASES_FILE}
start=$(date +%s)
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${EPIGEMM:-$root/build/epigemm}
[[ -n ${OUT:-} ]] && exec > >(tee -a "$OUT/dcol_picks.log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv 2> /dev/null
if [[ ! -x $cli ]]; then
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEPIGEMM_BUILD_PYTHON=OFF > /dev/null \
    && cmake --build "$root/build" --target epigemm_cli -j "$(nproc)" | tail -1 || exit 1
fi
relu_f="def epi(accum, C): F = accum + C; D = relu(F); return D, F"
gelu_bias="def epi(accum, bias): D = gelu(accum + bias); return D"
# "OPERATOR MEDIAN_US" of one pinned run, or "failed 0".
one() {
  local op=$1; shift
  "$cli" run --ab-dtype bf16 --turn-ms 300 --flush-l2 --skip-ref-check --operator "$op" "$@" 2>&1 |
    awk '$1 == "operator:" { op = $2 } $1 == "time:" { printf "%s %.2f", op, $3 * 1000; f = 1 } END { if (!f) printf "failed 0" }'
}
while IFS='|' read -r shape b_layout d_layout x_pin y_pin; do
  [[ -z $shape || $shape == \#* ]] && continue
  (( $(date +%s) - start > ${PICKS_GUARD:-520} )) && { echo "guard reached: $shape and later skipped"; break; }
  layouts=(--mnkl "$shape" --b-layout "${b_layout:-row}" --d-layout "${d_layout:-row}")
  listing=$("$cli" list --ab-dtype bf16 --provider sm90 "${layouts[@]}" 2> /dev/null)
  y=${y_pin:-$(awk '$1 ~ /^sm90_/ && $NF == "ok" { print $1; exit }' <<< "$listing")}
  x=${x_pin:-$(awk '$1 ~ /^sm90_/ && $1 !~ /_dcol/ && $NF == "ok" { print $1; exit }' <<< "$listing")}
  if [[ -z $x || -z $y || $x == "$y" ]]; then
    echo "$shape B ${b_layout:-row} D ${d_layout:-row}: the pick is ${y:-none}; nothing to compare"
    continue
  fi
  for e in ${EPILOGUES:-none relu+F gelu}; do
    case $e in
      none) epilogue=() ;;
      relu+F) epilogue=(--epilogue "$relu_f") ;;
      gelu) epilogue=(--epilogue "$gelu_bias" --tensor bias=row) ;;
      *) echo "unknown epilogue '$e' (none, relu+F, gelu)"; exit 2 ;;
    esac
    x1=$(one "$x" "${layouts[@]}" "${epilogue[@]}"); y1=$(one "$y" "${layouts[@]}" "${epilogue[@]}")
    y2=$(one "$y" "${layouts[@]}" "${epilogue[@]}"); x2=$(one "$x" "${layouts[@]}" "${epilogue[@]}")
    awk -v c="$shape B ${b_layout:-row} D ${d_layout:-row} $e" -v x1="$x1" -v x2="$x2" -v y1="$y1" -v y2="$y2" 'BEGIN {
      split(x1, a, " "); split(x2, b, " "); split(y1, p, " "); split(y2, q, " ")
      x = (a[2] + b[2]) / 2; y = (p[2] + q[2]) / 2
      printf "%s | X %s %.2f %.2f | Y %s %.2f %.2f | Y/X %.3f\n", c, a[1], a[2], b[2], p[1], p[2], q[2], (x > 0 ? y / x : 0) }'
  done
done < "$cases"
