#!/usr/bin/env bash
# ncu counters (time, DRAM and L2 bytes, L2 hit rate and load, SM clock)
# of pinned sm90 operators, one `epigemm run` per shape x operator x
# epilogue (bf16; two launches profiled after two warm-ups; caches flushed
# before each; clocks left as the card sets them). Prints one row each.
#
# usage: bench/sm90_dev/ncu_tiles.sh
#   NCU_SHAPES="8192,8192,8192,1 4096,4096,4096,1"   --mnkl values
#   NCU_OPS="sm90_wgmma_128x128x64_c1x1_pingpong_16bit sm90_wgmma_128x256x64_c1x1_16bit"
#   NCU_EPILOGUES="none relu"   none: D = accum; relu: relu(acc*a+2C)+F
#   NCU_B_LAYOUT=row|col        B's layout (default row: N-major)
#   NCU_PATCH=P   profile a second build with patch P applied too ("patched" rows)
#   NCU_EXTRA_METRICS=a,b   more ncu metrics, printed after the table (mean per row)
#   OUT=DIR   the raw log goes to DIR/ncu_tiles.log too
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/bench/sm90_dev/patched_tree.sh"
build=$root/build-ncu
build_cli "$root" "$build" || exit 1
builds=("tree $build/epigemm")
if [[ -n ${NCU_PATCH:-} ]]; then
  copy=$(mktemp -d)
  patched_tree "$root" "$(realpath "$NCU_PATCH")" "$copy" || exit 1
  rm -rf "$root/build-ncu-patched"  # its cache names the last run's copy
  build_cli "$copy" "$root/build-ncu-patched" || exit 1
  builds+=("patched $root/build-ncu-patched/epigemm")
fi
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__m_xbar2l1tex_read_bytes.sum
metrics+=,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
[[ -n ${NCU_EXTRA_METRICS:-} ]] && metrics+=,$NCU_EXTRA_METRICS
relu='def epi(accum, alpha, C): F = accum*alpha + C*2.0; D = relu(F); return D, F'
log=$(mktemp)
for shape in ${NCU_SHAPES:-8192,8192,8192,1 4096,4096,4096,1}; do
  for op in ${NCU_OPS:-sm90_wgmma_128x128x64_c1x1_pingpong_16bit sm90_wgmma_128x256x64_c1x1_16bit}; do
    for epi in ${NCU_EPILOGUES:-none relu}; do
      args=(--mnkl "$shape" --ab-dtype bf16 --b-layout "${NCU_B_LAYOUT:-row}" --operator "$op" --skip-ref-check
            --warmup-iterations 2 --iterations 3)
      [[ $epi == relu ]] && args+=(--epilogue "$relu" --scalar alpha=0.5)
      for b in "${builds[@]}"; do
        read -r tag exe <<< "$b"
        echo "== $shape $op $epi${NCU_PATCH:+ $tag}" >> "$log"
        timeout 120 ncu --clock-control none --cache-control all -k regex:gemm_kernel --launch-skip 2 --launch-count 2 \
          --metrics "$metrics" --csv "$exe" run "${args[@]}" 2>&1 |
          grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"' >> "$log"
      done
    done
  done
done
[[ -n ${OUT:-} ]] && cp "$log" "$OUT/ncu_tiles.log"
python3 - "$log" "${NCU_EXTRA_METRICS:-}" << 'PY'
import re, sys
rows, cur = {}, None
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("== "):
        cur = line[3:]
        rows[cur] = {}
        continue
    m = re.match(r"(\S+) ([\d,.]+)$", line)
    if m and cur:
        rows[cur].setdefault(m.group(1), []).append(float(m.group(2).replace(",", "")))
print("| problem operator epilogue | us | DRAM read GB | DRAM write GB | L2 -> SM GB | L2 hit % | L2 busy % | SM GHz |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for name, v in rows.items():
    mean = lambda k, s=1.0: sum(v[k]) / len(v[k]) / s if v.get(k) else float("nan")
    print(f"| {name} | {mean('gpu__time_duration.sum', 1e3):.1f} | {mean('dram__bytes_read.sum', 1e9):.3f} | "
          f"{mean('dram__bytes_write.sum', 1e9):.3f} | {mean('l1tex__m_xbar2l1tex_read_bytes.sum', 1e9):.2f} | "
          f"{mean('lts__t_sector_hit_rate.pct'):.1f} | {mean('lts__throughput.avg.pct_of_peak_sustained_elapsed'):.1f} | "
          f"{mean('sm__cycles_elapsed.avg.per_second', 1e9):.3f} |")
extra = [m for m in sys.argv[2].split(",") if m]
for name, v in rows.items():
    for m in extra:
        print(f"{name}: {m} = {sum(v[m]) / len(v[m]):.4g}" if v.get(m) else f"{name}: {m} = (none)")
PY
