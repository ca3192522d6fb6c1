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

# What to try next: the README's tour, on the user's own model.
SHARED=${AP_SHARED:-../shared}
cat <<NEXT

Done: $BUILD/arenaplan is built; $BUILD/example.html is the memory map (open it in a browser).
Try next (arenaplan --help lists every command; arenaplan COMMAND --help shows one):
  $BUILD/arenaplan YOUR_MODEL.tflite                     will it fit? arena, lower bound, TFLite's
  $BUILD/arenaplan plan YOUR_MODEL.tflite --budget 256K  exit 1 when it does not fit in 256 KiB
  $BUILD/arenaplan tflm YOUR_MODEL.tflite                the kTensorArenaSize TFLite Micro needs
  $BUILD/arenaplan header YOUR_MODEL.tflite > arena.h    sizes for a firmware build
Then the tutorials: docs/README.md (fit a model on a microcontroller, deploy a detection model,
serve several models). make test installs the test tools and runs the whole suite.
NEXT
if [ -d "$SHARED/models" ]; then
  echo "Real models to try them on: $SHARED/models/*.tflite"
fi
