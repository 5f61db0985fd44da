#!/bin/sh
# usage: sh screen4.sh  (screening batch 4: noise efficiency at 0.60-0.72 s, white 28 dB-Hz, 300 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen4.sh)
B="nice -n 10 python3 bench.py --trials 300 --cond W28"
$B --prof T=60 M=4 G=8 P=22 plan=table --tag T60G8
$B --prof T=60 M=4 G=9 P=22 plan=table --tag T60G9
$B --prof T=60 M=4 G=9 P=22 plan=table --opt metric=i0 --tag T60G9-i0
$B --prof T=60 M=4 G=9 P=22 plan=table K=9 --tag T60G9K9
$B --prof T=60 M=4 G=9 P=22 plan=table K=9 --opt metric=i0 --tag T60G9K9-i0
$B --prof T=60 M=4 G=10 P=22 plan=table K=9 --opt metric=i0 --tag T60G10K9-i0
