import pytest

import tessel


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(grid=(4, 4)) as d:
        yield d
