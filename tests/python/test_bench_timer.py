"""bench/torch_compare.py's timer on a simulated GPU clock: every path's
median is its own GPU time, the paths run in blocks of about BLOCK_MS,
interleaved with the first path rotating, and a block whose launches the
host issues slower than the GPU runs them starts after a GPU sleep long
enough to cover that. The script imports torch and epigemm at load time, so
it runs in a subprocess with stand-ins for both."""

from __future__ import annotations

import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")

SIMULATION = r"""
import json, sys, types

clock = {"ms": 0.0, "runs": [], "sleeps": []}


class Event:
    def __init__(self, enable_timing=False):
        self.ms = None

    def record(self):
        self.ms = clock["ms"]

    def elapsed_time(self, end):
        return end.ms - self.ms


def sleep(cycles):
    clock["sleeps"].append((len(clock["runs"]), cycles))
    clock["ms"] += cycles / 2e6


torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(Event=Event, synchronize=lambda: None, _sleep=sleep)
torch.nn = types.ModuleType("torch.nn")
torch.nn.functional = types.ModuleType("torch.nn.functional")
epigemm = types.ModuleType("epigemm")
for name in ("amax", "gelu", "relu", "silu"):
    setattr(epigemm, name, None)
sys.modules.update({"torch": torch, "torch.nn": torch.nn, "torch.nn.functional": torch.nn.functional,
                    "epigemm": epigemm})
sys.path.insert(0, sys.argv[1])
import torch_compare


def path(name, ms):
    def run():
        clock["ms"] += ms
        clock["runs"].append(name)
    return run


gpu_ms = {"epigemm": 0.19, "eager": 0.30, "compile": 0.021}
host_us = {"epigemm": 20.0, "eager": 60.0, "compile": 400.0}  # compile: slower on the host than on the GPU
paths = {name: path(name, ms) for name, ms in gpu_ms.items()}
medians = torch_compare.time_interleaved(paths, path("flush", 0.07), 1.0, host_us)
print(json.dumps({"medians": medians, "runs": clock["runs"], "sleeps": clock["sleeps"],
                  "block_ms": torch_compare.BLOCK_MS, "min_blocks": torch_compare.MIN_BLOCKS}))
"""


def simulate():
    result = subprocess.run([sys.executable, "-c", SIMULATION, BENCH], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def blocks_of(runs):
    """Consecutive runs of one path, the flushes left out: [(path, runs), ...]."""
    blocks = []
    for name in runs:
        if name == "flush":
            continue
        if blocks and blocks[-1][0] == name:
            blocks[-1][1] += 1
        else:
            blocks.append([name, 1])
    return blocks


def test_medians_are_each_paths_gpu_time():
    medians = simulate()["medians"]
    assert abs(medians["epigemm"] - 0.19) < 1e-6
    assert abs(medians["eager"] - 0.30) < 1e-6
    assert abs(medians["compile"] - 0.021) < 1e-6


def test_paths_run_in_rotating_blocks_of_about_block_ms():
    out = simulate()
    blocks = blocks_of(out["runs"])
    calibration, timed = blocks[:3], blocks[3:]
    assert [n for n, _ in calibration] == ["epigemm", "eager", "compile"]
    names = ["epigemm", "eager", "compile"]
    rounds = [timed[i:i + 3] for i in range(0, len(timed), 3)]
    assert len(rounds) >= out["min_blocks"]
    for r, blocks_in_round in enumerate(rounds):
        first = r % 3
        assert [n for n, _ in blocks_in_round] == names[first:] + names[:first]
    run_ms = {"epigemm": 0.19 + 0.07, "eager": 0.30 + 0.07, "compile": 0.021 + 0.07}
    for name, count in timed:
        assert abs(count * run_ms[name] - out["block_ms"]) <= run_ms[name]


def test_a_block_the_host_issues_slower_starts_after_a_sleep_that_covers_it():
    out = simulate()
    runs, sleeps = out["runs"], out["sleeps"]
    ends = [start for start, _ in sleeps[1:]] + [len(runs)]
    checked = set()
    for (start, cycles), end in zip(sleeps, ends):
        block = [n for n in runs[start:end] if n != "flush"]
        if len(set(block)) != 1:  # the flush's own timing: no path runs
            continue
        name, sleep_ms = block[0], cycles / 2e6
        assert sleep_ms >= 1.0
        if name == "compile" and len(block) > 3:
            # 0.4 ms of host time per call (and the flush's) against 0.091 ms on the GPU.
            assert sleep_ms >= len(block) * (0.4 - 0.091)
            checked.add(name)
        elif name != "compile":
            assert sleep_ms < 5.0  # the host keeps ahead: no more than the lead
    assert checked == {"compile"}
