"""tessel.dispatch: persistent-kernel dispatch on a simulated card (spec:
persistent-dispatch-host-api). A program's reader, compute and writer
kernels are loaded onto every core once; a dispatcher playing the card's X280
cluster 0 feeds them commands (handler + core group + up to ten args) and
completions come back as events.

    import tessel.dispatch as km
    with km.Session() as session:
        run = session.load(program)
        handles = [run.submit("map", group=(job * 8, 8), args=[...]) for job in range(15)]
        run.wait(handles, timeout=5.0)
        run.stop()
        trace = run.trace()

See docs/dispatch.md.
"""

from . import abi, formats, layout  # noqa: F401
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _errors_all
from .abi import HeaderError  # noqa: F401
from .program import Buffer, KernelSizes, Program  # noqa: F401
from .run import Event, Result, Run, Trace  # noqa: F401
from .session import Session  # noqa: F401
from .tensor import Tensor  # noqa: F401

__all__ = ["Session", "Program", "Buffer", "Tensor", "Run", "Event", "Result", "Trace", "KernelSizes", "abi",
           "formats", "layout", "HeaderError"] + list(_errors_all)
