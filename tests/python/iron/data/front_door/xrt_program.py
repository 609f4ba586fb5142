import sys

import numpy as np

import aie.utils.test as test_utils
import aie.utils.xrt as xrt_utils

opts = test_utils.create_default_argparser().parse_args(sys.argv[1:])
n = 256
a = np.arange(n, dtype=np.int32)
out = np.zeros(n, dtype=np.int32)
sys.exit(xrt_utils.setup_and_run_aie(np.int32, None, np.int32, a, None, out, n, 0, n, a + 7, opts))
