import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The kernels the tests compile share the C++ tests' cache.
os.environ.setdefault("TESSEL_CACHE_DIR", str(ROOT / "build" / "kernel-cache"))

import tessel  # noqa: E402


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(grid=(4, 4)) as d:
        yield d


@pytest.fixture
def root():
    return ROOT
