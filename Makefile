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

.PHONY: all build run test asan asan-test tsan tsan-test fuzz bench deps clean

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

test: deps build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)
	FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) FUZZ_SEED=1 JOBS=$(JOBS) \
	  bash scripts/fuzz.sh

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

# clang build of the core with ASan + UBSan and the tests/fuzz/ targets; see scripts/fuzz.sh.
fuzz: deps
	FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) bash scripts/fuzz.sh

bench: deps build
	bench/compare

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR)
