#!/usr/bin/env bash
# `epigemm run` on a GPU with every layout flag: A, B and D (with the
# epilogue's other tiles) row- or column-major, on the operator the tool
# picks and on simt, each run's outputs passing the check against
# cpu_reference. Skips (exit 77) without a GPU.
#   gpu_layouts.sh EPIGEMM_BINARY
set -u
source "$(dirname "$0")/gpu_cli_setup.sh"
epilogue="def epi(accum, C, bias): F = accum + C * bias; D = relu(F); r = sum(F); return D, F, r"
failed=0
for a in row col; do
  for b in row col; do
    for d in row col; do
      for provider in "" simt; do
        flags=(--mnkl 300,520,136,2 --ab-dtype bf16 --a-layout $a --b-layout $b --d-layout $d --iterations 1
               --epilogue "$epilogue" --tensor bias=row --output r=col:f32)
        [[ -n $provider ]] && flags+=(--provider "$provider")
        out=$("$binary" run "${flags[@]}" 2>&1)
        if ! grep -q '^check: passed$' <<< "$out"; then
          echo "run ${flags[*]}: the check did not pass"
          echo "$out" | tail -12
          failed=1
        fi
      done
    done
  done
done
exit "$failed"
