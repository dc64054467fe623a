# Per-CTA progress through K for one-wave problems (one tile per CTA): the time at which each CTA's
# consumers reached every sixteenth of their k-stages, the fastest and slowest CTAs' pace per sixteenth,
# and how many sixteenths the grid completed per 2 us. Shows whether some SMs stream slower than others
# (what a rebalancing of K between CTAs could win) or the grid moves in step.
#
# Apply trace_k.patch (instead of trace.patch: it holds it), build with Python on, then on the GPU:
#   PYTHONPATH=build/python python3 bench/sm90_dev/trace_k.py
import os, sys, statistics as st
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import epigemm as eg
import trace as T

def recs_k(D, M, N):
    """(globaltimer[8], the times at the 16 sixteenths) per consumer."""
    return [(gt, k1 + k2) for gt, _, k1, k2 in T.records(D, M, N, rows=4)]

def run(M, N, K, b_col, reps=4):
    A = torch.randn(1, M, K, device="cuda", dtype=torch.bfloat16)
    B = (torch.randn(1, N, K, device="cuda", dtype=torch.bfloat16).transpose(1, 2) if b_col
         else torch.randn(1, K, N, device="cuda", dtype=torch.bfloat16))
    D = torch.empty(1, M, N, device="cuda", dtype=torch.bfloat16)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32)
    op = eg.get_operators(args, target_sm=eg.device_target_sm())[0]
    for rep in range(reps):
        T.flush.sum(); torch.cuda.synchronize(); op.run(args); torch.cuda.synchronize()
        rs = recs_k(D, M, N)
        by_sm = {}
        for gt, k in rs:
            by_sm.setdefault(gt[6], (gt, k))
        t0 = min(gt[0] for gt, k in by_sm.values())
        rows = []
        for sm, (gt, k) in by_sm.items():
            pts = [(x - t0) / 1e3 for x in k] + [(gt[2] - t0) / 1e3]  # 16 sixteenths + last stage
            rows.append((pts[-1], sm, pts, (gt[5] - t0) / 1e3))
        rows.sort()
        ends = [r[0] for r in rows]
        print(f"== {M}x{N}x{K} B {'col' if b_col else 'row'} rep {rep}: {op.name}, {len(rows)} SMs; "
              f"last stage us min {ends[0]:.2f} med {st.median(ends):.2f} max {ends[-1]:.2f}; kernel end {max(r[3] for r in rows):.2f}")
        # per segment duration (us) of the 8 fastest and 8 slowest CTAs (segments 1..15 and the last partial)
        for tag, sel in (("fast", rows[:6]), ("slow", rows[-6:])):
            for e, sm, pts, _ in sel:
                seg = [pts[i + 1] - pts[i] for i in range(16)]
                print(f"  {tag} sm{sm:3d} first {pts[0]:5.2f} last {e:6.2f} seg " + " ".join(f"{x:4.2f}" for x in seg))
        # aggregate: sixteenths completed per 2-us bin, and CTAs still streaming
        tmax = ends[-1]
        nb = int(tmax // 2) + 1
        done = [0] * nb; active = [0] * nb
        for e, sm, pts, _ in rows:
            for i in range(1, 17):
                done[min(int(pts[i] // 2), nb - 1)] += 1
            for bi in range(nb):
                if pts[0] <= bi * 2 + 1 <= e: active[bi] += 1
        print("  bins of 2us: sixteenths done / CTAs active / per-CTA rate")
        print("  " + " ".join(f"{d}/{a}/{(d / a if a else 0):.2f}" for d, a in zip(done, active)))

if __name__ == "__main__":
    run(128, 8192, 8192, False)
    run(128, 8192, 8192, True)
    run(16, 8192, 8192, True)
