#!/usr/bin/env bash
# Which sm90 picks a change to the ranking moves, without a GPU: `epigemm
# list` (as on an sm_90 GPU of 132 SMs) of each problem of a grid, bf16, B
# row- and column-major, by two CLIs (before and after the change); prints
# "M,N,K,L B layout: before-pick modelled-us -> after-pick modelled-us" for
# each problem whose first operator differs. Build the "before" CLI from a
# second worktree (its own libepigemm.so: a copied binary still loads the
# tree's library).
#
# usage: bench/sm90_dev/pick_survey.sh BEFORE_CLI AFTER_CLI [LIST FLAGS...]
#   LIST FLAGS  further `epigemm list` flags, e.g. the epilogue and its bindings:
#     --epilogue "def epi(accum, bias): D = gelu(accum + bias); return D" --tensor bias=row
#   SURVEY_M, SURVEY_N, SURVEY_K  the grid's extents (space-separated lists)
set -uo pipefail
before=${1:?usage: bench/sm90_dev/pick_survey.sh BEFORE_CLI AFTER_CLI [LIST FLAGS...]}
after=${2:?usage: bench/sm90_dev/pick_survey.sh BEFORE_CLI AFTER_CLI [LIST FLAGS...]}
shift 2
pick() {  # CLI MNKL B_LAYOUT [FLAGS...]: "operator modelled-us" of the first sm90 operator that is ok
  local cli=$1 mnkl=$2 layout=$3
  shift 3
  "$cli" list --mnkl "$mnkl" --ab-dtype bf16 --target-sm 90 --provider sm90 --b-layout "$layout" "$@" 2> /dev/null |
    awk '$1 ~ /^sm90_/ && $NF == "ok" { print $1, $5; exit }'
}
total=0 moved=0
for layout in row col; do
  for m in ${SURVEY_M:-256 512 768 1024 1280 1536 1792 2048 2304 3072 4096}; do
    for n in ${SURVEY_N:-256 512 768 1024 1280 1536 1792 2048 2304 3072 4096 6144}; do
      for k in ${SURVEY_K:-512 1024 1536 2048 3072 4096 8192}; do
        mnkl=$m,$n,$k,1
        x=$(pick "$before" "$mnkl" "$layout" "$@")
        y=$(pick "$after" "$mnkl" "$layout" "$@")
        total=$((total + 1))
        if [[ ${x% *} != "${y% *}" ]]; then
          moved=$((moved + 1))
          echo "$mnkl B $layout: $x -> $y"
        fi
      done
    done
  done
done
echo "$moved of $total picks moved"
