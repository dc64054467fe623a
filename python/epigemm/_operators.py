"""Operators and the queries that find them: get_operators returns those
that support the arguments, explain_operators also those that do not, with
the reason each gave; time_operators measures them on the arguments;
Operator.precompile fills the disk kernel cache without a GPU."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, List, NamedTuple, Optional, Union

from . import _epigemm as _ext
from ._arguments import GemmArguments
from ._tensors import resolve_stream

Status = _ext.Status
OperatorMetadata = _ext.OperatorMetadata


def _cpp_args(args: GemmArguments) -> Any:
    if not isinstance(args, GemmArguments):
        raise TypeError(f"args must be GemmArguments, not {type(args).__name__}")
    return args._cpp


class Operator:
    """One kernel configuration of one provider."""

    __slots__ = ("_op",)

    def __init__(self, op: Any) -> None:
        self._op = op

    @property
    def name(self) -> str:
        """Unique name, e.g. 'cpu_reference' or 'sm90_wgmma_128x256x64_c2x1'."""
        return self._op.name

    @property
    def metadata(self) -> OperatorMetadata:
        """Provider, tile, cluster, stages and provider facts (attributes, or
        keys as in a dict)."""
        return self._op.metadata

    def supports(self, args: GemmArguments) -> Status:
        """Whether this operator can run `args`; a falsy Status says why not."""
        return self._op.supports(_cpp_args(args))

    def plan_notes(self, args: GemmArguments) -> List[str]:
        """What a run of `args` does besides the kernel, one sentence each
        (e.g. sm90 copying an A or B that TMA cannot read as it lies);
        empty when nothing. Needs no GPU."""
        return list(self._op.plan_notes(_cpp_args(args)))

    def ranking(self, args: GemmArguments) -> str:
        """What this operator's place among the candidates for `args` rests
        on, in a few words (sm90: the time its tile heuristic models and the
        model's largest term, e.g. '104.0 us modelled (L2 fill)'); empty
        where the provider ranks by a fixed order. Needs no GPU."""
        return self._op.ranking(_cpp_args(args))

    def compile(self, args: GemmArguments) -> None:
        """Builds the kernel for `args`' class of problem ahead of the first run."""
        self._op.compile(_cpp_args(args))

    def precompile(self, args: GemmArguments, sm_count: int = 0) -> "PrecompileResult":
        """Compiles the kernels of `args`' class of problem into the disk
        kernel cache without loading them, so it needs no GPU: the tensors
        may be descriptions, e.g. `Tensor.from_pointer(0x10000, 'bfloat16',
        (M, K), device='cuda')`, with operators found by
        `get_operators(args, target_sm=90, ignore_devices=True)`. compile()
        or run() of the same class on a GPU of the operator's architecture,
        with the same CUDA toolkit and cache directory, then reads them from
        the cache. `sm_count`: the SMs of the GPU that will run them (0: the
        current device's, or 132 without one)."""
        kernels, compiled = self._op.precompile(_cpp_args(args), sm_count)
        return PrecompileResult(kernels, compiled)

    def run(self, args: GemmArguments, stream: Any = None) -> None:
        """Runs on `stream`: an integer CUstream, an object with .cuda_stream
        (torch) or .ptr (CuPy), or None for the current torch/CuPy stream of
        the arguments' CUDA tensors (the default stream otherwise)."""
        cpp = _cpp_args(args)
        self._op.run(cpp, resolve_stream(stream, args._stream_source))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Operator) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Operator({self.name!r})"


class Candidate(NamedTuple):
    """An operator the query admitted, and whether it supports the arguments."""

    operator: Operator
    status: Status


def _target_sm(target_sm: Union[None, int, str]) -> int:
    if target_sm is None:
        return 0
    if isinstance(target_sm, bool):
        raise TypeError("target_sm must be an integer such as 90, or a string such as '90a'")
    if isinstance(target_sm, int):
        value = target_sm
    else:
        match = re.fullmatch(r"(?:sm_?)?(\d+)[a-z]?", str(target_sm).strip().lower())
        if match is None:
            raise ValueError(f"target_sm {target_sm!r} is not an SM version such as 90, '90a' or 'sm_80'")
        value = int(match.group(1))
    if value < 0:
        raise ValueError(f"target_sm {target_sm!r} is negative")
    return value


def _providers(providers: Union[None, str, Iterable[str]]) -> List[str]:
    if providers is None:
        return []
    if isinstance(providers, str):
        return [providers]
    return [str(p) for p in providers]


def explain_operators(
    args: GemmArguments,
    target_sm: Union[None, int, str] = None,
    metadata_filter: Optional[Callable[[OperatorMetadata], bool]] = None,
    providers: Union[None, str, Iterable[str]] = None,
    ignore_devices: bool = False,
    sm_count: int = 0,
    l2_bytes: int = 0,
) -> List[Candidate]:
    """Every operator the query admits, supported ones first, each with its
    Status. Arguments as for get_operators."""
    pairs = _ext.explain_operators(
        _cpp_args(args), _target_sm(target_sm), metadata_filter, _providers(providers),
        ignore_devices, sm_count, l2_bytes,
    )
    return [Candidate(Operator(op), status) for op, status in pairs]


def get_operators(
    args: GemmArguments,
    target_sm: Union[None, int, str] = None,
    metadata_filter: Optional[Callable[[OperatorMetadata], bool]] = None,
    providers: Union[None, str, Iterable[str]] = None,
    ignore_devices: bool = False,
    sm_count: int = 0,
    l2_bytes: int = 0,
) -> List[Operator]:
    """Operators that support `args`, best first.

    target_sm: the GPU architecture (90, '90a', 80, ...); None: the current
    CUDA device's, or host operators only without one.
    metadata_filter: keeps the operators for which it returns true; it gets
    an OperatorMetadata (attributes, or keys as in a dict). fp8 GEMMs
    accumulate precisely by default; `lambda md:
    md.extra.get("fp8_accumulation") == "fast"` picks Hopper's faster,
    reduced-precision fp8 accumulation instead.
    providers: a name or names ('cpu_reference', 'simt', 'sm80', 'sm90').
    ignore_devices: judge each operator on the problem alone, without this
    machine's devices (driver, device, where the pointers point): to find,
    on a machine without a GPU, the operators a GPU of target_sm would run
    (Operator.precompile). sm_count and l2_bytes then describe that GPU for
    the sm90 ranking (0: 132 SMs and 60 MB, an H200's); without
    ignore_devices they must stay 0 and the ranking reads the device's.
    """
    ops = _ext.get_operators(
        _cpp_args(args), _target_sm(target_sm), metadata_filter, _providers(providers),
        ignore_devices, sm_count, l2_bytes,
    )
    return [Operator(op) for op in ops]


class PrecompileResult(NamedTuple):
    """What Operator.precompile did."""

    kernels: int  # kernels the problem's class needs (0 for host operators)
    compiled: int  # of them, compiled now; the others were in the disk cache already


class OperatorTiming(NamedTuple):
    """One operator's measurement by time_operators."""

    operator: Operator
    median_ms: float  # median of its timed runs over all rounds
    compile_ms: float  # wall time of its compile (near 0 when cached)
    runs_per_turn: int  # timed runs in each of its turns


def time_operators(
    ops: Iterable[Operator],
    args: GemmArguments,
    rounds: int = 3,
    warmup: int = 2,
    iterations: int = 10,
    turn_ms: float = 0.0,
    stream: Any = None,
    flush_l2: bool = False,
) -> List[OperatorTiming]:
    """Compiles each operator, then runs them on `args` in `rounds`
    interleaved rounds (each operator one turn of `warmup` untimed and
    `iterations` timed runs per round, the first turn rotating), so that a
    clock that drifts under sustained load weighs on all alike. With
    `turn_ms` above 0 a turn takes as many timed runs (at least
    `iterations`) as last about that long, sized per operator from one run
    timed alone: let turns last as long as the real workload keeps the GPU
    busy, as its clock falls under sustained load. With `flush_l2`, each
    timed run of CUDA tensors follows (outside its time) a read of a buffer
    four times the GPU's L2, at least 64 MiB, so that it finds none of its
    operands in L2, as between a network's layers. Times with CUDA events
    on `stream` (as for Operator.run) for CUDA tensors, the wall clock for
    host arrays. Returns the timings fastest first; `args`' outputs hold
    whatever the last run wrote. The built-in ranking is fitted to one GPU
    (the H200); this picks the fastest on the GPU at hand, e.g.
    `time_operators(get_operators(args)[:4], args, turn_ms=100)[0].operator`."""
    ops = list(ops)
    for op in ops:
        if not isinstance(op, Operator):
            raise TypeError(f"ops must be Operators, not {type(op).__name__}")
    if not isinstance(flush_l2, bool):
        raise TypeError(f"flush_l2 must be a bool, not {type(flush_l2).__name__}")
    cpp = _cpp_args(args)
    stream_handle = resolve_stream(stream, args._stream_source)
    timed = _ext.time_operators(
        [op._op for op in ops], cpp, rounds, warmup, iterations, turn_ms, flush_l2, stream_handle
    )
    return [OperatorTiming(Operator(op), *measured) for op, *measured in timed]


def device_target_sm() -> int:
    """The SM version of the current CUDA device (e.g. 90), or 0 without one."""
    return _ext.device_target_sm()
