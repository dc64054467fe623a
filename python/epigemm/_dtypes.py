"""Dtype names: epigemm's short names from torch, NumPy and string dtypes,
and back to torch and NumPy dtypes."""

from __future__ import annotations

import sys
from typing import Any

from . import _epigemm as _ext

# epigemm short name -> torch attribute name
_TORCH_NAMES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "tf32": "float32",
    "f64": "float64",
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "i8": "int8",
    "u8": "uint8",
    "i32": "int32",
}

# epigemm short name -> NumPy dtype name (NumPy has no bfloat16 or fp8)
_NUMPY_NAMES = {
    "f16": "float16",
    "f32": "float32",
    "tf32": "float32",
    "f64": "float64",
    "i8": "int8",
    "u8": "uint8",
    "i32": "int32",
}


def dtype_name(dtype: Any, what: str = "dtype") -> str:
    """epigemm's short name ('f32', 'bf16', 'e4m3', ...) for a torch dtype,
    a NumPy dtype or scalar type, or a string such as 'float16'. `what`
    names the argument in errors."""
    name = None
    if isinstance(dtype, str):
        name = dtype
    else:
        torch = sys.modules.get("torch")
        numpy = sys.modules.get("numpy")
        if torch is not None and isinstance(dtype, torch.dtype):
            name = str(dtype)
        elif numpy is not None:
            try:
                name = numpy.dtype(dtype).name
            except TypeError:
                pass
    if name is None:
        raise TypeError(
            f"{what} {dtype!r} is not a dtype; pass a torch dtype, a NumPy dtype or a name such as 'float32'"
        )
    return _ext.parse_dtype(name, what)


def to_torch_dtype(dtype: Any) -> Any:
    """The torch dtype for an epigemm dtype (any spelling dtype_name takes)."""
    import torch

    return getattr(torch, _TORCH_NAMES[dtype_name(dtype)])


def to_numpy_dtype(dtype: Any) -> Any:
    """The NumPy dtype for an epigemm dtype; ValueError for bf16 and fp8,
    which NumPy lacks."""
    import numpy

    name = dtype_name(dtype)
    if name not in _NUMPY_NAMES:
        raise ValueError(f"NumPy has no dtype for {name}")
    return numpy.dtype(_NUMPY_NAMES[name])


def default_accumulator(ab_dtype: str) -> str:
    """The accumulator a GEMM of `ab_dtype` operands uses unless told."""
    if ab_dtype in ("i8", "u8"):
        return "i32"
    if ab_dtype == "f64":
        return "f64"
    return "f32"
