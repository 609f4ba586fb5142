# tessel front door.
#   make demo   install what is missing, build, run the main demo on a simulated Blackhole
#   make test   install what is missing, build, run every test
#   make bench  run the benchmarks
#   make test-sanitizers  run every test under ASan+UBSan, then under TSan
PRESET ?= default
BUILD := build/$(PRESET)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The project's Python environment: Debian's python3 + python3-venv, and the
# pinned PyPI packages of python/requirements.txt.
VENV := .venv
PY := $(CURDIR)/$(VENV)/bin/python
# The default and debug trees also build the Python extension (python/).
PYTHON_FLAGS := $(if $(filter default debug,$(PRESET)),-DTESSEL_PYTHON=ON -DPython_EXECUTABLE=$(PY))
PYTHONPATH_TREE := $(CURDIR)/python:$(CURDIR)/$(BUILD)/python

.PHONY: all bootstrap configure build demo test test-python test-asan test-tsan test-sanitizers bench clean

all: build

bootstrap:
	@scripts/bootstrap

$(VENV)/.installed: python/requirements.txt | bootstrap
	@test -x $(PY) || /usr/bin/python3 -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check -r python/requirements.txt
	@touch $@

$(BUILD)/build.ninja: CMakeLists.txt CMakePresets.json $(VENV)/.installed | bootstrap
	@cmake --preset $(PRESET) $(PYTHON_FLAGS) >/dev/null

configure: bootstrap $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tools/tessel run copy_multi_core

# ctest, then the generated-kernel checks (lit + FileCheck), then pytest:
# each must pass, and pytest's summary line comes last.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-python

test-python: build
	if [ -d tests/lit ]; then PATH=/usr/lib/llvm-14/bin:$$PATH PYTHONPATH=$(PYTHONPATH_TREE) $(CURDIR)/$(VENV)/bin/lit -q tests/lit; fi
	PYTHONPATH=$(PYTHONPATH_TREE) $(PY) -m pytest -q tests/python

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
	PYTHONPATH=$(PYTHONPATH_TREE) $(PY) -m tessel bench all

clean:
	rm -rf build $(VENV)
