import pytest

import tessel


@pytest.fixture(scope="module")
def device():
    """The whole Blackhole grid (12 x 10 cores, 8 DRAM banks)."""
    with tessel.Device.open(arch="blackhole") as d:
        yield d
