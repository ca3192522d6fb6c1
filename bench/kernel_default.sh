#!/bin/sh
# Issue 29's first rule on every shared model the runtime runs: the default kernel choice
# (auto) needs at most 1.02 x the reference kernels' total and invokes within 1.1 x the
# fastest plan's time (every op on its fast kernel: `--kernels fast`, the plan the choice
# reaches with no byte limit). bench_kernel_default (bench/kernel_default.c) plans the
# reference, the fastest plan and the default side by side (in place, builtin ops prepared
# once, AP_SIMD=LEVEL, one thread) and times the last two in alternation, pair by pair, for
# MS milliseconds a model; the time ratio is the median of the pairs' ratios, so a slow spell
# of a shared machine slows both halves of a pair instead of one side's round. Prints per
# model the reference total, the fastest plan's total and median invoke, the default's, the
# two ratios and whether each holds; "same plan" where the default chose the fast kernel on
# every op (the same code runs: its ratio is the bench's own noise); a model `run` refuses
# gets a row saying so.
# Usage: bench/kernel_default.sh [MODEL...] (default: every ../shared/models/*.tflite).
# Environment: BUILD=build, MODELS=../shared/models, MS=1000, LEVEL=avx2.
BUILD=${BUILD:-build}
MODELS=${MODELS:-../shared/models}
MS=${MS:-1000}
LEVEL=${LEVEL:-avx2}
if [ $# -eq 0 ]; then
  for f in "$MODELS"/*.tflite; do set -- "$@" "$(basename "$f" .tflite)"; done
fi
[ -x "$BUILD/bench/bench_kernel_default" ] || {
  echo "kernel_default.sh: $BUILD/bench/bench_kernel_default not built (cmake --build $BUILD --target bench_kernel_default)" >&2
  exit 2
}
printf '| model | reference total | fastest plan | default (auto) | default / reference bytes | <= 1.02 | default / fastest time | <= 1.1 |\n'
printf '|---|---:|---:|---:|---:|---|---:|---|\n'
out=$(cd "$BUILD" && AP_SIMD=$LEVEL bench/bench_kernel_default --ms "$MS" "$@")
rc=$?
echo "$out" | awk -v level="$LEVEL" -v ms="$MS" '
  $2 == "refused" { printf "| %s | (run refuses the model) | | | | | | |\n", $1; next }
  $2 == "FAILED" { printf "| %s | FAILED: %s | | | | | | |\n", $1, substr($0, length($1) + 10); failed++; next }
  NF == 9 {
    rb = $5 / $2; rt = $7;
    bo = (rb <= 1.02) ? "yes" : "NO"; to = (rt <= 1.1) ? "yes" : "NO";
    same = ($8 == "same") ? " (same plan)" : "";
    printf "| %s | %d B | %d B, %.1f us | %d B, %.1f us | %.3f | %s | %.2f%s | %s |\n", $1, $2, $3, $4, $5, $6, rb, bo, rt, same, to
    if (bo == "yes" && to == "yes") held++; else failed++
  }
  END {
    printf "\nboth rules hold on %d models, fail on %d (LEVEL=%s, MS=%s a model, pairs of invokes in alternation)\n", held, failed, level, ms
  }'
exit $rc
