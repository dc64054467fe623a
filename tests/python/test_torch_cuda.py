"""The notebook's examples on torch CUDA tensors and a GPU operator, checked
with torch.testing.assert_close against PyTorch itself, plus stream handling
and CUDA graph capture. Skipped without torch or a CUDA device."""

from __future__ import annotations

import pytest

import epigemm as eg
from epigemm import relu

torch = pytest.importorskip("torch")
pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

L, M, N, K = 1, 1024, 1024, 1024


@pytest.fixture
def target_sm():
    return eg.utils.device.device_or_env_target_sm()


@pytest.fixture(autouse=True)
def seeded(rng):
    torch.manual_seed(int(rng.integers(2**31)))


def randint(shape, dtype=torch.float16):
    return torch.randint(-2, 3, shape, device="cuda", dtype=dtype)


def gpu_operators(args, target_sm):
    ops = eg.get_operators(args, target_sm=target_sm)
    assert len(ops) > 0
    assert ops[0].metadata.min_sm > 0, f"{ops[0].name} is not a GPU operator"
    return ops


def test_intro_example(target_sm):
    def my_epilogue(accum, C, alpha, beta, extra_scalar):
        Aux = (alpha * accum) + (beta * C)
        D = extra_scalar * Aux
        return D, Aux

    A, B, C = randint((L, M, K)), randint((L, K, N)), randint((L, M, N))
    alpha, beta, extra_scalar = 1.0, 2.0, 0.5
    D, Aux = my_epilogue(A @ B, C, alpha, beta, extra_scalar)
    D_, Aux_ = [torch.empty((L, M, N), device="cuda", dtype=torch.float16) for _ in range(2)]
    epi_args = eg.EpilogueArguments(my_epilogue, C=C, alpha=alpha, beta=beta, extra_scalar=extra_scalar, D=D_, Aux=Aux_)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    gpu_operators(args, target_sm)[0].run(args)
    torch.testing.assert_close(D, D_)
    torch.testing.assert_close(Aux, Aux_)


def test_relu_aux_store(target_sm):
    def relu_aux_store(accum, alpha, C):
        F = (accum * alpha) + (C * 2.0)  # Constant beta
        D = relu(F)
        return D, F

    A, B, C = randint((L, M, K)), randint((L, K, N)), randint((L, M, N))
    alpha = 3.0
    D = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    F = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    epi_args = eg.EpilogueArguments(relu_aux_store, alpha=alpha, C=C, D=D, F=F)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    gpu_operators(args, target_sm)[0].run(args)
    D_ref, F_ref = relu_aux_store(A @ B, alpha, C)
    torch.testing.assert_close(D, D_ref)
    torch.testing.assert_close(F, F_ref)


def test_relu_scale_return_acc(target_sm):
    def relu_scale_return_acc(accum, alpha, beta, C, scale):
        F = relu((accum * alpha) + (C * beta))
        D = F * scale
        return D, F, accum

    A, B, C = randint((L, M, K)), randint((L, K, N)), randint((L, M, N))
    alpha, beta, scale = 1.0, 2.0, 0.5
    D = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    F = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    accum = torch.empty((L, M, N), device="cuda", dtype=torch.float32)
    epi_args = eg.EpilogueArguments(
        relu_scale_return_acc, alpha=alpha, beta=beta, C=C, scale=scale, D=D, F=F, accum=accum
    )
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    gpu_operators(args, target_sm)[0].run(args)
    D_ref, F_ref, accum_ref = relu_scale_return_acc(A @ B, alpha, beta, C, scale)
    torch.testing.assert_close(D, D_ref)
    torch.testing.assert_close(F, F_ref)
    torch.testing.assert_close(accum, accum_ref.to(accum.dtype))


def test_string_epilogue(target_sm):
    epi_str = "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F"
    A, B, C = randint((L, M, K)), randint((L, K, N)), randint((L, M, N))
    alpha, beta = 1.0, 0.5
    D = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    F = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    epi_args = eg.EpilogueArguments(epi_str, alpha=alpha, beta=beta, C=C, D=D, F=F)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    gpu_operators(args, target_sm)[0].run(args)
    F_ref = (A @ B) * alpha + (C * beta)
    torch.testing.assert_close(D, torch.relu(F_ref))
    torch.testing.assert_close(F, F_ref)


def test_row_and_column_broadcasts(target_sm):
    def broadcast_epilogue(accum, row_bias, col_bias, alpha):
        D = (accum * alpha) + row_bias + col_bias
        return D

    A, B = randint((L, M, K)), randint((L, K, N))
    row_bias = torch.randn(N, device="cuda", dtype=torch.float16)
    col_bias = torch.randn(M, 1, device="cuda", dtype=torch.float16)
    alpha = 1.0
    D = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    epi_args = eg.EpilogueArguments(broadcast_epilogue, row_bias=row_bias, col_bias=col_bias, alpha=alpha, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    gpu_operators(args, target_sm)[0].run(args)
    # In float32, then rounded once, as the fused epilogue does.
    D_ref = ((A.float() @ B.float()) * alpha + row_bias.float() + col_bias.float()).half()
    torch.testing.assert_close(D, D_ref)


def bias_relu_problem():
    A, B = randint((L, M, K)), randint((L, K, N))
    bias = torch.randn(N, device="cuda", dtype=torch.float16)
    D = torch.empty((L, M, N), device="cuda", dtype=torch.float16)
    epi = eg.EpilogueArguments("def epi(accum, bias): D = relu(accum + bias); return D", bias=bias, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi)

    def reference():
        return torch.relu(A.float() @ B.float() + bias.float()).half()

    return args, D, bias, reference


def test_column_major_outputs(target_sm):
    """D and F as transposes of row-major buffers (nn.Linear's y^T); on
    Hopper the sm90 provider runs them (as the transposed problem, or on a
    tile that writes D column-major)."""

    def epi(accum, bias, C):
        F = accum + bias * C
        D = relu(F)
        rows = sum(F)
        return D, F, rows

    m, n, k = 300, 520, 136
    A, B = randint((m, k), torch.bfloat16), randint((k, n), torch.bfloat16)
    bias, C = randint((n,), torch.float32), randint((n, m), torch.bfloat16).t()
    D = torch.empty((n, m), device="cuda", dtype=torch.bfloat16).t()
    F = torch.empty((n, m), device="cuda", dtype=torch.float32).t()
    rows = torch.empty((m, 1), device="cuda", dtype=torch.float32)
    epi_args = eg.EpilogueArguments(epi, bias=bias, C=C, D=D, F=F, rows=rows)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    op = gpu_operators(args, target_sm)[0]
    if target_sm == 90:
        assert op.metadata.provider == "sm90"
    op.run(args)
    F_ref = A.float() @ B.float() + bias * C.float()
    torch.testing.assert_close(F, F_ref)
    torch.testing.assert_close(D, torch.relu(F_ref).to(torch.bfloat16))
    torch.testing.assert_close(rows, F_ref.sum(dim=1, keepdim=True))


def test_stream_argument_overrides_the_current_stream(target_sm):
    args, D, _, reference = bias_relu_problem()
    op = gpu_operators(args, target_sm)[0]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    D.fill_(float("nan"))
    torch.cuda.synchronize()
    op.run(args, stream=side)  # a torch.cuda.Stream
    side.synchronize()
    torch.testing.assert_close(D, reference())
    D.fill_(float("nan"))
    torch.cuda.synchronize()
    op.run(args, stream=side.cuda_stream)  # a raw handle
    side.synchronize()
    torch.testing.assert_close(D, reference())


def test_cuda_graph_capture_and_replay(target_sm):
    args, D, bias, reference = bias_relu_problem()
    op = gpu_operators(args, target_sm)[0]
    op.compile(args)
    warmup = torch.cuda.Stream()
    warmup.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warmup):
        op.run(args)  # the current stream is `warmup`
    torch.cuda.current_stream().wait_stream(warmup)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op.run(args)  # captured on torch's capture stream, found by default
    for _ in range(2):
        D.fill_(float("nan"))
        bias.copy_(torch.randn_like(bias))  # the graph reads the same memory anew
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(D, reference())


def test_time_operators_on_a_torch_stream(target_sm):
    args, D, _, reference = bias_relu_problem()
    ops = gpu_operators(args, target_sm)[:3]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    D.fill_(float("nan"))
    torch.cuda.synchronize()
    timings = eg.time_operators(ops, args, rounds=2, warmup=1, iterations=3, stream=side)
    side.synchronize()
    assert sorted(t.operator.name for t in timings) == sorted(op.name for op in ops)
    medians = [t.median_ms for t in timings]
    assert medians == sorted(medians) and 0 < medians[0] and medians[-1] < 1000
    assert all(t.runs_per_turn == 3 for t in timings)
    torch.testing.assert_close(D, reference())
    D.fill_(float("nan"))
    torch.cuda.synchronize()
    (timing,) = eg.time_operators(ops[:1], args, rounds=1, warmup=1, iterations=2, turn_ms=20, stream=side)
    side.synchronize()
    assert timing.runs_per_turn > 2
    torch.testing.assert_close(D, reference())
    D.fill_(float("nan"))
    torch.cuda.synchronize()
    flushed = eg.time_operators(ops, args, rounds=1, warmup=1, iterations=2, stream=side, flush_l2=True)
    side.synchronize()
    assert all(t.median_ms > 0 and t.runs_per_turn == 2 for t in flushed)
    torch.testing.assert_close(D, reference())


def test_operators_compile_and_run_from_several_threads(target_sm):
    """Four threads, each with its own problem, epilogue constant (a new
    kernel) and torch stream, compile and run the device's first operator at
    once; every result matches PyTorch."""
    from concurrent.futures import ThreadPoolExecutor

    salt = float(torch.randint(1, 10**6, ()).item()) * 1e-7

    def one(t):
        m, n, k = 256 + 64 * t, 192 + 32 * t, 128
        A, B = randint((m, k)), randint((k, n))
        bias = randint((n,), torch.float32)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        scale = 1.0 + t + salt
        source = f"def epi(accum, bias): D = relu(accum * {scale!r} + bias); return D"
        args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32,
                                epilogue=eg.EpilogueArguments(source, bias=bias, D=D))
        op = gpu_operators(args, target_sm)[0]
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        op.compile(args)
        op.run(args, stream=stream)
        stream.synchronize()
        torch.testing.assert_close(D, torch.relu((A.float() @ B.float()) * scale + bias).to(torch.float16))

    torch.cuda.synchronize()
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(one, range(4)))
