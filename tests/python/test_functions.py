"""The epilogue functions as plain Python: known values of each, and the
same function fused by the cpu_reference provider agreeing with the plain
Python call on NumPy float64 data."""

from __future__ import annotations

import math

import numpy as np
import pytest

import epigemm as eg
from epigemm import functions as fn
from epigemm.functions import (  # noqa: A004 - abs as the epilogue language spells it
    abs,
    clamp,
    elu,
    exp,
    gelu,
    gelu_tanh,
    hardswish,
    leaky_relu,
    maximum,
    minimum,
    sigmoid,
    silu,
    softplus,
    tanh,
    where,
)
from helpers import assert_stored, cpu_operator, f64, gemm64, randn


def test_known_values_of_activations():
    x = np.array([-3.0, -0.5, 0.0, 0.75, 4.0])
    np.testing.assert_array_equal(fn.relu(x), [0.0, 0.0, 0.0, 0.75, 4.0])
    np.testing.assert_allclose(fn.leaky_relu(x, 0.1), [-0.3, -0.05, 0.0, 0.75, 4.0])
    np.testing.assert_allclose(fn.sigmoid(x), [1 / (1 + math.exp(3.0)), 1 / (1 + math.exp(0.5)), 0.5,
                                                1 / (1 + math.exp(-0.75)), 1 / (1 + math.exp(-4.0))])
    np.testing.assert_allclose(fn.gelu(x), [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(fn.hardswish(x), [0.0, -0.5 * 2.5 / 6, 0.0, 0.75 * 3.75 / 6, 4.0])
    np.testing.assert_allclose(fn.elu(x), [math.expm1(-3.0), math.expm1(-0.5), 0.0, 0.75, 4.0])
    np.testing.assert_allclose(fn.softplus(np.array([-1.0, 25.0])), [math.log1p(math.exp(-1.0)), 25.0])
    np.testing.assert_allclose(fn.silu(x), x / (1 + np.exp(-x)))
    np.testing.assert_allclose(fn.rsqrt(np.array([4.0, 0.25])), [0.5, 2.0])
    np.testing.assert_array_equal(fn.clamp(x, -1.0, 1.0), [-1.0, -0.5, 0.0, 0.75, 1.0])
    np.testing.assert_array_equal(fn.where(x > 0, x, -x), np.abs(x))
    np.testing.assert_array_equal(fn.maximum(x, 0.5), np.maximum(x, 0.5))
    assert fn.relu(np.nan) != fn.relu(np.nan)  # NaN stays NaN


def test_casts_round_to_nearest_even_and_saturate():
    one = 1.0
    # bfloat16 keeps 7 mantissa bits: ties go to the even neighbour.
    assert fn.to_bf16(one + 2**-8) == one
    assert fn.to_bf16(one + 3 * 2**-8) == one + 2**-6
    assert fn.to_f16(65504.0) == 65504.0 and np.isinf(fn.to_f16(65520.0))
    assert fn.to_f16(2**-24) == 2**-24 and fn.to_f16(2**-26) == 0.0  # subnormals
    assert fn.to_e4m3(1000.0) == 448.0 and fn.to_e4m3(-1000.0) == -448.0
    assert fn.to_e4m3(1.0625) == 1.0 and fn.to_e4m3(1.1875) == 1.25
    assert fn.to_e4m3(2**-9) == 2**-9 and fn.to_e4m3(2**-11) == 0.0
    # Halfway between subnormal steps: ties to even.
    assert fn.to_e4m3(3 * 2**-10) == 2**-8 and fn.to_e5m2(3 * 2**-17) == 2**-15
    assert fn.to_f16(3 * 2**-25) == 2**-23
    assert fn.to_e5m2(1e6) == 57344.0 and fn.to_e5m2(1.125) == 1.0 and fn.to_e5m2(1.375) == 1.5
    assert np.isnan(fn.to_e4m3(np.nan))
    np.testing.assert_array_equal(fn.to_i8(np.array([2.5, 3.5, -2.5, 300.0, -300.0])), [2, 4, -2, 127, -128])
    np.testing.assert_array_equal(fn.to_u8(np.array([-5.0, 254.5, 999.0])), [0, 254, 255])
    assert fn.to_i32(3e10) == 2**31 - 1
    # The result stays in the input's floating type.
    assert fn.to_f16(np.float32(1.0) + np.zeros(3, np.float32)).dtype == np.float32


def test_reductions_reduce_everything():
    x = np.array([[1.0, -5.0], [3.0, 2.0]])
    assert fn.sum(x) == 1.0 and fn.max(x) == 3.0 and fn.min(x) == -5.0 and fn.amax(x) == 5.0


def test_importable_by_name_without_shadowing_builtins():
    from epigemm import gelu, relu, sigmoid  # noqa: F401
    from epigemm import sum as epigemm_sum

    namespace: dict = {}
    exec("from epigemm import *", namespace)
    assert "relu" in namespace and "gelu_tanh" in namespace
    assert "sum" not in namespace and "max" not in namespace
    assert epigemm_sum is fn.sum
    assert eg.fusion.activation.relu is fn.relu


def mixed_epilogue(accum, bias, slope, lo):
    """A docstring, which the parser skips."""
    t = leaky_relu(accum + bias, slope)
    g = gelu(t) * sigmoid(accum) - silu(bias)
    h = where(accum > 0, tanh(t), elu(accum)) + hardswish(t)
    k = clamp(maximum(g, lo), -4.0, 4.0) + minimum(h, 1.0) * softplus(accum)
    D = k + abs(bias) * 0.5 - exp(-(accum * accum)) + gelu_tanh(accum) ** 2
    return D


def test_fused_epilogue_matches_its_python_call(rng):
    M, N, K = 24, 20, 8
    A, B = randn(rng, (M, K)), randn(rng, (K, N))
    bias = randn(rng, (N,))
    slope, lo = float(rng.uniform(0.05, 0.3)), float(rng.uniform(-1.0, -0.2))
    D = np.empty((M, N), np.float32)
    epi = eg.EpilogueArguments(mixed_epilogue, bias=bias, slope=slope, lo=lo, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, epilogue=epi)
    cpu_operator(args).run(args)
    ref = mixed_epilogue(gemm64(A, B), f64(bias), slope, lo)
    assert_stored(D, ref, ulps=8)


@pytest.mark.parametrize("cast,dtype", [("to_f16", np.float16), ("to_e4m3", None), ("to_bf16", None),
                                        ("to_i8", np.int8)])
def test_fused_casts_match_the_python_casts(rng, cast, dtype):
    M, N, K = 16, 16, 4
    A, B = randn(rng, (M, K)) * 30, randn(rng, (K, N)) * 30
    D = np.empty((M, N), np.float32)
    epi = eg.EpilogueArguments(f"def epi(accum): D = {cast}(accum * 0.37) + 0.0; return D", D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, epilogue=epi)
    cpu_operator(args).run(args)
    expected = getattr(fn, cast)(gemm64(A, B).astype(np.float32) * np.float32(0.37))
    np.testing.assert_array_equal(D, np.asarray(expected, dtype=np.float32))
    if dtype is not None and np.issubdtype(dtype, np.integer):
        assert np.any(np.abs(D) == 127) or np.any(D == -128)


def passthrough(function):
    return function


def test_decorated_annotated_function_is_parsed(rng):
    @passthrough
    def scaled(accum: np.ndarray, s: float) -> np.ndarray:
        """Decorators, annotations and docstrings are skipped by the parser."""
        D = accum * s  # a comment
        return D

    M, N, K = 8, 6, 4
    A, B = randn(rng, (M, K)), randn(rng, (K, N))
    s = float(rng.uniform(2.0, 3.0))
    D = np.empty((M, N), np.float32)
    args = eg.GemmArguments(A=A, B=B, epilogue=eg.EpilogueArguments(scaled, s=s, D=D))
    cpu_operator(args).run(args)
    assert_stored(D, scaled(gemm64(A, B), s))
