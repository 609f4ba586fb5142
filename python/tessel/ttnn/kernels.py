"""The device programs behind ttnn's operations: page copies, element-wise
ops (the compute kernels of tessel.ops' op table) and tile matmuls, each
reading and writing ttnn tensors where they live.

Every program is reader -> compute -> writer (a copy has no compute) over
the device's worker grid, the output's pages split as evenly as possible,
the first cores taking one more (tessel.ops' split). Kernels reach tensors
through TensorAccessors:

  compile-time args  each tensor's TensorAccessorArgs, chained from 0
  common runtime args  each tensor's (address, page size), then the
                       program's own words (matmul's Mt, Kt, Nt, ...)
  runtime args       per core: first page, page count

A program is kept per device, keyed by what its kernels depend on (the op,
the tensors' structures: shape, layout, format, placement), so a repeated
call only rewrites the common runtime args (the addresses) and dispatches.
With tessel.ttl.settings.keep_kernels set, each kernel's C++ is also
written there when its program is built (ttnn_<op>.cpp, ttnn_reader_<n>.cpp,
ttnn_writer.cpp, ...).
"""

import os
from dataclasses import dataclass

import numpy as np

from ..ops import _compute_source, _core_ranges, _work
from ..program import (
    CircularBufferConfig,
    ComputeConfig,
    MathFidelity,
    Program,
    ReaderDataMovementConfig,
    UnpackToDestMode,
    WriterDataMovementConfig,
)
from ..ttl.settings import settings

__all__ = ["run_copy", "run_eltwise", "run_matmul"]

_CB_IN = (0, 1)
_CB_OUT = 16
_PAGES_PER_CB = 2

_READER = """\
// ttnn reader: pages [start, start + count) of {n} tensor(s) into CB {cbs},
// one page of each at a time.
// Compile-time args: each input's TensorAccessorArgs, chained from 0.
// Common runtime args: each input's address and page size.
// Runtime args: first page, page count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {{
  const uint32_t start = get_arg_val<uint32_t>(0);
  const uint32_t count = get_arg_val<uint32_t>(1);
{declarations}
  for (uint32_t i = 0; i < count; ++i) {{
{reserve}
{read}
    noc_async_read_barrier();
{push}
  }}
}}
"""

_WRITER = """\
// ttnn writer: CB {cb} to pages [start, start + count) of the output, one
// page at a time.
// Compile-time args: the output's TensorAccessorArgs.
// Common runtime args: the output's address and page size.
// Runtime args: first page, page count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {{
  const uint32_t start = get_arg_val<uint32_t>(0);
  const uint32_t count = get_arg_val<uint32_t>(1);
  constexpr uint32_t cb = {cb};
  constexpr auto out_args = TensorAccessorArgs<0>();
  const auto out = TensorAccessor(out_args, get_common_arg_val<uint32_t>(0), get_common_arg_val<uint32_t>(1));
  for (uint32_t i = 0; i < count; ++i) {{
    cb_wait_front(cb, 1);
    noc_async_write_page(start + i, out, get_read_ptr(cb));
    noc_async_write_barrier();
    cb_pop_front(cb, 1);
  }}
}}
"""

_MATMUL_READER = """\
// ttnn matmul reader: for every output tile t in [start, start + count)
// (batch, row mt, column nt; row-major) and every kt, A tile (mt, kt) into
// CB 0 and B tile (kt, nt) into CB 1.
// Compile-time args: A's TensorAccessorArgs, then B's.
// Common runtime args: A address, A page size, B address, B page size, Mt,
// Kt, Nt, whether B has a batch of its own (else every batch uses B).
// Runtime args: first output tile, output tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t start = get_arg_val<uint32_t>(0);
  const uint32_t count = get_arg_val<uint32_t>(1);
  const uint32_t Mt = get_common_arg_val<uint32_t>(4);
  const uint32_t Kt = get_common_arg_val<uint32_t>(5);
  const uint32_t Nt = get_common_arg_val<uint32_t>(6);
  const uint32_t b_batched = get_common_arg_val<uint32_t>(7);
  constexpr uint32_t cb_a = 0;
  constexpr uint32_t cb_b = 1;
  constexpr auto a_args = TensorAccessorArgs<0>();
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  const auto a = TensorAccessor(a_args, get_common_arg_val<uint32_t>(0), get_common_arg_val<uint32_t>(1));
  const auto b = TensorAccessor(b_args, get_common_arg_val<uint32_t>(2), get_common_arg_val<uint32_t>(3));
  for (uint32_t t = start; t < start + count; ++t) {
    const uint32_t batch = t / (Mt * Nt);
    const uint32_t mt = (t % (Mt * Nt)) / Nt;
    const uint32_t nt = t % Nt;
    for (uint32_t kt = 0; kt < Kt; ++kt) {
      cb_reserve_back(cb_a, 1);
      noc_async_read_page(batch * Mt * Kt + mt * Kt + kt, a, get_write_ptr(cb_a));
      cb_reserve_back(cb_b, 1);
      noc_async_read_page((b_batched ? batch * Kt * Nt : 0) + kt * Nt + nt, b, get_write_ptr(cb_b));
      noc_async_read_barrier();
      cb_push_back(cb_a, 1);
      cb_push_back(cb_b, 1);
    }
  }
}
"""

_MATMUL_COMPUTE = """\
// ttnn matmul: one output tile at a time, DST accumulating the Kt products
// A(mt, kt) x B(kt, nt) from CBs 0 and 1, packed into CB 16.
// Common runtime args: Mt, Kt. Runtime args: output tile count.
#include "api/compute/common.h"
#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t count = get_arg_val<uint32_t>(0);
  const uint32_t Kt = get_common_arg_val<uint32_t>(1);
  constexpr uint32_t cb_a = 0;
  constexpr uint32_t cb_b = 1;
  constexpr uint32_t cb_out = 16;
  mm_init(cb_a, cb_b, cb_out);
  for (uint32_t t = 0; t < count; ++t) {
    tile_regs_acquire();
    for (uint32_t kt = 0; kt < Kt; ++kt) {
      cb_wait_front(cb_a, 1);
      cb_wait_front(cb_b, 1);
      matmul_tiles(cb_a, cb_b, 0, 0, 0);
      cb_pop_front(cb_a, 1);
      cb_pop_front(cb_b, 1);
    }
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
    tile_regs_release();
  }
}
"""


def _reader_source(cbs):
    n = len(cbs)
    declarations = []
    for i, cb in enumerate(cbs):
        offset = "0" if i == 0 else f"in{i - 1}_args.next_compile_time_args_offset()"
        declarations.append(f"  constexpr auto in{i}_args = TensorAccessorArgs<{offset}>();")
        declarations.append(f"  const auto in{i} = TensorAccessor(in{i}_args, get_common_arg_val<uint32_t>({2 * i}), "
                            f"get_common_arg_val<uint32_t>({2 * i + 1}));")
    return _READER.format(
        n=n, cbs=" and ".join(str(c) for c in cbs), declarations="\n".join(declarations),
        reserve="\n".join(f"    cb_reserve_back({c}, 1);" for c in cbs),
        read="\n".join(f"    noc_async_read_page(start + i, in{i}, get_write_ptr({c}));" for i, c in enumerate(cbs)),
        push="\n".join(f"    cb_push_back({c}, 1);" for c in cbs))


@dataclass(frozen=True, eq=False)
class _Plan:
    """A built program and the views of its kernels' common runtime args."""

    program: Program
    common: tuple  # (kernel handle's args view, ...) in the order _run fills them


def _kernel(program, source, name, cores, config):
    """Add a kernel from source; with settings.keep_kernels, also write its C++ there as `name`."""
    if settings.keep_kernels:
        os.makedirs(settings.keep_kernels, exist_ok=True)
        with open(os.path.join(settings.keep_kernels, name), "w") as f:
            f.write(source)
    return program.add_kernel_from_source(source, name, cores, config)


def _accessor(t):
    return list(t._accessor[0])


def _cb(program, cores, cb, page, fmt):
    program.add_circular_buffer(cores, CircularBufferConfig(_PAGES_PER_CB * page, {cb: fmt}).set_page_size(cb, page))




def _dispatch(device, plan, words, name):
    for view, values in zip(plan.common, words):
        view[:] = values
    device.tessel_device.command_queue.enqueue_program(plan.program)
    device._report_timing(name)


def _cached(device, key, build):
    plan = device._program(key)
    if plan is None:
        plan = build()
        return plan, True
    return plan, False


def _run(device, key, build, words, name):
    plan, new = _cached(device, key, build)
    _dispatch(device, plan, words, name)  # a new plan compiles here: a failure leaves it out of the cache
    if new:
        device._keep_program(key, plan)


def _address_words(tensors):
    return [w for t in tensors for w in (t.buffer.address, t.buffer.page_size)]


def run_copy(device, src, dst, name="ttnn.copy"):
    """Copy src's pages to dst's (ttl.Tensors of the same shape, layout and
    format; any placement)."""
    key = ("copy", src._structure, dst._structure)

    def build():
        p = Program()
        grid = device.tessel_device.grid
        work = _work(src.num_pages, (grid.x, grid.y))
        cores = _core_ranges(len(work), grid.x)
        _cb(p, cores, 0, src.page_size, src.dtype)
        reader = _kernel(p, _reader_source((0,)), "ttnn_reader_1.cpp", cores,
                                          ReaderDataMovementConfig(compile_args=_accessor(src)))
        writer = _kernel(p, _WRITER.format(cb=0), "ttnn_writer_cb0.cpp", cores,
                                          WriterDataMovementConfig(compile_args=_accessor(dst)))
        for core, start, count in work:
            p.set_runtime_args(reader, core, [start, count])
            p.set_runtime_args(writer, core, [start, count])
        for k, n in ((reader, 2), (writer, 2)):
            p.set_common_runtime_args(k, [0] * n)
        return _Plan(p, (p.common_runtime_args(reader), p.common_runtime_args(writer)))

    _run(device, key, build, (_address_words([src]), _address_words([dst])), name)


def run_eltwise(device, op, inputs, out, words, compile_params, name):
    """Run op-table row `op` over the tiles of `inputs` (ttl.Tensors, tiled,
    of out's shape) into `out`; `words` are the op's runtime parameters."""
    fp32 = any(t.dtype.name == "Float32" for t in (*inputs, out))
    key = ("eltwise", op.name, tuple(t._structure for t in inputs), out._structure, fp32, compile_params)

    def build():
        p = Program()
        grid = device.tessel_device.grid
        work = _work(out.num_pages, (grid.x, grid.y))
        cores = _core_ranges(len(work), grid.x)
        cbs = _CB_IN[: len(inputs)]
        for cb, t in zip(cbs, inputs):
            _cb(p, cores, cb, t.page_size, t.dtype)
        _cb(p, cores, _CB_OUT, out.page_size, out.dtype)
        compile_args = [w for t in inputs for w in _accessor(t)]
        reader = _kernel(p, _reader_source(cbs), f"ttnn_reader_{len(inputs)}.cpp", cores,
                                          ReaderDataMovementConfig(compile_args=compile_args))
        unpack = (UnpackToDestMode.UnpackToDestFp32,) * len(inputs) if fp32 and op.engine == "SFPU" else ()
        config = ComputeConfig(math_fidelity=MathFidelity.HiFi4, fp32_dest_acc_en=fp32, unpack_to_dest_mode=unpack)
        compute = _kernel(p, _compute_source(op, inputs[0].dtype, compile_params, [t.dtype for t in inputs]),
                                           f"ttnn_{op.name}.cpp", cores, config)
        writer = _kernel(p, _WRITER.format(cb=_CB_OUT), "ttnn_writer.cpp", cores,
                                          WriterDataMovementConfig(compile_args=_accessor(out)))
        for core, start, count in work:
            p.set_runtime_args(reader, core, [start, count])
            p.set_runtime_args(compute, core, [count])
            p.set_runtime_args(writer, core, [start, count])
        p.set_common_runtime_args(reader, [0] * (2 * len(inputs)))
        p.set_common_runtime_args(writer, [0, 0])
        views = [p.common_runtime_args(reader), p.common_runtime_args(writer)]
        if words:
            p.set_common_runtime_args(compute, [0] * len(words))
            views.append(p.common_runtime_args(compute))
        return _Plan(p, tuple(views))

    values = [_address_words(inputs), _address_words([out])]
    if words:
        values.append(np.asarray(words, dtype=np.uint32))
    _run(device, key, build, values, name)


def run_matmul(device, a, b, out, dims, name="ttnn.matmul"):
    """out = a @ b over tiles: dims = (Mt, Kt, Nt, b_batched)."""
    mt, kt, nt, b_batched = dims
    fp32 = any(t.dtype.name == "Float32" for t in (a, b, out))
    key = ("matmul", a._structure, b._structure, out._structure, fp32)

    def build():
        p = Program()
        grid = device.tessel_device.grid
        work = _work(out.num_pages, (grid.x, grid.y))
        cores = _core_ranges(len(work), grid.x)
        _cb(p, cores, 0, a.page_size, a.dtype)
        _cb(p, cores, 1, b.page_size, b.dtype)
        _cb(p, cores, _CB_OUT, out.page_size, out.dtype)
        reader = _kernel(p, _MATMUL_READER, "ttnn_matmul_reader.cpp", cores,
                                          ReaderDataMovementConfig(compile_args=_accessor(a) + _accessor(b)))
        compute = _kernel(p, _MATMUL_COMPUTE, "ttnn_matmul.cpp", cores,
                                           ComputeConfig(math_fidelity=MathFidelity.HiFi4, fp32_dest_acc_en=fp32))
        writer = _kernel(p, _WRITER.format(cb=_CB_OUT), "ttnn_writer.cpp", cores,
                                          WriterDataMovementConfig(compile_args=_accessor(out)))
        for core, start, count in work:
            p.set_runtime_args(reader, core, [start, count])
            p.set_runtime_args(compute, core, [count])
            p.set_runtime_args(writer, core, [start, count])
        p.set_common_runtime_args(reader, [0] * 8)
        p.set_common_runtime_args(compute, [0, 0])
        p.set_common_runtime_args(writer, [0, 0])
        return _Plan(p, (p.common_runtime_args(reader), p.common_runtime_args(compute), p.common_runtime_args(writer)))

    words = (_address_words([a, b]) + [mt, kt, nt, int(b_batched)], [mt, kt], _address_words([out]))
    _run(device, key, build, words, name)
