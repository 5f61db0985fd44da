#!/bin/sh
# usage: sh screen2.sh  (screening batch 2: long symbols, many tones; rooms A, B and white noise, 100 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen2.sh)
B="nice -n 10 python3 bench.py --trials 100 --cond A B W28"
$B --prof T=60 M=4 G=8 P=22 plan=table --tag T60G8
$B --prof T=60 M=4 G=10 P=22 plan=table --tag T60G10
$B --prof T=60 M=4 G=13 P=22 plan=table --tag T60G13
$B --prof T=80 M=4 G=12 P=30 plan=table --tag T80G12
$B --prof T=80 M=4 G=15 P=30 plan=table --tag T80G15
$B --prof T=80 M=4 G=18 P=30 plan=table --tag T80G18
