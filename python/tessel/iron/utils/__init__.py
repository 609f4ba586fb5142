"""tessel.iron.utils: IRON's `aie.utils` host-side helpers, bound under that
name by `python -m tessel.iron.run`:

- hostruntime: DefaultNPURuntime / DEFAULT_IRON_RUNTIME (load a design from
  the -x/-i paths a test program gets, run it with host tensors),
  NPUKernel, HostRuntime, TraceConfig, set_current_device; its argparse and
  cli helpers;
- compile: resolve_target_arch and the jit markers;
- xrt: setup_and_run_aie, setup_aie, execute, extract_trace,
  write_out_trace (the test.py programs' path);
- test: create_default_argparser, parse_args;
- verify: nearly_equal, count_mismatches, assert_pass,
  assert_close_with_benchmark;
- benchmark: run_iters, print_benchmark, Stats;
- config: cxx_header_path;
- trace (and trace.utils): trace options, accepted and noted.

The tensor factories (tensor, zeros, ones, full, zeros_like, arange, rand,
randint) are tessel.iron's.
"""

from ..tensor import arange, full, ones, rand, randint, tensor, zeros, zeros_like
from .hostruntime import (
    DEFAULT_IRON_RUNTIME,
    DefaultNPURuntime,
    HostRuntime,
    NPUKernel,
    TraceConfig,
    get_current_device,
    set_current_device,
)

__all__ = ["DEFAULT_IRON_RUNTIME", "DefaultNPURuntime", "HostRuntime", "NPUKernel", "TraceConfig", "get_current_device",
           "set_current_device", "tensor", "zeros", "ones", "full", "zeros_like", "arange", "rand", "randint"]
