# The README's two commands: `make demo` and `make test`. Each sets up what is missing
# (Debian packages), configures, builds and runs. BUILD=dir picks another build directory.
BUILD ?= build
JOBS ?= $(shell nproc)
# WERROR=ON makes every warning an error (CI: .ci/run); off by default for users.
WERROR ?= OFF

.PHONY: setup configure build demo test test-full test-asan bench install clean lines fuzz \
        fuzz-smoke fuzz-build build-matrix

setup:
	@bash tools/setup-deps.sh

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMXJIT_WERROR=$(WERROR) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/mxjit demo

test: build
	@cd $(BUILD) && ctest --output-on-failure -j 1; rc=$$?; \
	 echo; echo "Criterion suites:"; grep -h "Synthesis" Testing/Temporary/LastTest.log; \
	 grep -h "Synthesis" Testing/Temporary/LastTest.log | \
	   sed -E 's/.*Passing: ([0-9]+) \| Failing: ([0-9]+) \| Crashing: ([0-9]+).*/\1 \2 \3/' | \
	   awk '{ p += $$1; f += $$2 + $$3 } END { printf "%d passed, %d failed\n", p, f }'; \
	 exit $$rc

# Exhaustive sweeps (not in CI): every legal parameter point of the kernel families on both
# targets against the host device (`make test` runs a seeded sample of them).
test-full: build
	@cd $(BUILD) && MXJIT_SWEEP_ALL=1 ./test_kernels --jobs $(JOBS) --filter '@(mxfp8_params|mxfp4_params)/*'

# The whole suite built with AddressSanitizer + UndefinedBehaviorSanitizer (C, C++ and the link)
# in its own build directory; a UBSan report stops the test that hit it. The Python binding's
# test loads the sanitized libmxjit.so into an uninstrumented python3: ASan preloaded, and
# no leak check of the interpreter's own allocations. tests/asan/lsan.supp: Criterion's own leak.
ASAN_BUILD ?= build-asan
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer
test-asan: setup
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	   -DCMAKE_C_FLAGS="$(SAN_FLAGS)" -DCMAKE_CXX_FLAGS="$(SAN_FLAGS)" \
	   -DCMAKE_EXE_LINKER_FLAGS="$(SAN_FLAGS)" -DCMAKE_SHARED_LINKER_FLAGS="$(SAN_FLAGS)" >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	   LSAN_OPTIONS=$${LSAN_OPTIONS-suppressions=$(CURDIR)/tests/asan/lsan.supp} && \
	   ctest --output-on-failure -j 1 -E '^python$$' && \
	   LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \
	   ctest --output-on-failure -j 1 -R '^python$$'

bench: build
	@cmake --build $(BUILD) --target bench

# libFuzzer targets (tests/fuzz/): built with clang-22 + ASan + UBSan in $(FUZZ_BUILD), each run
# for FUZZ_SECONDS (fuzz) or 3000 seeded executions each (fuzz-smoke, in CI: the same inputs
# every time) by tools/fuzz.sh.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz-build:
	@bash tools/setup-deps.sh fuzz
	@CC=clang-22 CXX=clang++-22 cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	   -DMXJIT_FUZZ=ON -DMXJIT_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) --target fuzz_all -j $(JOBS)

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tools/fuzz.sh $(FUZZ_BUILD)

fuzz-smoke: fuzz-build
	@FUZZ_RUNS=3000 bash tools/fuzz.sh $(FUZZ_BUILD)

# The library (libmxjit.so and everything in it) with -Werror in every build type with both
# compilers the project supports (gcc 12, clang 22): warnings that only an optimization level
# or one compiler shows (-Wmaybe-uninitialized at -O3) fail here, not in a user's build.
MATRIX_BUILD ?= build-matrix
build-matrix:
	@bash tools/setup-deps.sh fuzz
	@set -e; for cc in gcc clang-22; do for t in Release Debug RelWithDebInfo; do \
	   echo "build-matrix: $$cc $$t"; \
	   cxx=$$(echo $$cc | sed 's/gcc/g++/; s/clang/clang++/'); \
	   CC=$$cc CXX=$$cxx cmake -S . -B $(MATRIX_BUILD)/$$cc-$$t -DCMAKE_BUILD_TYPE=$$t \
	      -DMXJIT_WERROR=ON -DMXJIT_TESTS=OFF >/dev/null; \
	   cmake --build $(MATRIX_BUILD)/$$cc-$$t --target mxjit -j $(JOBS) >/dev/null; \
	 done; done; echo "build-matrix: all 6 builds are warning-free"

PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

lines:
	@git ls-files '*.c' '*.h' | xargs wc -l | sort -n | awk '$$2 != "total" && $$1 > 1500 { print "too long: " $$2; bad = 1 } END { exit bad }'

clean:
	@rm -rf $(BUILD)
