# An IRON design written against the MLIR-level bindings: out of scope.
import numpy as np  # noqa: F401

from aie.dialects.aie import device  # noqa: F401
