#!/bin/sh
# usage: sh screen3.sh  (screening batch 3: receiver options and designs in room B, 200 trials)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/screen3.sh)
B="nice -n 10 python3 bench.py --trials 200 --cond B"
$B --prof T=60 M=4 G=8 P=22 plan=table --tag T60G8
$B --prof T=60 M=4 G=8 P=22 plan=table --opt rho=0.3 --tag T60G8-rho.3
$B --prof T=60 M=4 G=8 P=22 plan=table --opt offset_ms=3 --tag T60G8-off3
$B --prof T=60 M=4 G=8 P=22 plan=table --opt L=1 weights=[1,0.3] --tag T60G8-L1
$B --prof T=80 M=4 G=12 P=30 plan=table --tag T80G12
$B --prof T=60 M=4 G=9 P=22 plan=table --tag T60G9
$B --prof T=80 M=8 G=8 P=15 plan=table --tag T80M8G8
