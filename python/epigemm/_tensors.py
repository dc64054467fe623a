"""Binding values: Python numbers stay numbers, tensors of any DLPack
producer (torch, NumPy, CuPy, JAX) become epigemm Tensor views. Also which
CUDA stream a run uses by default."""

from __future__ import annotations

import numbers
import sys
from typing import Any, Iterable, Optional, Tuple, Union

from . import _epigemm as _ext

# torch dtypes that older DLPack exporters refuse: exported as uint8, read as fp8
_TORCH_FP8 = {"torch.float8_e4m3fn": "e4m3", "torch.float8_e5m2": "e5m2"}


def _is_torch_tensor(obj: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def _export_failure(obj: Any) -> str:
    """Why `obj` could not be read: the exporter's own complaint if it has one."""
    export = getattr(obj, "__dlpack__", None)
    if export is not None:
        try:
            export()
        except Exception as exc:  # the producer's message is the useful part
            return f"{type(exc).__name__}: {exc}"
    return "its DLPack export has a layout epigemm cannot read"


def as_tensor(obj: Any, what: str = "tensor") -> _ext.Tensor:
    """An epigemm Tensor viewing `obj`'s memory (torch, NumPy, CuPy, JAX or
    any DLPack producer; torch fp8 included); `what` names it in errors."""
    if isinstance(obj, _ext.Tensor):
        return obj
    override = None
    if _is_torch_tensor(obj):
        if obj.requires_grad:
            obj = obj.detach()
        override = _TORCH_FP8.get(str(obj.dtype))
        if override is not None:
            obj = obj.view(sys.modules["torch"].uint8)
    elif not _is_exportable(obj):
        raise TypeError(
            f"{what} is a {type(obj).__name__}, not a tensor that supports DLPack (torch, NumPy, CuPy, JAX)"
        )
    try:
        return _ext.Tensor(obj, what, override)
    except TypeError:
        raise ValueError(f"{what} ({type(obj).__name__}) cannot be read: {_export_failure(obj)}") from None


def _is_exportable(obj: Any) -> bool:
    """Whether nanobind can import `obj`: a DLPack producer or capsule, or
    an object with the buffer protocol."""
    return hasattr(obj, "__dlpack__") or type(obj).__name__ == "PyCapsule" or _has_buffer(obj)


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def as_binding(name: str, value: Any) -> Union[float, _ext.Tensor]:
    """A number (by value) or a Tensor for the epilogue name `name`."""
    if isinstance(value, bool):
        raise TypeError(f"Argument {name} is a bool; bind a number or a tensor")
    if isinstance(value, numbers.Real) and not hasattr(value, "__dlpack__"):
        return float(value)
    if isinstance(value, numbers.Number):
        raise TypeError(f"Argument {name} is a {type(value).__name__}; epilogue numbers must be real")
    if not isinstance(value, _ext.Tensor) and not _is_exportable(value):
        raise TypeError(
            f"Argument {name} is a {type(value).__name__}; bind a number or a tensor that supports DLPack "
            "(torch, NumPy, CuPy, JAX)"
        )
    return as_tensor(value, f"Argument {name}")


StreamSource = Optional[Tuple[str, Any]]


def stream_source(objects: Iterable[Any]) -> StreamSource:
    """Which framework's current stream a run should use by default: that of
    the first torch or CuPy CUDA tensor among `objects`, else none."""
    for obj in objects:
        if _is_torch_tensor(obj) and obj.is_cuda:
            return ("torch", obj.device)
        module = type(obj).__module__ or ""
        if module.startswith("cupy"):
            return ("cupy", obj.device.id)
    return None


def resolve_stream(stream: Any, source: StreamSource) -> int:
    """The CUstream handle for `stream` (None: the framework's current one)."""
    if stream is None:
        if source is None:
            return 0
        kind, device = source
        if kind == "torch":
            import torch

            return int(torch.cuda.current_stream(device).cuda_stream)
        import cupy

        with cupy.cuda.Device(device):
            return int(cupy.cuda.get_current_stream().ptr)
    if isinstance(stream, bool):
        raise TypeError("stream must be a stream object or an integer handle, not a bool")
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise TypeError(
            f"stream must be an integer CUstream handle or an object with .cuda_stream or .ptr, "
            f"not {type(stream).__name__}"
        ) from None
