#!/usr/bin/env bash
# A kernel patch against the tree as it is, on any epilogue (epilogue_bench
# has only the suite's six): for each case, four `epigemm run` processes in
# the order X Y Y X, X the CLI built from this tree and Y from a copy with
# the patch applied, both pinned to the same operator. Each process times
# its kernel in turns of --turn-ms (no L2 flush: the operands are bigger
# than L2 in the cases this is for). Before the timings, Y runs every
# case's epilogue once at a small shape checked against the cpu_reference
# provider. Prints each run's median and per case the mean of Y's over X's.
#
# usage: bench/sm90_dev/cli_ab.sh PATCH CASES_FILE
#   CASES_FILE: one case per line, "MNKL|OPERATOR|EPILOGUE|FLAGS":
#     MNKL      e.g. 4096,14336,4096,1
#     OPERATOR  the operator's full name (sm90_wgmma_...)
#     EPILOGUE  the epilogue function (one line, statements split by ';')
#     FLAGS     further `epigemm run` flags: bindings, --ab-dtype (default bf16)
#   CLI_AB_GUARD=S       skip the cases left after S seconds (default 520)
#   CLI_AB_CHECK=MNKL    the shape of Y's checked runs (default 512,768,1024,1)
#   OUT=DIR              the log goes to DIR/cli_ab.log too
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/sm90_dev/patched_tree.sh"
patch_file=$(realpath "${1:?usage: bench/sm90_dev/cli_ab.sh PATCH CASES_FILE}")
cases=$(realpath "${2:?usage: bench/sm90_dev/cli_ab.sh PATCH CASES_FILE}")
[[ -n ${OUT:-} ]] && exec > >(tee -a "$OUT/cli_ab.log") 2>&1
start=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv 2> /dev/null

copy=$(mktemp -d)
patched_tree "$root" "$patch_file" "$copy" || exit 1
rm -rf "$root/build-cli-patched"  # its cache names the last run's copy
build_cli "$root" "$root/build-cli" & base_build=$!
build_cli "$copy" "$root/build-cli-patched" || exit 1
wait "$base_build" || exit 1
bin_x=$root/build-cli/epigemm
bin_y=$root/build-cli-patched/epigemm
echo "build $(( $(date +%s) - start )) s"

read_cases() { grep -vE '^\s*(#|$)' "$cases"; }
dtype_flags() { [[ $1 == *--ab-dtype* ]] || echo "--ab-dtype bf16"; }  # FLAGS
echo "== Y checked at ${CLI_AB_CHECK:-512,768,1024,1}"
declare -A checked
while IFS='|' read -r mnkl op epi flags; do
  [[ -n ${checked["$op|$epi|$flags"]:-} ]] && continue
  checked["$op|$epi|$flags"]=1
  # shellcheck disable=SC2086  # FLAGS is a list of words
  "$bin_y" run --mnkl "${CLI_AB_CHECK:-512,768,1024,1}" $(dtype_flags "$flags") --operator "$op" --epilogue "$epi" \
    $flags --init normal --seed 68 > "$copy/check.txt" 2>&1
  status=$?
  echo "exit $status $(grep -E '^check:' "$copy/check.txt") $op :: $epi"
  (( status == 0 )) || tail -3 "$copy/check.txt"
done < <(read_cases)

while IFS='|' read -r mnkl op epi flags; do
  if (( $(date +%s) - start > ${CLI_AB_GUARD:-520} )); then echo "time guard: skipping $mnkl $epi"; continue; fi
  for tag in X Y Y X; do
    bin=$bin_x
    [[ $tag == Y ]] && bin=$bin_y
    # shellcheck disable=SC2086
    median=$("$bin" run --mnkl "$mnkl" $(dtype_flags "$flags") --operator "$op" --epilogue "$epi" $flags --init normal \
      --skip-ref-check --warmup-iterations 3 --iterations 30 --turn-ms 100 2>&1 |
      sed -nE 's/^time: median ([0-9.]+) ms.*/\1/p')
    echo "$tag ${median:-failed} $mnkl $op :: $epi"
  done | tee "$copy/case.txt"
  python3 - "$copy/case.txt" << 'PY'
import sys
t = {}
for line in open(sys.argv[1]):
    tag, ms = line.split()[:2]
    if ms != "failed":
        t.setdefault(tag, []).append(float(ms))
if "X" in t and "Y" in t:
    print(f"Y/X {sum(t['Y']) / len(t['Y']) / (sum(t['X']) / len(t['X'])):.3f}")
PY
done < <(read_cases)
echo "done $(( $(date +%s) - start )) s"
rm -rf "$copy"
