"""loopback in Python: one BRISC kernel on core (0,0) copies a DRAM buffer
to another through a one-page L1 scratch buffer, page by page; the output
must equal the input word for word (as examples/loopback/loopback.cpp)."""

import pathlib
import sys

import numpy as np

import tessel

KERNELS = pathlib.Path(__file__).resolve().parent / "kernels"


def run(device, num_pages=50):
    page_bytes = 2048  # one bf16 tile
    src = tessel.Buffer(device, num_pages * page_bytes, page_bytes, tessel.BufferType.DRAM)
    dst = tessel.Buffer(device, num_pages * page_bytes, page_bytes, tessel.BufferType.DRAM)
    scratch = tessel.Buffer(device, page_bytes, page_bytes, tessel.BufferType.L1)
    data = np.arange(0x1000, 0x1000 + src.size // 4, dtype=np.uint32)
    cq = device.command_queue
    cq.enqueue_write_buffer(src, data, blocking=False)

    program = tessel.Program()
    compile_args = []
    tessel.TensorAccessorArgs(src).append_to(compile_args)
    tessel.TensorAccessorArgs(dst).append_to(compile_args)
    k = program.add_kernel(KERNELS / "loopback_dram_copy.cpp", (0, 0),
                           tessel.DataMovementConfig(tessel.DataMovementProcessor.RISCV_0, compile_args=compile_args))
    program.set_runtime_args(k, (0, 0), [scratch.address, src.address, dst.address, num_pages])
    cq.enqueue_program(program)
    out = cq.enqueue_read_buffer(dst, dtype=np.uint32)
    return bool(np.array_equal(out, data))


if __name__ == "__main__":
    with tessel.Device.open() as device:
        ok = run(device)
    print("loopback:", "PASSED: output matches input" if ok else "FAILED: OUTPUT DIFFERS")
    sys.exit(0 if ok else 1)
