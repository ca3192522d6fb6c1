#!/bin/sh
# make bench: runs the plan benchmark and writes bench/RESULTS.md (needs ../shared).
set -e
BUILD=${1:-build}
RUNS=${RUNS:-5}
OUT=bench/RESULTS.md
{
  echo "# arenaplan benchmark results"
  echo
  echo "Written by \`make bench\` (scripts/bench.sh: \`$BUILD/bench/bench_plan_bench $RUNS\`)"
  echo "on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores,"
  echo "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'),"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown). Times are wall-clock"
  echo "medians on a shared machine: expect noise (load average at the start:"
  echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); other processes share the 2 cores)."
  echo "Arenas are deterministic."
  echo
  "$BUILD/bench/bench_plan_bench" "$RUNS"
  echo
  echo "## Runtime: what a device provides, and invoke time"
  echo
  echo "\`$BUILD/bench/bench_runtime_bench 30\`. total = arena (rounded to 16) + persistent +"
  echo "tables (the interpreter itself): the exact size of a caller-owned buffer that works. TFLM"
  echo "columns: ../shared/bench/tflm_arena.tsv (plain_head, min_arena_plain_16). Inputs: the"
  echo "oracle's seed 1 (random bytes for the two models TFLite Micro cannot run)."
  echo
  "$BUILD/bench/bench_runtime_bench" 30
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "bench: wrote $OUT"
