#!/usr/bin/env bash
# Several A/B runners (cli_ab.sh, pin_ab.sh, dcol_picks.sh) in one device
# call: runs a queue file's commands in order, each given the time left as
# its own guard (CLI_AB_GUARD, PIN_AB_GUARD, PICKS_GUARD: it skips the cases
# that would start after it), and skips the commands left once less than
# QUEUE_MIN_S remain. Each runner's log lands in $OUT as it writes it.
#
# usage: OUT=$OUT bench/sm90_dev/ab_queue.sh QUEUE_FILE
#   QUEUE_FILE: one command a line, run from the repository root with bash
#     ('#' lines are comments), e.g.
#     bench/sm90_dev/pin_ab.sh bench/sm90_dev/long_epilogue_tail.cases
#   QUEUE_LIMIT_S=S  the call's budget in seconds (default 560)
#   QUEUE_MARGIN_S=S the longest case, kept back from each guard (default 60)
#   QUEUE_MIN_S=S    start no command with less left than this (default 120)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
queue=$(realpath "${1:?usage: bench/sm90_dev/ab_queue.sh QUEUE_FILE}")
cd "$root"
start=$(date +%s)
limit=${QUEUE_LIMIT_S:-560}
margin=${QUEUE_MARGIN_S:-60}
while IFS= read -r command; do
  [[ -z ${command// /} || $command == \#* ]] && continue
  left=$(( limit - ($(date +%s) - start) ))
  if (( left < ${QUEUE_MIN_S:-120} )); then
    echo "== queue: ${left} s left, skipped: $command"
    continue
  fi
  guard=$(( left - margin ))
  echo "== queue: ${left} s left, guard ${guard} s: $command"
  CLI_AB_GUARD=$guard PIN_AB_GUARD=$guard PICKS_GUARD=$guard bash -c "$command" < /dev/null
  echo "== queue: exit $? after $(( $(date +%s) - start )) s"
done < "$queue"
