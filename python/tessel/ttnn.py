"""The TT-NN names that tessel.ttl's runtime resources use
(spec/operation-runtime-resources): SemaphoreDescriptor, the core types and
TensorAccessorArgs, so that the spec's snippets run with `import tessel.ttnn
as ttnn`.

    semaphore = ttnn.SemaphoreDescriptor(first_free_semaphore_id, core_ranges=core_ranges, initial_value=0)
    ttl.CoreRuntimeArgs(ttnn.CoreCoord(0, 0), (first_free_semaphore_id, 0))

CoreCoord, CoreRange and CoreRangeSet are tessel's own (tessel.core).
"""

from dataclasses import dataclass

from . import _check, _tessel
from .core import CoreCoord, CoreRange, CoreRangeSet

__all__ = ["CoreCoord", "CoreRange", "CoreRangeSet", "SemaphoreDescriptor", "TensorAccessorArgs"]


@dataclass(frozen=True)
class SemaphoreDescriptor:
    """A caller semaphore: its id (what kernels pass to get_semaphore()), the
    cores it is placed on and its initial value. In runtime resources the id
    must be at least the factory's first_free_semaphore_id."""

    id: int
    core_ranges: CoreRangeSet
    initial_value: int = 0

    def __post_init__(self):
        object.__setattr__(self, "id", _check.integer(self.id, "ttnn.SemaphoreDescriptor: id", 0, _check.WORD_MAX,
                                                      "an integer-indexable non-boolean semaphore id"))
        ranges = self.core_ranges
        if isinstance(ranges, CoreRange):
            ranges = CoreRangeSet([ranges])
        if not isinstance(ranges, CoreRangeSet):
            raise TypeError("ttnn.SemaphoreDescriptor: core_ranges must be a ttnn.CoreRangeSet (or a ttnn.CoreRange), "
                            f"got {_check.describe(self.core_ranges)}")
        object.__setattr__(self, "core_ranges", ranges)
        object.__setattr__(self, "initial_value",
                           _check.integer(self.initial_value, "ttnn.SemaphoreDescriptor: initial_value", 0,
                                          _check.WORD_MAX, "an integer-indexable non-boolean 32-bit word"))


class TensorAccessorArgs:
    """The compile-time and common runtime arguments a kernel's
    TensorAccessorArgs<CTA, CRTA> reads for a tensor (tessel's
    TensorAccessorArgs(buffer), include/tessel/tensor_accessor_args.hpp):
    2 compile-time args for an interleaved tensor, 4 + 2 * rank + banks for
    a sharded one; no common runtime args."""

    __slots__ = ("_crta", "_cta")

    def __init__(self, tensor):
        from .device import Buffer

        buffer = getattr(tensor, "buffer", tensor)
        if not isinstance(buffer, Buffer):
            raise TypeError("ttnn.TensorAccessorArgs: tensor must be a ttl.Tensor or a tessel.Buffer, "
                            f"got {_check.describe(tensor)}")
        cta, crta = _tessel.tensor_accessor_args(buffer._b)
        self._cta = tuple(cta)
        self._crta = tuple(crta)

    def get_compile_time_args(self):
        return list(self._cta)

    def get_common_runtime_args(self):
        return list(self._crta)

    def __repr__(self):
        return f"TensorAccessorArgs(compile_time_args={list(self._cta)}, common_runtime_args={list(self._crta)})"
