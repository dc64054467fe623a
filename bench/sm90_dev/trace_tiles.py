# Where each consumer warpgroup's time goes, tile by tile, for problems of
# any number of tiles per CTA (pingpong included).
#
# Apply trace_tiles.patch (git apply bench/sm90_dev/trace_tiles.patch: it
# adds %globaltimer sums to consume() and stamps to the producer's start
# in kernels/sm90_gemm.cuh), build the
# Python binding, then on the GPU:
#   PYTHONPATH=build/python python3 bench/sm90_dev/trace_tiles.py 4096x4096x512 16x8192x8192:col [--only none,reluF] [--dump F]
# (":col": B column-major, K contiguous). Each consumer's thread 0 writes one
# record of 38 64-bit words over the first five rows of its part of its last
# tile in D, 8 words (64 bytes) per row (D's values are lost: nothing is
# checked; M >= 5, and the part at least 64 bytes wide).
# Printed per problem and epilogue, per tile (median [min, max] over the
# consumers, microseconds):
#   order-wait  the pingpong hand-over barrier before a tile's main loop
#   main        the main loop, its first stage's wait included
#   epi         from the last wgmma's wait to the last store issued
#   1st stage wait, full waits (the later stages'), wgmma waits (wait<1>),
#   issue (from the hand-over to the last wgmma issued)
# and once per consumer: its entry to its first main loop, its last
# epilogue to its exit. `span` is the first entry to the last exit.
# From the kernel's entry (its CTA's thread 0): the producer past its
# register release, its first stage issued, the consumer's entry, its
# first data; the producer's tensormap prefetches, scheduler, first tile.
# Inside the epilogue, SM cycles (clock64) per tile: the staged input's
# wait, the chunks' computation and shared stores (the wait for free slots
# and its barrier included), D's flushes (fence, barrier, TMA stores; the
# fence and the barrier also alone), the
# tail after the chunks (a staged output: its wait for D's stores, then its
# own); and the computation by chunk position, for tiles of four chunks
# (pingpong 128x128 with a 16-bit D: row block 0 chunks 0, 1, then row
# block 1's; with more chunks the positions wrap, so position 0 of a
# five-chunk tile holds chunks 0 and 4); per warp of a consumer (its last tile, cycles after the
# consumer's first warp entered the epilogue), its entry and its arrival at
# the last flush, to see whether a flush waits for warps that started late
# or ran slow; and the cycles thread 0 spends issuing the staged input's
# load inside the main loop. The epilogue's sums stay in registers until
# the tile's stores are issued (summing them in global memory chunk by
# chunk once delayed warp 0 alone by ~1500 cycles at 1536^3). --dump F appends one JSON line per problem and epilogue to F:
# each consumer's CTA, SM, part, first column of D and main-loop time (us),
# to see whether a slow consumer follows its tile or its SM across runs.
import json
import statistics as st
import sys

import torch

import epigemm as eg

MAGIC = 0x7ACE7ACE7ACE7ACE
flush = torch.empty(64 << 20, device="cuda", dtype=torch.float32)  # 256 MB, read to flush L2


def bf16(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


EPILOGUES = {
    "none": (None, lambda M, N: {}),
    "ab": ("def epi(accum, alpha, beta, C): D = alpha * accum + beta * C; return D",
           lambda M, N: {"alpha": 1.2, "beta": 0.7, "C": bf16(1, M, N)}),
    "reluF": ("def epi(accum, alpha, C): F = accum * alpha + C * 2.0; D = relu(F); return D, F",
              lambda M, N: {"alpha": 1.2, "C": bf16(1, M, N), "F": bf16(1, M, N)}),
    "gelu": ("def epi(accum, bias): D = gelu(accum + bias); return D", lambda M, N: {"bias": bf16(N)}),
    "rowcol": ("def epi(accum, alpha, row_bias, col_bias): D = accum * alpha + row_bias + col_bias; return D",
               lambda M, N: {"alpha": 1.2, "row_bias": bf16(N), "col_bias": bf16(M, 1)}),
}


def run(M, N, K, name, reps=7, b_col=False, dump=None):
    source, bindings = EPILOGUES[name]
    A, D = bf16(1, M, K), bf16(1, M, N)
    B = bf16(1, N, K).transpose(1, 2) if b_col else bf16(1, K, N)
    epi = eg.EpilogueArguments(source, D=D, **bindings(M, N)) if source else None
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi)
    op = eg.get_operators(args, target_sm=eg.device_target_sm())[0]
    for _ in range(reps):
        D.fill_(0)
        flush.sum()
        torch.cuda.synchronize()
        op.run(args)
        torch.cuda.synchronize()
    words = D.view(torch.int64).view(-1).cpu()
    at = (words == MAGIC).nonzero().flatten().tolist()
    if not at:
        print(f"{M}x{N}x{K}{' B col-major' if b_col else ''} {name}: no records (stream-K or an edge tile held the last ones)")
        return
    row_words = N * D.element_size() // 8
    recs = [[words[i + (j // 8) * row_words + j % 8].item() for j in range(38)] for i in at]
    tiles = [r[1] >> 48 for r in recs]
    per_tile = lambda j, unit=1e3: [r[j] / max(1, t) / unit for r, t in zip(recs, tiles)]  # ns -> us
    head = [(r[7] & 0xFFFFFFFF) / 1e3 for r in recs]
    tail = [(r[7] >> 32) / 1e3 for r in recs]
    span = (max(r[3] for r in recs) - min(r[2] for r in recs)) / 1e3
    q = lambda v: f"{st.median(v):6.2f} [{min(v):5.2f},{max(v):6.2f}]"
    print(f"{M}x{N}x{K}{' B col-major' if b_col else ''} {name}: {op.name}, span {span:.1f} us, {len(recs)} consumers, tiles {min(tiles)}-{max(tiles)}")
    print(f"  per tile: order-wait {q(per_tile(4))} main {q(per_tile(5))} epi {q(per_tile(6))}")
    print(f"  per tile: 1st stage wait {q(per_tile(8))} full waits {q(per_tile(10))} wgmma waits {q(per_tile(11))}"
          f" issue {q(per_tile(9))}")
    print(f"  entry -> 1st main {q(head)}  last epi -> exit {q(tail)}")
    k0 = [r[21] for r in recs]
    since = lambda v: [(x - z) / 1e3 for x, z in zip(v, k0)]
    first_data = [r[2] + (r[7] & 0xFFFFFFFF) + r[8] for r in recs]  # the consumer's first item
    print(f"  from kernel entry: producer released {q(since([r[22] for r in recs]))} first stage issued "
          f"{q(since([r[23] for r in recs]))} consumer entry {q(since([r[2] for r in recs]))} first data {q(since(first_data))}")
    print(f"  producer from kernel entry: tensormaps prefetched {q(since([r[24] for r in recs]))} scheduler built "
          f"{q(since([r[25] for r in recs]))} first tile found {q(since([r[26] for r in recs]))}")
    cyc = lambda j: per_tile(j, 1)  # clock64 sums: cycles
    qc = lambda v: f"{st.median(v):6.0f} [{min(v):5.0f},{max(v):6.0f}]"
    print(f"  epilogue cycles per tile: staged input wait {qc(cyc(12))} chunks {qc(cyc(13))}"
          f" flushes {qc(cyc(14))} (fence {qc(cyc(36))} barrier {qc(cyc(37))}) tail {qc(cyc(15))} (its wait for D {qc(cyc(20))})")
    print(f"  chunks by position: {' '.join(qc(cyc(j)) for j in range(16, 20))}")
    print(f"  staged input's load issued (thread 0, in the main loop): {qc(cyc(35))} cycles per tile")
    # Per warp of a consumer, the last tile: its epilogue entry and its
    # arrival at the last flush, in cycles after the consumer's first warp
    # entered (clock64 is the SM's).
    entry = [[r[27 + w] for w in range(4)] for r in recs]
    arrive = [[r[31 + w] for w in range(4)] for r in recs]
    since_first = lambda v, e: [x - min(e) for x in v]
    for w in range(4):
        print(f"  warp {w}: entry {qc([since_first(e, e)[w] for e in entry])}"
              f" flush arrival {qc([since_first(a, e)[w] for a, e in zip(arrive, entry)])}")
    if dump:
        cols = [(i % row_words) * 8 // D.element_size() for i in at]
        consumers = [{"cta": r[1] >> 32 & 0xFFFF, "sm": r[1] >> 8 & 0xFFFF, "part": r[1] & 0xFF, "n": n, "main_us": m}
                     for r, n, m in zip(recs, cols, per_tile(5))]
        with open(dump, "a") as f:
            f.write(json.dumps({"shape": f"{M}x{N}x{K}", "b_col": b_col, "epilogue": name, "consumers": consumers}) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]

    def take(flag):
        """The value after `flag` (removed from args with it), or None."""
        if flag not in args:
            return None
        at = args.index(flag)
        value = args[at + 1]
        del args[at:at + 2]
        return value

    only = take("--only")
    names = only.split(",") if only else list(EPILOGUES)
    dump = take("--dump")
    for shape in args or ["4096x4096x512"]:
        dims, _, layout = shape.partition(":")
        M, N, K = map(int, dims.split("x"))
        for name in names:
            run(M, N, K, name, b_col=layout == "col", dump=dump)
