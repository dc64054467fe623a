# Per-item timelines of the sm90 pingpong GEMM (whole tiles and stream-K's
# cut pieces), to see where cut ranges lose time.
#
# Apply trace_items.patch (git apply bench/sm90_dev/trace_items.patch), build
# with Python on, then on the GPU:
#   PYTHONPATH=build/python python3 bench/sm90_dev/trace_items.py [M N K]
# Each consumer warpgroup writes, for each of its items, the tile, k-blocks
# and role and the globaltimer when its main loop began and ended, its
# partial was combined and its stores were issued, over the first rows of
# its last stored tile (D's values are lost). Printed: the span, per-k-block
# main-loop times by role, the gaps between one consumer's main loop and
# the other's, and a few CTAs' item lists.
import statistics as st
import sys

import torch

import epigemm as eg

MAGIC = 0x7472616365
ROLES = {0: "whole", 1: "writes", 2: "finish"}
flush = torch.empty(64 << 20, device="cuda", dtype=torch.float32)  # 256 MB, read to flush L2


def records(D, M, N, bm=128, bn=128):
    rows = D[0].view(torch.int64)  # (M, N / 4)
    out = []
    for m in range(0, M, bm):
        head = rows[m, 0::bn // 4].tolist()
        for c, h in enumerate(head):
            if h >> 24 != MAGIC:
                continue
            n = c * bn
            count = h & 0xFFFFFF
            who = rows[m, n // 4 + 1].item()
            items = []
            for j in range(count):
                r = rows[m + 1 + j // 5, n // 4 + (j % 5) * 5: n // 4 + (j % 5) * 5 + 5].tolist()
                d = r[0]
                items.append(dict(tile=d & 0xFFFFF, k0=(d >> 20) & 0xFFF, k1=(d >> 32) & 0xFFF,
                                  role=ROLES[(d >> 44) & 0xF], index=(d >> 48) & 0xFFFF,
                                  start=r[1], issued=r[2], combined=r[3], stored=r[4]))
            out.append(dict(cta=who >> 32, consumer=(who >> 16) & 0xFFFF, sm=who & 0xFFFF, items=items))
    return out


def trace(M, N, K, reps=3, show=4):
    A = torch.randn(1, M, K, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(1, K, N, device="cuda", dtype=torch.bfloat16)
    D = torch.empty(1, M, N, device="cuda", dtype=torch.bfloat16)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32)
    op = [o for o in eg.get_operators(args, target_sm=eg.device_target_sm()) if "c1x1_pingpong" in o.name][0]
    for _ in range(reps):
        flush.sum()
        torch.cuda.synchronize()
        op.run(args)
        torch.cuda.synchronize()
    recs = records(D, M, N)
    items = [(r, it) for r in recs for it in r["items"]]
    t0 = min(it["start"] for _, it in items)
    end = max(it["stored"] for _, it in items)
    print(f"== {M}x{N}x{K} {op.name}: {len(recs)} consumers, {len(items)} items, span {(end - t0) / 1e3:.2f} us")
    for role in ROLES.values():
        v = [(it["issued"] - it["start"]) / (it["k1"] - it["k0"]) for _, it in items if it["role"] == role]
        if v:
            print(f"  {role:7s} main loop ns per k-block: n {len(v):4d} min {min(v):6.0f} med {st.median(v):6.0f} "
                  f"max {max(v):6.0f}")
    v = [(it["combined"] - it["issued"]) / 1e3 for _, it in items if it["role"] != "whole"]
    if v:
        print(f"  partial write/add us: med {st.median(v):.2f} max {max(v):.2f}")
    # Idle tensor cores: per CTA, gaps between consecutive main loops (either consumer).
    by_cta = {}
    for r, it in items:
        by_cta.setdefault(r["cta"], []).append(it)
    gaps, ends = [], []
    for cta, its in by_cta.items():
        its.sort(key=lambda x: x["start"])
        gaps += [max(0, b["start"] - a["issued"]) / 1e3 for a, b in zip(its, its[1:])]
        ends.append((max(x["stored"] for x in its) - t0) / 1e3)
    print(f"  gaps between main loops us: total per CTA med {st.median(gaps) * len(gaps) / len(by_cta):.2f}, "
          f"max single {max(gaps):.2f}; CTA end us min {min(ends):.2f} med {st.median(ends):.2f} max {max(ends):.2f}")
    for cta in sorted(by_cta)[:show]:
        print(f"  CTA {cta}:")
        for it in by_cta[cta]:
            print(f"    #{it['index']:2d} tile {it['tile']:5d} k {it['k0']:3d}-{it['k1']:3d} {it['role']:7s} "
                  f"start {(it['start'] - t0) / 1e3:7.2f} loop {(it['issued'] - it['start']) / 1e3:6.2f} "
                  f"combine {(it['combined'] - it['issued']) / 1e3:5.2f} store {(it['stored'] - it['combined']) / 1e3:5.2f}")


if __name__ == "__main__":
    dims = [int(x) for x in sys.argv[1:4]] or [4096, 4096, 4096]
    trace(*dims)
