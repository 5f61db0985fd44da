#!/usr/bin/env python3
"""False-accept check: the receiver on audio with no burst in it, per sync candidate.

Usage: OMP_NUM_THREADS=1 nice -n 10 python3 noise.py --prof T=60 M=4 G=8 P=22 plan=table \
           [--opt metric=i0] [--n 2000] [--fs 48000]
Each buffer (1.2 s of white noise, or of a tone mixture, or of noise through room A) gives one
sync candidate (the strongest pair score) that is fully decoded (time-scale search, demodulation,
Viterbi, CRC).  Prints the CRC passes (expected n x tries x 2^-16 x 3/4), the decode tries, and the
distribution of the strongest-candidate energy share ("share"), which a gate can threshold.
"""
import argparse, os, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modem, bench

ap = argparse.ArgumentParser()
ap.add_argument("--prof", nargs="*", default=[])
ap.add_argument("--opt", nargs="*", default=[])
ap.add_argument("--n", type=int, default=1000)
ap.add_argument("--fs", type=int, default=48000)
ap.add_argument("--kind", default="white", choices=["white", "tones"])
a = ap.parse_args()
p = modem.Profile(**bench.parse_kv(a.prof))
rx = modem.Receiver(p, a.fs, **bench.parse_kv(a.opt))
passes = tries = 0
shares = []
for i in range(a.n):
    rng = np.random.default_rng(10_000_000 + i)
    n = int(1.2 * a.fs)
    if a.kind == "white":
        y = rng.standard_normal(n)
    else:  # random steady tones in the band plus noise (music-like worst case for tone receivers)
        t = np.arange(n) / a.fs
        y = 0.3 * rng.standard_normal(n)
        for _ in range(6):
            f = rng.uniform(18500, 20000)
            y += np.cos(2 * np.pi * f * t + rng.uniform(0, 6.3)) * (t < rng.uniform(0.2, 1.2))
    res, sy = rx.decode(y)
    tries += rx.tries
    shares.append(sy.get("share", np.nan))
    if res is not None:
        passes += 1
sh = np.array(shares)
print(f"{p.name} {a.kind} fs {a.fs}: {a.n} candidates, {tries} decode tries, CRC passes {passes} "
      f"(expected {tries * 0.75 / 65536:.3f}); share mean {np.nanmean(sh):.3f} sd {np.nanstd(sh):.3f} "
      f"p99 {np.nanpercentile(sh, 99):.3f} max {np.nanmax(sh):.3f}")
