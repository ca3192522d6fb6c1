#!/bin/sh
# Invoke-time overhead of streamed segments: fast kernels in place, unstreamed vs streamed,
# interleaved (ROUNDS rounds of `run --iterations ITER` each), min over rounds of each run's
# min. Usage: bench/stream_overhead.sh [MODEL...] (default: the four of issue 17).
# Environment: AP=build/arenaplan, MODELS=../shared/models, ROUNDS=5, ITER=50, AP_SIMD.
AP=${AP:-build/arenaplan}
MODELS=${MODELS:-../shared/models}
ROUNDS=${ROUNDS:-5}
ITER=${ITER:-50}
[ $# -gt 0 ] || set -- person_detect_int8 mlperf_vww_int8 mlperf_ic_resnet_int8 magic_wand_float
min_us() { "$AP" run "$MODELS/$1.tflite" --inplace $2 --iterations "$ITER" |
  sed -n 's/^invoke .* \([0-9.]*\) us min.*/\1/p'; }
printf '| model | fast in-place | fast streamed in-place | overhead |\n|---|---:|---:|---:|\n'
for m in "$@"; do
  a=""; b=""
  r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    x=$(min_us "$m" ""); y=$(min_us "$m" --stream)
    a=$(echo "$a $x" | tr ' ' '\n' | sed '/^$/d' | sort -g | head -1)
    b=$(echo "$b $y" | tr ' ' '\n' | sed '/^$/d' | sort -g | head -1)
    r=$((r + 1))
  done
  printf '| %s | %s us | %s us | %+.1f%% |\n' "$m" "$a" "$b" \
    "$(echo "$a $b" | awk '{print ($2 / $1 - 1) * 100}')"
done
