"""map: the persistent-dispatch spec's opening snippet, with a handler that
does real work: 15 jobs of 8 cores, each core doubling one bf16 tile of a
tensor (reader -> compute -> writer), then wait, stop and the trace.

    python examples/dispatch_map/map.py
"""

import os
import sys

import numpy as np

import tessel.dispatch as km

HERE = os.path.dirname(os.path.abspath(__file__))


def main(jobs=15, group=8):
    kernels = os.path.join(HERE, "kernels")
    handlers = km.abi.handlers(os.path.join(kernels, "map.hpp"))
    tiles = jobs * group
    x = np.random.default_rng(7).uniform(-4, 4, size=(tiles * 32, 32)).astype(np.float32)
    with km.Session() as session:
        src = session.tensor(x, "bfloat16", layout="tile")
        dst = session.empty(src.shape, "bfloat16", layout="tile")
        program = km.Program(
            "map", kernels,
            buffers=[km.Buffer(0, "bfloat16", 2048, 2), km.Buffer(16, "bfloat16", 2048, 2)],
            compile_args={"reader": src.accessor_args(), "writer": dst.accessor_args()},
            handlers=handlers, depth=4)
        run = session.load(program, trace=64)
        handles = [run.submit("map", group=(job * group, group), args=[src.address, dst.address, job * group])
                   for job in range(jobs)]
        run.wait(handles, timeout=5.0)
        y = session.read_bf16(dst)
        run.stop()
        trace = run.trace()
    expected = 2 * km.formats.bf16_values(km.formats.bf16_bits(x))
    ok = np.array_equal(y, expected)
    spans = trace.phases(handles[-1])
    print(f"map: {jobs} jobs of {group} cores, {tiles} tiles doubled: {'PASSED' if ok else 'FAILED'}; "
          f"last job's cores finished within {max(max(p.values()) for p in spans.values()):.1f} us of its first take")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
