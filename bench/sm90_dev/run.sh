#!/usr/bin/env bash
# Builds the sm90 GEMM development harness with nvcc (sm_90a) and runs it:
# correctness against cuBLAS, NVRTC compile check, interleaved timing.
# Logs go to $OUT (or build-sm90dev/out). SM90_DEV_REUSE=1 reuses a binary
# already in build-sm90dev/ when it links on this machine.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
build=$root/build-sm90dev
out=${OUT:-$build/out}
mkdir -p "$build" "$out"
export PATH=$cuda/bin:$PATH

bin=$build/sm90_dev
if [[ "${SM90_DEV_REUSE:-0}" == 1 && -x $bin ]] && ! ldd "$bin" | grep -q "not found"; then
  echo "reusing $bin"
  cp "$build/ptxas.log" "$out/ptxas.log" 2>/dev/null || true
else
  echo "building $bin"
  start=$(date +%s)
  nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -DNDEBUG -std=c++17 -Xptxas -v \
    "$root/bench/sm90_dev/sm90_dev.cu" -o "$bin" -lcuda -lcublas -lnvrtc \
    > "$out/ptxas.log" 2>&1 || { cat "$out/ptxas.log"; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
fi
grep -E "spill|registers|C75" "$out/ptxas.log" | sort | uniq -c | head -20 || true

if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$bin" > "$build/sass.txt" 2>/dev/null || true
  echo "HGMMA: $(grep -c HGMMA "$build/sass.txt" || true)  QGMMA: $(grep -c QGMMA "$build/sass.txt" || true)" \
    "LDL/STL: $(grep -cE 'LDL|STL' "$build/sass.txt" || true)" | tee "$out/sass_summary.txt"
fi

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv \
  | tee "$out/gpu.txt" || true
# Each phase in its own process, so a hang or crash in one leaves the others.
: > "$out/run.log"
for phase in ${SM90_DEV_PHASES:-checks nvrtc timing}; do
  timeout "${SM90_DEV_TIMEOUT:-300}" "$bin" --kernels "$root/kernels" --cuda-include "$cuda/include" \
    --phases "$phase" --skip "${SM90_DEV_SKIP:-}" "$@" 2>&1 | tee -a "$out/run.log" \
    || echo "phase $phase exited with status ${PIPESTATUS[0]}" | tee -a "$out/run.log"
done
