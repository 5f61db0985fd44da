#!/bin/sh
# usage: sh screen6.sh FS  (batch 6: K=9 punctured to 11 symbols (0.72 s), white 28 dB-Hz, 500 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen6.sh)
B="nice -n 10 python3 bench.py --trials 500 --fs $1 --cond W28 --prof T=60 M=4 G=8 P=22 plan=table K=9 nsym=11"
$B --opt metric=i0 --tag T60G8K9p-i0
$B --opt metric=i0 offset_ms=3 --tag T60G8K9p-i0-off3
