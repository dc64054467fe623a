#!/usr/bin/env bash
# Golden tests of the epigemm command-line tool.
#   run_golden.sh [--update] EPIGEMM_BINARY GOLDEN_DIR
# Each GOLDEN_DIR/NAME.args holds invocations, one per line, written as shell
# words after "epigemm" (lines starting with # are comments); NAME.out holds
# what they must print: per invocation the command, its stdout, its stderr
# and its exit code. --update rewrites every NAME.out from the current binary.
# Each GOLDEN_DIR/NAME.run holds `epigemm run` invocations on the CPU that
# must exit 0 and name the cpu_reference operator (timings vary, so only
# that is checked). Commands run with GOLDEN_DIR as the working directory.
set -u

update=0
if [[ "${1:-}" == "--update" ]]; then
  update=1
  shift
fi
if [[ $# -ne 2 ]]; then
  echo "usage: $0 [--update] EPIGEMM_BINARY GOLDEN_DIR" >&2
  exit 2
fi
binary=$(realpath "$1")
golden=$(realpath "$2")
if [[ ! -x "$binary" ]]; then
  echo "run_golden.sh: $binary is not an executable" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Keep the user's kernel cache and locale out of the results.
export EPIGEMM_CACHE_DIR="$work/cache"
export LC_ALL=C
unset EPIGEMM_DUMP_DIR EPIGEMM_LOG

# Runs one invocation line; prints its transcript.
transcript() {
  local line=$1
  local -a words
  eval "words=($line)"
  local rc
  (cd "$golden" && timeout 300 "$binary" "${words[@]}" >"$work/stdout" 2>"$work/stderr")
  rc=$?
  echo "\$ epigemm $line"
  cat "$work/stdout"
  if [[ -s "$work/stderr" ]]; then
    echo "--- stderr"
    cat "$work/stderr"
  fi
  echo "--- exit $rc"
}

# The invocation lines of a case file: comments and blank lines dropped.
invocations() {
  grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1" || true
}

passed=0
failed=0
failures=()

shopt -s nullglob
cases=("$golden"/*.args)
runs=("$golden"/*.run)
if [[ ${#cases[@]} -eq 0 && ${#runs[@]} -eq 0 ]]; then
  echo "run_golden.sh: no *.args or *.run files in $golden" >&2
  exit 1
fi

for args in "${cases[@]}"; do
  name=$(basename "$args" .args)
  expected="$golden/$name.out"
  actual="$work/$name.out"
  : >"$actual"
  crashed=""
  while IFS= read -r line; do
    transcript "$line" >"$work/one.out"
    cat "$work/one.out" >>"$actual"
    # A signal or a timeout is never an expected result.
    if grep -q -E '^--- exit (12[4-9]|1[3-9][0-9]|2[0-9][0-9])$' "$work/one.out"; then crashed="$line"; fi
  done < <(invocations "$args")
  if [[ -n "$crashed" ]]; then
    echo "FAIL $name: 'epigemm $crashed' crashed or timed out:"
    cat "$actual"
    failed=$((failed + 1))
    failures+=("$name")
    continue
  fi
  if [[ $update -eq 1 ]]; then
    cp "$actual" "$expected"
    passed=$((passed + 1))
  elif [[ ! -f "$expected" ]]; then
    echo "FAIL $name: $expected is missing (run with --update to create it)"
    failed=$((failed + 1))
    failures+=("$name")
  elif diff -u "$expected" "$actual" >"$work/diff"; then
    passed=$((passed + 1))
  else
    echo "FAIL $name: output differs from $name.out:"
    cat "$work/diff"
    failed=$((failed + 1))
    failures+=("$name")
  fi
done

for run in "${runs[@]}"; do
  name=$(basename "$run" .run)
  while IFS= read -r line; do
    transcript "$line" >"$work/run.out"
    if ! grep -q -- '^--- exit 0$' "$work/run.out" || ! grep -q 'cpu_reference' "$work/run.out" ||
       ! grep -q '^check: ' "$work/run.out"; then
      echo "FAIL $name: 'epigemm $line' did not exit 0 on cpu_reference with a check line:"
      cat "$work/run.out"
      failed=$((failed + 1))
      failures+=("$name: $line")
    else
      passed=$((passed + 1))
    fi
  done < <(invocations "$run")
done

if [[ $update -eq 1 ]]; then
  echo "cli_golden: updated ${#cases[@]} .out files in $golden ($failed failed)"
  [[ $failed -eq 0 ]]
  exit
fi
echo "cli_golden: $passed passed, $failed failed"
if [[ $failed -ne 0 ]]; then
  printf '  failed: %s\n' "${failures[@]}"
  exit 1
fi
exit 0
