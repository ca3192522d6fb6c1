#!/bin/sh
# make demo: runs arenaplan on a model the project generates itself, so it needs no ../shared.
set -e
BUILD=${1:-build}
MODEL="$BUILD/example.tflite"
run() {
  echo
  echo "\$ arenaplan $*"
  "$BUILD/arenaplan" "$@"
}

# A small float32 image classifier, written by arenaplan's own model writer.
run example -o "$MODEL"
# What it holds, the headline, the plan tensor by tensor, and every strategy side by side.
run info "$MODEL"
run "$MODEL"
run plan "$MODEL" --tensors
run compare "$MODEL"
# Run it in its planned arena, and explain where the bytes go (with an HTML memory map).
run run "$MODEL" --iterations 5
run report "$MODEL" --html "$BUILD/example.html"
