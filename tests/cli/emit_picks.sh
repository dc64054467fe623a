#!/usr/bin/env bash
# `epigemm emit` must name the operator a GPU run picks, and so must the
# first "ok" row of `epigemm list --target-sm 90` on a machine without a GPU.
# Their tensors are host buffers viewed as device ones, and the sm90
# heuristic ranks tiles by the base address's alignment, so those buffers
# must be aligned as cudaMalloc's are. Expected: the picks the H200's pins
# chose (132 SMs, the heuristic's default SM count without a device).
#   emit_picks.sh EPIGEMM_BINARY
set -u
binary=$1
export EPIGEMM_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$EPIGEMM_CACHE_DIR"' EXIT
failed=0
expect() {
  local mnkl=$1 want=$2 got
  got=$("$binary" emit --mnkl "$mnkl" --ab-dtype bf16 | head -1)
  if [[ "$got" != "// epigemm emit: operator $want" ]]; then
    echo "emit --mnkl $mnkl: got '$got', want operator $want"
    failed=1
  fi
  local listing
  listing=$("$binary" list --target-sm 90 --mnkl "$mnkl" --ab-dtype bf16) || { echo "list --mnkl $mnkl failed"; failed=1; return; }
  grep -q '^tensors described as cuda' <<< "$listing" || return 0  # a GPU here: list ranks for it
  got=$(awk '$NF == "ok" { print $1; exit }' <<< "$listing")
  if [[ "$got" != "$want" ]]; then
    echo "list --target-sm 90 --mnkl $mnkl: first ok operator '$got', want $want"
    failed=1
  fi
}
expect 4096,4096,4096,1 sm90_wgmma_128x256x64_c1x1_16bit
expect 8192,8192,8192,1 sm90_wgmma_128x256x64_c1x1_16bit
expect 8192,8192,1024,1 sm90_wgmma_128x128x64_c1x1_pingpong_16bit
expect 1024,1024,1024,1 sm90_wgmma_64x128x64_c1x1_16bit
expect 16,8192,8192,1 sm90_wgmma_64x64x64_c1x1_kgroup2_16bit
# Without a GPU, --target-l2-mib describes another card's L2: an H100's
# 50 MB puts a fused 8192^3 on 128x192 pingpong where the H200's 60 keep 128x128.
fused=(list --target-sm 90 --mnkl 8192,8192,8192,1 --ab-dtype bf16 --provider sm90
       --epilogue "def e(accum, C): D = relu(accum + C); return D")
if grep -q '^tensors described as cuda' <<< "$("$binary" "${fused[@]}")"; then
  for case in "60 sm90_wgmma_128x128x64_c1x1_pingpong_16bit" "50 sm90_wgmma_128x192x64_c1x1_pingpong_16bit"; do
    read -r l2 want <<< "$case"
    got=$("$binary" "${fused[@]}" --target-l2-mib "$l2" | awk '$NF == "ok" { print $1; exit }')
    if [[ "$got" != "$want" ]]; then
      echo "list --target-l2-mib $l2 (fused 8192^3): first ok operator '$got', want $want"
      failed=1
    fi
  done
fi
exit $failed
