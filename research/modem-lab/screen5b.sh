#!/bin/sh
# usage: sh screen5b.sh  (batch 5b: room B for the finalists, 200 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen5b.sh)
B="nice -n 10 python3 bench.py --trials 200 --cond B"
$B --prof T=60 M=4 G=9 P=22 plan=table K=9 --opt metric=i0 offset_ms=3 --tag T60G9K9-i0-off3
$B --prof T=60 M=4 G=8 P=22 plan=table --opt metric=i0 offset_ms=3 --tag T60G8-i0-off3
$B --prof T=60 M=8 G=6 P=11 plan=table K=9 --opt metric=i0 offset_ms=3 --tag T60M8G6K9-i0-off3
