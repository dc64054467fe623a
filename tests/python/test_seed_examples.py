"""The examples of CUTLASS's epilogue-fusion notebook, ported to NumPy arrays
and the cpu_reference provider (no GPU needed): each fused result is
compared with NumPy computing the same epilogue in float64, here by calling
the epilogue function itself, as the notebook does with torch."""

from __future__ import annotations

import numpy as np

import epigemm as eg
from epigemm.fusion.activation import relu
from helpers import assert_stored, cpu_operator, gemm64, f64, randint, randn

L, M, N, K = 2, 48, 40, 32


def test_intro_example_writes_the_epilogue_outputs(rng):
    def my_epilogue(accum, C, alpha, beta, extra_scalar):
        Aux = (alpha * accum) + (beta * C)
        D = extra_scalar * Aux
        return D, Aux

    A, B, C = randint(rng, (L, M, K)), randint(rng, (L, K, N)), randint(rng, (L, M, N))
    alpha, beta, extra_scalar = 1.0, 2.0, 0.5
    D, Aux = my_epilogue(gemm64(A, B), f64(C), alpha, beta, extra_scalar)
    D = D.astype(np.float16)  # the reference, in the output's dtype, as `out`

    D_, Aux_ = (np.full((L, M, N), np.nan, dtype=np.float16) for _ in range(2))
    epi_args = eg.EpilogueArguments(
        my_epilogue, C=C, alpha=alpha, beta=beta, extra_scalar=extra_scalar, D=D_, Aux=Aux_
    )
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    operators = eg.get_operators(args, target_sm=eg.utils.device.device_or_env_target_sm())
    assert len(operators) > 0
    operators[0].run(args)

    np.testing.assert_array_equal(D_, D)
    assert_stored(Aux_, Aux)


def test_relu_aux_store(rng):
    def relu_aux_store(accum, alpha, C):
        F = (accum * alpha) + (C * 2.0)  # Constant beta
        D = relu(F)
        return D, F

    A, B, C = randint(rng, (L, M, K)), randint(rng, (L, K, N)), randint(rng, (L, M, N))
    alpha = float(rng.uniform(0.5, 3.0))
    D = np.empty((L, M, N), dtype=np.float16)
    F = np.empty((L, M, N), dtype=np.float16)
    epi_args = eg.EpilogueArguments(relu_aux_store, alpha=alpha, C=C, D=D, F=F)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    cpu_operator(args).run(args)

    D_ref, F_ref = relu_aux_store(gemm64(A, B), alpha, f64(C))
    assert np.any(D_ref > 0) and np.any(F_ref < 0)  # relu both keeps and clips
    assert_stored(D, D_ref)
    assert_stored(F, F_ref)


def test_relu_scale_return_acc(rng):
    def relu_scale_return_acc(accum, alpha, beta, C, scale):
        F = relu((accum * alpha) + (C * beta))
        D = F * scale
        return D, F, accum

    A, B = randn(rng, (L, M, K), np.float16), randn(rng, (L, K, N), np.float16)
    C = randn(rng, (L, M, N), np.float16)
    alpha, beta, scale = 1.0, 2.0, float(rng.uniform(0.25, 0.75))
    D = np.empty((L, M, N), dtype=np.float16)
    F = np.empty((L, M, N), dtype=np.float16)
    accum = np.empty((L, M, N), dtype=np.float32)
    epi_args = eg.EpilogueArguments(
        relu_scale_return_acc, alpha=alpha, beta=beta, C=C, scale=scale, D=D, F=F, accum=accum
    )
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    cpu_operator(args).run(args)

    D_ref, F_ref, accum_ref = relu_scale_return_acc(gemm64(A, B), alpha, beta, f64(C), scale)
    assert_stored(D, D_ref)
    assert_stored(F, F_ref)
    assert_stored(accum, accum_ref)


def test_string_epilogue_with_semicolons(rng):
    epi_str = "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F"
    A, B, C = randint(rng, (L, M, K)), randint(rng, (L, K, N)), randint(rng, (L, M, N))
    alpha, beta = 1.0, float(rng.uniform(0.25, 1.0))
    D = np.empty((L, M, N), dtype=np.float16)
    F = np.empty((L, M, N), dtype=np.float16)
    epi_args = eg.EpilogueArguments(epi_str, alpha=alpha, beta=beta, C=C, D=D, F=F)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    cpu_operator(args).run(args)

    F_ref = gemm64(A, B) * alpha + f64(C) * beta
    D_ref = np.maximum(F_ref, 0.0)
    assert_stored(D, D_ref)
    assert_stored(F, F_ref)


def test_row_and_column_broadcasts(rng):
    def broadcast_epilogue(accum, row_bias, col_bias, alpha):
        D = (accum * alpha) + row_bias + col_bias
        return D

    A, B = randint(rng, (1, M, K)), randint(rng, (1, K, N))
    row_bias = randn(rng, (N,), np.float16)  # one value per column
    col_bias = randn(rng, (M, 1), np.float16)  # one value per row
    alpha = float(rng.uniform(0.5, 2.0))
    D = np.empty((1, M, N), dtype=np.float16)
    epi_args = eg.EpilogueArguments(broadcast_epilogue, row_bias=row_bias, col_bias=col_bias, alpha=alpha, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    cpu_operator(args).run(args)

    D_ref = broadcast_epilogue(gemm64(A, B), f64(row_bias), f64(col_bias), alpha)
    assert_stored(D, D_ref)
    # Each bias really broadcasts along its own axis.
    assert not np.allclose(D_ref[0, 0, :] - D_ref[0, 1, :], D_ref[0, 0, 0] - D_ref[0, 1, 0])


def test_aux_normalize_and_bias_add_from_the_text(rng):
    def aux_normalize(accum, aux):
        D = accum / aux
        return D

    def bias_add(accum, row_bias, col_bias):
        D = accum + row_bias + col_bias
        return D

    A, B = randn(rng, (L, M, K)), randn(rng, (L, K, N))
    aux = rng.uniform(0.5, 2.0, size=(L, M, N)).astype(np.float32)
    D = np.empty((L, M, N), dtype=np.float32)
    args = eg.GemmArguments(A=A, B=B, out=D, epilogue=eg.EpilogueArguments(aux_normalize, aux=aux, D=D))
    cpu_operator(args).run(args)
    assert_stored(D, aux_normalize(gemm64(A, B), f64(aux)))

    row_bias, col_bias = randn(rng, (1, N)), randn(rng, (L, M, 1))
    E = np.empty((L, M, N), dtype=np.float32)
    epi_args = eg.EpilogueArguments(bias_add, row_bias=row_bias, col_bias=col_bias, D=E)
    args = eg.GemmArguments(A=A, B=B, out=E, epilogue=epi_args)
    cpu_operator(args).run(args)
    assert_stored(E, bias_add(gemm64(A, B), f64(row_bias), f64(col_bias)))
