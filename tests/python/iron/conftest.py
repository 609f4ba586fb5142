import pytest

import tessel


@pytest.fixture(scope="module")
def close_named_devices():
    """The devices IRON names open stay open for the process; close them after the module using this."""
    yield
    from tessel.iron.device import close_named_devices

    close_named_devices()


@pytest.fixture
def bound():
    """IRON's `aie` module names bound to tessel's for one test (tessel.iron.run's aliases)."""
    from tessel.iron.run import aliases

    aliases.bind()
    try:
        yield
    finally:
        aliases.unbind()


@pytest.fixture(scope="module")
def device():
    with tessel.Device.open(grid=(4, 4)) as d:
        yield d
