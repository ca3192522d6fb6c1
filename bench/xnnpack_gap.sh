#!/bin/sh
# Issue 29's speed table re-measured: per model, our speed-up over our own reference kernels at
# the AVX2 level (AP_SIMD=avx2, default kernels, in place, builtin ops prepared once, 1 thread)
# and our 2-thread / 1-thread ratio, beside the figures the issue measured for TFLite with
# XNNPACK on this kind of machine (AMD EPYC Zen 3, AVX2, 2 vCPUs). bench_xnnpack_gap
# (bench/xnnpack_gap.c) keeps the three interpreters side by side and times them in
# alternating pairs (a reference invoke beside a block of fast ones; a block on one thread
# beside a block on two), each figure the median of its pairs' ratios: a slow spell of a shared
# machine slows both halves of a pair instead of one side's round. The speed-up is the
# reference invoke's CPU time over the fast block's median wall time (xnnpack_gap.c says why);
# the 2 / 1 ratio is in wall time, which only a machine with a core free for the second thread
# can show (the load average is printed with the table).
# Usage: bench/xnnpack_gap.sh [MODEL...] (default: the eight models).
# Environment: BUILD=build, MS=3000 (per model and comparison), SIMD=avx2.
BUILD=${BUILD:-build}
MS=${MS:-3000}
SIMD=${SIMD:-avx2}
# model, XNNPACK's speed-up over our reference, XNNPACK 2 threads / 1, ours when the issue was
# filed (speed-up, 2 / 1): the table.
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
[ -x "$BUILD/bench/bench_xnnpack_gap" ] || {
  echo "xnnpack_gap.sh: $BUILD/bench/bench_xnnpack_gap not built (cmake --build $BUILD --target bench_xnnpack_gap)" >&2
  exit 2
}
printf '| model | reference (CPU) | %s 1 thread | %s 2 threads | speed-up | XNNPACK | issue | 2 / 1 | XNNPACK | issue | at or above XNNPACK |\n' "$SIMD" "$SIMD"
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
rc=0
for m in "$@"; do
  row=$(echo "$XNN" | awk -v m="$m" '$1 == m')
  line=$(cd "$BUILD" && AP_SIMD=$SIMD bench/bench_xnnpack_gap --ms "$MS" "$m") || rc=1
  echo "$line $row" | awk '
    $2 == "refused" { printf "| %s | did not run |\n", $1; next }
    $2 == "FAILED" { printf "| %s | %s |\n", $1, $0; next }
    {
      xs = $10; xt = $11; os = $12; ot = $13
      if (xs == "") { v = "no XNNPACK figure" }
      else {
        v = ($5 >= xs) ? "speed-up yes" : "speed-up no"
        if ($3 < 150) v = v ", 2 threads n/a (under 150 us)"
        else v = v (($6 >= xt) ? ", 2 threads yes" : ", 2 threads no")
      }
      printf "| %s | %.1f us | %.1f us | %.1f us | %.1fx | %sx | %sx | %.2f | %s | %s | %s |\n",
        $1, $2, $3, $4, $5, xs, os, $6, xt, ot, v
    }'
done
echo
echo "(AP_SIMD=$SIMD, MS=$MS per comparison; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
exit $rc
