#!/bin/sh
# usage: sh final.sh FS TAG PROFILE-ARGS... -- OPT-ARGS...   (500-trial final run of one design at one rate)
# e.g.   sh final.sh 48000 final-072 T=60 M=4 G=8 P=22 plan=table -- metric=i0 offset_ms=3
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$(dirname "$0")"   # bench.py is beside this script: run from anywhere (sh research/modem-lab/final.sh)
FS=$1; TAG=$2; shift 2
PROF=""; while [ $# -gt 0 ] && [ "$1" != "--" ]; do PROF="$PROF $1"; shift; done
[ "$1" = "--" ] && shift
nice -n 10 python3 bench.py --trials 500 --fs $FS --cond A B Aw W28 S --prof $PROF --opt "$@" --tag $TAG
