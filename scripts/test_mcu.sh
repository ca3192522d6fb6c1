#!/bin/sh
# make test-mcu: builds the firmware example (examples/firmware) for each model and board, runs
# it in qemu-system-arm, checks its outputs byte for byte against shared/oracle/tflm (seed 1),
# and writes the footprint to $MCU_BUILD/footprint.tsv.
#   scripts/test_mcu.sh HOST_BUILD MCU_BUILD SHARED_DIR
# Needs the host CLI (HOST_BUILD/arenaplan) and the libraries of `make mcu`.
set -eu
HOST=${1:-build}
MCU=${2:-build-mcu}
SHARED=${3:-../shared}
MODELS=${MCU_MODELS:-"hello_world_int8 micro_speech_int8 person_detect_int8 mlperf_kws_dscnn_int8"}
BOARDS=${MCU_BOARDS:-"mps2_an386:cortex-m4 mps3_an547:cortex-m55"}
# FW_KERNELS=all links every kernel (the registry as it is), else only the model's ops.
KERNELS=${FW_KERNELS:-model}
# FW_KERNEL_PATH: the conv family's kernels the registration links (scripts/mcu_kernels.py):
# fast (default; the reference conv rows are 15 KB), both, or reference (planned for them).
KPATH=${FW_KERNEL_PATH:-fast}
# FW_BUDGETS: a TSV of flash, RAM and instructions per model, core and kernels
# (scripts/mcu_budgets.tsv, which make test-mcu passes); a firmware over its row fails the run.
# FW_FAMILY: the DSP level's kernels the planned firmware runs: fast (default) or small (less
# flash, more instructions: the streamed, flash-tight build of the Makefile's second run).
FAMILY=${FW_FAMILY:-fast}
# The footprint's kernels column: what the firmware runs.
KCOL=$FAMILY
[ "$KPATH" = reference ] && KCOL=reference
PLANK=portable
[ "$KPATH" = reference ] && PLANK=reference
SRC=$(cd "$(dirname "$0")/.." && pwd)
FW=$SRC/examples/firmware
CLI=$HOST/arenaplan
# The strategy planning the arena, on the host (the header) and on the board (the same plan).
# greedy_size: on these four models the same arena as best, with less code and heap.
STRATEGY=${FW_STRATEGY:-greedy_size}
# FW_STREAM=1 plans streamed segments too: the smallest plan, with which person_detect on the
# M4 meets issue 18 (37,185 B of code + rodata, 26,836 B of RAM, 46.1 M instructions); the
# streaming runner and the fast row ranges cost 6.9 KB of flash over in place (30,236 B,
# 43,240 B), which stays the default.
STREAM=
[ "${FW_STREAM:-0}" = 1 ] && STREAM=--stream
# FW_PLAN=1 (default): the host plans (arenaplan header --plan) and the firmware places its
# interpreter from that plan (ap_interpreter_create_planned): no planner, graph, verifier or
# heap on the board. FW_PLAN=0: the board plans at allocate, as a host does.
PLAN=${FW_PLAN:-1}
# FW_MESSAGES=1 keeps the library's formatted error messages (the library must then be built
# with -DAP_MCU_MESSAGES=ON); by default a failure is its status and the status's name.
MSG=-DAP_NO_MESSAGES
[ "${FW_MESSAGES:-0}" = 1 ] && MSG=
for t in arm-none-eabi-gcc qemu-system-arm; do
  command -v $t >/dev/null 2>&1 || { echo "test-mcu: $t missing (make setup)"; exit 77; }
done
[ -x "$CLI" ] || { echo "test-mcu: $CLI missing (make all)"; exit 1; }

flags() {
  case $1 in
  cortex-m4) echo "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16" ;;
  cortex-m7) echo "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16" ;;
  cortex-m55) echo "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard" ;;
  esac
}
qemu_machine() { echo "$1" | tr _ -; }

# MCU_TAG names a second set of outputs (fw$MCU_TAG/, footprint$MCU_TAG.tsv) beside the first.
TAG=${MCU_TAG:-}
OUT=$MCU/fw$TAG
mkdir -p "$OUT"
TSV=$MCU/footprint$TAG.tsv
printf 'model\tcore\tkernels\tcode_bytes\trodata_bytes\tmodel_bytes\tdata_bytes\tbss_bytes\tbuffer_bytes\tstack_bytes\tinvoke_instructions\toutputs_match\n' >"$TSV"
fails=0
# The header, the model array and the op list: once per model, for every board.
# FW_TYPES: the tensor types whose fast kernels the registration links (the four models are
# int8 end to end).
TYPES=${FW_TYPES:-int8}
for m in $MODELS; do
  d=$OUT/$m
  mkdir -p "$d"
  # shellcheck disable=SC2086
  planarg=
  rm -f "$d/plan.c"
  [ "$PLAN" = 1 ] && planarg="--plan $d/plan.c --plan-kernels $PLANK"
  # shellcheck disable=SC2086
  "$CLI" header "$SHARED/models/$m.tflite" --prefix MODEL --inplace $STREAM --strategy "$STRATEGY" \
    --model-array "$d/model_data.c" --ops "$d/ops.txt" $planarg >"$d/model_arena.h"
  if [ "$KERNELS" = all ]; then cp "$SRC/src/kernels/registry.c" "$d/registry_model.c"
  else python3 "$SRC/scripts/mcu_kernels.py" "$d/ops.txt" "$SRC/src/kernels/registry.c" \
    "$d/registry_model.c" "$KPATH" "$TYPES" "$FAMILY"; fi
done
for b in $BOARDS; do
  board=${b%%:*}
  core=${b#*:}
  lib=$MCU/$core/libarenaplan.a
  [ -f "$lib" ] || { echo "test-mcu: $lib missing (make mcu)"; exit 1; }
  arch=$(flags "$core")
  cf="$arch -std=c11 -Os -ffunction-sections -fdata-sections -Wall -Wextra -Werror \
    -DAP_ERRMSG_MAX=128 $MSG -DAP_SCHEMA_NO_NAMES -include $SRC/cmake/arm-none-eabi-int32.h -I$SRC/include -I$SRC/src -I$FW -DAP_PORT_NONE"
  bd=$OUT/$board
  mkdir -p "$bd"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $cf -c "$FW/startup.c" -o "$bd/startup.o"
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $cf -c "$FW/board_$board.c" -o "$bd/board.o"
  for m in $MODELS; do
    d=$OUT/$m
    w=$bd/$m
    mkdir -p "$w"
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $cf -I"$d" -DFW_STRATEGY="\"$STRATEGY\"" -c "$FW/main.c" -o "$w/main.o"
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $cf -c "$d/model_data.c" -o "$w/model_data.o"
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $cf -c "$d/registry_model.c" -o "$w/registry.o"
    plan_o=
    if [ -f "$d/plan.c" ]; then
      # shellcheck disable=SC2086
      arm-none-eabi-gcc $cf -c "$d/plan.c" -o "$w/plan.o"
      plan_o=$w/plan.o
    fi
    # Only the strategy the header planned with (best is a portfolio of several).
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $cf -DAP_ONE_STRATEGY="ap_strategy_$STRATEGY" \
      -c "$SRC/src/plan/registry.c" -o "$w/strategies.o"
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $arch -nostartfiles --specs=nano.specs -Wl,--gc-sections -L"$FW" \
      -T"$FW/$board.ld" -Wl,-Map="$w/fw.map" "$bd/startup.o" "$bd/board.o" "$w/main.o" \
      "$w/model_data.o" "$w/registry.o" "$w/strategies.o" $plan_o "$lib" -lm -o "$w/fw.elf"
    # A single-precision core (the M4F: FW_NO_DOUBLE defaults to 1 there) must not link libgcc's
    # soft double (__aeabi_d*): a double operation in what the firmware links (issue 30).
    nodouble=${FW_NO_DOUBLE:-}
    [ -n "$nodouble" ] || { [ "$core" = cortex-m4 ] && nodouble=1 || nodouble=0; }
    dbl=$(arm-none-eabi-nm "$w/fw.elf" | grep -o ' __aeabi_d[a-z0-9]*$' | sort -u | tr -d ' ' | tr '\n' ' ')
    if [ "$nodouble" = 1 ] && [ -n "$dbl" ]; then
      echo "test-mcu: $m on $core links double-precision helpers: $dbl"
      fails=$((fails + 1))
    fi
    timeout 600 qemu-system-arm -M "$(qemu_machine "$board")" -nographic -monitor none \
      -serial none -semihosting-config enable=on,target=native -icount shift=0 \
      -kernel "$w/fw.elf" >"$w/run.txt" 2>&1 || true
    python3 "$SRC/scripts/mcu_footprint.py" "$m" "$core" "$KCOL" "$w/fw.elf" "$w/run.txt" \
      "$SHARED/oracle/tflm" >>"$TSV" || fails=$((fails + 1))
  done
done
# The price list: the first board's first model linked with every kernel (the registry as
# it is), flash per source file and layer from the map (MCU_PRICE=0: not made).
if [ "${MCU_PRICE:-1}" = 1 ]; then
b=${BOARDS%% *}
board=${b%%:*}
core=${b#*:}
m=${MODELS%% *}
w=$OUT/$board/$m
arch=$(flags "$core")
cf="$arch -std=c11 -Os -ffunction-sections -fdata-sections -Wall -Wextra -Werror \
  -DAP_ERRMSG_MAX=128 $MSG -DAP_SCHEMA_NO_NAMES -include $SRC/cmake/arm-none-eabi-int32.h -I$SRC/include -I$SRC/src -I$FW -DAP_PORT_NONE"
plan_o=
[ -f "$w/plan.o" ] && plan_o=$w/plan.o
# shellcheck disable=SC2086
arm-none-eabi-gcc $cf -c "$SRC/src/kernels/registry.c" -o "$w/registry_all.o"
# shellcheck disable=SC2086
arm-none-eabi-gcc $arch -nostartfiles --specs=nano.specs -Wl,--gc-sections -L"$FW" \
  -T"$FW/$board.ld" -Wl,-Map="$w/fw_all.map" "$OUT/$board/startup.o" "$OUT/$board/board.o" \
  "$w/main.o" "$w/model_data.o" "$w/registry_all.o" "$w/strategies.o" $plan_o "$MCU/$core/libarenaplan.a" \
  -lm -o "$w/fw_all.elf"
python3 "$SRC/scripts/mcu_kernel_cost.py" "$w/fw_all.map" "$SRC/src" >"$MCU/code_cost.tsv"
echo "test-mcu: flash per source file with every kernel linked ($core): $MCU/code_cost.tsv"
fi

column -t -s "$(printf '\t')" "$TSV" 2>/dev/null || cat "$TSV"
[ $fails -eq 0 ] || { echo "test-mcu: $fails firmware run(s) failed, differ from the oracle or passed a budget (FW_MAX_*, FW_BUDGETS)"; exit 1; }
echo "test-mcu: all outputs equal shared/oracle/tflm"
