# Thin wrapper over CMake + Ninja. See README.md.
BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
TSAN_DIR  ?= build-tsan
FUZZ_DIR  ?= build-fuzz
# libFuzzer seconds per target: `make fuzz`, and the bounded run at the end of `make test`
# (0 there only replays the committed corpora).
FUZZ_SECONDS      ?= 300
FUZZ_TEST_SECONDS ?= 20
JOBS      ?= 2
PORT      ?= 6379

.PHONY: all build run test san asan asan-test tsan tsan-test fuzz bench deps clean

all: build

deps:
	@bash scripts/install-deps.sh

# Configure once (CMake re-runs itself when CMakeLists.txt changes), then build.
build:
	@test -f $(BUILD_DIR)/build.ninja || \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release
	ninja -C $(BUILD_DIR) -j$(JOBS)

run: deps build
	exec ./$(BUILD_DIR)/vireo-server --port $(PORT)

# Every test: Release and sanitizer builds, unit, integration, differential and fuzz tests; see
# scripts/test-all.sh for the order.
test: deps build
	BUILD_DIR=$(BUILD_DIR) FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) JOBS=$(JOBS) \
	  bash scripts/test-all.sh

# The sanitizer build: clang-14 with ASan + UBSan (alignment included, every report fatal) over
# everything, the libFuzzer targets included. One build serves the tests and the fuzzers.
san:
	@test -f $(FUZZ_DIR)/build.ninja || \
	  cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIREO_FUZZ=ON \
	    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
	ninja -C $(FUZZ_DIR) -j$(JOBS)

asan:
	@test -f $(ASAN_DIR)/build.ninja || \
	  cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIREO_SANITIZE=ON
	ninja -C $(ASAN_DIR) -j$(JOBS)

asan-test: deps asan
	cd $(ASAN_DIR) && ctest --output-on-failure -j$(JOBS)

# ThreadSanitizer build; tsan-test runs the integration suite on it with io-threads 4.
tsan:
	@test -f $(TSAN_DIR)/build.ninja || \
	  cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIREO_TSAN=ON
	ninja -C $(TSAN_DIR) -j$(JOBS)

tsan-test: deps tsan
	VIREO_SERVER=$(TSAN_DIR)/vireo-server VIREO_CLI=$(TSAN_DIR)/vireo-cli VIREO_IO_THREADS=4 \
	  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/integration

# Runs the tests/fuzz/ targets of the sanitizer build; see scripts/fuzz.sh.
fuzz: deps san
	FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) bash scripts/fuzz.sh

bench: deps build
	bench/compare

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)
