#!/usr/bin/env python3
"""Writes the deterministic wide table of the reader memory benchmark (see run.sh).

Columns (50): id (row number), label (0/1), lat, lon (floats), c01..c46 (small integer
categories, arities 2..10). A command under test uses 4 of them. The generator is a fixed
64-bit LCG, so the file is the same byte for byte on every machine and Python version.

usage: wide.py ROWS OUT.csv [CANDIDATES.csv]
"""
import sys

MASK = (1 << 64) - 1


def main():
    rows = int(sys.argv[1])
    out = sys.argv[2]
    state = 0x9E3779B97F4A7C15

    def nxt():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        return state >> 11  # 53 bits

    arity = [2 + (j % 9) for j in range(46)]
    names = ["id", "label", "lat", "lon"] + [f"c{j + 1:02d}" for j in range(46)]
    with open(out, "w", newline="\n") as f:
        f.write(",".join(names) + "\n")
        for i in range(rows):
            cats = [nxt() % a for a in arity]
            # The label follows c01 four times out of five, so the features carry signal.
            label = cats[0] % 2 if nxt() % 5 else 1 - cats[0] % 2
            lat = 40.70 + (nxt() % 100000) / 1e6 * 1.5
            lon = -74.02 + (nxt() % 100000) / 1e6 * 1.0
            f.write(f"{i + 1},{label},{lat:.6f},{lon:.6f},")
            f.write(",".join(str(c) for c in cats))
            f.write("\n")
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w", newline="\n") as f:
            f.write("name,lat,lon\n")
            for k in range(20):
                f.write(f"spot{k + 1},{40.70 + 0.075 * (k % 5):.4f},{-74.02 + 0.2 * (k // 5):.4f}\n")


if __name__ == "__main__":
    main()
