"""Other DLPack producers and CUDA memory: JAX arrays as inputs of a
cpu_reference run; torch CUDA tensors and CuPy arrays viewed on their device,
with the stream a run would use by default. Each part is skipped where its
framework (or a CUDA device) is missing; none needs a GPU operator."""

from __future__ import annotations

import os

import numpy as np
import pytest

import epigemm as eg
from epigemm._tensors import resolve_stream
from helpers import assert_stored, cpu_operator, f64, gemm64, randn


def test_jax_arrays_as_inputs(rng):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave GPU memory to the others
    jax = pytest.importorskip("jax")
    cpu = jax.devices("cpu")[0]
    M, N, K = 12, 10, 6
    A_np, B_np, C_np = randn(rng, (M, K)), randn(rng, (K, N)), randn(rng, (M, N))
    A, B, C = (jax.device_put(x, cpu) for x in (A_np, B_np, C_np))
    assert eg.as_tensor(A).device == "cpu" and eg.as_tensor(A).shape == (M, K)
    D = np.empty((M, N), np.float32)
    epi = eg.EpilogueArguments("def epi(accum, C): D = accum * C; return D", C=C, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, epilogue=epi)
    cpu_operator(args).run(args)
    assert_stored(D, gemm64(A_np, B_np) * f64(C_np))


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    return torch


def test_torch_cuda_tensors_are_viewed_on_their_device():
    torch = _torch_cuda()
    index = torch.cuda.device_count() - 1
    t = torch.randn(64, 32, device=f"cuda:{index}", dtype=torch.bfloat16)[:, ::2]
    view = eg.as_tensor(t)
    assert (view.device, view.device_index) == ("cuda", index)
    assert view.dtype == "bf16" and view.shape == (64, 16) and view.strides == (32, 2)
    assert view.data_ptr == t.data_ptr()
    if hasattr(torch, "float8_e4m3fn"):
        assert eg.as_tensor(t.to(torch.float8_e4m3fn)).dtype == "e4m3"


def test_host_operators_refuse_cuda_tensors_with_a_reason():
    torch = _torch_cuda()
    A = torch.randn(32, 16, device="cuda")
    B = torch.randn(16, 8, device="cuda")
    D = torch.empty(32, 8, device="cuda")
    args = eg.GemmArguments(A=A, B=B, out=D)
    candidates = {c.operator.name: c.status for c in eg.explain_operators(args)}
    assert "cpu_reference" in candidates
    status = candidates["cpu_reference"]
    assert not status and status.reason


def test_default_stream_follows_torch_current_stream():
    torch = _torch_cuda()
    A = torch.randn(32, 16, device="cuda")
    args = eg.GemmArguments(A=A, B=torch.randn(16, 8, device="cuda"), out=torch.empty(32, 8, device="cuda"))
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        assert resolve_stream(None, args._stream_source) == side.cuda_stream
    assert resolve_stream(None, args._stream_source) == torch.cuda.current_stream().cuda_stream
    assert resolve_stream(side, args._stream_source) == side.cuda_stream
    assert resolve_stream(1234, args._stream_source) == 1234


def test_cupy_arrays_and_streams():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("needs a CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("needs a CUDA device")
    a = cupy.arange(48, dtype=cupy.float16).reshape(6, 8)
    view = eg.as_tensor(a.T)
    assert (view.device, view.dtype, view.shape, view.strides) == ("cuda", "f16", (8, 6), (1, 8))
    assert view.data_ptr == a.data.ptr
    args = eg.GemmArguments(A=a, B=cupy.ones((8, 4), cupy.float16), out=cupy.empty((6, 4), cupy.float16))
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        assert resolve_stream(None, args._stream_source) == stream.ptr
    assert resolve_stream(stream, args._stream_source) == stream.ptr
