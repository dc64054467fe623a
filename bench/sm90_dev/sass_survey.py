#!/usr/bin/env python3
"""The consumer k-loops of the sm90 kernels the benchmark runs, from their SASS.

For each problem (shape, B layout, epilogue) it takes the kernel `epigemm
emit` prints and its cubin (`--cubin`: NVRTC for sm_90a, no GPU needed),
disassembles it with cuobjdump, then reports per kernel: its instruction
count, the shortest loop holding wgmmas (the main loop: its instructions
and wgmmas) and whether ptxas reads SR_CgaCtaId (the CTA's rank, from which
it rebuilds shared memory addresses) within the 30 instructions before a
consumer's full-barrier wait. That read sat in every stage of the kernels
whose epilogue loads row or column vectors until the kernel took its shared
memory base through a shuffle (NOTES.md, Session 24).

cuobjdump: the toolkit's, or `pip install nvidia-cuda-cuobjdump`; pass
--cuobjdump PATH when it is not on PATH. `epigemm emit` picks each kernel as
a GPU run with 132 SMs would (since a12159a; before, its host buffers'
alignment made it pick 128x256 c2x1 at 4096^3 and 8192^3).

usage: bench/sm90_dev/sass_survey.py [--build build] [--cuobjdump PATH]
           [--out DIR] [--shape M,N,K,L ...] [--epilogue NAME ...]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")

# The benchmark's epilogues, as `epigemm emit` flags.
EPILOGUES = {
    "none": [],
    "alpha*acc+beta*C": ["--epilogue", "def epi(accum, alpha, beta, C): D = alpha*accum + beta*C; return D",
                         "--scalar", "alpha=1.5", "--scalar", "beta=0.5"],
    "relu+F": ["--epilogue", "def epi(accum, alpha, C): F = accum*alpha + C*2.0; D = relu(F); return D, F",
               "--scalar", "alpha=1.5"],
    "gelu(acc+bias)": ["--epilogue", "def epi(accum, bias): D = gelu(accum + bias); return D",
                       "--tensor", "bias=row"],
    "a*acc+rowb+colb": ["--epilogue", "def epi(accum, alpha, rb, cb): D = accum*alpha + rb + cb; return D",
                        "--scalar", "alpha=2", "--tensor", "rb=row", "--tensor", "cb=col"],
}
SHAPES = ["8192,8192,8192,1", "4096,14336,4096,1", "4096,4096,4096,1", "1024,1024,1024,1", "64,4096,4096,1",
          "16,8192,8192,1", "128,8192,8192,1", "8,4096,4096,1"]


def instructions(sass):
    """(address, text) of each SASS instruction."""
    found = re.findall(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", sass, re.M)
    return [(int(a, 16), t) for a, t in found]


def main_loop(ins):
    """(instructions, wgmmas) of the shortest backward-branch loop holding wgmmas."""
    best = None
    for address, text in ins:
        m = re.search(r"BRA (?:!?U?P\d, )?0x([0-9a-f]+)", text)
        if not m or int(m.group(1), 16) >= address:
            continue
        body = [t for a, t in ins if int(m.group(1), 16) <= a <= address]
        wgmmas = sum("HGMMA" in t or "QGMMA" in t or "IGMMA" in t for t in body)
        if wgmmas and (best is None or len(body) < best[0]):
            best = (len(body), wgmmas)
    return best or (0, 0)


def rank_reads_before_waits(ins):
    """How many consumer full-barrier waits have an SR_CgaCtaId read in the 30 instructions before them."""
    texts = [t for _, t in ins]
    count = 0
    for i, text in enumerate(texts):
        consumer_wait = "TRYWAIT" in text and any("GMMA" in t for t in texts[i:i + 60])
        if consumer_wait and any("SR_CgaCtaId" in t for t in texts[max(0, i - 30):i]):
            count += 1
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--cuobjdump", default=shutil.which("cuobjdump") or os.path.join(CUDA, "bin", "cuobjdump"))
    ap.add_argument("--out", help="keep each kernel's .cu, .cubin and .sass here")
    ap.add_argument("--shape", action="append", help="M,N,K,L (repeatable; default: the benchmark's)")
    ap.add_argument("--epilogue", action="append", choices=sorted(EPILOGUES), help="(repeatable; default: all)")
    ap.add_argument("--dtype", default="bf16")
    args = ap.parse_args()
    if not os.path.exists(args.cuobjdump):
        sys.exit(f"no cuobjdump at {args.cuobjdump}: pass --cuobjdump (pip install nvidia-cuda-cuobjdump)")
    out = args.out or tempfile.mkdtemp(prefix="sass_survey.")
    os.makedirs(out, exist_ok=True)
    cli = os.path.join(args.build, "epigemm")
    print(f"{'shape':18s} {'B':4s} {'epilogue':18s} {'operator':42s} {'instr':>6s} {'loop':>5s} "
          f"{'gmma':>4s} rank reads before waits")
    for shape in args.shape or SHAPES:
        for layout in ("row", "col"):
            for name in args.epilogue or list(EPILOGUES):
                stem = os.path.join(out, f"{shape.replace(',', 'x')}_{layout}_{re.sub(r'[^a-z0-9]+', '_', name)}")
                flags = ["--mnkl", shape, "--ab-dtype", args.dtype, "--b-layout", layout] + EPILOGUES[name]
                source = subprocess.run([cli, "emit", "--cubin", stem + ".cubin"] + flags, check=True,
                                        capture_output=True, text=True).stdout
                operator = re.search(r"// epigemm emit: operator (\S+)", source).group(1)
                with open(stem + ".cu", "w") as f:
                    f.write(source)
                sass = subprocess.run([args.cuobjdump, "-sass", stem + ".cubin"], check=True, capture_output=True,
                                      text=True).stdout
                with open(stem + ".sass", "w") as f:
                    f.write(sass)
                ins = instructions(sass)
                loop, wgmmas = main_loop(ins)
                print(f"{shape:18s} {layout:4s} {name:18s} {operator:42s} {len(ins):6d} {loop:5d} {wgmmas:4d} "
                      f"{rank_reads_before_waits(ins)}", flush=True)


if __name__ == "__main__":
    main()
