"""Helpers for the Python tests: random data that is never all zero,
float64 references, the comparison of a stored output with a reference, and
the cpu_reference operator."""

from __future__ import annotations

import numpy as np

import epigemm as eg


def randint(rng: np.random.Generator, shape, dtype=np.float16, low=-2, high=3) -> np.ndarray:
    """Small integers (as the seed uses), never all zero."""
    while True:
        a = rng.integers(low, high, size=shape).astype(dtype)
        if np.any(a != 0):
            return a


def randn(rng: np.random.Generator, shape, dtype=np.float32) -> np.ndarray:
    return rng.standard_normal(size=shape).astype(dtype)


def f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def gemm64(A, B) -> np.ndarray:
    """A @ B in float64 (broadcasting the batch)."""
    return f64(A) @ f64(B)


def assert_stored(out: np.ndarray, ref64, ulps: float = 1.0) -> None:
    """`out` equals the float64 reference rounded once to out's dtype, within
    `ulps` units in the last place of out's dtype (plus float32 noise)."""
    ref64 = np.broadcast_to(f64(ref64), out.shape)
    if np.issubdtype(out.dtype, np.integer):
        np.testing.assert_array_equal(out, np.round(ref64).astype(out.dtype))
        return
    spacing = np.abs(np.spacing(ref64.astype(out.dtype))).astype(np.float64)
    # The epilogue computes in float32: allow its rounding relative to the
    # largest value, as cancellation can leave a small result.
    tolerance = ulps * spacing + 1e-6 * (np.max(np.abs(ref64)) + 1.0)
    error = np.abs(f64(out) - ref64)
    worst = np.unravel_index(np.argmax(error - tolerance), out.shape)
    assert np.all(error <= tolerance), (
        f"at {worst}: stored {out[worst]!r}, reference {ref64[worst]!r}, tolerance {tolerance[worst]!r}"
    )


def cpu_operator(args: eg.GemmArguments) -> eg.Operator:
    """The cpu_reference operator, which must support `args`."""
    ops = eg.get_operators(args, providers="cpu_reference")
    assert [op.name for op in ops] == ["cpu_reference"]
    return ops[0]
