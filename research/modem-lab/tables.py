#!/usr/bin/env python3
"""Prints the constant tables of a profile for porting (hop table, interleaver, Gray map, phases).

Usage: python3 tables.py T=60 M=4 G=8 P=22 plan=table > tables_T60G8.txt
"""
import os, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modem
from bench import parse_kv

p = modem.Profile(**parse_kv(sys.argv[1:]))
print(f"# {p.describe()}")
print(f"# grid: bin k = {p.f_lo:g} Hz + k * {p.df:.6g} Hz, k = 0..{p.N - 1}")
print(f"# subband s (0..{p.P - 1}) = bins s + {p.P}*i, i = 0..{p.M - 1} (tone index i within a group)")
print("# hop table: subband of group g (columns) in symbol n (rows)")
for n in range(p.nsym):
    print("  [" + ", ".join(f"{v:2d}" for v in p.sub[n]) + "],")
print(f"# interleaver: slot j = (n*{p.G} + g)*{p.bpg} + b (b = 0 is the MSB of the Gray label)")
print(f"#   holds coded bit perm[j] (coded bits beyond {p.ncoded - 1} are zero padding); perm =")
perm = list(p.perm)
for i in range(0, len(perm), 16):
    print("  " + ", ".join(f"{v:3d}" for v in perm[i:i + 16]) + ",")
print(f"# code: K={p.K}, rate 1/2 mother code, {p.nmother} coded bits; punctured (dropped) mother positions: "
      f"{[int(v) for v in np.nonzero(~p.keep)[0]]}; coded bit index = index among the kept positions")
print(f"# Gray map: label v (bits b0 b1 ...) -> tone index {modem.GRAY[p.bpg]}")
print(f"# group phases (rad) at each symbol start: {[round(float(x), 6) for x in p.phase]}")
print(f"# chirps: {modem.chirp_kinds(p)}, {p.chirp_lo:g}-{p.chirp_hi:g} Hz, {p.chirp*1e3:g} ms each; "
      f"data starts at {p.data_start*1e3:g} ms; airtime {p.airtime*1e3:g} ms")
