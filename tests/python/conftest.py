import faulthandler
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The kernels the tests compile share the C++ tests' cache.
os.environ.setdefault("TESSEL_CACHE_DIR", str(ROOT / "build" / "kernel-cache"))

import tessel  # noqa: E402

# No test may hang the run: one that takes this long dumps every thread's
# stack and ends the process.
TEST_TIMEOUT_S = 120


@pytest.fixture(autouse=True)
def _timeout():
    """Every test has a timeout: a hung test dumps its stacks and ends the run."""
    faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(grid=(4, 4)) as d:
        yield d


@pytest.fixture
def root():
    return ROOT
