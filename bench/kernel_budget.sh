#!/bin/sh
# The default kernel choice (auto: the fastest estimated plan within 1.02 x the reference
# kernels' total) against `--kernels reference` and `--kernels fast`, interleaved: ROUNDS rounds
# of the three runs (ITER invokes each, builtin ops prepared once, in-place plans, AP_SIMD=LEVEL
# capping the level), the order rotating from round to round, then auto on THREADS threads.
# Prints per model each run's total bytes and the median over rounds of the runs' median
# invokes, our speed-up over the reference (fast and auto) beside XNNPACK's from issue 29's
# table (measured there, on another day: a ratio, not a race), auto's time over fast's (the
# issue asks <= 1.1) and auto's total over the reference's (<= 1.02), and auto's 2-thread
# speed-up beside XNNPACK's. Wall-clock on a shared machine: load only ever adds time, and
# medians of a few rounds move by 10-20 % from run to run; read the ratios, not the microseconds.
# Usage: bench/kernel_budget.sh [MODEL...] (default: issue 29's eight models).
# Environment: AP=build/arenaplan, MODELS=../shared/models, ROUNDS=3, ITER=30, REF_ITER=3,
# LEVEL=avx2, THREADS=2.
AP=${AP:-build/arenaplan}
MODELS=${MODELS:-../shared/models}
ROUNDS=${ROUNDS:-3}
ITER=${ITER:-30}
REF_ITER=${REF_ITER:-3}
LEVEL=${LEVEL:-avx2}
THREADS=${THREADS:-2}
[ $# -gt 0 ] || set -- mlperf_vww_int8 mlperf_kws_dscnn_int8 mlperf_ic_resnet_int8 \
  mlperf_ad_fc_int8 mobilenet_v2_torch_int8 mlperf_ic_resnet_float magic_wand_float \
  mobilenet_v1_025_128_uint8
# XNNPACK's speed-up over our reference and its 2-thread ratio, from issue 29.
xnn() {
  case $1 in
  mlperf_vww_int8) echo "41 1.09" ;; mlperf_kws_dscnn_int8) echo "36 1.44" ;;
  mlperf_ic_resnet_int8) echo "50 1.79" ;; mlperf_ad_fc_int8) echo "46 0.90" ;;
  mobilenet_v2_torch_int8) echo "47 1.83" ;; mlperf_ic_resnet_float) echo "14 1.89" ;;
  magic_wand_float) echo "11 1.23" ;; mobilenet_v1_025_128_uint8) echo "36 1.69" ;;
  *) echo "- -" ;;
  esac
}
# "median_us total_bytes" of one run: kernels, threads, iterations.
one() {
  AP_SIMD=$LEVEL "$AP" run "$MODELS/$1.tflite" --kernels "$2" --threads "$3" --prepare once \
    --inplace --iterations "$4" --json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["invoke_us_median"], d["total_bytes"])'
}
middle() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf '| model | reference | fast | auto (default) | fast / ref speed-up | auto / ref speed-up | XNNPACK / ref | auto / fast time | auto / ref bytes | auto %s / 1 thread | XNNPACK %s / 1 |\n' "$THREADS" "$THREADS"
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for m in "$@"; do
  r_t=""; f_t=""; a_t=""; a2_t=""; r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    case $((r % 3)) in
    0) x=$(one "$m" reference 1 "$REF_ITER"); y=$(one "$m" fast 1 "$ITER"); z=$(one "$m" auto 1 "$ITER") ;;
    1) y=$(one "$m" fast 1 "$ITER"); z=$(one "$m" auto 1 "$ITER"); x=$(one "$m" reference 1 "$REF_ITER") ;;
    *) z=$(one "$m" auto 1 "$ITER"); x=$(one "$m" reference 1 "$REF_ITER"); y=$(one "$m" fast 1 "$ITER") ;;
    esac
    w=$(one "$m" auto "$THREADS" "$ITER")
    r_t="$r_t ${x% *}"; f_t="$f_t ${y% *}"; a_t="$a_t ${z% *}"; a2_t="$a2_t ${w% *}"
    rb=${x#* }; fb=${y#* }; ab=${z#* }
    r=$((r + 1))
  done
  rt=$(echo "$r_t" | middle); ft=$(echo "$f_t" | middle); at=$(echo "$a_t" | middle)
  a2=$(echo "$a2_t" | middle)
  set -- $(xnn "$m")
  echo "$m $rt $ft $at $a2 $rb $fb $ab $1 $2" | awk -v T="$THREADS" '{
    printf "| %s | %.1f us, %d B | %.1f us, %d B | %.1f us, %d B | %.1fx | %.1fx | %sx | %.2f | %.3f | %.2fx | %s |\n",
      $1, $2, $6, $3, $7, $4, $8, $2 / $3, $2 / $4, $9, $4 / $3, $8 / $6, $4 / $5, $10 }'
done
