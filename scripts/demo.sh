#!/bin/sh
# make demo: runs arenaplan on a model the project generates itself, so it needs no ../shared.
set -e
BUILD=${1:-build}
MODEL="$BUILD/example.tflite"

# 1. A small float32 image classifier, written by arenaplan's own model writer.
"$BUILD/arenaplan" example -o "$MODEL"

# 2. What arenaplan can do with it.
# (The lead adds the model-reading subcommands here as they land, e.g.
#    "$BUILD/arenaplan" info "$MODEL"
#    "$BUILD/arenaplan" "$MODEL"            # the headline: arena, lower bound, weights, IO )
"$BUILD/arenaplan" --help
