"""What the dispatch tests share: the C++ tests' basic program and the grid."""

import pathlib

from tessel.dispatch import abi

ROOT = pathlib.Path(__file__).resolve().parents[3]
BASIC = ROOT / "tests" / "dispatch" / "kernels" / "basic"
BASIC_HEADER = ROOT / "tests" / "dispatch" / "kernels" / "basic.hpp"
KERNELS = pathlib.Path(__file__).resolve().parent / "kernels"
GRID = (4, 2)
CORES = GRID[0] * GRID[1]
K = abi.headers().constants
