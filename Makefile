# The README's two commands: `make demo` and `make test`. Plain `make` builds into build/.
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
# The tests with threads, run again under ThreadSanitizer (only these are built there).
TSAN_TESTS ?= pool_test_pool_threads pool_test_pool pool_test_pool_admission runtime_test_interpreter_threads \
	runtime_test_fast_threads kernels_test_fast_kernels cli_test_stress_soak \
	kernels_test_fast_conv_win kernels_test_fast_transpose kernels_test_fast_mean runtime_test_profile
# Script tests run there too (against the TSan build's CLI): the server's clients and signals.
TSAN_SCRIPT_TESTS ?= serve_test_serve_clients_py
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
AP_SHARED ?= ../shared
PREFIX ?= /usr/local

.PHONY: mcu test-mcu test-aarch64 all setup setup-demo demo test test-fast test-asan test-tsan bench clean format install fuzz fuzz-build fuzz-ci

all: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

$(ASAN_BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(ASAN_BUILD) -DAP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)

$(TSAN_BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(TSAN_BUILD) -DAP_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

# setup: everything make test needs; setup-demo: only what make demo needs (compiler, CMake,
# Python), so a new user's first command downloads tens of MB, not the test toolchains.
setup:
	sh scripts/setup.sh --test

setup-demo:
	sh scripts/setup.sh --demo

# The freestanding library for Cortex-M (cmake/arm-none-eabi.cmake), one build per core in
# build-mcu/<core>/ (libarenaplan.a, -Os, no files/threads/clock).
MCU_BUILD ?= build-mcu
MCU_CORES ?= cortex-m4 cortex-m7 cortex-m55

mcu:
	@for c in $(MCU_CORES); do \
	  [ -f $(MCU_BUILD)/$$c/Makefile ] || cmake -S . -B $(MCU_BUILD)/$$c \
	    -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DAP_MCU_CPU=$$c $(CMAKE_FLAGS) || exit 1; \
	  cmake --build $(MCU_BUILD)/$$c -j $(JOBS) || exit 1; \
	done

# The firmware example in QEMU (mps2-an386 Cortex-M4, mps3-an547 Cortex-M55): four models,
# outputs checked byte for byte against ../shared/oracle/tflm, $(MCU_BUILD)/footprint.tsv, each
# held to its flash, RAM and instructions in scripts/mcu_budgets.tsv; the DSP kernels'
# hand-worked cases (tests/kernels/test_fast_dsp.c) on both cores; the fast rows of the README's
# and docs/reference/footprint.md's tables checked against footprint.tsv (mcu_docs_check.py). The
# float firmware on the M4F (hello_world_float, magic_wand_float, float kernels only), byte for
# byte too; every M4 firmware fails when it links libgcc's double-precision helpers (__aeabi_d*,
# nm on the ELF).
# Then issue 18's figure: person_detect on the M4 with the smallest plan (streamed, in place)
# and the small kernel family (FW_FAMILY=small), failing when its flash, RAM or instructions per
# invoke pass TFLite Micro's reference build's (37,352 B; 0.6 x 84,544 B; 95.7 M).
test-mcu: all mcu
	FW_BUDGETS=scripts/mcu_budgets.tsv sh scripts/test_mcu.sh $(BUILD) $(MCU_BUILD) $(AP_SHARED)
	sh scripts/test_mcu_kernels.sh $(MCU_BUILD)
	MCU_MODELS="hello_world_float magic_wand_float" FW_TYPES=float FW_KERNEL_PATH=both \
	  MCU_TAG=-float MCU_PRICE=0 MCU_BOARDS=mps2_an386:cortex-m4 \
	  sh scripts/test_mcu.sh $(BUILD) $(MCU_BUILD) $(AP_SHARED)
	FW_STREAM=1 FW_FAMILY=small MCU_TAG=-stream MCU_PRICE=0 MCU_BOARDS=mps2_an386:cortex-m4 \
	  MCU_MODELS=person_detect_int8 FW_MAX_FLASH=37352 FW_MAX_RAM=50726 \
	  FW_MAX_INSTRUCTIONS=95700000 sh scripts/test_mcu.sh $(BUILD) $(MCU_BUILD) $(AP_SHARED)
	python3 scripts/mcu_docs_check.py $(MCU_BUILD)/footprint.tsv .

# The library and the tests below cross-built for AArch64 Linux (cmake/aarch64-linux-gnu.cmake,
# build-aarch64/) and run under qemu-aarch64 (-cpu max: NEON and the dot product): the fast
# kernels against the reference (every AArch64 level, 1-3 threads; stream row ranges too), the
# NEON lanes and kernels on edge values, expm1f, and both oracles with the reference kernels and
# at the generic, neon and neondot levels with 1, 2 and 3 threads (runtime_test_oracle_fast runs
# them), byte for byte as on x86-64.
AARCH64_BUILD ?= build-aarch64
AARCH64_TESTS ?= kernels_test_fast_kernels kernels_test_fast_neon kernels_test_expm1f \
	kernels_test_fast_conv_win kernels_test_stream_fast_rows kernels_test_fast_u8 \
	kernels_test_fast_16x8 kernels_test_fast_pool kernels_test_fast_float kernels_test_fast_bmm \
	runtime_test_oracle_fast
AARCH64_TARGETS ?= $(AARCH64_TESTS) runtime_test_oracle runtime_test_oracle_ops
test-aarch64:
	# Configured every time (2 s): the tests are globbed, and --target needs them known.
	cmake -S . -B $(AARCH64_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
	  $(CMAKE_FLAGS) >/dev/null
	cmake --build $(AARCH64_BUILD) -j $(JOBS) --target $(AARCH64_TARGETS)
	cd $(AARCH64_BUILD) && ctest --output-on-failure -j $(JOBS) \
	  -R '^($(shell echo $(AARCH64_TESTS) | tr ' ' '|'))$$'
	# The model oracle streamed (row ranges of the neondot kernels), and both oracle tests on a
	# core without the dot product (Cortex-A72: the neon level is chosen, an SDOT would trap).
	cd $(AARCH64_BUILD) && AP_TEST_STREAM=1 qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu \
	  tests/runtime_test_oracle > /dev/null
	cd $(AARCH64_BUILD) && for t in runtime_test_oracle runtime_test_oracle_ops; do \
	  qemu-aarch64 -cpu cortex-a72 -L /usr/aarch64-linux-gnu tests/$$t > /dev/null || exit 1; done

# Only the CLI is built (not the tests and benchmarks): the demo runs it, nothing else.
demo: setup-demo
	$(MAKE) $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS) --target arenaplan
	sh scripts/demo.sh $(BUILD)

# The whole suite, then again under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# threaded tests under ThreadSanitizer; then test-mcu where the Arm toolchain and QEMU are
# installed (make setup installs them; checked when the recipe runs, after setup).
test: setup test-fast test-asan test-tsan
	@if command -v arm-none-eabi-gcc >/dev/null 2>&1 && command -v qemu-system-arm >/dev/null 2>&1; \
	then $(MAKE) test-mcu; else echo "test: no arm-none-eabi-gcc/qemu-system-arm: test-mcu skipped"; fi
	@if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1; \
	then $(MAKE) test-aarch64; else echo "test: no aarch64-linux-gnu-gcc/qemu-aarch64: test-aarch64 skipped"; fi

test-fast: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: $(ASAN_BUILD)/Makefile
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

# halt_on_error: any data race fails the test (exit 66), not just a report in the log.
test-tsan: $(TSAN_BUILD)/Makefile
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TESTS) arenaplan
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		ctest --output-on-failure -j $(JOBS) \
		-R '^($(shell echo $(TSAN_TESTS) $(TSAN_SCRIPT_TESTS) | tr ' ' '|'))$$'

# Headers, libarenaplan.a and .so, the CLI, arenaplan.pc and the CMake package under PREFIX.
install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

# libFuzzer harnesses (fuzz/): clang with -fsanitize=fuzzer,address,undefined in build-fuzz/.
# `make fuzz` runs each for FUZZ_SECONDS, one after the other, under nice; CI runs each 30 s.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang

$(FUZZ_BUILD)/Makefile: CMakeLists.txt
	CC=$(FUZZ_CC) cmake -S . -B $(FUZZ_BUILD) -DAP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

fuzz-build: $(FUZZ_BUILD)/Makefile
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: fuzz-build
	sh scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# CI's 30 s per harness: an input slower than 120 s wall-clock fails (the default 25 s can
# trip on a loaded machine, where an input that takes 1 s alone took 30).
fuzz-ci: fuzz-build
	FUZZ_TIMEOUT=120 sh scripts/fuzz.sh $(FUZZ_BUILD) 30

bench: all
	sh scripts/bench.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) $(MCU_BUILD)
