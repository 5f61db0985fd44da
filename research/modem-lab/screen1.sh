#!/bin/sh
# usage: sh screen1.sh  (screening batch 1: airtime vs design in room A and white noise, 100 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen1.sh)
B="nice -n 10 python3 bench.py --trials 100 --cond A W28"
$B --prof T=40 M=4 G=6 P=15 plan=table --opt metric=i0 --tag G6-i0
$B --prof T=40 M=4 G=6 P=15 plan=table --opt L=1 --tag G6-L1
$B --prof T=80 M=4 G=12 P=30 plan=table --tag T80G12
$B --prof T=80 M=4 G=10 P=30 plan=table --tag T80G10
$B --prof T=60 M=4 G=8 P=22 plan=table --tag T60G8
$B --prof T=20 M=4 G=3 P=7 plan=table --tag T20G3
$B --prof T=40 M=8 G=3 P=7 plan=table --tag T40M8G3
