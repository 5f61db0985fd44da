#!/usr/bin/env python3
"""Crest factor (peak / RMS, dB) of bursts of a profile, over random payloads.

Usage: python3 crest.py T=40 M=4 G=6 P=15 plan=table [--n 50]
"""
import sys, os
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modem
from bench import parse_kv

def crest(p, fs=48000, n=50):
    cf = []
    for i in range(n):
        rng = np.random.default_rng(i)
        x, _ = modem.encode(p, fs, int(rng.integers(0, 3)), int(rng.integers(0, 2 ** 63)))
        d0 = int(p.data_start * fs)
        xd = x[d0: d0 + int(p.nsym * p.T * fs) - int(0.003 * fs)]
        cf.append(20 * np.log10(np.max(np.abs(xd)) / np.sqrt(np.mean(xd ** 2))))
    return np.mean(cf), np.max(cf)

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = 50
    if "--n" in sys.argv:
        n = int(sys.argv[sys.argv.index("--n") + 1]); args = [a for a in args if a != str(n)]
    p = modem.Profile(**parse_kv(args))
    m, mx = crest(p, n=n)
    print(f"{p.name}: crest factor of the data part mean {m:.1f} dB, max {mx:.1f} dB over {n} bursts "
          f"(one tone: 3.0 dB)")
