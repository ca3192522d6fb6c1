#!/bin/sh
# make demo: runs arenaplan on a model the project generates itself, so it needs no ../shared.
set -e
BUILD=${1:-build}
"$BUILD/arenaplan" --help
