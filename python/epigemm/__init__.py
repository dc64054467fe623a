"""epigemm: GEMMs whose epilogue you write as a small Python function,
fused into the kernel and compiled at run time.

    import epigemm as eg
    from epigemm import relu

    def epi(accum, alpha, C):
        F = accum * alpha + C * 2.0
        D = relu(F)
        return D, F

    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type=torch.float32,
                            epilogue=eg.EpilogueArguments(epi, alpha=3.0, C=C, D=D, F=F))
    eg.get_operators(args, target_sm=eg.device_target_sm())[0].run(args)

Tensors come through DLPack (torch, NumPy, CuPy, JAX); see the README for
the rest.
"""

from . import _epigemm
from ._arguments import EpilogueArguments, GemmArguments
from ._dtypes import dtype_name, to_numpy_dtype, to_torch_dtype
from ._epigemm import OperatorMetadata, Status, Tensor
from ._operators import (
    Candidate,
    Operator,
    OperatorTiming,
    PrecompileResult,
    device_target_sm,
    explain_operators,
    get_operators,
    time_operators,
)
from ._tensors import as_tensor
from .functions import (  # noqa: F401 - importable by name, as the epilogue language spells them
    abs,
    amax,
    clamp,
    cos,
    elu,
    erf,
    exp,
    gelu,
    gelu_tanh,
    hardswish,
    leaky_relu,
    log,
    max,
    maximum,
    min,
    minimum,
    pow,
    relu,
    rsqrt,
    sigmoid,
    silu,
    sin,
    softplus,
    sqrt,
    sum,
    tan,
    tanh,
    to_bf16,
    to_e4m3,
    to_e5m2,
    to_f16,
    to_f32,
    to_i8,
    to_i32,
    to_u8,
    where,
)
from . import fusion, utils  # noqa: E402

__version__ = "0.1.0"

# `from epigemm import *` leaves Python's own abs, max, min, pow and sum alone;
# import those by name when an epilogue uses them.
__all__ = [
    "EpilogueArguments",
    "GemmArguments",
    "Operator",
    "OperatorMetadata",
    "Candidate",
    "Status",
    "Tensor",
    "as_tensor",
    "get_operators",
    "explain_operators",
    "time_operators",
    "OperatorTiming",
    "PrecompileResult",
    "device_target_sm",
    "dtype_name",
    "to_torch_dtype",
    "to_numpy_dtype",
    "fusion",
    "utils",
    "amax", "clamp", "cos", "elu", "erf", "exp", "gelu", "gelu_tanh", "hardswish", "leaky_relu", "log",
    "maximum", "minimum", "relu", "rsqrt", "sigmoid", "silu", "sin", "softplus", "sqrt", "tan", "tanh",
    "to_bf16", "to_e4m3", "to_e5m2", "to_f16", "to_f32", "to_i8", "to_i32", "to_u8", "where",
]
