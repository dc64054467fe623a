#!/usr/bin/env bash
# Compiles the sm90 kernel that `epigemm emit` prints for a problem with nvcc
# (ptxas -v: registers and spills) into a cubin, without a GPU.
# usage: bench/sm90_dev/ptxas_check.sh OUT.cubin [epigemm emit flags...]
# e.g.   bench/sm90_dev/ptxas_check.sh /tmp/k.cubin --operator sm90_wgmma_128x128x64_c1x1_pingpong_16bit \
#          --ab-dtype bf16 --mnkl 4096,4096,4096,1
# NVRTC compiles the same source at run time; its cubin can differ from
# nvcc's (see "GemmParams must stay within 128 bytes" in NOTES.md).
set -euo pipefail
out=$1
shift
cd "$(dirname "$0")/../.."
src=$(mktemp /tmp/epg_emit.XXXXXX.cu)
build/epigemm emit "$@" > "$src"
kernel=$(grep -A1 "The kernel NVRTC instantiates" "$src" | tail -1 | sed 's#^//  *##')
echo "__device__ void* epg_force_instantiation = (void*)&$kernel;" >> "$src"
/usr/local/cuda/bin/nvcc -std=c++20 -arch=sm_90a -cubin -I kernels -Xptxas -v -o "$out" "$src" 2>&1 |
  grep -E "error|registers|spill"
rm -f "$src"
