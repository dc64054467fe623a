#!/usr/bin/env python3
"""LRU model of how many bytes of A and B a persistent GEMM's tile order reads from DRAM.

The unit is a 16 KB box (a k-block's 64 columns of 128 rows in 16 bits). The CTAs take
tiles c, c + ctas, c + 2 ctas, ... and move in step, one k-block at a time; after each
wave every tile reads its C and writes D and F (`--epilogue-tiles` tile-sized streams,
the first one read, the others written), which only evict. L2 is one LRU of `--l2-mib`.
Real L2 is neither one LRU nor visited in step: read the model's figures as an order's
relative exposure, not as counts (at bf16 4096^3 it predicts 96 MiB more A and B
behind relu+F than behind a GEMM alone; ncu measured about 40 MB).

usage: l2_order_model.py MxNxK [--tile 128x128] [--ctas 128] [--groups 4,8,16]
                          [--l2-mib 50,60] [--epilogue-tiles 0,3]
"""
import argparse
from collections import OrderedDict

BOX = 16384


def tile_order(rows, cols, group, serpentine):
    """(row, col) of every tile: groups of `group` rows walked column by column,
    every odd group from the last column back when `serpentine`."""
    order = []
    for first in range(0, rows, group):
        backwards = serpentine and (first // group) % 2 == 1
        for step in range(cols):
            col = cols - 1 - step if backwards else step
            order.extend((row, col) for row in range(first, min(first + group, rows)))
    return order


def dram_mib(m, n, k, bm, bn, ctas, group, serpentine, l2_mib, epilogue_tiles):
    rows, cols, k_blocks = m // bm, n // bn, k // 64
    tiles = tile_order(rows, cols, group, serpentine)
    a_boxes, b_boxes, tile_boxes = bm * 128 // BOX, bn * 128 // BOX, bm * bn * 2 // BOX
    capacity = l2_mib * 1024 * 1024 // BOX
    lru = OrderedDict()
    misses = 0
    written = 0

    def touch(key, count, counted):
        nonlocal misses
        for part in range(count):
            box = key + (part,)
            if box in lru:
                lru.move_to_end(box)
                continue
            misses += counted
            lru[box] = True
            if len(lru) > capacity:
                lru.popitem(last=False)

    for start in range(0, len(tiles), ctas):
        wave = tiles[start:start + ctas]
        for kb in range(k_blocks):
            for row, col in wave:
                touch(("A", row, kb), a_boxes, 1)
                touch(("B", col, kb), b_boxes, 1)
        for _ in wave:
            for _ in range(epilogue_tiles):
                written += 1
                touch(("tile", written), tile_boxes, 0)
    return misses * BOX / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shape", help="MxNxK")
    ap.add_argument("--tile", default="128x128")
    ap.add_argument("--ctas", type=int, default=128)
    ap.add_argument("--groups", default="8")
    ap.add_argument("--l2-mib", default="50,60")
    ap.add_argument("--epilogue-tiles", default="0,3")
    args = ap.parse_args()
    m, n, k = map(int, args.shape.split("x"))
    bm, bn = map(int, args.tile.split("x"))
    for epilogue in map(int, args.epilogue_tiles.split(",")):
        for l2 in map(int, args.l2_mib.split(",")):
            cells = []
            for group in map(int, args.groups.split(",")):
                for serpentine in (False, True):
                    mib = dram_mib(m, n, k, bm, bn, args.ctas, group, serpentine, l2, epilogue)
                    cells.append(f"g{group}{' serpentine' if serpentine else ''} {mib:.0f}")
            print(f"{args.shape} {args.tile} x{args.ctas} epilogue tiles {epilogue}, L2 {l2} MiB: "
                  f"A+B from DRAM (MiB): " + ", ".join(cells))


if __name__ == "__main__":
    main()
