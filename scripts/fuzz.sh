#!/bin/sh
# Runs the libFuzzer harnesses of fuzz/ one after the other, each for SECONDS, at the lowest
# CPU priority and as a single process (the machine is shared). Exits non-zero when a harness
# finds a crash, a sanitizer report or a leak; the input is kept as BUILD/crashes/NAME-crash-*.
#
#   sh scripts/fuzz.sh BUILD SECONDS [HARNESS...]     (default: every fuzz_* in BUILD)
#
# Corpora live in BUILD/corpus/HARNESS (kept between runs, never committed); seeds are copied
# at run time from ../shared: models for fuzz_model and fuzz_run, the MiniMalloc benchmark and
# TFLite Micro's planner inputs for fuzz_csv, two string buffers for fuzz_strings and
# fuzz_c_api_strings; fuzz_ops
# starts from nothing (its input is a recipe, not a file). Each run's log is BUILD/logs/HARNESS.log; its
# last lines (cov, ft, corpus size, executions) are printed.
set -eu
build=${1:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
seconds=${2:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
# libFuzzer's -timeout is wall-clock: at nice 19 on a machine busy with builds, an input that
# takes 1 s alone can take 30 (two runs of 2026-11-30 stopped on such "timeouts"; each input
# ran in about 1 s when replayed). Long runs on a shared machine set FUZZ_TIMEOUT higher.
timeout=${FUZZ_TIMEOUT:-25}
# allocator_may_return_null: a request malloc cannot meet returns NULL, as it does without ASan
# (whose default aborts): the library must then fail with a message, which the harnesses check.
# fuzz_ops found one (a data-dependent shape asking 34 GB of the dynamic region, 2026-11-30).
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
shared=${AP_SHARED_DIR:-$src/../shared}
build=$(cd "$build" && pwd)
harnesses=${*:-$(cd "$build" && ls fuzz_* 2>/dev/null | grep -v '\.' || true)}
[ -n "$harnesses" ] || { echo "fuzz: no harness in $build" >&2; exit 2; }
mkdir -p "$build/logs" "$build/crashes"

seed() { # seed HARNESS: fills BUILD/seeds/HARNESS from ../shared
  dir="$build/seeds/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  [ -d "$shared" ] || { echo "fuzz: $shared absent: no seeds" >&2; return 0; }
  case $1 in
  fuzz_ops) ;;
  # fuzz_flexbuf: two hand-laid blobs, the map {"a": 5} and the int vector [1, 2] (width 1);
  # flexbuf.dict holds the keys custom ops read.
  fuzz_flexbuf)
    printf '\141\000\001\003\001\001\001\005\004\002\044\001' >"$dir/map"
    printf '\002\001\002\002\054\001' >"$dir/vector" ;;
  # fuzz_serve_request: a JSON request and a binary one (first 3 bytes: the header-length
  # switch and value, see the harness); fuzz_serve_config: a configuration.
  fuzz_serve_request)
    printf '\000\000\000{"id":"a","inputs":[{"name":"input","datatype":"UINT8","shape":[1,4],"data":[[1,2,3,4]]},{"name":"x","datatype":"FP32","shape":[2],"data":[0.5,-1e3]}],"outputs":[{"name":"out","parameters":{"binary_data":true}}]}' >"$dir/json"
    printf '\001\000\213{"inputs":[{"name":"input","datatype":"UINT8","shape":[1,4],"parameters":{"binary_data_size":4}}],"parameters":{"binary_data_output":true}}\001\002\003\004' >"$dir/binary" ;;
  fuzz_serve_config)
    printf 'listen: 127.0.0.1\nport: 0\nbudget: 1.5M\nmax_body: 64K\nrequest_timeout: 250ms\nidle_timeout: never\nmodels:\n  - name: kws\n    model: kws.tflite\n    threads: 2\n    pinned: true\n    kernels: small\n    prepare: once\n' >"$dir/config" ;;
  # fuzz_strings and fuzz_c_api_strings: two hand-laid string buffers, ["a", "bc", ""] and
  # ["x", "x"] (a duplicate key for fuzz_strings' hash table).
  fuzz_strings | fuzz_c_api_strings)
    printf '\003\000\000\000\024\000\000\000\025\000\000\000\027\000\000\000\027\000\000\000abc' >"$dir/three"
    printf '\002\000\000\000\020\000\000\000\021\000\000\000\022\000\000\000xx' >"$dir/twice" ;;
  # fuzz_cgroup: /proc/self/cgroup of a hybrid v1/v2 system (the server's default budget).
  fuzz_cgroup) printf '0::/user.slice/a\n4:memory:/docker/x\n7:cpu,memory:/\n' >"$dir/cgroup" ;;
  fuzz_csv) find "$shared/bench/minimalloc" "$shared/bench/tflm_plans" -name '*.csv' \
              -exec cp {} "$dir/" \; 2>/dev/null || true ;;
  # Seeds over 1 MiB make every mutation slow (each input plans thousands of requests).
  *) find "$shared/models" -name '*.tflite' -size -1024k -exec cp {} "$dir/" \; ;;
  esac
}

status=0
for h in $harnesses; do
  seed "$h"
  mkdir -p "$build/corpus/$h"
  dict=""
  case $h in
  fuzz_csv) dict="-dict=$src/fuzz/csv.dict" ;;
  fuzz_ops | fuzz_strings | fuzz_c_api_strings | fuzz_cgroup) dict="" ;;
  fuzz_flexbuf) dict="-dict=$src/fuzz/flexbuf.dict" ;;
  fuzz_serve_*) dict="-dict=$src/fuzz/serve.dict" ;;
  *) dict="-dict=$src/fuzz/tflite.dict" ;;
  esac
  log="$build/logs/$h.log"
  echo "fuzz: $h for ${seconds}s (log: $log)"
  # -jobs=1 -workers=1: one fuzzing process; libFuzzer then writes its output to fuzz-0.log
  # in the current directory, so run inside the logs folder.
  rc=0
  (cd "$build/logs" && rm -f fuzz-0.log &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n 19 "$build/$h" -jobs=1 -workers=1 -max_total_time="$seconds" -timeout="$timeout" \
      -rss_limit_mb=2048 -print_final_stats=1 $dict \
      -artifact_prefix="$build/crashes/$h-" "$build/corpus/$h" "$build/seeds/$h" \
      >/dev/null 2>&1) || rc=$?
  mv -f "$build/logs/fuzz-0.log" "$log" 2>/dev/null || true
  grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
  echo "fuzz: $h corpus: $(ls "$build/corpus/$h" | wc -l) inputs"
  if [ "$rc" != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^fuzz: ' "$log"; then
    echo "fuzz: $h FAILED (exit $rc); the report:" >&2
    grep -E -A12 'ERROR: |runtime error:|^fuzz: ' "$log" | head -n 40 >&2 || true
    ls "$build/crashes" | grep "^$h-" >&2 || true
    status=1
  fi
done
exit $status
