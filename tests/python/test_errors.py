"""The notebook's failure examples, word for word and with the exception
types the binding promises, plus the other mistakes a user makes with the
Python API (bad values, dtypes, strides, providers)."""

from __future__ import annotations

import numpy as np
import pytest

import epigemm as eg
from epigemm import relu
from helpers import randint

L, M, N, K = 1, 32, 24, 16


@pytest.fixture
def tensors(rng):
    A, B, C = randint(rng, (L, M, K)), randint(rng, (L, K, N)), randint(rng, (L, M, N))
    D = np.empty((L, M, N), dtype=np.float16)
    F = np.empty((L, M, N), dtype=np.float16)
    return A, B, C, D, F


def message(excinfo) -> str:
    """str() of the exception, less the source position it may end with."""
    text = str(excinfo.value)
    bare = excinfo.value.msg if isinstance(excinfo.value, SyntaxError) else excinfo.value.message
    assert text == bare or text.startswith(bare + " ("), text
    return bare


def test_missing_accum_is_a_syntax_error(tensors):
    A, B, C, D, _ = tensors

    def fail_missing_accum(alpha, beta, C):
        D = C * beta
        return D

    with pytest.raises(SyntaxError) as excinfo:
        epi_args = eg.EpilogueArguments(fail_missing_accum, alpha=1.0, beta=2.0, C=C, D=D)
        eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    assert message(excinfo) == "accum must be an input to the epilogue function"


def test_missing_output_D_is_a_runtime_error(tensors):
    A, B, C, D, F = tensors

    def fail_missing_D(accum, alpha, beta, C):
        F = (accum * alpha) + (C * beta)
        return F

    with pytest.raises(RuntimeError) as excinfo:
        epi_args = eg.EpilogueArguments(fail_missing_D, alpha=1.0, beta=2.0, C=C, F=F)
        eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.float32, epilogue=epi_args)
    assert message(excinfo) == "Output node D is not found in the epilogue function."


def test_ssa_violation_is_a_syntax_error_pointing_at_the_line(tensors):
    _, _, _, D, F = tensors

    def fail_ssa(accum):
        tmp = accum * 2.0
        # Redefine tmp, which violates SSA form.
        tmp = tmp - 1.0
        D = tmp / 4.0
        return D, tmp

    with pytest.raises(SyntaxError) as excinfo:
        eg.EpilogueArguments(fail_ssa, D=D, tmp=F)
    assert message(excinfo) == "Variable 'tmp' cannot be defined twice."
    error = excinfo.value
    assert error.filename == __file__
    assert error.text.strip() == "tmp = tmp - 1.0"


@pytest.mark.parametrize("missing", ["D", "alpha"])
def test_missing_binding_is_a_value_error(tensors, missing):
    _, _, C, D, _ = tensors

    def my_epi(accum, alpha, beta, C):
        F = (accum * alpha) + (C * beta)
        D = relu(F)
        return D

    bindings = dict(alpha=1.0, beta=2.0, C=C, D=D)
    del bindings[missing]
    with pytest.raises(ValueError) as excinfo:
        eg.EpilogueArguments(my_epi, **bindings)
    assert str(excinfo.value) == (
        f"Argument {missing} is not provided in the kwargs of the EpilogueArguments constructor"
    )


def test_string_epilogue_syntax_error_carries_the_line(tensors):
    *_, D, _ = tensors
    with pytest.raises(SyntaxError) as excinfo:
        eg.EpilogueArguments("def epi(accum):\n    D = accum +\n    return D\n", D=D)
    assert excinfo.value.lineno == 2
    assert excinfo.value.text == "    D = accum +\n"


def test_unknown_binding_and_bad_values(tensors):
    _, _, C, D, _ = tensors
    src = "def epi(accum, C): D = accum + C; return D"
    with pytest.raises(ValueError, match="'E'"):
        eg.EpilogueArguments(src, C=C, D=D, E=1.0)
    with pytest.raises(TypeError, match="Argument C is a list"):
        eg.EpilogueArguments(src, C=[1.0, 2.0], D=D)
    with pytest.raises(TypeError, match="Argument C is a bool"):
        eg.EpilogueArguments(src, C=True, D=D)
    with pytest.raises(TypeError, match="function or a string"):
        eg.EpilogueArguments(42, C=C, D=D)
    with pytest.raises(ValueError, match="lambda"):
        eg.EpilogueArguments(lambda accum: accum, D=D)


def test_negative_strides_are_refused(tensors):
    A, B, _, D, _ = tensors
    with pytest.raises(ValueError, match="negative strides") as excinfo:
        eg.GemmArguments(A=A[:, ::-1, :], B=B, out=D)
    assert str(excinfo.value).startswith("A has shape (1, 32, 16) and strides (512, -16, 1)")


def test_unusable_dtypes_are_named(tensors):
    A, B, _, D, _ = tensors
    with pytest.raises(ValueError, match="B has dtype int64"):
        eg.GemmArguments(A=A, B=B.astype(np.int64), out=D)
    with pytest.raises(ValueError, match="accumulator_type 'int64'"):
        eg.GemmArguments(A=A, B=B, out=D, accumulator_type=np.int64)
    with pytest.raises(ValueError, match="accumulator"):
        eg.GemmArguments(A=A, B=B, out=D, accumulator_type="int32")  # f16 operands


def test_shape_mismatch_and_distinct_out(tensors):
    A, B, C, D, _ = tensors
    epi = eg.EpilogueArguments("def epi(accum, C): D = accum + C; return D", C=C, D=D)
    with pytest.raises(ValueError, match="same shape and dtype"):
        eg.GemmArguments(A=A, B=B, out=np.empty((L, M, N), np.float32), epilogue=epi)
    with pytest.raises(ValueError, match="out="):
        eg.GemmArguments(A=A, B=B)
    with pytest.raises(ValueError, match="K"):
        eg.GemmArguments(A=A, B=np.ascontiguousarray(B[:, 1:, :]), out=D)


def test_unknown_provider_and_bad_target(tensors):
    A, B, _, D, _ = tensors
    args = eg.GemmArguments(A=A, B=B, out=D)
    with pytest.raises(ValueError, match="Unknown provider 'no_such_provider'"):
        eg.get_operators(args, providers=["no_such_provider"])
    with pytest.raises(ValueError, match="SM version"):
        eg.get_operators(args, target_sm="hopper")
    with pytest.raises(TypeError, match="GemmArguments"):
        eg.get_operators("not arguments")


def test_bad_stream_and_a_raising_filter(tensors):
    A, B, _, D, _ = tensors
    args = eg.GemmArguments(A=A, B=B, out=D)
    op = eg.get_operators(args, providers="cpu_reference")[0]
    with pytest.raises(TypeError, match="stream"):
        op.run(args, stream="default")
    # A metadata filter that raises propagates its own exception.
    def broken_filter(metadata):
        raise KeyError("no such field")

    with pytest.raises(KeyError, match="no such field"):
        eg.get_operators(args, metadata_filter=broken_filter)
