"""Tensors through DLPack and the buffer protocol: dtypes both ways, shapes
and strides in elements, views with unusual strides, scalars, and the
lifetime of the arrays the arguments point into."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import epigemm as eg
from helpers import assert_stored, cpu_operator, f64, gemm64, randint, randn

NUMPY_DTYPES = {
    np.float16: "f16",
    np.float32: "f32",
    np.float64: "f64",
    np.int8: "i8",
    np.uint8: "u8",
    np.int32: "i32",
}


@pytest.mark.parametrize("np_dtype,name", list(NUMPY_DTYPES.items()))
def test_numpy_dtypes_map_both_ways(np_dtype, name):
    t = eg.Tensor(np.zeros((3, 5), dtype=np_dtype))
    assert t.dtype == name
    assert t.shape == (3, 5)
    assert t.strides == (5, 1)  # elements, not bytes
    assert t.device == "cpu"
    assert eg.dtype_name(np_dtype) == name
    assert eg.dtype_name(np.dtype(np_dtype)) == name
    assert eg.to_numpy_dtype(name) == np.dtype(np_dtype)


def test_dtype_names_and_spellings():
    assert eg.dtype_name("torch.bfloat16") == "bf16"
    assert eg.dtype_name("float8_e4m3fn") == "e4m3"
    assert eg.dtype_name("float8_e5m2") == "e5m2"
    assert eg.dtype_name("half") == "f16"
    with pytest.raises(ValueError, match="NumPy has no dtype for bf16"):
        eg.to_numpy_dtype("bfloat16")
    with pytest.raises(TypeError, match="not a dtype"):
        eg.dtype_name(3.5)


def test_strides_of_views_are_in_elements(rng):
    base = randn(rng, (4, 6, 10))
    assert eg.Tensor(base[:, :, ::2]).strides == (60, 10, 2)
    assert eg.Tensor(np.swapaxes(base, 1, 2)).strides == (60, 1, 10)
    broadcast = np.broadcast_to(randn(rng, (1, 1, 10)), (4, 6, 10))  # read-only, zero strides
    t = eg.Tensor(broadcast)
    assert t.strides == (0, 0, 1) and t.shape == (4, 6, 10)
    offset = base[1:, 2:, 3:]
    assert eg.Tensor(offset).data_ptr == base.ctypes.data + (60 + 2 * 10 + 3) * 4


def test_column_major_and_strided_operands_and_broadcast_inputs(rng):
    L, M, N, K = 2, 20, 12, 9
    A = np.swapaxes(randn(rng, (L, K, M)), 1, 2)  # column-major A
    B = randn(rng, (L, K, 2 * N))[:, :, ::2]  # every other column
    C = np.broadcast_to(randn(rng, (1, 1, N)), (L, M, N))
    D = np.empty((L, M, N), np.float32)
    epi = eg.EpilogueArguments("def epi(accum, C): D = accum - C; return D", C=C, D=D)
    args = eg.GemmArguments(A=A, B=B, epilogue=epi)  # out defaults to the epilogue's D
    cpu_operator(args).run(args)
    assert_stored(D, gemm64(A, B) - f64(C))


def test_shared_B_across_the_batch(rng):
    L, M, N, K = 3, 10, 7, 5
    A, B = randn(rng, (L, M, K)), randn(rng, (K, N))
    D = np.empty((L, M, N), np.float32)
    args = eg.GemmArguments(A=A, B=B, out=D)
    cpu_operator(args).run(args)
    assert_stored(D, gemm64(A, B))


def test_scalars_numbers_numpy_scalars_and_one_element_arrays(rng):
    M, N, K = 8, 6, 4
    A, B = randn(rng, (M, K)), randn(rng, (K, N))
    alpha = np.float32(rng.uniform(1.5, 2.5))  # a NumPy scalar is a number
    beta = np.array([rng.uniform(-2.0, -1.0)], dtype=np.float32)  # read from memory
    gamma = int(rng.integers(2, 5))
    D = np.empty((M, N), np.float32)
    src = "def epi(accum, alpha, beta, gamma): D = accum * alpha + beta * gamma; return D"
    epi = eg.EpilogueArguments(src, alpha=alpha, beta=beta, gamma=gamma, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, epilogue=epi)
    cpu_operator(args).run(args)
    assert_stored(D, gemm64(A, B) * float(alpha) + float(beta[0]) * gamma)


def test_integer_gemm_defaults_to_an_int32_accumulator(rng):
    M, N, K = 12, 10, 16
    A = randint(rng, (M, K), np.int8, -128, 128)
    B = randint(rng, (K, N), np.int8, -128, 128)
    D = np.empty((M, N), np.int32)
    args = eg.GemmArguments(A=A, B=B, out=D)
    assert args.accumulator_type == "i32"
    cpu_operator(args).run(args)
    np.testing.assert_array_equal(D, A.astype(np.int64) @ B.astype(np.int64))


def test_uint8_output_saturates(rng):
    M, N, K = 6, 8, 5
    A, B = randn(rng, (M, K)) * 50, randn(rng, (K, N)) * 50
    D = np.empty((M, N), np.uint8)
    args = eg.GemmArguments(A=A, B=B, out=D)
    cpu_operator(args).run(args)
    ref = np.clip(np.round(gemm64(A, B)), 0, 255)
    assert np.any(ref == 0) and np.any(ref == 255)
    np.testing.assert_array_equal(D, ref.astype(np.uint8))


def test_arguments_keep_their_arrays_alive(rng):
    M, N, K = 16, 12, 8
    expected = {}

    def build():
        A, B, C = randn(rng, (M, K)), randn(rng, (K, N)), randn(rng, (M, N))
        expected["D"] = gemm64(A, B) + 2.0 * f64(C)
        expected["refs"] = [weakref.ref(A), weakref.ref(C)]
        epi = eg.EpilogueArguments(
            "def epi(accum, C): D = accum + C * 2.0; return D", C=C, D=np.empty((M, N), np.float32)
        )
        return eg.GemmArguments(A=A, B=B, epilogue=epi)

    args = build()
    gc.collect()
    assert all(ref() is not None for ref in expected["refs"])  # still held by the arguments
    cpu_operator(args).run(args)
    assert_stored(args.epilogue["D"], expected["D"])
    del args
    gc.collect()
    assert all(ref() is None for ref in expected["refs"])  # and released with them


def test_distinct_out_describes_the_output_and_D_is_written(rng):
    M, N, K = 8, 8, 4
    A, B = randn(rng, (M, K)), randn(rng, (K, N))
    D = np.full((M, N), np.nan, np.float32)
    out = np.full((M, N), -7.0, np.float32)
    epi = eg.EpilogueArguments("def epi(accum): D = accum * 0.5; return D", D=D)
    args = eg.GemmArguments(A=A, B=B, out=out, epilogue=epi)
    cpu_operator(args).run(args)
    assert_stored(D, gemm64(A, B) * 0.5)
    assert np.all(out == -7.0)


def test_raw_pointer_tensors(rng):
    M, N, K = 5, 4, 3
    A, B = randn(rng, (M, K)), randn(rng, (K, N))
    D = np.empty((N, M), np.float32).T  # column-major output
    tA = eg.Tensor.from_pointer(A.ctypes.data, "float32", A.shape)
    tB = eg.Tensor.from_pointer(B.ctypes.data, "f32", B.shape, strides=(N, 1))
    tD = eg.Tensor.from_pointer(D.ctypes.data, "f32", (M, N), strides=(1, M))
    args = eg.GemmArguments(A=tA, B=tB, out=tD)
    cpu_operator(args).run(args)
    assert_stored(D, gemm64(A, B))
    with pytest.raises(ValueError, match="negative stride"):
        eg.Tensor.from_pointer(A.ctypes.data, "f32", (M, K), strides=(-K, 1))
