"""ttl.Semaphore (TT-Lang spec, "Semaphore"): a 32-bit counter on every node
of the operation, which data-movement kernels wait on (wait_eq, wait_ge),
set or increment locally, and set or increment on other nodes through handles
(get_remote(node), get_remote_multicast(range)).

    barrier = ttl.Semaphore()
    to_root = barrier.get_remote((0, 0))

    @ttl.datamovement()
    def dm():
        if ttl.node(dims=1) == 0:
            barrier.wait_eq(3)
        else:
            to_root.inc(1)

Each Semaphore is an operation-owned semaphore (ids in creation order,
before the pipes'); the compiler (compiler_calls.py) lowers the calls to
noc_semaphore_wait / _set / _inc and, for a remote set, a NoC write of the
value from a word of the node's own.
"""

from .. import _check
from .extern import current_trace
from .pipes import _coord, _range

__all__ = ["RemoteSemaphore", "Semaphore"]


def _kernel_only(what):
    return RuntimeError(f"{what} runs only inside a data-movement kernel function; tessel compiles kernel "
                        "functions to C++ and never calls them in Python")


class Semaphore:
    """A counter on every node, starting at `initial`."""

    def __init__(self, initial=0):
        self.initial = _check.integer(initial, "ttl.Semaphore: initial", 0, _check.WORD_MAX, "a 32-bit unsigned value")
        trace = current_trace("ttl.Semaphore")
        self.index = len(trace.semaphores)
        trace.semaphores.append(self)

    def get_remote(self, node):
        """A handle on this semaphore of node `node` (set, inc)."""
        return RemoteSemaphore(self, _coord(node, "Semaphore.get_remote: node"), False)

    def get_remote_multicast(self, nodes):
        """A handle on this semaphore of every node of the range `nodes` (set)."""
        return RemoteSemaphore(self, _range(nodes, "Semaphore.get_remote_multicast: nodes"), True)

    def wait_eq(self, value):
        raise _kernel_only("Semaphore.wait_eq")

    def wait_ge(self, value):
        raise _kernel_only("Semaphore.wait_ge")

    def set(self, value):
        raise _kernel_only("Semaphore.set")

    def inc(self, value=1):
        raise _kernel_only("Semaphore.inc")

    def __repr__(self):
        return f"ttl.Semaphore(initial={self.initial})"


class RemoteSemaphore:
    """A semaphore on another node (or every node of a range)."""

    def __init__(self, semaphore, nodes, multicast):
        self.semaphore = semaphore
        self.nodes = nodes
        self.multicast = multicast

    def set(self, value):
        raise _kernel_only("RemoteSemaphore.set")

    def inc(self, value=1):
        raise _kernel_only("RemoteSemaphore.inc")
