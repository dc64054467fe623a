#!/usr/bin/env python3
"""Warp stall samples of the sm90 GEMM kernel by region of its SASS.

Reads the CSV that `ncu -i REPORT --page source --csv --print-source sass`
writes (the report taken with `--section SourceCounters
--warp-sampling-interval 0`) and sums the samples and their stall reasons
over: the prologue every warp runs (up to the first BAR.SYNC), the
consumers' code laid out before the first wgmma (their prologue and, on
tiles of one chunk, the chunk's vector loads issued before the last stage),
the main loop (instructions run about as often as the wgmmas), what runs
between the wgmmas and the end of the main loop, the epilogue, the final
wait for the stores (from the consumers' CCTL.IVALL) and the producer (from
its USETMAXREG.DEALLOC).

usage: sass_regions.py SASS.csv [SASS.csv ...]
"""
import csv
import sys

STALLS = ["no_inst", "imc", "long_sb", "wait", "selected", "barrier", "branch_resolving", "dispatch",
          "short_sb", "not_selected", "math", "mio", "drain", "lg"]


def regions(path):
    rows = list(csv.reader(open(path)))
    header, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    source = [r[col["Source"]].strip() for r in data]

    def count(i, name):
        return int(data[i][col[name]] or 0)

    first = lambda text: next(i for i, s in enumerate(source) if text in s)
    shared_end = first("BAR.SYNC.DEFER_BLOCKING 0x0") + 3
    producer = first("USETMAXREG.DEALLOC") - 1
    final_wait = next((i for i, s in enumerate(source) if "CCTL.IVALL" in s), producer + 1) - 1
    wgmma = [i for i, s in enumerate(source) if "HGMMA" in s]
    loop_count = max(count(i, "Instructions Executed") for i in wgmma)
    loop_end = max(i for i, s in enumerate(source) if "WARPGROUP.DEPBAR.LE gsb0, 0x0" in s)
    sums = {}
    for i in range(len(data)):
        if i <= shared_end:
            name = "prologue (all warps)"
        elif i >= producer:
            name = "producer"
        elif i >= final_wait:
            name = "final store wait"
        elif count(i, "Instructions Executed") >= 0.9 * loop_count:
            name = "main loop"
        elif i < min(wgmma):
            name = "consumer prologue"
        elif i <= loop_end:
            name = "beside the main loop"
        else:
            name = "epilogue"
        entry = sums.setdefault(name, {"samples": 0})
        entry["samples"] += count(i, "Warp Stall Sampling (All Samples)")
        for s in STALLS:
            entry[s] = entry.get(s, 0) + count(i, "stall_" + s)
    return len(data), sums


for path in sys.argv[1:]:
    n, sums = regions(path)
    print(f"== {path}: {n} instructions, {sum(e['samples'] for e in sums.values())} samples")
    for name, e in sums.items():
        reasons = " ".join(f"{s}={e[s]}" for s in STALLS if e[s])
        print(f"  {name:22s} {e['samples']:6d}  {reasons}")
