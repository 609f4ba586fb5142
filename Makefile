# tessel front door.
#   make demo   install what is missing, build, run the main demo on a simulated Blackhole
#   make test   install what is missing, build, run every test
#   make bench  run the benchmarks
#   make test-sanitizers  run every test under ASan+UBSan, then under TSan
PRESET ?= default
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all bootstrap configure build demo test test-asan test-tsan test-sanitizers bench clean

all: build

bootstrap:
	@scripts/bootstrap

$(BUILD)/build.ninja: CMakeLists.txt CMakePresets.json | bootstrap
	@cmake --preset $(PRESET) >/dev/null

configure: bootstrap $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tools/tessel run copy_multi_core

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The suite under the sanitizers, each in its own build tree (build/asan, build/tsan).
test-asan: bootstrap
	@cmake --preset asan >/dev/null
	@cmake --build build/asan -j $(JOBS)
	ctest --test-dir build/asan --output-on-failure -j $(JOBS) --timeout 900

test-tsan: bootstrap
	@cmake --preset tsan >/dev/null
	@cmake --build build/tsan -j $(JOBS)
	ctest --test-dir build/tsan --output-on-failure -j $(JOBS) --timeout 900

test-sanitizers: test-asan test-tsan

bench: build
	$(BUILD)/tools/tessel bench all

clean:
	rm -rf build
