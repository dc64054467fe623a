"""Operators from Python: queries with target_sm, metadata filters (as an
object or a dict) and providers; explain_operators; supports/compile/run,
from several threads too; Status; the device helpers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import epigemm as eg
from helpers import assert_stored, gemm64, randn


@pytest.fixture
def args(rng):
    A, B = randn(rng, (2, 16, 8)), randn(rng, (2, 8, 12))
    D = np.empty((2, 16, 12), np.float32)
    epi = eg.EpilogueArguments("def epi(accum, s): D = accum * s; return D", s=-1.5, D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type="float32", epilogue=epi)
    args.expected = gemm64(A, B) * -1.5
    return args


def test_metadata_as_attributes_and_as_a_dict(args):
    op = eg.get_operators(args, providers="cpu_reference")[0]
    md = op.metadata
    assert md.name == op.name == "cpu_reference"
    assert md.provider == md["provider"] == md.as_dict()["provider"] == "cpu_reference"
    assert md.min_sm == 0
    assert isinstance(md.tile, tuple) and len(md.tile) == 3
    assert isinstance(md.cluster, tuple) and len(md.cluster) == 2
    assert isinstance(md.extra, dict)
    assert "stages" in md and md.get("missing", 7) == 7
    with pytest.raises(KeyError):
        md["missing"]


def test_metadata_filter_keeps_and_drops(args):
    seen = []

    def keep_cpu(md):
        seen.append(md["name"])
        return md.provider == "cpu_reference"

    ops = eg.get_operators(args, metadata_filter=keep_cpu)
    assert "cpu_reference" in seen
    assert [op.name for op in ops] == ["cpu_reference"]
    assert eg.get_operators(args, metadata_filter=lambda md: False) == []
    with pytest.raises(ValueError, match="callable"):
        eg.get_operators(args, metadata_filter="cpu_reference")


def test_explain_operators_gives_a_status_for_each(args):
    candidates = eg.explain_operators(args)
    names = [c.operator.name for c in candidates]
    assert "cpu_reference" in names
    supported = [c for c in candidates if c.status]
    assert [c.operator for c in supported] == eg.get_operators(args)
    for c in candidates:
        assert bool(c.status) == c.status.ok
        assert (c.status.reason == "") == c.status.ok
    # Supported operators come first.
    flags = [c.status.ok for c in candidates]
    assert flags == sorted(flags, reverse=True)


def test_supports_compile_and_run_on_an_explicit_stream(args):
    op = eg.get_operators(args, target_sm="sm_90a", providers=["cpu_reference"])[0]
    status = op.supports(args)
    assert status and status.ok and status.reason == ""
    op.compile(args)

    class Stream:  # anything with .cuda_stream or .ptr names a stream
        cuda_stream = 0

    op.run(args, stream=Stream())
    assert_stored(args.epilogue["D"], args.expected)
    args.epilogue["D"][...] = np.nan
    op.run(args, stream=0)
    assert_stored(args.epilogue["D"], args.expected)


def test_status_objects():
    ok, bad = eg.Status(), eg.Status(False, "tile too large")
    assert ok and ok.ok and ok.reason == ""
    assert not bad and not bad.ok and bad.reason == bad.error == "tile too large"
    assert "tile too large" in repr(bad)


def test_device_helpers(monkeypatch):
    sm = eg.device_target_sm()
    assert isinstance(sm, int) and sm >= 0
    assert eg.utils.device.device_target_sm() == sm
    monkeypatch.setenv("EPIGEMM_TARGET_SM", "90a")
    expected = sm if sm else 90
    assert eg.utils.device.device_or_env_target_sm() == expected
    assert bool(eg.utils.device.device_or_env_supports("80")) == (expected >= 80)
    assert not eg.utils.device.device_or_env_supports(expected + 10)
    monkeypatch.delenv("EPIGEMM_TARGET_SM")
    if sm == 0:
        assert eg.utils.device.device_or_env_target_sm() == 0
        assert "EPIGEMM_TARGET_SM" in eg.utils.device.device_or_env_supports(90).error


def test_host_arrays_are_not_claimed_by_gpu_operators(args):
    # Whatever the target, only host operators may accept NumPy arrays.
    for target in (None, 80, "90a"):
        for op in eg.get_operators(args, target_sm=target):
            assert op.metadata.min_sm == 0, op.name


def test_plan_notes_name_the_operands_sm90_copies(rng):
    # K = 77: A's rows are 154 bytes apart, which TMA cannot read; B's 96
    # are fine. The sm90 plan needs no GPU (the device check is separate).
    A, B = randn(rng, (40, 77)).astype(np.float16), randn(rng, (77, 48)).astype(np.float16)
    D = np.empty((40, 48), np.float16)
    args = eg.GemmArguments(A=A, B=B, out=D)
    name = "sm90_wgmma_64x64x64_c1x1_16bit"
    pinned = eg.explain_operators(args, target_sm=90, metadata_filter=lambda md: md.name == name)
    assert [c.operator.name for c in pinned] == [name]
    notes = pinned[0].operator.plan_notes(args)
    assert len(notes) == 1
    assert notes[0].startswith("A is copied before the GEMM into row-major rows 256 bytes apart (K-major)")
    assert eg.get_operators(args, providers="cpu_reference")[0].plan_notes(args) == []


def test_ranking_gives_the_sm90_models_time_in_candidate_order(rng):
    # The sm90 candidates of one operand class come in the order of the
    # time their tile heuristic models (host operators say nothing). NumPy
    # arrays are host memory, which the sm90 operators refuse, but they
    # rank them all the same and need no GPU for it.
    A, B = randn(rng, (256, 192)).astype(np.float16), randn(rng, (192, 320)).astype(np.float16)
    args = eg.GemmArguments(A=A, B=B, out=np.empty((256, 320), np.float16))
    candidates = eg.explain_operators(args, target_sm=90, providers="sm90")
    ops = [c.operator for c in candidates if c.operator.name.endswith("_16bit")]
    assert len(ops) > 1
    rankings = [op.ranking(args) for op in ops]
    assert all(re.fullmatch(r"[0-9.]+ us modelled \((math|DRAM|L2 fill)\)", r) for r in rankings), rankings
    times = [float(r.split()[0]) for r in rankings]
    assert times == sorted(times) and times[0] > 0
    assert eg.get_operators(args, providers="cpu_reference")[0].ranking(args) == ""


def test_time_operators_fastest_first_with_correct_outputs(args):
    op = eg.get_operators(args, providers="cpu_reference")[0]
    args.epilogue["D"].fill(np.nan)
    timings = eg.time_operators([op, op], args, rounds=2, warmup=0, iterations=2)
    assert [t.operator.name for t in timings] == ["cpu_reference", "cpu_reference"]
    assert all(t.median_ms > 0 and t.compile_ms >= 0 and t.runs_per_turn == 2 for t in timings)
    assert timings[0].median_ms <= timings[1].median_ms
    assert_stored(args.epilogue["D"], args.expected)


def test_time_operators_sizes_turns_by_turn_ms(args):
    op = eg.get_operators(args, providers="cpu_reference")[0]
    (timing,) = eg.time_operators([op], args, rounds=1, warmup=0, iterations=1, turn_ms=50)
    assert 10 < timing.runs_per_turn <= 100000
    assert_stored(args.epilogue["D"], args.expected)


def test_time_operators_flush_l2_leaves_host_runs_as_they_are(args):
    op = eg.get_operators(args, providers="cpu_reference")[0]
    args.epilogue["D"].fill(np.nan)
    (timing,) = eg.time_operators([op], args, rounds=1, warmup=0, iterations=2, flush_l2=True)
    assert timing.median_ms > 0 and timing.runs_per_turn == 2
    assert_stored(args.epilogue["D"], args.expected)


def test_time_operators_rejects_bad_input(args):
    op = eg.get_operators(args, providers="cpu_reference")[0]
    with pytest.raises(ValueError, match="no operators"):
        eg.time_operators([], args)
    with pytest.raises(ValueError, match="rounds"):
        eg.time_operators([op], args, rounds=0)
    with pytest.raises(ValueError, match="turn_ms"):
        eg.time_operators([op], args, turn_ms=-1)
    with pytest.raises(TypeError, match="Operators"):
        eg.time_operators(["cpu_reference"], args)
    with pytest.raises(TypeError, match="flush_l2 must be a bool"):
        eg.time_operators([op], args, flush_l2=1)


def test_operators_run_from_several_threads(rng):
    """Each thread parses, picks and runs its own problem; the GIL is
    released in run, so the threads' GEMMs overlap."""
    from concurrent.futures import ThreadPoolExecutor

    def one(seed):
        r = np.random.default_rng(seed)
        A, B, C = randn(r, (2, 24, 16)), randn(r, (2, 16, 20)), randn(r, (2, 24, 20))
        D = np.full((2, 24, 20), np.nan, np.float32)
        alpha = float(seed % 5) - 2.0
        epi = eg.EpilogueArguments("def epi(accum, alpha, C): D = relu(accum * alpha + C); return D",
                                   alpha=alpha, C=C, D=D)
        args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type="float32", epilogue=epi)
        op = eg.get_operators(args, providers="cpu_reference")[0]
        op.compile(args)
        op.run(args)
        assert_stored(D, np.maximum(gemm64(A, B) * alpha + C, 0.0))

    seeds = [int(s) for s in rng.integers(2**31, size=16)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(one, seeds))


def test_precompile_without_a_gpu(rng, tmp_path, monkeypatch):
    """Tensors described as CUDA memory, the sm_90 operators judged without
    devices: the first one's kernel goes into the disk cache, where a second
    precompile finds it."""
    monkeypatch.setenv("EPIGEMM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("EPIGEMM_DISABLE_DISK_CACHE", raising=False)
    M, N, K = 256, 384, 128

    def described(address, shape):
        return eg.Tensor.from_pointer(address, "bfloat16", shape, device="cuda")

    A, B, D = described(1 << 24, (M, K)), described(2 << 24, (K, N)), described(3 << 24, (M, N))
    scale = 1.0 + float(rng.integers(1, 10**6)) * 1e-7  # a kernel no cache holds yet
    epi = eg.EpilogueArguments(f"def epi(accum): D = relu(accum * {scale!r}); return D", D=D)
    args = eg.GemmArguments(A=A, B=B, out=D, accumulator_type="float32", epilogue=epi)
    ops = eg.get_operators(args, target_sm=90, ignore_devices=True, sm_count=132)
    assert ops and ops[0].metadata.provider == "sm90"
    assert ops[0].precompile(args, sm_count=132) == eg.PrecompileResult(kernels=1, compiled=1)
    assert ops[0].precompile(args, sm_count=132) == (1, 0)
    assert len(list(tmp_path.glob("*.cubin"))) == 1
    with pytest.raises(ValueError, match="sm_count"):
        ops[0].precompile(args, sm_count=-1)
    with pytest.raises(ValueError, match="ignore_devices"):
        eg.get_operators(args, target_sm=90, sm_count=132)
