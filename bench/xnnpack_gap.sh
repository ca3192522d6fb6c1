#!/bin/sh
# Issue 29's speed table re-measured: per model, our speed-up over our own reference kernels at
# the AVX2 level (AP_SIMD=avx2, default kernels, `run --prepare once --inplace`, 1 thread) and
# our 2-thread / 1-thread ratio, beside the figures the issue measured for TFLite with XNNPACK
# on this kind of machine (AMD EPYC Zen 3, AVX2, 2 vCPUs). ROUNDS interleaved rounds, each
# running the reference, the fast kernels on 1 thread and on 2 threads (invokes back to back as
# TFLite's benchmark_model times them: as many as fit in BUDGET microseconds by a first probe
# run, at least 3 and at most ITER), the order rotating from round to round.
# Speed-ups use the median over rounds of each run's median (as the issue's table does) and,
# beside them, the min over rounds of each run's min (load on a shared machine only ever adds
# time, so the mins are the least disturbed estimate).
# Usage: bench/xnnpack_gap.sh [MODEL...] (default: the issue's eight models).
# Environment: AP=build/arenaplan, MODELS=../shared/models, ROUNDS=5, ITER=200, BUDGET=300000,
# SIMD=avx2.
AP=${AP:-build/arenaplan}
MODELS=${MODELS:-../shared/models}
ROUNDS=${ROUNDS:-5}
ITER=${ITER:-200}
BUDGET=${BUDGET:-300000}
SIMD=${SIMD:-avx2}
# model, XNNPACK's speed-up over our reference, XNNPACK 2 threads / 1, ours when the issue was
# filed (speed-up, 2 / 1): the issue's table.
XNN="mlperf_vww_int8 41 1.09 21 0.97
mlperf_kws_dscnn_int8 36 1.44 32 1.00
mlperf_ic_resnet_int8 50 1.79 33 1.02
mlperf_ad_fc_int8 46 0.90 43 0.99
mobilenet_v2_torch_int8 47 1.83 34 1.48
mlperf_ic_resnet_float 14 1.89 13 1.39
magic_wand_float 11 1.23 5 0.98
mobilenet_v1_025_128_uint8 36 1.69 22 1.29"
# shellcheck disable=SC2046 # the names split into arguments
[ $# -gt 0 ] || set -- $(echo "$XNN" | cut -d' ' -f1)
# "median min" of one run, in microseconds: $1 model, $2 kernels (reference|fast), $3 threads,
# $4 invokes.
invoke_us() {
  if [ "$2" = reference ]; then k="--kernels reference"; else k=""; fi
  # shellcheck disable=SC2086
  AP_SIMD=$SIMD "$AP" run "$MODELS/$1.tflite" $k --threads "$3" --prepare once --inplace \
    --iterations "$4" | sed -n 's/^invoke *\([0-9.]*\) us median, \([0-9.]*\) us min.*/\1 \2/p'
}
lowest() { tr ' ' '\n' | sed '/^$/d' | sort -g | head -1; }
middle() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { echo "$1 $2" | awk '{printf "%.1f", $1 / $2}'; }
ratio2() { echo "$1 $2" | awk '{printf "%.2f", $1 / $2}'; }
printf '| model | reference median (min) | %s 1 thread | %s 2 threads | speed-up (medians) | (mins) | XNNPACK | issue | 2 / 1 (medians) | (mins) | XNNPACK | issue | at or above XNNPACK |\n' "$SIMD" "$SIMD"
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
for m in "$@"; do
  row=$(echo "$XNN" | awk -v m="$m" '$1 == m')
  xs=$(echo "$row" | cut -d' ' -f2); xt=$(echo "$row" | cut -d' ' -f3)
  os=$(echo "$row" | cut -d' ' -f4); ot=$(echo "$row" | cut -d' ' -f5)
  # Invokes per run: BUDGET over a probe's median, within [3, ITER].
  nr=$(invoke_us "$m" reference 1 1 | awk -v b="$BUDGET" -v i="$ITER" '{n = int(b / $1); print (n < 3 ? 3 : (n > i ? i : n))}')
  nf=$(invoke_us "$m" fast 1 3 | awk -v b="$BUDGET" -v i="$ITER" '{n = int(b / $1); print (n < 3 ? 3 : (n > i ? i : n))}')
  rmed=""; rmin=""; amed=""; amin=""; bmed=""; bmin=""
  r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    for k in 0 1 2; do
      case $(((k + r) % 3)) in
        0) v=$(invoke_us "$m" reference 1 "$nr"); rmed="$rmed ${v% *}"; rmin="$rmin ${v#* }" ;;
        1) v=$(invoke_us "$m" fast 1 "$nf"); amed="$amed ${v% *}"; amin="$amin ${v#* }" ;;
        2) v=$(invoke_us "$m" fast 2 "$nf"); bmed="$bmed ${v% *}"; bmin="$bmin ${v#* }" ;;
      esac
    done
    r=$((r + 1))
  done
  rm_=$(echo "$rmed" | middle); am=$(echo "$amed" | middle); bm=$(echo "$bmed" | middle)
  rl=$(echo "$rmin" | lowest); al=$(echo "$amin" | lowest); bl=$(echo "$bmin" | lowest)
  s=$(ratio "$rm_" "$am"); sl=$(ratio "$rl" "$al"); t=$(ratio2 "$am" "$bm"); tl=$(ratio2 "$al" "$bl")
  # The issue's 2-thread target applies to models of 150 us or more (one thread, median).
  verdict=$(echo "$s $sl $xs $t $tl $xt $am" | awk '{
    sp = ($1 >= $3 || $2 >= $3) ? "speed-up yes" : "speed-up no"
    if ($7 < 150) th = "2 threads n/a (under 150 us)"
    else th = ($4 >= $6 || $5 >= $6) ? "2 threads yes" : "2 threads no"
    print sp ", " th }')
  printf '| %s | %s (%s) us | %s (%s) us | %s (%s) us | %sx | %sx | %sx | %sx | %s | %s | %s | %s | %s |\n' \
    "$m" "$rm_" "$rl" "$am" "$al" "$bm" "$bl" "$s" "$sl" "${xs:-?}" "${os:-?}" "$t" "$tl" "${xt:-?}" "${ot:-?}" "$verdict"
done
