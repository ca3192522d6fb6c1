#!/bin/sh
# make test-mcu: the DSP kernels' hand-worked cases (tests/kernels/test_fast_dsp.c, the host's
# ctest) built for each board's core and run in qemu-system-arm, where the kernels execute the
# DSP extension's instructions themselves instead of their C forms. Fails when a check fails or
# the run does not end.
#   scripts/test_mcu_kernels.sh MCU_BUILD
# Needs the libraries of `make mcu`; MCU_BOARDS as scripts/test_mcu.sh.
set -eu
MCU=${1:-build-mcu}
BOARDS=${MCU_BOARDS:-"mps2_an386:cortex-m4 mps3_an547:cortex-m55"}
SRC=$(cd "$(dirname "$0")/.." && pwd)
FW=$SRC/examples/firmware
for t in arm-none-eabi-gcc qemu-system-arm; do
  command -v $t >/dev/null 2>&1 || { echo "test-mcu-kernels: $t missing (make setup)"; exit 77; }
done
flags() {
  case $1 in
  cortex-m4) echo "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16" ;;
  cortex-m7) echo "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16" ;;
  cortex-m55) echo "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard" ;;
  esac
}
fails=0
for b in $BOARDS; do
  board=${b%%:*}
  core=${b#*:}
  lib=$MCU/$core/libarenaplan.a
  [ -f "$lib" ] || { echo "test-mcu-kernels: $lib missing (make mcu)"; exit 1; }
  arch=$(flags "$core")
  w=$MCU/kernels-test/$board
  mkdir -p "$w"
  cf="$arch -std=c11 -O2 -ffunction-sections -fdata-sections -Wall -Wextra -Werror \
    -DAP_ERRMSG_MAX=128 -DAP_NO_MESSAGES -DAP_SCHEMA_NO_NAMES -DAP_PORT_NONE -DAP_TEST_QEMU \
    -include $SRC/cmake/arm-none-eabi-int32.h -I$SRC/include -I$SRC/src -I$SRC/tests \
    -I$SRC/tests/kernels -I$FW"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $cf -c "$FW/startup.c" -o "$w/startup.o"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $cf -c "$SRC/tests/kernels/qemu_support.c" -o "$w/support.o"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $cf -c "$SRC/tests/kernels/test_fast_dsp.c" -o "$w/test.o"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $arch -nostartfiles --specs=nano.specs --specs=nosys.specs \
    -Wl,--gc-sections -L"$FW" -T"$FW/$board.ld" "$w/startup.o" "$w/support.o" "$w/test.o" \
    "$lib" -lm -o "$w/test.elf"
  st=0
  timeout 600 qemu-system-arm -M "$(echo "$board" | tr _ -)" -nographic -monitor none \
    -serial none -semihosting-config enable=on,target=native -kernel "$w/test.elf" \
    >"$w/run.txt" 2>&1 || st=$?
  if [ $st -ne 0 ] || ! grep -q " 0 failed" "$w/run.txt"; then
    echo "test-mcu-kernels: test_fast_dsp on $core ($board) failed:"
    cat "$w/run.txt"
    fails=$((fails + 1))
  else
    echo "test-mcu-kernels: test_fast_dsp on $core ($board): $(tail -n 1 "$w/run.txt")"
  fi
done
[ $fails -eq 0 ]
