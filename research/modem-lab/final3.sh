#!/bin/sh
# usage: sh final3.sh FS  (500-trial final of the recommended design with windows 3 ms after the direct sound)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/final3.sh)
nice -n 10 python3 bench.py --trials 500 --fs $1 --cond A B Aw S --prof T=60 M=4 G=8 P=22 plan=table K=9 nsym=11 --opt metric=i0 offset_ms=3 --tag final-K9p-off3
