"""tessel: a runtime and checking simulator for tile-based dataflow
accelerators (Tenstorrent Wormhole and Blackhole are the model).

    import tessel
    with tessel.Device.open(arch="blackhole") as device:
        ...
"""

import os
import pkgutil

# In a build tree the extension lives in the build directory's python/tessel;
# extend the package over every `tessel` directory on sys.path.
__path__ = pkgutil.extend_path(__path__, __name__)

__version__ = "0.1.0"

_here = os.path.dirname(os.path.abspath(__file__))
# An installed wheel carries the kernel headers and the examples' kernels.
if os.path.isfile(os.path.join(_here, "kernel", "include", "tessel", "kernel_prelude.h")):
    os.environ.setdefault("TESSEL_KERNEL_INCLUDE_DIR", os.path.join(_here, "kernel", "include"))
if os.path.isdir(os.path.join(_here, "examples")):
    os.environ.setdefault("TESSEL_EXAMPLES_DIR", os.path.join(_here, "examples"))
# ... and the runner X280 threads run in (tessel.dispatch: program.thread).
if os.path.isfile(os.path.join(_here, "tessel-x280-runner")):
    os.environ.setdefault("TESSEL_X280_RUNNER", os.path.join(_here, "tessel-x280-runner"))

from . import _tessel  # noqa: E402
from .errors import *  # noqa: E402,F401,F403
from .core import CoreCoord, CoreRange, CoreRangeSet  # noqa: E402
from .device import (  # noqa: E402
    Buffer,
    BufferType,
    CommandQueue,
    Device,
    Event,
    ShardSpec,
    TensorAccessorArgs,
    event_query,
    event_synchronize,
)
from .program import (  # noqa: E402
    NOC,
    CircularBufferConfig,
    ComputeConfig,
    DataFormat,
    DataMovementConfig,
    DataMovementProcessor,
    KernelBindings,
    MathFidelity,
    OptLevel,
    Program,
    ReaderDataMovementConfig,
    UnpackToDestMode,
    WriterDataMovementConfig,
)
from . import formats  # noqa: E402,F401
from .trace import TraceStats, trace_stats  # noqa: E402,F401
from .timing import RiscTiming, TimingReport  # noqa: E402,F401

# Ctrl-C stops a simulated run in progress (raising KeyboardInterrupt).
_tessel.install_interrupt_handler()
request_interrupt = _tessel.request_interrupt


def install_interrupt_handler():
    """Put tessel's SIGINT hook back in front of the current handler (call it
    after signal.signal(SIGINT, ...), which replaces it)."""
    _tessel.install_interrupt_handler()
