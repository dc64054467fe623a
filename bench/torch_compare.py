#!/usr/bin/env python3
# epigemm against PyTorch on fused epilogues, bf16 A and B with f32
# accumulation. Three PyTorch paths run the same epilogue on the same
# operands: eager (cuBLAS, then one kernel per elementwise op), torch.compile
# (inductor's default: cuBLAS, then one fused Triton kernel) and torch.compile
# max-autotune (inductor also tries Triton GEMM templates that take the
# epilogue in). For each it measures the run time (L2 flushed before every
# timed run, paths interleaved in blocks, CUDA-event medians) and the wall
# time of the first call, compilation included, with every cache empty; it
# checks every output against a float64 reference and writes bench/TORCH.md.
#
# Build with Python on (-DEPIGEMM_BUILD_PYTHON=ON), then on the GPU:
#   PYTHONPATH=build/python python3 bench/torch_compare.py [--quick] [--modes ...] [--shapes ...]
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import types

# Every compile below starts cold: the caches live in a fresh directory.
_CACHE_ROOT = tempfile.mkdtemp(prefix="epigemm-torch-compare-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(_CACHE_ROOT, "inductor")
os.environ["TRITON_CACHE_DIR"] = os.path.join(_CACHE_ROOT, "triton")
os.environ["EPIGEMM_CACHE_DIR"] = os.path.join(_CACHE_ROOT, "epigemm")

import torch  # noqa: E402
import torch.nn.functional as tf  # noqa: E402

import epigemm as eg  # noqa: E402
from epigemm import amax, gelu, relu, silu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- the epilogues: epigemm's function (also the float64 reference) and PyTorch's own spelling


def alpha_beta(accum, alpha, beta, C):
    D = alpha * accum + beta * C
    return D


def relu_aux(accum, alpha, C):
    F = accum * alpha + C * 2.0
    D = relu(F)
    return D, F


def gelu_bias(accum, bias):
    D = gelu(accum + bias)
    return D


def row_col_bias(accum, alpha, row_bias, col_bias):
    D = accum * alpha + row_bias + col_bias
    return D


def scale_amax(accum, scale):
    D = accum * scale
    amax_D = amax(D)
    return D, amax_D


def silu_gate(accum, C):
    D = silu(accum) * C
    return D


def torch_alpha_beta(A, B, alpha, beta, C):
    return (alpha * (A @ B) + beta * C,)


def torch_relu_aux(A, B, alpha, C):
    F = (A @ B) * alpha + C * 2.0
    return torch.relu(F), F


def torch_gelu_bias(A, B, bias):
    return (tf.gelu(A @ B + bias),)


def torch_row_col_bias(A, B, alpha, row_bias, col_bias):
    return ((A @ B) * alpha + row_bias + col_bias,)


def torch_scale_amax(A, B, scale):
    D = (A @ B).float() * scale
    return D.to(torch.float8_e4m3fn), D.abs().amax()


def torch_silu_gate(A, B, C):
    return (tf.silu(A @ B) * C,)


class Epilogue:
    """One epilogue: its label, epigemm function, PyTorch function, inputs
    (beside A and B) and outputs (name -> dtype and shape), in return order."""

    def __init__(self, label, epi, torch_fn, inputs, outputs):
        self.label, self.epi, self.torch_fn = label, epi, torch_fn
        self.inputs, self.outputs = inputs, outputs


def full(M, N):
    return torch.rand(M, N, device="cuda", dtype=torch.bfloat16) * 2 - 1


EPILOGUES = [
    Epilogue("alpha*acc+beta*C", alpha_beta, torch_alpha_beta,
             lambda M, N, K: {"alpha": 0.5, "beta": 1.5, "C": full(M, N)},
             lambda M, N: {"D": (torch.bfloat16, (M, N))}),
    Epilogue("relu(acc*a+2C)+F", relu_aux, torch_relu_aux,
             lambda M, N, K: {"alpha": 0.5, "C": full(M, N)},
             lambda M, N: {"D": (torch.bfloat16, (M, N)), "F": (torch.bfloat16, (M, N))}),
    Epilogue("gelu(acc+bias)", gelu_bias, torch_gelu_bias,
             lambda M, N, K: {"bias": full(1, N).reshape(N)},
             lambda M, N: {"D": (torch.bfloat16, (M, N))}),
    Epilogue("a*acc+rowb+colb", row_col_bias, torch_row_col_bias,
             lambda M, N, K: {"alpha": 0.5, "row_bias": full(1, N).reshape(N), "col_bias": full(M, 1)},
             lambda M, N: {"D": (torch.bfloat16, (M, N))}),
    # D's values stay well inside e4m3's range (|D| < 448), where PyTorch's cast does not saturate.
    Epilogue("acc*s->e4m3+amax", scale_amax, torch_scale_amax,
             lambda M, N, K: {"scale": 4.0 / K**0.5},
             lambda M, N: {"D": (torch.float8_e4m3fn, (M, N)), "amax_D": (torch.float32, (1,))}),
    Epilogue("silu(acc)*C", silu_gate, torch_silu_gate,
             lambda M, N, K: {"C": full(M, N)},
             lambda M, N: {"D": (torch.bfloat16, (M, N))}),
]

# (M, N, K, B layout): "row" is B (K, N) row-major; "col" is B = W.t() for a
# row-major W (N, K), an nn.Linear weight, as in LLM inference.
SHAPES = [(4096, 4096, 4096, "row"), (1024, 1024, 1024, "row"), (128, 8192, 8192, "row"), (16, 8192, 8192, "row"),
          (4096, 4096, 512, "row"), (128, 8192, 8192, "col"), (16, 8192, 8192, "col")]
QUICK_SHAPES = [(1024, 1024, 1024, "row"), (128, 8192, 8192, "col")]
MODES = ["eager", "compile", "max-autotune"]
# torch.compile's mode for each compiled path (no CUDA graphs: every path is
# timed as one launch sequence between two events, as a user's stream runs it).
COMPILE_MODES = {"compile": "default", "max-autotune": "max-autotune-no-cudagraphs"}


# ---- timing


class Flush:
    """Reads a 256 MiB buffer (L2 holds 60 MiB on the H200), so that no
    operand stays in L2 for the run after it."""

    def __init__(self):
        self.buffer = torch.ones(64 << 20, device="cuda", dtype=torch.float32)
        self.sink = torch.empty((), device="cuda", dtype=torch.float32)

    def __call__(self):
        torch.sum(self.buffer, dim=0, out=self.sink)


BLOCK_MS = 50.0  # GPU time of one block of a path's consecutive runs
MIN_BLOCKS = 4  # blocks of each path at least
SLEEP_CYCLES_PER_MS = 2_000_000  # torch.cuda._sleep's unit at the H200's ~2 GHz


def gpu_sleep(ms):
    torch.cuda._sleep(int(ms * SLEEP_CYCLES_PER_MS))


def timed_runs(call, flush, runs, lead_ms):
    """ms of each of `runs` runs of call, each after an L2 flush. The GPU
    first sleeps lead_ms, long enough that the host has queued every launch
    before the GPU reaches it: the spans are GPU time, not the host's."""
    gpu_sleep(lead_ms)
    marks = []
    for _ in range(runs):
        flush()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        marks.append((start, end))
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in marks]


def time_interleaved(paths, flush, budget_s, host_us):
    """Median ms per path. Each path runs in blocks of consecutive runs of
    about BLOCK_MS, the blocks interleaved with the first path rotating, at
    least MIN_BLOCKS per path. The H200's clock follows its power draw a few
    ms late, so where every run alternated, a path timed right after a
    hungrier one read slow. host_us: each path's host time per call."""
    names = list(paths)
    flush_host_us = host_us_per_call(flush)
    flush_ms = statistics.median(timed_runs(flush, lambda: None, 5, 1.0))
    # GPU ms per run (flush included) from a few runs each; then each block's
    # run count and the sleep that covers whatever the host needs beyond the GPU.
    run_ms = {n: statistics.median(timed_runs(paths[n], flush, 3, 1.0)) + flush_ms for n in names}
    runs_per_block, lead_ms = {}, {}
    for n in names:
        runs_per_block[n] = max(1, round(BLOCK_MS / run_ms[n]))
        host_ms = (host_us[n] + flush_host_us) / 1e3
        lead_ms[n] = 1.0 + 1.5 * runs_per_block[n] * max(0.0, host_ms - run_ms[n])
    rounds = max(MIN_BLOCKS, round(budget_s * 1e3 / (BLOCK_MS * len(names))))
    times = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            times[n] += timed_runs(paths[n], flush, runs_per_block[n], lead_ms[n])
    return {n: statistics.median(v) for n, v in times.items()}


def host_us_per_call(call, calls=20):
    """Host time to issue one call (Python, guards, launches), the GPU kept
    busy meanwhile so that no call waits for it."""
    torch.cuda.synchronize()
    torch.cuda._sleep(200_000_000)  # ~0.1 s
    t0 = time.perf_counter()
    for _ in range(calls):
        call()
    elapsed = time.perf_counter() - t0
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def first_call_s(call):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    result = call()
    torch.cuda.synchronize()
    return time.perf_counter() - t0, result


def with_nvrtc_seconds(call):
    """(call(), seconds NVRTC spent compiling during it): epigemm logs each
    compile at the info level on stderr, read here from a temporary file."""
    saved_level = os.environ.get("EPIGEMM_LOG")
    os.environ["EPIGEMM_LOG"] = "info"
    sys.stderr.flush()
    saved_fd = os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as log:
        os.dup2(log.fileno(), 2)
        try:
            result = call()
        finally:
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            if saved_level is None:
                del os.environ["EPIGEMM_LOG"]
            else:
                os.environ["EPIGEMM_LOG"] = saved_level
            log.seek(0)
            text = log.read()
            # Everything else said meanwhile (warnings, errors) still reaches stderr.
            sys.stderr.write("".join(line for line in text.splitlines(True) if "[epigemm] info:" not in line))
    return result, sum(int(ms) for ms in re.findall(r"compiled \S+ for \S+ in (\d+) ms", text)) / 1000


def fresh_function(fn, tag):
    """A copy of fn with its own code object, so that torch.compile's cache
    (kept per code object) starts empty for each row and path."""
    code = fn.__code__.replace(co_name=f"{fn.__name__}_{tag}")
    return types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)


# ---- checking


def rel_error(out, ref):
    out, ref = out.double().reshape(-1), ref.double().reshape(-1)
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-300)).item()


def tolerance(dtype):
    # bf16 outputs round to 2^-9 and eager PyTorch rounds every intermediate;
    # e4m3 keeps 3 mantissa bits.
    return 0.1 if dtype == torch.float8_e4m3fn else 2e-2


def worst_error(outputs, refs, out_specs):
    worst, ok = 0.0, True
    for (dtype, _), out, ref in zip(out_specs.values(), outputs, refs):
        e = rel_error(out, ref)
        worst = max(worst, e)
        ok = ok and e <= tolerance(dtype)
    return worst, ok


# ---- one row


def run_row(shape, epi, modes, flush, budget_s, row_tag):
    M, N, K, b_layout = shape
    A = torch.rand(M, K, device="cuda", dtype=torch.bfloat16) * 2 - 1
    if b_layout == "col":
        B = (torch.rand(N, K, device="cuda", dtype=torch.bfloat16) * 2 - 1).t()
    else:
        B = torch.rand(K, N, device="cuda", dtype=torch.bfloat16) * 2 - 1
    inputs = epi.inputs(M, N, K)
    out_specs = epi.outputs(M, N)
    outputs = {n: torch.empty(s, device="cuda", dtype=d) for n, (d, s) in out_specs.items()}
    for t in outputs.values():  # NaN: an element the kernel leaves unwritten fails the check
        t.view(torch.uint8).fill_(0xFF)

    wide = {n: (v.double() if isinstance(v, torch.Tensor) else v) for n, v in inputs.items()}
    refs = epi.epi(A.double() @ B.double(), **wide)
    refs = refs if isinstance(refs, tuple) else (refs,)

    row = {"shape": shape, "epilogue": epi.label, "ms": {}, "first_s": {}, "error": {}, "pass": {}}
    paths = {}

    # epigemm: operator choice, kernel compile (NVRTC, unless this process built it already) and first run.
    args = eg.GemmArguments(A=A, B=B, out=outputs["D"], accumulator_type=torch.float32,
                            epilogue=eg.EpilogueArguments(epi.epi, **inputs, **outputs))

    def epigemm_first():
        op = eg.get_operators(args, target_sm=eg.device_target_sm())[0]
        op.run(args)
        return op

    (row["first_s"]["epigemm"], op), row["nvrtc_s"] = with_nvrtc_seconds(lambda: first_call_s(epigemm_first))
    row["operator"] = op.name
    row["error"]["epigemm"], row["pass"]["epigemm"] = worst_error(list(outputs.values()), refs, out_specs)
    paths["epigemm"] = lambda: op.run(args)

    for mode in modes:
        fn = epi.torch_fn
        if mode != "eager":
            fn = torch.compile(fresh_function(fn, f"{row_tag}_{mode.replace('-', '_')}"),
                               mode=COMPILE_MODES[mode], dynamic=False, fullgraph=True)
        call = (lambda f: lambda: f(A, B, **inputs))(fn)
        try:
            row["first_s"][mode], result = first_call_s(call)
        except Exception as e:  # a path PyTorch cannot build is reported, not fatal
            row["error"][mode], row["pass"][mode] = float("nan"), False
            row.setdefault("notes", []).append(f"{mode}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            continue
        row["error"][mode], row["pass"][mode] = worst_error(list(result), refs, out_specs)
        paths[mode] = call

    row["host_us"] = {p: host_us_per_call(call) for p, call in paths.items()}
    row["ms"] = time_interleaved(paths, flush, budget_s, row["host_us"])
    return row


# ---- report


def fmt_ms(v):
    return "-" if v is None else (f"{v:.4f}" if v < 1 else f"{v:.3f}")


def fmt_s(v):
    return "-" if v is None else f"{v:.2f}"


def table(rows, modes):
    head = (["shape", "B", "epilogue", "epigemm operator", "epigemm ms"] + [f"{m} ms" for m in modes]
            + [f"{m} / epigemm" for m in modes] + ["epigemm first call s (NVRTC s)"] + [f"{m} first call s" for m in modes if m != "eager"]
            + ["host us per call (epigemm / " + " / ".join(modes) + ")"]
            + ["worst rel. error (epigemm / " + " / ".join(modes) + ")", "check"])
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" if i < 4 else "---:" for i in range(len(head) - 3)) + " | --- | --- | --- |"]
    for r in rows:
        M, N, K, b_layout = r["shape"]
        ours = r["ms"].get("epigemm")
        cells = [f"{M}x{N}x{K}", b_layout, r["epilogue"], r["operator"], fmt_ms(ours)]
        cells += [fmt_ms(r["ms"].get(m)) for m in modes]
        cells += ["-" if r["ms"].get(m) is None else f"{r['ms'][m] / ours:.2f}" for m in modes]
        cells += [f"{fmt_s(r['first_s'].get('epigemm'))} ({fmt_s(r.get('nvrtc_s'))})"] + [fmt_s(r["first_s"].get(m)) for m in modes if m != "eager"]
        cells += [" / ".join(f"{r['host_us'].get(p, float('nan')):.0f}" for p in ["epigemm"] + modes)]
        cells += [" / ".join(f"{r['error'].get(p, float('nan')):.1e}" for p in ["epigemm"] + modes)]
        cells += ["PASS" if all(r["pass"].values()) else "FAIL: " + ", ".join(p for p, ok in r["pass"].items() if not ok)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def commit_text():
    if os.environ.get("EPIGEMM_BENCH_COMMIT"):
        return os.environ["EPIGEMM_BENCH_COMMIT"]
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (set EPIGEMM_BENCH_COMMIT)"


def write_report(path, rows, modes, warmup, command, budget_s, seed):
    import triton

    props = torch.cuda.get_device_properties(0)
    notes = [n for r in rows for n in r.get("notes", [])]
    text = f"""# epigemm against PyTorch: eager, torch.compile and max-autotune

- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}
- GPU: {props.name} (sm_{props.major}{props.minor}, {props.multi_processor_count} SMs)
- PyTorch {torch.__version__}, Triton {triton.__version__}, CUDA {torch.version.cuda}
- commit: {commit_text()}
- command: `{command}`
- seed: {seed} (fresh random operands every run)

bf16 A (M x K, row-major) and B (K x N), f32 accumulation; D and F bf16, but
e4m3 for `acc*s->e4m3+amax`. B is row-major ("row") or the transpose of a
row-major (N x K) weight ("col", as `x @ W.t()` in an nn.Linear). Each
PyTorch path runs the epilogue as PyTorch spells it (`bench/torch_compare.py`),
epigemm as a Python function (the same file).

- **eager**: `A @ B` (cuBLAS, bf16 result), then one kernel per elementwise op.
- **compile**: `torch.compile(fn, dynamic=False, fullgraph=True)`, inductor's
  default: cuBLAS, then the epilogue in one fused Triton kernel.
- **max-autotune**: the same with `mode="max-autotune-no-cudagraphs"`: inductor
  also times Triton GEMM templates with the epilogue inside and keeps the faster.

Run time: each path runs in blocks of consecutive runs of about
{BLOCK_MS:.0f} ms, the blocks interleaved with the first path rotating, at least
{MIN_BLOCKS} blocks per path ({budget_s} s of blocks per row); a 256 MiB read
before each run flushes L2, and a GPU sleep before each block lets the host
queue the block's launches before they start, so the spans are GPU time.
Medians of every run. (The H200's clock follows its power draw a few ms late:
where paths alternated every run, a path timed after a hungrier one read
slow.) `X / epigemm` is that path's time over epigemm's: above 1, epigemm is
faster. Host us per call: the host's time
to issue one call (Python, torch.compile's guards, the launches) while the GPU
is busy; a call whose GPU time is shorter than this runs at the host's pace
unless it is captured in a CUDA graph.

First call: wall time of the first call, compilation included, in a process
that had compiled one unrelated problem on each side beforehand (epigemm: a
plain GEMM, {warmup['epigemm']:.2f} s; torch.compile: a pointwise function,
{warmup['torch']:.2f} s), with every cache (epigemm's, inductor's and Triton's)
in an empty directory. In parentheses: the part of epigemm's first call that
NVRTC took (epigemm's log); the rest is the operator choice, loading the
module and the run. epigemm compiles a kernel per epilogue and tile
configuration, not per shape: a row that reuses an earlier row's kernel pays
only the operator choice and the launch. torch.compile with static shapes
compiles every shape anew. First calls also depend on the machine's file
cache: NVRTC and Triton's compiler run from large libraries, which the first
compiles after a machine starts read from disk (on the H200 machine, epigemm's
4096^3 alpha*acc+beta*C kernel took 0.75 s on a fresh machine, 0.10 s on one
that had compiled before).

Check: every output of every path against a float64 reference (the epigemm
function on float64 operands) by ||out - ref|| / ||ref||; bf16 outputs pass
under 2e-2, e4m3 under 1e-1. epigemm's outputs are set to NaN before its first run.

{table(rows, modes)}
"""
    if notes:
        text += "\nPaths that did not build:\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return text


def parse_shape(text):
    """MxNxK, or MxNxK:col for a column-major B."""
    extents, _, layout = text.lower().partition(":")
    M, N, K = (int(v) for v in extents.split("x"))
    if layout not in ("", "row", "col"):
        raise ValueError(f"B layout {layout!r} in {text!r} is neither row nor col")
    return M, N, K, layout or "row"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="two shapes, shorter timing")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of " + ",".join(MODES))
    parser.add_argument("--shapes", default="", help="comma-separated MxNxK[:col] (default: the suite's)")
    parser.add_argument("--epilogues", default="", help="comma-separated substrings of the epilogue labels")
    parser.add_argument("--budget", type=float, default=0.0, help="seconds of timing per row")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "TORCH.md"))
    a = parser.parse_args()
    if not torch.cuda.is_available() or eg.device_target_sm() < 90:
        sys.exit("torch_compare.py: needs a CUDA GPU of sm_90 or later")
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            sys.exit(f"torch_compare.py: unknown mode {m!r} (choose from {', '.join(MODES)})")
    shapes = [parse_shape(s) for s in a.shapes.split(",") if s] or (QUICK_SHAPES if a.quick else SHAPES)
    epilogues = [e for e in EPILOGUES if not a.epilogues or any(s in e.label for s in a.epilogues.split(","))]
    budget_s = a.budget or (0.2 if a.quick else 1.0)

    # One-time costs on each side, kept out of the rows: CUDA, NVRTC and epigemm's
    # first kernel; inductor's and Triton's first compile (and its worker pool).
    X = torch.rand(256, 256, device="cuda", dtype=torch.bfloat16)
    Y = torch.empty_like(X)
    plain = eg.GemmArguments(A=X, B=X, out=Y, accumulator_type=torch.float32)
    warmup = {"epigemm": first_call_s(lambda: eg.get_operators(plain, target_sm=eg.device_target_sm())[0].run(plain))[0]}
    if any(m != "eager" for m in modes):
        warmup["torch"] = first_call_s(lambda: torch.compile(lambda x: torch.sigmoid(x) * 2)(X))[0]
    else:
        warmup["torch"] = 0.0

    seed = torch.seed()
    flush = Flush()
    rows = []
    command = ("bench/torch_compare.py " + " ".join(sys.argv[1:])).strip()
    for i, shape in enumerate(shapes):
        for j, epi in enumerate(epilogues):
            row = run_row(shape, epi, modes, flush, budget_s, f"r{i}_{j}")
            rows.append(row)
            text = write_report(a.out, rows, modes, warmup, command, budget_s, seed)  # rows so far survive a stop
            print(f"{shape} {epi.label}: " + ", ".join(f"{p} {v:.4f} ms" for p, v in row["ms"].items())
                  + " | first call " + ", ".join(f"{p} {v:.2f} s" for p, v in row["first_s"].items()), flush=True)
    print(text)
    return 0 if all(all(r["pass"].values()) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
