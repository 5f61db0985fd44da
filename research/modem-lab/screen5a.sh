#!/bin/sh
# usage: sh screen5a.sh  (batch 5a: white noise margin of the finalists, 300 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen5a.sh)
B="nice -n 10 python3 bench.py --trials 300 --cond W28"
$B --prof T=60 M=4 G=8 P=22 plan=table --opt metric=i0 --tag T60G8-i0
$B --prof T=60 M=4 G=8 P=22 plan=table K=9 --opt metric=i0 --tag T60G8K9-i0
$B --prof T=60 M=8 G=6 P=11 plan=table K=9 --opt metric=i0 --tag T60M8G6K9-i0
