"""ttl.utils: the helpers TT-Lang programs import beside the DSL (tt-lang's
`ttl.utils`): correctness checks and work splitting.

    from ttl.utils import assert_allclose, assert_pcc, split_work_to_cores
    from ttl.utils.correctness import assert_with_ulp
"""

from . import block_allocation, correctness
from .block_allocation import split_work_to_cores
from .correctness import assert_allclose, assert_pcc, assert_with_ulp

__all__ = ["assert_allclose", "assert_pcc", "assert_with_ulp", "block_allocation", "correctness",
           "split_work_to_cores"]
