"""EpilogueArguments and GemmArguments: what the user builds, as in the
C++ API, from Python functions or strings and any DLPack tensors. Each keeps
the Python objects it was given, so their memory outlives the arguments."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Union

from . import _epigemm as _ext
from ._dtypes import default_accumulator, dtype_name
from ._source import epilogue_source
from ._tensors import as_binding, as_tensor, stream_source


class EpilogueArguments:
    """An epilogue function with a value for each of its parameters (except
    accum) and a tensor for each name it returns.

    ``epilogue`` is a Python function (its source is parsed, it is not called)
    or a string such as ``"def epi(accum, alpha): D = accum * alpha; return D"``.
    Numbers are passed by value; tensors may come from torch, NumPy, CuPy,
    JAX or any other DLPack producer. Shapes broadcast against D's.

    Raises SyntaxError for an epilogue that breaks the language's rules,
    ValueError for missing, extra or malformed bindings, RuntimeError for
    malformed outputs (no D).
    """

    def __init__(self, epilogue: Union[str, Callable[..., Any]], /, **bindings: Any) -> None:
        source = epilogue_source(epilogue)
        self.epilogue = epilogue
        self.source: str = source.text
        self.bindings: Dict[str, Any] = dict(bindings)
        values = {name: as_binding(name, value) for name, value in bindings.items()}
        self._tensors = {name: v for name, v in values.items() if isinstance(v, _ext.Tensor)}
        try:
            self._cpp = _ext.EpilogueArguments(source.text, values)
        except SyntaxError as error:
            source.annotate(error)
            raise

    def __getitem__(self, name: str) -> Any:
        """The object bound to `name`."""
        return self.bindings[name]

    def __repr__(self) -> str:
        names = ", ".join(self.bindings)
        return f"EpilogueArguments({names})"


def _same_view(a: _ext.Tensor, b: _ext.Tensor) -> bool:
    def key(t: _ext.Tensor) -> tuple:
        return (t.data_ptr, t.dtype, t.shape, t.strides, t.device, t.device_index)

    return key(a) == key(b)


class GemmArguments:
    """D = epilogue(A @ B).

    A is (L, M, K) or (M, K), B (L, K, N) or (K, N), out (L, M, N) or (M, N).
    ``accumulator_type`` and ``compute_type`` take torch dtypes, NumPy dtypes
    or names; the accumulator defaults to int32 for 8-bit integer operands,
    float64 for float64 ones, else float32; the epilogue computes in float32
    unless ``compute_type`` says otherwise.

    With an epilogue, the tensor written is the epilogue's D; ``out`` may be
    left out, or be another tensor of the same shape and dtype, which then
    only describes the output (as in CUTLASS's Python examples).
    """

    def __init__(
        self,
        A: Any,
        B: Any,
        out: Any = None,
        accumulator_type: Any = None,
        epilogue: Optional[EpilogueArguments] = None,
        compute_type: Any = None,
    ) -> None:
        if epilogue is not None and not isinstance(epilogue, EpilogueArguments):
            raise TypeError(f"epilogue must be EpilogueArguments, not {type(epilogue).__name__}")
        self.A, self.B, self.out, self.epilogue = A, B, out, epilogue
        a, b = as_tensor(A, "A"), as_tensor(B, "B")
        d = epilogue._tensors.get("D") if epilogue is not None else None
        o = self._output(out, d)
        if accumulator_type is None:
            self.accumulator_type = default_accumulator(a.dtype)
        else:
            self.accumulator_type = dtype_name(accumulator_type, "accumulator_type")
        self.compute_type = "f32" if compute_type is None else dtype_name(compute_type, "compute_type")
        self._cpp = _ext.GemmArguments(
            a, b, o, self.accumulator_type, epilogue._cpp if epilogue is not None else None, self.compute_type
        )
        objects = [A, B, out] + (list(epilogue.bindings.values()) if epilogue is not None else [])
        self._stream_source = stream_source(objects)

    @staticmethod
    def _output(out: Any, d: Optional[_ext.Tensor]) -> _ext.Tensor:
        if out is None:
            if d is None:
                raise ValueError("GemmArguments needs out= (or an epilogue that binds D)")
            return d
        o = as_tensor(out, "out")
        if d is None or _same_view(o, d):
            return o
        if o.shape != d.shape or o.dtype != d.dtype:
            raise ValueError(
                f"out is {o.dtype} {o.shape} but the epilogue's D is {d.dtype} {d.shape}; "
                "they must have the same shape and dtype"
            )
        return d

    def __repr__(self) -> str:
        return repr(self._cpp)
