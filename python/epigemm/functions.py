"""The functions an epilogue may call, as plain Python on torch tensors,
NumPy arrays and numbers, with the math the C++ operation table uses
(gelu in erf form, softplus with threshold 20, saturating fp8 and integer
casts). A Python epilogue function therefore also runs as its own reference:
``D, F = my_epilogue(A @ B, alpha, C)``.

Reductions (sum, max, min, amax) reduce the whole tensor here; in a fused
epilogue the shape of the output they are returned into picks rows, columns
or everything.
"""

from __future__ import annotations

import builtins
import math
import sys
from typing import Any

__all__ = [
    "relu", "leaky_relu", "sigmoid", "tanh", "silu", "gelu", "gelu_tanh", "hardswish", "elu",
    "softplus", "exp", "log", "sqrt", "rsqrt", "abs", "sin", "cos", "tan", "erf", "pow",
    "maximum", "minimum", "clamp", "where",
    "to_f16", "to_bf16", "to_f32", "to_e4m3", "to_e5m2", "to_i8", "to_u8", "to_i32",
    "sum", "max", "min", "amax",
]

_SQRT_HALF = 0.70710678118654752440
_SQRT_TWO_OVER_PI = 0.79788456080286535588
_SOFTPLUS_THRESHOLD = 20.0


def _torch(*values: Any) -> Any:
    """The torch module when any value is a torch tensor, else None."""
    torch = sys.modules.get("torch")
    if torch is not None and builtins.any(isinstance(v, torch.Tensor) for v in values):
        return torch
    return None


def _np() -> Any:
    import numpy

    return numpy


def _like(torch: Any, value: Any, reference: Any) -> Any:
    """`value` as a tensor on the device and of the dtype of the first tensor."""
    if isinstance(value, torch.Tensor):
        return value
    return torch.as_tensor(value, dtype=reference.dtype, device=reference.device)


def _first_tensor(torch: Any, *values: Any) -> Any:
    return next(v for v in values if isinstance(v, torch.Tensor))


def _float_result(np: Any, result: Any, x: Any) -> Any:
    """`result` in x's floating dtype (float64 for numbers and integer arrays)."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        return np.asarray(result).astype(dtype)
    return np.asarray(result, dtype=np.float64)


# --- activations and elementwise math -------------------------------------


def relu(x: Any) -> Any:
    """max(x, 0); NaN stays NaN."""
    torch = _torch(x)
    if torch is not None:
        return torch.relu(x)
    return _np().maximum(x, 0)


def leaky_relu(x: Any, slope: float = 0.01) -> Any:
    """x for x > 0, else x * slope."""
    torch = _torch(x)
    if torch is not None:
        return torch.where(x > 0, x, x * slope)
    return _np().where(_np().asarray(x) > 0, x, _np().asarray(x) * slope)


def sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x))."""
    torch = _torch(x)
    if torch is not None:
        return torch.sigmoid(x)
    np = _np()
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-np.asarray(x)))


def tanh(x: Any) -> Any:
    torch = _torch(x)
    return torch.tanh(x) if torch is not None else _np().tanh(x)


def silu(x: Any) -> Any:
    """x * sigmoid(x)."""
    torch = _torch(x)
    if torch is not None:
        return torch.nn.functional.silu(x)
    return _np().asarray(x) * sigmoid(x)


def erf(x: Any) -> Any:
    """The error function."""
    torch = _torch(x)
    if torch is not None:
        return torch.erf(x)
    np = _np()
    try:
        from scipy.special import erf as scipy_erf  # type: ignore[import-not-found]

        return scipy_erf(x)
    except ImportError:
        array = np.asarray(x)
        values = np.vectorize(math.erf, otypes=[np.float64])(array)
        return _float_result(np, values, array)


def gelu(x: Any) -> Any:
    """0.5 * x * (1 + erf(x / sqrt(2))), PyTorch's default gelu."""
    torch = _torch(x)
    if torch is not None:
        return torch.nn.functional.gelu(x)
    array = _np().asarray(x)
    return 0.5 * array * (1.0 + erf(array * _SQRT_HALF))


def gelu_tanh(x: Any) -> Any:
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))."""
    torch = _torch(x)
    if torch is not None:
        return torch.nn.functional.gelu(x, approximate="tanh")
    np = _np()
    array = np.asarray(x)
    return 0.5 * array * (1.0 + np.tanh(_SQRT_TWO_OVER_PI * (array + 0.044715 * array * array * array)))


def hardswish(x: Any) -> Any:
    """x * clamp(x + 3, 0, 6) / 6."""
    torch = _torch(x)
    if torch is not None:
        return torch.nn.functional.hardswish(x)
    np = _np()
    array = np.asarray(x)
    return array * np.clip(array + 3.0, 0.0, 6.0) / 6.0


def elu(x: Any, alpha: float = 1.0) -> Any:
    """x for x > 0, else alpha * (exp(x) - 1)."""
    torch = _torch(x)
    if torch is not None:
        return torch.where(x > 0, x, alpha * torch.expm1(x))
    np = _np()
    array = np.asarray(x)
    with np.errstate(over="ignore"):
        return np.where(array > 0, array, alpha * np.expm1(array))


def softplus(x: Any) -> Any:
    """log(1 + exp(x)), and x itself above 20 (PyTorch's threshold)."""
    torch = _torch(x)
    if torch is not None:
        return torch.nn.functional.softplus(x)
    np = _np()
    array = np.asarray(x)
    with np.errstate(over="ignore"):
        return np.where(array > _SOFTPLUS_THRESHOLD, array, np.log1p(np.exp(array)))


def _unary(torch_name: str, numpy_name: str):
    def apply(x: Any) -> Any:
        torch = _torch(x)
        if torch is not None:
            return getattr(torch, torch_name)(x)
        np = _np()
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return getattr(np, numpy_name)(x)

    apply.__name__ = numpy_name
    return apply


exp = _unary("exp", "exp")
log = _unary("log", "log")
sqrt = _unary("sqrt", "sqrt")
abs = _unary("abs", "abs")  # noqa: A001 - the epilogue language's name
sin = _unary("sin", "sin")
cos = _unary("cos", "cos")
tan = _unary("tan", "tan")
exp.__doc__, log.__doc__, sqrt.__doc__ = "e**x.", "Natural logarithm.", "Square root."
abs.__doc__, sin.__doc__, cos.__doc__, tan.__doc__ = "|x|.", "Sine.", "Cosine.", "Tangent."


def rsqrt(x: Any) -> Any:
    """1 / sqrt(x)."""
    torch = _torch(x)
    if torch is not None:
        return torch.rsqrt(x)
    np = _np()
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def pow(x: Any, y: Any) -> Any:  # noqa: A001 - the epilogue language's name
    """x ** y."""
    torch = _torch(x, y)
    if torch is not None:
        return torch.pow(x, y)
    np = _np()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(np.asarray(x, dtype=np.result_type(x, 1.0)), y)


def maximum(x: Any, y: Any) -> Any:
    """Elementwise maximum; NaN if either is NaN."""
    torch = _torch(x, y)
    if torch is not None:
        ref = _first_tensor(torch, x, y)
        return torch.maximum(_like(torch, x, ref), _like(torch, y, ref))
    return _np().maximum(x, y)


def minimum(x: Any, y: Any) -> Any:
    """Elementwise minimum; NaN if either is NaN."""
    torch = _torch(x, y)
    if torch is not None:
        ref = _first_tensor(torch, x, y)
        return torch.minimum(_like(torch, x, ref), _like(torch, y, ref))
    return _np().minimum(x, y)


def clamp(x: Any, lo: Any, hi: Any) -> Any:
    """minimum(maximum(x, lo), hi)."""
    return minimum(maximum(x, lo), hi)


def where(condition: Any, a: Any, b: Any) -> Any:
    """a where condition is true (non-zero), else b."""
    torch = _torch(condition, a, b)
    if torch is not None:
        ref = _first_tensor(torch, condition, a, b)
        cond = _like(torch, condition, ref) != 0
        value_ref = next((v for v in (a, b) if isinstance(v, torch.Tensor)), ref)
        if value_ref.dtype == torch.bool:
            value_ref = value_ref.to(torch.get_default_dtype())
        return torch.where(cond, _like(torch, a, value_ref), _like(torch, b, value_ref))
    np = _np()
    return np.where(np.asarray(condition) != 0, a, b)


# --- casts: round to a type, go on computing in the input's type ----------------


def _round_float_format(x: Any, mantissa_bits: int, min_exponent: int, max_value: float, saturate: bool) -> Any:
    """NumPy: x rounded to nearest even in a binary format with `mantissa_bits`
    explicit bits whose smallest normal is 2**min_exponent."""
    np = _np()
    array = np.asarray(x, dtype=np.float64)
    _, e = np.frexp(array)  # array = m * 2**e with 0.5 <= |m| < 1
    exponent = np.maximum(e - 1, min_exponent)
    ulp = np.ldexp(1.0, (exponent - mantissa_bits).astype(np.int32))
    with np.errstate(invalid="ignore", over="ignore"):
        rounded = np.round(array / ulp) * ulp
        limit = max_value if saturate else np.inf
        rounded = np.where(np.abs(rounded) > max_value, np.sign(array) * limit, rounded)
    rounded = np.where(np.isnan(array), np.nan, rounded)
    return _float_result(np, rounded, np.asarray(x))


def _round_integer(x: Any, lo: int, hi: int) -> Any:
    torch = _torch(x)
    if torch is not None:
        return torch.nan_to_num(torch.round(x), nan=0.0).clamp(lo, hi)
    np = _np()
    array = np.asarray(x)
    rounded = np.clip(np.nan_to_num(np.round(array.astype(np.float64)), nan=0.0), lo, hi)
    return _float_result(np, rounded, array)


def _torch_cast(torch: Any, x: Any, name: str, limit: float = 0.0) -> Any:
    value = x.clamp(-limit, limit) if limit else x
    return value.to(getattr(torch, name)).to(x.dtype)


def to_f16(x: Any) -> Any:
    """x rounded to float16 (overflow to inf)."""
    torch = _torch(x)
    if torch is not None:
        return _torch_cast(torch, x, "float16")
    return _round_float_format(x, 10, -14, 65504.0, saturate=False)


def to_bf16(x: Any) -> Any:
    """x rounded to bfloat16 (overflow to inf)."""
    torch = _torch(x)
    if torch is not None:
        return _torch_cast(torch, x, "bfloat16")
    return _round_float_format(x, 7, -126, 3.3895313892515355e38, saturate=False)


def to_f32(x: Any) -> Any:
    """x rounded to float32."""
    torch = _torch(x)
    if torch is not None:
        return _torch_cast(torch, x, "float32")
    np = _np()
    return _float_result(np, np.asarray(x, dtype=np.float64).astype(np.float32), np.asarray(x))


def to_e4m3(x: Any) -> Any:
    """x rounded to float8 e4m3fn, saturating at +-448."""
    torch = _torch(x)
    if torch is not None:
        return _torch_cast(torch, x, "float8_e4m3fn", 448.0)
    return _round_float_format(x, 3, -6, 448.0, saturate=True)


def to_e5m2(x: Any) -> Any:
    """x rounded to float8 e5m2, saturating at +-57344."""
    torch = _torch(x)
    if torch is not None:
        return _torch_cast(torch, x, "float8_e5m2", 57344.0)
    return _round_float_format(x, 2, -14, 57344.0, saturate=True)


def to_i8(x: Any) -> Any:
    """x rounded to nearest even and clamped to [-128, 127]."""
    return _round_integer(x, -128, 127)


def to_u8(x: Any) -> Any:
    """x rounded to nearest even and clamped to [0, 255]."""
    return _round_integer(x, 0, 255)


def to_i32(x: Any) -> Any:
    """x rounded to nearest even and clamped to the int32 range."""
    return _round_integer(x, -(2**31), 2**31 - 1)


# --- reductions (whole tensor here) -------------------------------------------


def sum(x: Any) -> Any:  # noqa: A001 - the epilogue language's name
    """The sum of all elements."""
    return x.sum() if hasattr(x, "sum") else x


def max(x: Any) -> Any:  # noqa: A001 - the epilogue language's name
    """The largest element."""
    return x.max() if hasattr(x, "max") else x


def min(x: Any) -> Any:  # noqa: A001 - the epilogue language's name
    """The smallest element."""
    return x.min() if hasattr(x, "min") else x


def amax(x: Any) -> Any:
    """The largest absolute value."""
    return abs(x).max() if hasattr(x, "max") else builtins.abs(x)
