#!/bin/sh
# 2 threads against 1 on the fast kernels, interleaved: ROUNDS rounds of `run --threads 1` and
# `run --threads 2` (ITER invokes each, back to back as TFLite's benchmark_model times them,
# builtin ops prepared once), the order alternating from round to round. Prints, per model,
# the min over rounds of each run's min invoke (the estimator bench/stream_overhead.sh uses:
# load on a shared machine only ever adds time) and the median of the runs' medians, with the
# speed-ups of 2 threads over 1 by each.
# Usage: bench/threads_speedup.sh [MODEL...] (default: issue 29's models of 150 us or more).
# Environment: AP=build/arenaplan, MODELS=../shared/models, ROUNDS=9, ITER=100, THREADS=2,
# KERNELS=fast (run --kernels), SIMD=avx2 (AP_SIMD), INPLACE=1 (0: without run --inplace).
# Prints the load average before and after: on a shared machine the ratios mean little above 1.
AP=${AP:-build/arenaplan}
MODELS=${MODELS:-../shared/models}
ROUNDS=${ROUNDS:-9}
ITER=${ITER:-100}
THREADS=${THREADS:-2}
KERNELS=${KERNELS:-fast}
SIMD=${SIMD:-avx2}
INPLACE=${INPLACE:-1}
[ $# -gt 0 ] || set -- mlperf_vww_int8 mlperf_ic_resnet_int8 mobilenet_v2_torch_int8 \
  mlperf_ic_resnet_float mobilenet_v1_025_128_uint8
ip=$([ "$INPLACE" = 1 ] && echo --inplace)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# "median min" of one run, in microseconds.
# shellcheck disable=SC2086 # $ip is empty or one option
invoke_us() { AP_SIMD=$SIMD "$AP" run "$MODELS/$1.tflite" --threads "$2" --prepare once \
  --kernels "$KERNELS" $ip --iterations "$ITER" |
  sed -n 's/^invoke *\([0-9.]*\) us median, \([0-9.]*\) us min.*/\1 \2/p'; }
lowest() { tr ' ' '\n' | sed '/^$/d' | sort -g | head -1; }
middle() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf '| model | 1 thread min | %s threads min | speed-up (min) | 1 thread median | %s threads median | speed-up (median) | rounds at or above 1.6x (medians) |\n' "$THREADS" "$THREADS"
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for m in "$@"; do
  a_min=""; b_min=""; a_med=""; b_med=""; good=0
  r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    if [ $((r % 2)) -eq 0 ]; then x=$(invoke_us "$m" 1); y=$(invoke_us "$m" "$THREADS")
    else y=$(invoke_us "$m" "$THREADS"); x=$(invoke_us "$m" 1); fi
    xa=${x% *}; xb=${x#* }; ya=${y% *}; yb=${y#* }
    a_med="$a_med $xa"; a_min="$a_min $xb"; b_med="$b_med $ya"; b_min="$b_min $yb"
    good=$((good + $(echo "$xa $ya" | awk '{print ($1 >= 1.6 * $2) ? 1 : 0}')))
    r=$((r + 1))
  done
  a=$(echo "$a_min" | lowest); b=$(echo "$b_min" | lowest)
  c=$(echo "$a_med" | middle); d=$(echo "$b_med" | middle)
  printf '| %s | %s us | %s us | %.2fx | %s us | %s us | %.2fx | %d of %d |\n' "$m" "$a" "$b" \
    "$(echo "$a $b" | awk '{print $1 / $2}')" "$c" "$d" "$(echo "$c $d" | awk '{print $1 / $2}')" \
    "$good" "$ROUNDS"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
