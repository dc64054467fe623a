#!/usr/bin/env python3
# Turns epilogue_bench's JSON lines into bench/RESULTS.md (date, GPU, driver,
# commit, command, the table, the issue's targets) and bench/results.png (a
# bar chart of epigemm's time over cuBLASLt's), or for --sweep runs
# bench/SWEEP.md and bench/sweep.png, then prints the table last.
import argparse
import json
import math
import os
import sys


def flush_text(meta):
    """How the run emptied L2 before every timed run."""
    mib = meta.get("flush_bytes", 0) >> 20
    if meta.get("flush") == "read":
        return (f"a kernel reads a {mib} MiB buffer before every timed run to flush L2 (default-policy loads: "
                "the operands are evicted and L2 is left clean, so no timed run pays for writing back the "
                "flush's own dirty lines)")
    return f"a {mib} MiB buffer is rewritten before every timed run to flush L2"


def interleave_text(meta):
    """How the variants alternate (epilogue_bench --block)."""
    block = meta.get("block")
    if block is None or block == 1:
        return "interleaved every repetition (the first variant rotates)"
    if block > 1:
        return f"interleaved in blocks of {block} repetitions (the first variant rotates)"
    return (f"interleaved in blocks of about {meta.get('block_ms', 50):g} ms of repetitions each (the first "
            "variant rotates; the GPU's clock follows its power draw milliseconds late, so alternating every "
            "run let a power-hungry kernel slow the kernel timed after it)")


def load(path):
    meta, rows = {}, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            obj = json.loads(line)
            if "meta" in obj:
                meta = obj["meta"]
            else:
                rows.append(obj)
    return meta, rows


def ms(timing):
    return timing["median_ms"] if timing else None


def fmt(value, digits=3, suffix=""):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}f}{suffix}"


def fmt_ms(value):
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 1 else f"{value:.3f}"


def check_cell(row):
    if row["error"]:
        return "ERROR"
    text = "PASS" if row["check_pass"] else "FAIL"
    if not row["anchor_pass"]:
        text += " (anchor FAIL)"
    return text


def operator_cell(row):
    name = row["operator"] or "(none)"
    if row["provider"] and row["provider"] != "sm90":
        name += " [fallback]"
    return name


COLUMNS = ["shape", "dtype", "epilogue", "epigemm operator", "epigemm ms", "cuBLASLt GEMM ms",
           "ratio", "cuBLASLt fused", "fused ms", "ratio vs fused", "TFLOP/s", "cuBLASLt TFLOP/s",
           "BW frac (cuBLASLt)", "check"]


def table_rows(rows):
    out = []
    for r in rows:
        bw = "-"
        if r["bw_fraction"] is not None:
            bw = f"{r['bw_fraction']:.2f} ({fmt(r['bw_fraction_gemm'], 2)})"
        out.append([r["shape"], r["dtype"], r["epilogue"], operator_cell(r), fmt_ms(ms(r["epigemm"])),
                    fmt_ms(ms(r["gemm"])), fmt(r["ratio_gemm"]), r["fused_name"] or "-",
                    fmt_ms(ms(r["fused"])), fmt(r["ratio_fused"]), fmt(r["tflops"], 1),
                    fmt(r["tflops_gemm"], 1), bw, check_cell(r)])
    return out


def markdown_table(rows):
    lines = ["| " + " | ".join(COLUMNS) + " |",
             "| " + " | ".join("---" if i < 4 or c in ("cuBLASLt fused", "check") else "---:"
                               for i, c in enumerate(COLUMNS)) + " |"]
    for cells in table_rows(rows):
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# Which rows take B (K, N) in which layout; epigemm, the cuBLASLt anchors and
# the copy all read the same B.
B_LAYOUT_TEXT = (
    "B layout: the bf16 and f16 rows take B (K, N) row-major (N contiguous), as the issue's rows do, "
    "except the extra rows whose dtype reads \"bf16 B col-major\" (M = 16 and 128, N = K = 8192): "
    "they take it column-major (K contiguous, strides (1, K)), B = W^T of an nn.Linear weight W (N, K) "
    "stored row-major, as in LLM inference; their cuBLASLt anchors run the same layout (TN) and their "
    "copy moves the same bytes. fp8, tf32 and int8 rows always take B column-major (K-major), as wgmma "
    "and cuBLASLt need.")


# Operand dtypes the issue sets no target for: their rows are informational.
INFORMATIONAL_DTYPES = ("tf32", "i8")


# Epilogues beyond the issue's six (the tanh-form GELU, timed against
# cuBLASLt's GELU_BIAS, which computes that form): informational too.
INFORMATIONAL_EPILOGUES = ("gelu_tanh(acc+bias)",)


def informational(row):
    # The issue sets fp8's target at 8192^3 only.
    other_fp8 = row["dtype"].startswith("e4m3") and (row["m"], row["n"], row["k"]) != (8192, 8192, 8192)
    return row["dtype"].split()[0] in INFORMATIONAL_DTYPES or row["epilogue"] in INFORMATIONAL_EPILOGUES or other_fp8


def targets(rows):
    """The issue's numbers, each as (what, measured, met)."""
    big = {(8192, 8192, 8192), (4096, 4096, 4096), (4096, 14336, 4096)}
    # The issue's shapes; rows at other shapes (epilogue_bench --shape) have no target.
    issue_shapes = big | {(1024, 1024, 1024), (16, 8192, 8192), (128, 8192, 8192)}
    gelu_anchor = {}
    for r in rows:
        if r["fused_name"] == "cuBLASLt GELU_BIAS" and r["fused"] and r["epilogue"] == "gelu(acc+bias)":
            gelu_anchor[(r["dtype"], r["shape"])] = ms(r["fused"])
    out = []
    for r in rows:
        if informational(r):
            continue
        key = (r["m"], r["n"], r["k"])
        if key not in issue_shapes:
            continue
        label = f"{r['dtype']} {r['shape']} {r['epilogue']}"
        skinny = r["m"] <= 128
        if r["ratio_gemm"] is None:
            out.append((label, "not timed", False))
            continue
        throughput = 1.0 / r["ratio_gemm"]
        if r["epilogue"] == "none" and not skinny and (key in big or r["dtype"].startswith("e4m3")):
            out.append((label + ": >= 0.95x cuBLASLt throughput", f"{throughput:.3f}x", throughput >= 0.95))
        elif r["epilogue"] != "none" and not skinny:
            what = label + ": <= 1.05x GEMM alone"
            met = r["ratio_gemm"] <= 1.05
            text = f"{r['ratio_gemm']:.3f}x GEMM-alone time"
            # GELU_BIAS as timed in this row (its own fused anchor, or the
            # reference timed beside it), else the case's gelu row's.
            gelu, where = ms(r.get("gelu_reference")), "timed in this row"
            if gelu is None and r["fused_name"] == "cuBLASLt GELU_BIAS":
                gelu = ms(r["fused"])
            if gelu is None:
                gelu, where = gelu_anchor.get((r["dtype"], r["shape"])), "the gelu row's"
            if gelu is not None:
                what += ", faster than cuBLASLt GELU_BIAS"
                met = met and ms(r["epigemm"]) < gelu
                text += f", {ms(r['epigemm']) / gelu:.3f}x cuBLASLt GELU_BIAS ({fmt_ms(gelu)} ms, {where})"
            out.append((what, text, met))
        if r["bw_fraction"] is not None:
            out.append((label + ": >= 0.85 of copy bandwidth", f"{r['bw_fraction']:.3f}", r["bw_fraction"] >= 0.85))
    return out


def informational_lines(rows):
    """tf32 and int8 rows, fp8 beyond 8192^3 and the tanh-form GELU, against cuBLASLt, without a verdict."""
    out = []
    for r in rows:
        if not informational(r):
            continue
        label = f"{r['dtype']} {r['shape']} {r['epilogue']}"
        if r["epilogue"] in INFORMATIONAL_EPILOGUES and r["ratio_gemm"] is not None and r["ratio_fused"] is not None:
            out.append(f"- {label}: {r['ratio_gemm']:.3f}x the time of cuBLASLt's GEMM alone, "
                       f"{r['ratio_fused']:.3f}x that of {r['fused_name']}")
        elif r["ratio_gemm"] is None:
            out.append(f"- {label}: not timed against cuBLASLt" + (f" ({r['note']})" if r["note"] else ""))
        else:
            bandwidth = "" if r["bw_fraction"] is None else f"; {r['bw_fraction']:.2f} of copy bandwidth"
            out.append(f"- {label}: {1.0 / r['ratio_gemm']:.2f} of cuBLASLt throughput "
                       f"({fmt(r['tflops'], 1)} vs {fmt(r['tflops_gemm'], 1)} TFLOP/s{bandwidth})")
    return out


def write_chart(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"report.py: matplotlib is not installed here; {path} was not written", file=sys.stderr)
        return False
    shown = [r for r in rows if r["ratio_gemm"] is not None]
    if not shown:
        print(f"report.py: no timed rows; {path} was not written", file=sys.stderr)
        return False
    clip = 2.0
    labels = [f"{r['dtype']} {r['shape']} {r['epilogue']}" +
              (f" [{r['provider']}]" if r["provider"] and r["provider"] != "sm90" else "") for r in shown]
    ratios = [r["ratio_gemm"] for r in shown]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(shown) + 1.5))
    y = list(range(len(shown)))
    colors = ["tab:green" if v <= 1.0 else "tab:olive" if v <= 1.05 else "tab:red" for v in ratios]
    ax.barh(y, [min(v, clip) for v in ratios], color=colors, label="epigemm / cuBLASLt GEMM alone")
    fused = [(i, r["fused"]["median_ms"] / r["gemm"]["median_ms"]) for i, r in enumerate(shown)
             if r["fused"] and r["gemm"]]
    if fused:
        ax.scatter([min(v, clip) for _, v in fused], [i for i, _ in fused], marker="D", color="black", s=14,
                   zorder=3, label="cuBLASLt fused epilogue / GEMM alone")
    for i, v in enumerate(ratios):
        if v > clip:
            ax.text(clip, i, f" {v:.1f}x", va="center", fontsize=7)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.axvline(1.05, color="gray", linestyle="--", linewidth=1, label="1.05")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, clip + 0.3)
    ax.set_xlabel("time relative to cuBLASLt GEMM alone (lower is better)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=7, frameon=False)
    ax.set_title("epigemm vs cuBLASLt (interleaved, L2 flushed, medians)", pad=22)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("json", help="epilogue_bench's output (JSON lines)")
    p.add_argument("--markdown", default="bench/RESULTS.md")
    p.add_argument("--png", default="bench/results.png")
    p.add_argument("--commit", default="unknown")
    p.add_argument("--command", default="bench/run.sh")
    p.add_argument("--driver", default="", help="driver version as nvidia-smi reports it")
    p.add_argument("--status", type=int, default=0, help="epilogue_bench's exit status")
    a = p.parse_args()

    meta, rows = load(a.json)
    chart = write_chart(rows, a.png)
    cuda_driver = meta.get("cuda_driver_api", 0)
    sweep = meta.get("mode") == "sweep"
    lines = [
        "# epigemm shape sweep (beyond the issue's suite)" if sweep else "# epigemm benchmark results",
        "",
        f"- date: {meta.get('date', '?')}",
        f"- GPU: {meta.get('gpu', '?')} (sm_{meta.get('sm', '?')}, {meta.get('sm_count', '?')} SMs, "
        f"L2 {meta.get('l2_bytes', 0) // (1 << 20)} MiB)",
        f"- driver: {a.driver or '?'} (CUDA driver API {cuda_driver // 1000}.{cuda_driver % 1000 // 10}); "
        f"CUDA runtime {meta.get('cuda_runtime', '?')}; cuBLASLt {meta.get('cublaslt', '?')}",
        f"- commit: {a.commit}",
        f"- command: `{a.command}`",
        f"- mode: {meta.get('mode', '?')}" + (f", only \"{meta['only']}\"" if meta.get("only") else "") +
        f"; seed {meta.get('seed', '?')}; exit status {a.status}",
        "",
    ]
    if sweep:
        lines += ["Shapes beyond the issue's suite (`epilogue_bench --sweep`: bf16, B row-major, all six epilogues): "
                  "where the tile heuristic or the kernel trails cuBLASLt. No targets; the suite's table is "
                  "bench/RESULTS.md.", ""]
    if meta.get("mode") == "quick" or meta.get("only"):
        lines += ["Partial run (--quick or --only): not every row of the suite is here; `bench/run.sh` runs them all.",
                  ""]
    lines += [
        "Method: epigemm and its anchors run in one process, " + interleave_text(meta) + ", " + flush_text(meta) +
        ", times are CUDA-event medians of many runs (count sized to "
        f"{meta.get('budget_s', '?')} s per row), on fresh random data. Every epigemm result (and every anchor) "
        "is checked first, on outputs poisoned with NaN, against a double-precision reference at "
        f"{meta.get('samples', '?')} sampled elements, and scanned whole for NaN.",
        "",
        "ratio = epigemm time / cuBLASLt GEMM-alone time (same shape, default heuristic, f32 compute; "
        "FAST_TF32 for tf32, int32 for int8); "
        "ratio vs fused = epigemm time / cuBLASLt's own fused epilogue where it has one. "
        "The targets' \"faster than cuBLASLt GELU_BIAS\" compares with GELU_BIAS timed in the same row: "
        "in the 16-bit rows past M = 128 whose own fused anchor is another (or none), GELU_BIAS runs "
        "interleaved with them as a reference (its time is in the targets' list, not in the table). "
        "BW frac = weights bytes / time over the bandwidth of a device-to-device copy of the weights "
        "measured in the same run (bytes read + written). [fallback] marks rows the sm90 provider did not run.",
        "",
        "B layout: row-major (N contiguous) in every row." if sweep else B_LAYOUT_TEXT,
        "",
        markdown_table(rows),
        "",
    ]
    if chart:
        lines += [f"![epigemm / cuBLASLt time ratios]({os.path.basename(a.png)})", ""]
    tgt = targets(rows)
    if tgt:
        met = sum(1 for _, _, ok in tgt if ok)
        lines += [f"## The issue's targets: {met} of {len(tgt)} met", "", "| target | measured | met |",
                  "| --- | ---: | --- |"]
        lines += [f"| {what} | {value} | {'yes' if ok else 'NO'} |" for what, value, ok in tgt]
        lines.append("")
    info = informational_lines(rows)
    if info:
        lines += ["tf32, int8, fp8 beyond 8192^3 and the tanh-form GELU (no target in the issue; informational):", ""] + info + [""]
    notes = sorted({r["note"] for r in rows if r["note"]})
    problems = [r for r in rows if r["error"] or not r["check_pass"] or not r["anchor_pass"]]
    if notes or problems:
        lines += ["## Notes", ""]
        lines += [f"- {n}" for n in notes]
        for r in problems:
            lines.append(f"- {r['dtype']} {r['shape']} {r['epilogue']}: {r['error'] or ''} "
                         f"check: {r['check']}; anchors: {r['anchor_check']}")
        lines.append("")
    with open(a.markdown, "w") as f:
        f.write("\n".join(lines))

    print(f"wrote {a.markdown}" + (f" and {a.png}" if chart else ""))
    for n in notes:
        print("note:", n)
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
