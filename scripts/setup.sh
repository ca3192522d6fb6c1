#!/bin/sh
# Installs what a fresh Debian machine lacks for building and testing arenaplan, and says what.
# Needs root (or sudo) only when something is missing.
#   sh scripts/setup.sh --demo   only what `make demo` needs: a C compiler, make, CMake, Python
#   sh scripts/setup.sh [--test] everything `make test` needs (the default): the demo's set, then
#                                the test-only tools (flatc, Arm NN, chromium, clang, the Arm and
#                                AArch64 toolchains, QEMU, ...)
set -e
mode=test
case "${1:-}" in
  --demo) mode=demo ;;
  --test | "") mode=test ;;
  *) echo "usage: sh scripts/setup.sh [--demo|--test]" >&2; exit 2 ;;
esac
need=""
# --- the demo's set: build the library and CLI, generate the man page ---
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v python3 >/dev/null 2>&1 || need="$need python3"
if [ "$mode" = test ]; then
# --- the test-only set (make test, make fuzz, make test-mcu, make test-aarch64) ---
# flatc: an independent FlatBuffers reader the tests check our model reader against.
command -v flatc >/dev/null 2>&1 || need="$need flatbuffers-compiler"
# pkg-config: the install test builds a program against the installed arenaplan.pc.
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
# man: the man page test renders build/arenaplan.1 the way `man arenaplan` does.
command -v man >/dev/null 2>&1 || need="$need man-db"
# pytest (Debian's, for /usr/bin/python3): the Python binding's tests.
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need="$need python3-pytest"
# Arm NN (TfLite parser, CpuRef backend): a second engine tests/runtime/test_armnn.py checks
# our outputs against. Debian's package installs for /usr/bin/python3 only.
/usr/bin/python3 -c 'import pyarmnn' >/dev/null 2>&1 || need="$need python3-pyarmnn"
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need="$need python3-numpy"
# chromium: renders the HTML memory map in a test (headless; checks the page and a screenshot).
[ -x /usr/bin/chromium ] || need="$need chromium"
# clang and its libFuzzer runtime: the fuzz harnesses (make fuzz, make fuzz-ci).
command -v clang >/dev/null 2>&1 || need="$need clang"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
  need="$need libclang-rt-14-dev"
# The Cortex-M build and its firmware tests (make mcu, make test-mcu): Arm's bare-metal gcc,
# newlib, and QEMU's mps2-an386 / mps3-an547 boards.
command -v arm-none-eabi-gcc >/dev/null 2>&1 || need="$need gcc-arm-none-eabi"
[ -f /usr/lib/arm-none-eabi/newlib/libc.a ] || need="$need libnewlib-arm-none-eabi"
command -v qemu-system-arm >/dev/null 2>&1 || need="$need qemu-system-arm"
# The AArch64 Linux cross build and its tests under QEMU's user mode (make test-aarch64).
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu"
command -v qemu-aarch64 >/dev/null 2>&1 || need="$need qemu-user"
# The server (arenaplan serve, built when pkg-config finds these): HTTP, JSON, YAML; curl
# drives its tests.
pkg-config --exists libmicrohttpd 2>/dev/null || need="$need libmicrohttpd-dev"
pkg-config --exists jansson 2>/dev/null || need="$need libjansson-dev"
pkg-config --exists yaml-0.1 2>/dev/null || need="$need libyaml-dev"
command -v curl >/dev/null 2>&1 || need="$need curl"
# The server's load benchmark (bench/serve_load.sh): wrk, a load generator scripted in Lua.
command -v wrk >/dev/null 2>&1 || need="$need wrk"
fi
if [ -z "$need" ]; then
  echo "setup: all $mode dependencies present"
  exit 0
fi
echo "setup: installing Debian packages for make $mode:$need"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
# The demo's set with --no-install-recommends: recommends pull in documentation and desktop
# integration the build never uses (the test set keeps them: chromium's fonts draw the map).
rec=""
[ "$mode" = demo ] && rec="--no-install-recommends"
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $rec $need
