"""torch CPU tensors (skipped without torch): every torch dtype through
DLPack, both ways; non-contiguous and requires_grad tensors; an epilogue
run by cpu_reference checked with torch.testing.assert_close; the epilogue
functions on torch tensors agreeing with their NumPy versions."""

from __future__ import annotations

import numpy as np
import pytest

import epigemm as eg
from epigemm import functions as fn
from epigemm import relu

torch = pytest.importorskip("torch")

TORCH_DTYPES = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "float8_e4m3fn": "e4m3",
    "float8_e5m2": "e5m2",
    "int8": "i8",
    "uint8": "u8",
    "int32": "i32",
}


@pytest.fixture
def gen(rng):
    return torch.Generator().manual_seed(int(rng.integers(2**31)))


@pytest.mark.parametrize("torch_name,name", list(TORCH_DTYPES.items()))
def test_torch_dtypes_map_both_ways(torch_name, name):
    if not hasattr(torch, torch_name):
        pytest.skip(f"this torch has no {torch_name}")
    dtype = getattr(torch, torch_name)
    t = torch.zeros((4, 6), dtype=torch.float32).to(dtype)
    view = eg.as_tensor(t)
    assert view.dtype == name and view.shape == (4, 6) and view.strides == (6, 1)
    assert view.data_ptr == t.data_ptr()
    assert eg.dtype_name(dtype) == name
    assert eg.to_torch_dtype(name) == dtype


def test_transposed_sliced_and_requires_grad_tensors(gen):
    base = torch.randn(8, 5, generator=gen, requires_grad=True)
    view = eg.as_tensor(base.t())
    assert view.shape == (5, 8) and view.strides == (1, 5) and view.data_ptr == base.data_ptr()
    sliced = torch.randn(6, 10, generator=gen)[1:, ::3]
    view = eg.as_tensor(sliced)
    assert view.shape == (5, 4) and view.strides == (10, 3)
    assert view.data_ptr == sliced.data_ptr()


def test_relu_aux_store_on_cpu_tensors(gen):
    def relu_aux_store(accum, alpha, C):
        F = (accum * alpha) + (C * 2.0)
        D = relu(F)
        return D, F

    L, M, N, K = 2, 32, 24, 16
    A = torch.randint(-2, 3, (L, M, K), generator=gen).to(torch.bfloat16)
    B = torch.randint(-2, 3, (L, K, N), generator=gen).to(torch.bfloat16)
    C = torch.randn((L, M, N), generator=gen).to(torch.bfloat16)
    alpha = 3.0
    D = torch.empty((L, M, N), dtype=torch.bfloat16)
    F = torch.empty((L, M, N), dtype=torch.float32)
    epi_args = eg.EpilogueArguments(relu_aux_store, alpha=alpha, C=C, D=D, F=F)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32, epilogue=epi_args)
    ops = eg.get_operators(args, providers="cpu_reference")
    assert len(ops) == 1
    ops[0].run(args)

    D_ref, F_ref = relu_aux_store(A.double() @ B.double(), alpha, C.double())
    torch.testing.assert_close(D, D_ref.to(torch.bfloat16))
    torch.testing.assert_close(F, F_ref.float())


def test_functions_agree_between_torch_and_numpy(gen):
    x = torch.randn(64, generator=gen, dtype=torch.float64) * 3
    x[0] = 1000.0
    xn = x.numpy()
    for name in ("relu", "sigmoid", "tanh", "silu", "gelu", "gelu_tanh", "hardswish", "elu", "softplus",
                 "exp", "sin", "cos", "erf", "abs"):
        np.testing.assert_allclose(getattr(fn, name)(x).numpy(), getattr(fn, name)(xn), rtol=1e-12, atol=1e-12,
                                   err_msg=name)
    np.testing.assert_allclose(fn.leaky_relu(x, 0.2).numpy(), fn.leaky_relu(xn, 0.2))
    np.testing.assert_allclose(fn.clamp(x, -1.0, 2.0).numpy(), fn.clamp(xn, -1.0, 2.0))
    np.testing.assert_allclose(fn.where(x > 0, x, 0.5).numpy(), fn.where(xn > 0, xn, 0.5))
    for name in ("to_f16", "to_bf16", "to_e4m3", "to_e5m2", "to_i8", "to_u8"):
        np.testing.assert_array_equal(getattr(fn, name)(x.float()).numpy(), getattr(fn, name)(xn.astype(np.float32)),
                                      err_msg=name)
