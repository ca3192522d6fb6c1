#!/bin/sh
# make bench: runs the plan and runtime benchmarks and writes bench/RESULTS.md (needs ../shared).
#   sh scripts/bench.sh [BUILD]            everything
#   ONLY=run sh scripts/bench.sh [BUILD]   only the runtime section: the plan sections already
#                                          in bench/RESULTS.md are kept as they are
#   ONLY=kernels sh scripts/bench.sh [BUILD]  only the fast kernels' section, likewise
#   ONLY=overhead sh scripts/bench.sh [BUILD] only the per-op overhead section, likewise
#   ONLY=xnnpack sh scripts/bench.sh [BUILD]  only issue 29's speed table (bench/xnnpack_gap.sh)
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
kernels() {
  echo "## Fast kernels against the reference kernels"
  echo
  echo "\`$BUILD/bench/bench_kernels_bench $KERNEL_INVOKES\`: per model, median invoke of the reference"
  echo "kernels (\`--kernels reference\`), the fast ones (the SIMD level this CPU has) on 1 and on 2"
  echo "threads, measured interleaved in one run (each round invokes all three, in rotating order);"
  echo "GMAC/s counts CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED multiply-adds; same bytes: the"
  echo "three gave identical outputs (the oracle tests check TFLite Micro's bytes at every level and"
  echo "thread count). On a shared, loaded machine a second thread waits for a core: see the load."
  echo "In that rotation each 2-thread invoke starts with its workers asleep and its maps out of"
  echo "cache; the \"back to back\" columns time the fast kernels on 1 and 2 threads as TFLite's"
  echo "benchmark_model does (a warm-up invoke, then invokes in a row), in alternating blocks of 5."
  echo "Builtin ops are prepared once (\`ap_interpreter_options.prepare\` = AP_PREPARE_ONCE): the"
  echo "times are the kernels', not their prepare's."
  echo
  "$BUILD/bench/bench_kernels_bench" "$KERNEL_INVOKES"
  echo
  echo "(fast kernels section: $(date -u '+%Y-%m-%d %H:%M UTC'), commit"
  echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown), load average"
  echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at its end.)"
}
overhead() {
  echo "## Per-op overhead: prepared at each invoke or once"
  echo
  echo "\`$BUILD/bench/bench_overhead_bench $OVERHEAD_ROUNDS\`: per model, CPU microseconds of one invoke"
  echo "(the calling thread's CPU time, median over rounds of a batch's mean; the four interpreters"
  echo "interleaved) with builtin ops prepared before every eval (\`ap_interpreter_options.prepare\`"
  echo "= AP_PREPARE_EACH_INVOKE, the default) and prepared once in allocate (AP_PREPARE_ONCE), for"
  echo "the reference and the fast kernels on one thread. kept bytes: what preparing once adds to"
  echo "the memory total (persistent: each op's parameters and tensor views; tables: a pointer per"
  echo "op)."
  echo
  "$BUILD/bench/bench_overhead_bench" "$OVERHEAD_ROUNDS"
  echo
  echo "(overhead section: $(date -u '+%Y-%m-%d %H:%M UTC'), commit"
  echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown), load average"
  echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at its end.)"
}
xnnpack() {
  echo "## Against XNNPACK's speed-ups (issue 29's table)"
  echo
  echo "\`BUILD=$BUILD bench/xnnpack_gap.sh\` (MS=${MS_XNN:-3000}): per model, the reference kernels and the"
  echo "default kernels at the avx2 level (AP_SIMD=avx2) on 1 and 2 threads (in place, builtin ops"
  echo "prepared once), three interpreters side by side timed in alternating pairs: a reference"
  echo "invoke beside a block of 9 one-thread invokes (speed-up: the reference's CPU time over the"
  echo "block's median), a block on one thread beside a block on two (2 / 1: the medians' ratio);"
  echo "each figure the median of its pairs' ratios over about MS ms. XNNPACK and issue: the"
  echo "issue's figures (TFLite with XNNPACK, and ours when it was filed). The 2-thread target"
  echo "applies to models of 150 us or more."
  echo
  BUILD="$BUILD" MS="${MS_XNN:-3000}" sh bench/xnnpack_gap.sh
  echo
  echo "(XNNPACK section: $(date -u '+%Y-%m-%d %H:%M UTC'), commit"
  echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown), load average"
  echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at its end.)"
}
# The file without section $1 (from its heading to the next "## " heading).
without() {
  awk -v h="$1" 'index($0, h) == 1 { skip = 1; next } /^## / { skip = 0 } !skip' "$OUT"
}
KERNEL_INVOKES=${KERNEL_INVOKES:-20}
OVERHEAD_ROUNDS=${OVERHEAD_ROUNDS:-101}
if [ "$ONLY" = run ] && [ -f "$OUT" ]; then
  {
    without "## Runtime: "
    echo
    runtime
  } > "$OUT.tmp"
elif [ "$ONLY" = overhead ] && [ -f "$OUT" ]; then
  {
    without "## Per-op overhead"
    echo
    overhead
  } > "$OUT.tmp"
elif [ "$ONLY" = xnnpack ] && [ -f "$OUT" ]; then
  {
    without "## Against XNNPACK"
    echo
    xnnpack
  } > "$OUT.tmp"
elif [ "$ONLY" = kernels ] && [ -f "$OUT" ]; then
  {
    without "## Fast kernels "
    echo
    kernels
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
    echo
    kernels
    echo
    overhead
    echo
    xnnpack
  } > "$OUT.tmp"
fi
mv "$OUT.tmp" "$OUT"
echo "bench: wrote $OUT"
