"""IRON's `aie.utils.xrt` for test programs (test.py), over tessel: the
xclbin and instruction paths a test program gets (-x, -i) stand for the
design record beside them (design_record.py), and running "the kernel" runs
that design on the simulated device with the program's host arrays.

setup_and_run_aie takes each of the signatures IRON's versions have had:
  (in1_dtype, in2_dtype, out_dtype, in1_data, in2_data, out_data,
   in1_volume, in2_volume, out_volume, ref, opts, ...),
  (in1, in2, out, ref, opts, ...) and (io_args, ref, opts=None);
it runs the design once, compares the last buffer with `ref` (unless
opts.verify is off), prints PASS! or the error count, and returns 0 or 1.
"""

import numpy as np

from .hostruntime import DEFAULT_IRON_RUNTIME, bind_buffers
from .trace import write_note

__all__ = ["AIE_Application", "setup_aie", "execute", "setup_and_run_aie", "extract_trace", "write_out_trace",
           "read_insts"]


class AIE_Application:
    """A loaded design and the host buffers registered for it, by IRON's
    group ids (3, 4, 5, ... are the design's buffers 0, 1, 2, ...)."""

    def __init__(self, xclbin_path, insts_path, kernel_name="MLIR_AIE"):
        self.design = DEFAULT_IRON_RUNTIME.load(xclbin_path, insts_path, kernel_name)
        self.buffers = {}

    def register_buffer(self, group_id, dtype=None, shape=None, *args, **kwargs):
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        self.buffers[group_id] = np.zeros(shape, dtype=dtype)

    def run(self):
        values = [self.buffers[g] for g in sorted(self.buffers)]
        return DEFAULT_IRON_RUNTIME.run(self.design, values)


def read_insts(path):
    """The instruction file's words; tessel's is a design record, read as bytes."""
    return np.fromfile(path, dtype=np.uint8)


def _shape(volume):
    return (int(volume),) if isinstance(volume, (int, np.integer)) else tuple(volume)


def setup_aie(xclbin_path, insts_path, in_0_shape, in_0_dtype, in_1_shape=None, in_1_dtype=None, out_buf_shape=None,
              out_buf_dtype=None, enable_trace=False, kernel_name="MLIR_AIE", trace_size=16384, verbosity=0,
              trace_after_output=False, **kwargs):
    """An AIE_Application with the inputs and the output registered."""
    app = AIE_Application(xclbin_path, insts_path, kernel_name)
    group = 3
    for shape, dtype in ((in_0_shape, in_0_dtype), (in_1_shape, in_1_dtype), (out_buf_shape, out_buf_dtype)):
        if shape and dtype is not None:
            app.register_buffer(group, dtype=dtype, shape=_shape(shape))
            group += 1
    return app


def execute(app, input_one=None, input_two=None, *args, **kwargs):
    """Write the inputs, run the design, return the output buffer."""
    groups = sorted(app.buffers)
    inputs = [v for v in (input_one, input_two) if v is not None]
    for g, v in zip(groups, inputs):
        app.buffers[g][...] = np.asarray(v).reshape(app.buffers[g].shape)
    app.run()
    return app.buffers[groups[len(inputs)]] if len(groups) > len(inputs) else app.buffers[groups[-1]]


def extract_trace(out_buf, out_buf_shape, out_buf_dtype, trace_size):
    """(output, trace words) of an output buffer with the trace after it."""
    words = trace_size // 4
    flat = np.asarray(out_buf).reshape(-1).view(np.uint32)
    return flat[:-words].view(out_buf_dtype).reshape(out_buf_shape), flat[-words:]


def write_out_trace(trace, file_name):
    """Write trace words as IRON does (one hex word a line, zeros left out);
    tessel's trace words are zeros, so the file holds tessel's note only."""
    words = [f"{int(w):08x}" for w in np.asarray(trace).reshape(-1) if w != 0]
    write_note(file_name, words)


def _verify_on(opts):
    v = getattr(opts, "verify", True)
    return not (isinstance(v, str) and v.strip().lower() in ("0", "false", "no", "off")) and bool(v)


def setup_and_run_aie(*args, **kwargs):
    """Run the design of opts.xclbin / opts.instr once and check its output
    against `ref` (the module docstring lists the signatures)."""
    if len(args) >= 11:
        in1_dtype, in2_dtype, out_dtype, in1, in2, out, _v1, _v2, out_volume, ref, opts = args[:11]
        out = np.zeros(_shape(out_volume), dtype=out_dtype) if out is None else np.asarray(out)
        buffers = [np.asarray(in1, dtype=in1_dtype)]
        if in2 is not None and in2_dtype is not None and _v2:
            buffers.append(np.asarray(in2, dtype=in2_dtype))
        buffers.append(out)
    elif len(args) >= 5 or "in1" in kwargs:
        names = ("in1", "in2", "out", "ref", "opts")
        values = dict(zip(names, args), **{k: v for k, v in kwargs.items() if k in names})
        buffers = [values[n] for n in ("in1", "in2", "out") if values.get(n) is not None]
        ref, opts = values["ref"], values["opts"]
    else:
        io_args = args[0] if args else kwargs["io_args"]
        ref = args[1] if len(args) > 1 else kwargs["ref"]
        opts = args[2] if len(args) > 2 else kwargs.get("opts")
        if opts is None:
            from .test import parse_args

            opts = parse_args(None)
        buffers = list(io_args) if isinstance(io_args, (list, tuple)) else [io_args]
    design = DEFAULT_IRON_RUNTIME.load(opts.xclbin, getattr(opts, "instr", None))
    arrays = bind_buffers(design, buffers) if hasattr(design, "spec") else buffers
    result = DEFAULT_IRON_RUNTIME.run(design, arrays)
    if getattr(opts, "verbosity", 0) >= 1:
        print("npu_time: ", result.npu_time / 1000.0, " us")
    if getattr(opts, "trace_size", 0) and int(opts.trace_size) > 0:
        write_out_trace(np.zeros(int(opts.trace_size) // 4, dtype=np.uint32), str(getattr(opts, "trace_file",
                                                                                          "trace.txt")))
    errors = 0
    if _verify_on(opts) and ref is not None:
        output = np.asarray(buffers[-1].numpy() if hasattr(buffers[-1], "numpy") else buffers[-1])
        expected = np.asarray(ref)
        if output.size != expected.size:
            errors = max(output.size, expected.size)
        else:
            errors = int(np.count_nonzero(output.reshape(-1) != expected.reshape(-1).astype(output.dtype)))
    if not errors:
        print("\nPASS!\n")
        return 0
    print("\nError count: ", errors)
    print("\nFailed.\n")
    return 1
