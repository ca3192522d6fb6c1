#!/bin/sh
# Issue 29's first rule on every shared model the runtime runs: the default kernel choice
# (auto) needs at most 1.02 x the reference kernels' total and invokes within 1.1 x the
# fastest plan's time (every op on its fast kernel: `--kernels fast`, the plan the choice
# reaches with no byte limit). ROUNDS interleaved rounds of fast and auto (ITER invokes each,
# builtin ops prepared once, in-place plans, AP_SIMD=LEVEL, one thread), the order alternating
# from round to round; the reference is planned once for its total. Prints per model the
# reference total, the fastest plan's total and median time, the default's, the two ratios
# and whether each holds; a model `run` refuses gets a row saying so. Wall-clock on a shared
# machine, where load only ever adds time: each time is the fastest round's median invoke
# (both kernels measured in the same rounds); read the ratios.
# Usage: bench/kernel_default.sh [MODEL...] (default: every ../shared/models/*.tflite).
# Environment: AP=build/arenaplan, MODELS=../shared/models, ROUNDS=5, ITER=40, LEVEL=avx2.
AP=${AP:-build/arenaplan}
MODELS=${MODELS:-../shared/models}
ROUNDS=${ROUNDS:-5}
ITER=${ITER:-40}
LEVEL=${LEVEL:-avx2}
if [ $# -eq 0 ]; then
  for f in "$MODELS"/*.tflite; do set -- "$@" "$(basename "$f" .tflite)"; done
fi
# "median_us total_bytes" of one run (kernels, iterations), or nothing when it fails.
one() {
  AP_SIMD=$LEVEL "$AP" run "$MODELS/$1.tflite" --kernels "$2" --prepare once --inplace \
    --iterations "$3" --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["invoke_us_median"], d["total_bytes"])' \
      2>/dev/null
}
least() { tr ' ' '\n' | sed '/^$/d' | sort -g | head -1; }
printf '| model | reference total | fastest plan | default (auto) | default / reference bytes | <= 1.02 | default / fastest time | <= 1.1 |\n'
printf '|---|---:|---:|---:|---:|---|---:|---|\n'
held=0; failed=0
for m in "$@"; do
  x=$(one "$m" reference 1)
  if [ -z "$x" ]; then
    printf '| %s | (run refuses the model) | | | | | | |\n' "$m"
    continue
  fi
  f_t=""; a_t=""; r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    if [ $((r % 2)) -eq 0 ]; then y=$(one "$m" fast "$ITER"); z=$(one "$m" auto "$ITER")
    else z=$(one "$m" auto "$ITER"); y=$(one "$m" fast "$ITER"); fi
    [ -n "$y" ] && [ -n "$z" ] || break
    f_t="$f_t ${y% *}"; a_t="$a_t ${z% *}"
    r=$((r + 1))
  done
  if [ -z "$y" ] || [ -z "$z" ]; then
    printf '| %s | %d B | (a fast or default run failed) | | | | | |\n' "$m" "${x#* }"
    failed=$((failed + 1))
    continue
  fi
  ft=$(echo "$f_t" | least); at=$(echo "$a_t" | least)
  line=$(echo "$m ${x#* } ${y#* } $ft ${z#* } $at" | awk '{
    rb = $5 / $2; rt = ($3 > 0) ? $6 / $4 : 1;
    bo = (rb <= 1.02) ? "yes" : "NO"; to = (rt <= 1.1) ? "yes" : "NO";
    printf "| %s | %d B | %d B, %.1f us | %d B, %.1f us | %.3f | %s | %.2f | %s |", $1, $2, $3, $4, $5, $6, rb, bo, rt, to }')
  echo "$line"
  case $line in *NO*) failed=$((failed + 1)) ;; *) held=$((held + 1)) ;; esac
done
echo
echo "both rules hold on $held models, fail on $failed (LEVEL=$LEVEL, ROUNDS=$ROUNDS, ITER=$ITER)"
