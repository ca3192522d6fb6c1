#!/bin/sh
# make bench: runs the plan and runtime benchmarks and writes bench/RESULTS.md (needs ../shared).
#   sh scripts/bench.sh [BUILD]            everything
#   ONLY=run sh scripts/bench.sh [BUILD]   only the runtime section: the plan sections already
#                                          in bench/RESULTS.md are kept as they are
set -e
BUILD=${1:-build}
RUNS=${RUNS:-5}
INVOKES=${INVOKES:-30}
OUT=bench/RESULTS.md
header() {
  echo "# arenaplan benchmark results"
  echo
  echo "Written by \`make bench\` (scripts/bench.sh: \`$BUILD/bench/bench_plan_bench $RUNS\`, \`$BUILD/bench/bench_model_bench $RUNS\`)"
  echo "on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores,"
  echo "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'),"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown). Times are wall-clock"
  echo "medians on a shared machine: expect noise (load average at the start:"
  echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); other processes share the 2 cores)."
  echo "Arenas are deterministic."
  echo
}
runtime() {
  echo "## Runtime: what a device provides, and invoke time"
  echo
  echo "\`$BUILD/bench/bench_runtime_bench $INVOKES\`, every shared model. total = arena (rounded to 16) +"
  echo "persistent + tables (the interpreter itself): the exact size of a caller-owned buffer that"
  echo "works; total in-place: the same with \`ap_interpreter_options.inplace\`. TFLM columns:"
  echo "../shared/bench/tflm_arena.tsv (plain_head, min_arena_plain_16). Inputs: the oracle's seed 1"
  echo "(models without oracle data: random bytes, floats 0.25). Invoke times are without in-place."
  echo
  "$BUILD/bench/bench_runtime_bench" "$INVOKES"
  echo
  echo "(runtime section: $(date -u '+%Y-%m-%d %H:%M UTC'), commit"
  echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown), load average"
  echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at its end.)"
}
if [ "$ONLY" = run ] && [ -f "$OUT" ]; then
  {
    sed '/^## Runtime: /,$d' "$OUT"
    runtime
  } > "$OUT.tmp"
else
  {
    header
    "$BUILD/bench/bench_plan_bench" "$RUNS"
    "$BUILD/bench/bench_model_bench" "$RUNS"
    "$BUILD/bench/bench_exact_bench" --budget "${EXACT_BUDGET:-60}"
    echo
    "$BUILD/bench/bench_reorder_bench"
    echo
    runtime
  } > "$OUT.tmp"
fi
mv "$OUT.tmp" "$OUT"
echo "bench: wrote $OUT"
