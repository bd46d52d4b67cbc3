# Thin wrapper over CMake + Ninja. See README.md.
BUILD_DIR ?= build
ASAN_DIR  ?= build-asan
JOBS      ?= 2
PORT      ?= 6379

.PHONY: all build run test asan asan-test bench deps clean

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

asan:
	@test -f $(ASAN_DIR)/build.ninja || \
	  cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIREO_SANITIZE=ON
	ninja -C $(ASAN_DIR) -j$(JOBS)

asan-test: deps asan
	cd $(ASAN_DIR) && ctest --output-on-failure -j$(JOBS)

bench: deps build
	bench/compare

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
