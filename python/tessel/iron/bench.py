"""tessel.iron's figures, each a ratio against a reference run in the same
process (the machines are shared and noisy):

    python -m tessel.iron.bench [--calls 200] [--mib 64] [--size 512]

- call: per-call cost of a cached design given a new DispatchTime value
  each call, against a cached plain program enqueued on the same cores;
- passthrough: bytes/s of one worker moving --mib MiB, against numpy's
  copy (memcpy) of the same bytes;
- matmul: IRON's single-core matmul at --size^3 through the kernel
  library's mm kernel (bf16 in, f32 out; examples/iron/matmul_mm_kernel.py)
  against numpy's float32 matmul.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

import numpy as np


def _example(name):
    from .. import _tessel  # noqa: F401 - sets TESSEL_EXAMPLES_DIR in a wheel

    root = os.environ.get("TESSEL_EXAMPLES_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                                 "examples")
    path = os.path.join(root, "iron", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"tessel_iron_bench_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def call_cost(device, calls):
    import tessel

    ex = _example("dispatch_copy")
    tile = 256
    a = np.arange(ex.CAPACITY_TILES * tile, dtype=np.int32)
    b = np.zeros_like(a)
    ex.copy(a, b, count=1)  # build and warm
    counts = [1 + i % ex.CAPACITY_TILES for i in range(calls)]
    t0 = time.perf_counter()
    for n in counts:
        ex.copy(a, b, count=n)
    design_s = (time.perf_counter() - t0) / calls

    # The same work as a plain program: one kernel on the same core reads
    # `count` tiles from a DRAM buffer into L1 and writes them to another,
    # with the same host copies per call.
    dev = ex.iron.get_current_device()
    tile_bytes = tile * 4
    src = tessel.Buffer(dev, a.nbytes, tile_bytes)
    dst = tessel.Buffer(dev, a.nbytes, tile_bytes)
    p = tessel.Program()
    core = tessel.CoreRange((0, 0), (0, 0))
    k = p.add_kernel_from_source(_COPY_KERNEL, "copy_tiles", core, tessel.DataMovementConfig())
    p.add_circular_buffer(core, tessel.CircularBufferConfig(tile_bytes, {0: "uint32"}).set_page_size(0, tile_bytes))
    q = dev.command_queue

    def plain(n):
        p.set_runtime_args(k, core, [src.address, dst.address, n, tile_bytes])
        q.enqueue_write_buffer(src, a)
        q.enqueue_write_buffer(dst, b)
        q.enqueue_program(p)
        q.enqueue_read_buffer(dst, out=b)

    plain(1)
    t0 = time.perf_counter()
    for n in counts:
        plain(n)
    plain_s = (time.perf_counter() - t0) / calls
    print(f"call: cached design, a new DispatchTime count (1..{ex.CAPACITY_TILES} tiles of {tile_bytes} B) each call: "
          f"{design_s * 1e6:.1f} us; the same copies as a cached plain program enqueued on the same core: "
          f"{plain_s * 1e6:.1f} us; ratio {design_s / plain_s:.2f}x ({len(ex.copy._kernel_cache)} design built "
          f"for {calls} calls)")


_COPY_KERNEL = """
void kernel_main() {
  const uint32_t src = get_arg_val<uint32_t>(0), dst = get_arg_val<uint32_t>(1);
  const uint32_t n = get_arg_val<uint32_t>(2), bytes = get_arg_val<uint32_t>(3);
  const InterleavedAddrGen<true> in{src, bytes}, out{dst, bytes};
  for (uint32_t i = 0; i < n; ++i) {
    cb_reserve_back(0, 1);
    const uint32_t l1 = get_write_ptr(0);
    noc_async_read_page(i, in, l1);
    noc_async_read_barrier();
    noc_async_write_page(i, out, l1);
    noc_async_write_barrier();
    cb_push_back(0, 1);
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
  }
}
"""


def passthrough_rate(device, mib):
    ex = _example("passthrough")
    n = mib * 1024 * 1024
    line = 64 * 1024
    design = ex.build(n=n, line=line, device=device)
    a = (np.arange(n, dtype=np.uint32) * 2654435761 >> 24).astype(np.uint8)
    b = np.zeros(n, np.uint8)
    design(a, b)
    if not np.array_equal(a, b):
        raise SystemExit("passthrough: wrong bytes")
    best, _ = _best_of(lambda: design(a, b), 3)
    c = np.empty_like(a)
    copy_best, _ = _best_of(lambda: np.copyto(c, a), 5)
    print(f"passthrough {mib} MiB through one worker: {n / best / 1e9:.3f} GB/s; memcpy of the same bytes "
          f"{n / copy_best / 1e9:.2f} GB/s; ratio {copy_best / best:.4f}x")


def matmul_time(device, size):
    ex = _example("matmul_mm_kernel")
    tile = 64
    t0 = time.perf_counter()
    c, ref, design, (a, b) = ex.run(size, size, size, tile, tile, tile, device=device)
    first = time.perf_counter() - t0
    if not np.allclose(c, ref, rtol=1e-4, atol=1e-3):
        raise SystemExit("matmul: wrong result")
    out = np.zeros(size * size, np.float32)
    best, _ = _best_of(lambda: design(a.reshape(-1), b.reshape(-1), out), 3)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    np_best, _ = _best_of(lambda: af @ bf, 5)
    print(f"matmul {size}^3 single core through iron.kernels.mm (bf16 in, f32 out, {tile}^3 tiles): "
          f"{best * 1e3:.1f} ms per call (first call with build {first:.1f} s); numpy float32 matmul "
          f"{np_best * 1e3:.2f} ms; ratio {best / np_best:.0f}x slower")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tessel.iron.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--only", choices=["call", "passthrough", "matmul"])
    args = ap.parse_args(argv)
    import tessel

    with tessel.Device.open(grid=(4, 4)) as device:
        if args.only in (None, "call"):
            call_cost(device, args.calls)
        if args.only in (None, "passthrough"):
            passthrough_rate(device, args.mib)
        if args.only in (None, "matmul"):
            matmul_time(device, args.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
