"""The TT-NN descriptors tessel.ttl's runtime resources use
(spec/operation-runtime-resources): SemaphoreDescriptor.

    semaphore = ttnn.SemaphoreDescriptor(first_free_semaphore_id, core_ranges=core_ranges, initial_value=0)
"""

from dataclasses import dataclass

from .. import _check
from ..core import CoreRange, CoreRangeSet

__all__ = ["SemaphoreDescriptor"]


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


