# tessel front door.
#   make demo   install what is missing, build, run the main demo on a simulated Blackhole
#   make test   install what is missing, build, run every test
#   make bench  run the benchmarks
PRESET ?= default
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all bootstrap configure build demo test bench clean

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

bench: build
	$(BUILD)/tools/tessel bench all

clean:
	rm -rf build
