# GEMMs back to back on one stream: the time per GEMM over a chain of launches
# (one event pair around the chain, no L2 flush), epigemm's heuristic choice
# against torch.matmul (cuBLAS) on the same bf16 operands, interleaved. Shows
# what the sm90 GEMM's programmatic dependent launch hides: each launch's set-up
# overlaps the end of the kernel before it.
#
# Build with Python on, then on the GPU:
#   PYTHONPATH=build/python python3 bench/sm90_dev/back_to_back.py
import statistics as st

import torch

import epigemm as eg

SHAPES = [(16, 8192, 8192), (128, 8192, 8192), (256, 256, 256), (1024, 1024, 1024), (4096, 4096, 4096)]


def per_gemm_us(run, n):
    """Microseconds per launch over a chain of n, queued while the GPU sleeps."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(2_000_000)  # the host queues the whole chain before it starts
    start.record()
    for _ in range(n):
        run()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / n


def compare(M, N, K, n=100, reps=7):
    A = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    D = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    D_ref = torch.empty_like(D)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32)
    op = eg.get_operators(args, target_sm=eg.device_target_sm())[0]
    ours = lambda: op.run(args)
    cublas = lambda: torch.matmul(A, B, out=D_ref)
    for f in (ours, cublas):
        for _ in range(10):
            f()
    torch.cuda.synchronize()
    times = {"epigemm": [], "cuBLAS": []}
    for r in range(reps):
        order = [("epigemm", ours), ("cuBLAS", cublas)]
        for name, f in order if r % 2 == 0 else reversed(order):
            times[name].append(per_gemm_us(f, n))
    err = ((D.float() - D_ref.float()).abs().max() / D_ref.float().abs().max()).item()
    a, b = st.median(times["epigemm"]), st.median(times["cuBLAS"])
    print(f"| {M}x{N}x{K} | {op.name} | {a:.2f} | {b:.2f} | {a / b:.3f} | {err:.1e} |")


if __name__ == "__main__":
    print(f"bf16, {torch.cuda.get_device_name()}, chains of 100, median of 7")
    print("| shape | epigemm operator | epigemm us/GEMM | cuBLAS us/GEMM | ratio | max rel diff |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for shape in SHAPES:
        compare(*shape)
