"""IRON's `aie.helpers.taplib` spelling: `from tessel.iron.taplib import
TensorAccessPattern, TensorTiler2D` works as it does in IRON designs. The
definitions live in tessel.iron.taps and tessel.iron.tilers."""

from .taps import TensorAccessPattern, TensorAccessSequence
from .tilers import TensorTiler2D

__all__ = ["TensorAccessPattern", "TensorAccessSequence", "TensorTiler2D"]
