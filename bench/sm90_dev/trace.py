# Per-consumer timelines of the sm90 GEMM, for problems with one tile per CTA.
#
# Apply trace.patch (git apply bench/sm90_dev/trace.patch), build with Python
# on, then on the GPU:  PYTHONPATH=build/python python3 bench/sm90_dev/trace.py
# Each consumer warpgroup writes its globaltimer and clock64 readings over the
# first two rows of its last tile's part of D (D's values are lost, so nothing
# here checks results); globaltimer slot 6 holds the SM, slot 7 the CTA's
# kernel entry (before its barriers' init). Printed per problem: when, after the first consumer
# started, the first and last stages arrived, the main loop ended, the stores
# were issued and done (min / median / max over consumers), the same spans in
# SM cycles, streaming cycles by SM, and the whole span per repetition.
import statistics as st

import torch

import epigemm as eg

EVENTS = ["start", "1st data", "last data", "mma done", "epi issued", "stores done"]
SPANS = [(0, 1, "start->1st data"), (1, 2, "1st->last data"), (2, 3, "last data->mma"),
         (3, 4, "mma->epi issued"), (4, 5, "epi->stores done")]

flush = torch.empty(64 << 20, device="cuda", dtype=torch.float32)  # 256 MB, read to flush L2


def records(D, M, N, rows=2):
    """The (globaltimer[8], clock64[8]) pairs written into D, one per consumer (64 bytes each);
    with rows > 2, each record also holds the next rows' eight values (trace_k.patch writes four)."""
    Db = D.view(torch.uint8)
    row_bytes = N * D.element_size()
    found = []
    for m in range(0, M - rows + 1, 64):
        for b in range(0, row_bytes - 63, 64):
            gt = Db[0, m, b:b + 64].clone().view(torch.int64).tolist()
            if 1e15 < gt[0] < 1e20 and gt[0] <= gt[5] < gt[0] + 10**7:
                found.append(tuple([gt] + [Db[0, m + r, b:b + 64].clone().view(torch.int64).tolist()
                                           for r in range(1, rows)]))
    return found


def trace(M, N, K, b_col=False, epilogue=None, bindings=None, reps=5, operator=None, d_dtype=torch.bfloat16):
    A = torch.randn(1, M, K, device="cuda", dtype=torch.bfloat16)
    if b_col:
        B = torch.randn(1, N, K, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    else:
        B = torch.randn(1, K, N, device="cuda", dtype=torch.bfloat16)
    D = torch.empty(1, M, N, device="cuda", dtype=d_dtype)
    epi = eg.EpilogueArguments(epilogue, D=D, **(bindings or {})) if epilogue else None
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi)
    ops = eg.get_operators(args, target_sm=eg.device_target_sm())
    # `operator`: a substring of the operator's name to pin (else the heuristic's first).
    op = next(o for o in ops if operator is None or operator in o.name)
    runs = []
    for _ in range(reps):
        flush.sum()
        torch.cuda.synchronize()
        op.run(args)
        torch.cuda.synchronize()
        runs.append(records(D, M, N))
    recs = runs[-1]
    t0 = min(r[0][0] for r in recs)
    print(f"== {M}x{N}x{K} B {'col' if b_col else 'row'}-major, {epilogue or 'none'}: {op.name}, "
          f"{len(recs)} consumers")
    for i, name in enumerate(EVENTS):
        v = [r[0][i] - t0 for r in recs]
        print(f"  {name:12s} us  min {min(v) / 1e3:7.3f}  med {st.median(v) / 1e3:7.3f}  max {max(v) / 1e3:7.3f}")
    for a, b, name in SPANS:
        v = [r[1][b] - r[1][a] for r in recs]
        print(f"  {name:18s} cycles  min {min(v):7d}  med {int(st.median(v)):7d}  max {max(v):7d}")
    by_sm = {}
    for r in recs:
        by_sm.setdefault(r[0][6], []).append(r[1][2] - r[1][1])
    ranked = sorted(by_sm.items(), key=lambda kv: min(kv[1]))
    print("  streaming cycles, fastest SMs:", [(sm, min(v)) for sm, v in ranked[:4]],
          "slowest:", [(sm, min(v)) for sm, v in ranked[-4:]])
    spans = [(max(r[0][5] for r in rs) - min(r[0][0] for r in rs)) / 1e3 for rs in runs]
    print("  span per repetition (us):", " ".join(f"{s:.3f}" for s in spans))


if __name__ == "__main__":
    relu_f = "def epi(accum, alpha, C): F = accum * alpha + C * 2.0; D = relu(F); return D, F"
    trace(16, 8192, 8192)
    trace(16, 8192, 8192, b_col=True)
    trace(128, 8192, 8192)
    trace(16, 8192, 8192, epilogue="def epi(accum, bias): D = accum + bias; return D",
          bindings={"bias": torch.randn(8192, device="cuda", dtype=torch.bfloat16)})
    trace(1024, 1024, 1024)
    for M, N, K in [(16, 8192, 8192), (1024, 1024, 1024)]:
        trace(M, N, K, epilogue=relu_f,
              bindings={"alpha": 1.5, "C": torch.randn(1, M, N, device="cuda", dtype=torch.bfloat16),
                        "F": torch.empty(1, M, N, device="cuda", dtype=torch.bfloat16)})
