"""Worker bodies written in Python, as IRON's examples write them: element
reads and writes on acquired objects and Buffers, arith on their values,
range_ indices, if_ / else_, checked against numpy; and the errors a body's
mistakes get, at trace time or, naming the body's line, when it runs."""

import inspect
import warnings

import ml_dtypes
import numpy as np
import pytest

from tessel.errors import KernelError
from tessel.iron import Buffer, IronRuntimeError, ObjectFifo, Program, Runtime, Worker
from tessel.iron.controlflow import else_, if_, range_

from .common import fill_drain


def one_in_one_out(core_fn, tile_ty, vec_ty, out_tile_ty=None, out_vec_ty=None, extra=(), device=None):
    """A design whose worker runs core_fn(in, out, *extra) between a fill and a drain."""
    of_in = ObjectFifo(tile_ty, name="in")
    of_out = ObjectFifo(out_tile_ty or tile_ty, name="out")
    worker = Worker(core_fn, [of_in.cons(), of_out.prod(), *extra])
    rt = Runtime(fill_drain, [vec_ty, out_vec_ty or vec_ty, of_in.prod(), of_out.cons()])
    return Program(device, rt, workers=[worker]).resolve_program()


def ty(shape, dtype):
    return np.ndarray[shape if isinstance(shape, tuple) else (shape,), np.dtype[dtype]]


def test_vector_scalar_add_with_forward_links(device):
    of_in0 = ObjectFifo(ty(32, np.int32), name="in")
    of_in1 = of_in0.cons().forward()
    of_out0 = ObjectFifo(ty(32, np.int32), name="out")
    of_out1 = of_out0.cons().forward()

    def core_body(of_in1, of_out0):
        elem_in = of_in1.acquire(1)
        elem_out = of_out0.acquire(1)
        for i in range_(32):
            elem_out[i] = elem_in[i] + 1
        of_in1.release(1)
        of_out0.release(1)

    rt = Runtime(fill_drain, [ty(1024, np.int32), ty(1024, np.int32), of_in0.prod(), of_out1.cons()])
    design = Program(device, rt, workers=[Worker(core_body, [of_in1.cons(), of_out0.prod()])]).resolve_program()
    a = np.arange(1024, dtype=np.int32) * 7 - 300
    b = np.zeros_like(a)
    design(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_if_else_and_a_buffer_with_an_initial_value_kept_across_objects(device):
    acc = Buffer(ty(1, np.int32), initial_value=[100], name="acc")

    def core_fn(of_in, of_out, acc):
        e_in = of_in.acquire(1)
        e_out = of_out.acquire(1)
        for i in range_(16):
            x = e_in[i]
            with if_(x % 2 == 0) as even:
                e_out[i] = x * 3 + acc[0]
            with else_(even):
                e_out[i] = -x
        acc[0] = acc[0] + 1
        of_in.release(1)
        of_out.release(1)

    design = one_in_one_out(core_fn, ty(16, np.int32), ty(64, np.int32), extra=[acc], device=device)
    a = np.arange(64, dtype=np.int32) - 20
    b = np.zeros_like(a)
    design(a, b)
    np.testing.assert_array_equal(b, np.where(a % 2 == 0, a * 3 + 100 + np.arange(64) // 16, -a))


def test_integer_arith_wraps_and_divides_as_arith_does(device):
    """int16: * wraps at 16 bits, // floors, % keeps the dividend's sign, >> is
    arithmetic, & | ^ and ~ are bitwise, comparisons select with if_."""

    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(32):
            v = x[i]
            y[i, 0] = v * 1000
            y[i, 1] = v // 7
            y[i, 2] = v % 7
            y[i, 3] = v >> 2
            y[i, 4] = (v & 0x0F0F) | 3 ^ ~v
            y[i, 5] = abs(v) - v / 5
            with if_((v > 10) & (v <= 200)):
                y[i, 6] = 1
            with else_():
                y[i, 6] = 0
            y[i, 7] = i + v
        of_in.release(1)
        of_out.release(1)

    design = one_in_one_out(core_fn, ty(32, np.int16), ty(32, np.int16), ty((32, 8), np.int16),
                            ty(256, np.int16), device=device)
    a = np.array(list(range(-300, 300, 37)) + [32767, -32768, 0, 11, 200, 201][:32 - 17], dtype=np.int16)[:32]
    a = np.resize(a, 32).astype(np.int16)
    b = np.zeros(256, dtype=np.int16)
    design(a, b)
    b = b.reshape(32, 8)
    a32 = a.astype(np.int32)
    np.testing.assert_array_equal(b[:, 0], (a32 * 1000).astype(np.int16))
    np.testing.assert_array_equal(b[:, 1], a32 // 7)
    np.testing.assert_array_equal(b[:, 2], np.fmod(a32, 7))
    np.testing.assert_array_equal(b[:, 3], a32 >> 2)
    np.testing.assert_array_equal(b[:, 4], ((a32 & 0x0F0F) | (3 ^ ~a32)).astype(np.int16))
    np.testing.assert_array_equal(b[:, 5], (np.abs(a32) - np.trunc(a32 / 5)).astype(np.int16))
    np.testing.assert_array_equal(b[:, 6], ((a32 > 10) & (a32 <= 200)).astype(np.int16))
    np.testing.assert_array_equal(b[:, 7], (np.arange(32) + a32).astype(np.int16))


def test_bfloat16_rounds_after_every_operation(device):
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(64):
            y[i] = x[i] * 3.0 + 0.1
        of_in.release(1)
        of_out.release(1)

    bf = ml_dtypes.bfloat16
    design = one_in_one_out(core_fn, ty(64, bf), ty(64, bf), device=device)
    a = (np.linspace(-5, 5, 64)).astype(bf)
    b = np.zeros_like(a)
    design(a, b)
    want = ((a.astype(np.float32) * np.float32(3)).astype(bf).astype(np.float32) +
            np.float32(bf(0.1))).astype(bf)
    np.testing.assert_array_equal(b.view(np.uint16), want.view(np.uint16))


def test_two_dimensional_objects_transpose(device):
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(4):
            for j in range_(8):
                y[j, i] = x[i, j]
        of_in.release(1)
        of_out.release(1)

    design = one_in_one_out(core_fn, ty((4, 8), np.float32), ty(32, np.float32), ty((8, 4), np.float32),
                            device=device)
    a = np.arange(32, dtype=np.float32) / 4
    b = np.zeros_like(a)
    design(a, b)
    np.testing.assert_array_equal(b, a.reshape(4, 8).T.reshape(-1))


def test_a_loop_bound_read_from_a_runtime_parameter(device):
    n = Buffer(ty(1, np.int32), name="n", use_write_rtp=True)

    def core_fn(of_in, of_out, n):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        count = n[0]
        for i in range_(16):
            y[i] = 0
        for i in range_(count):
            y[i] = x[i]
        of_in.release(1)
        of_out.release(1)

    def seq(a, b, in_h, out_h):
        n[0] = 5
        in_h.fill(a)
        out_h.drain(b, wait=True)

    of_in, of_out = ObjectFifo(ty(16, np.int32)), ObjectFifo(ty(16, np.int32))
    rt = Runtime(seq, [ty(16, np.int32), ty(16, np.int32), of_in.prod(), of_out.cons()])
    with pytest.warns(Warning, match="reads runtime parameter 'n'"):
        design = Program(device, rt, workers=[Worker(core_fn, [of_in.cons(), of_out.prod(), n])]).resolve_program()
    a = np.arange(1, 17, dtype=np.int32)
    b = np.full(16, -1, dtype=np.int32)
    design(a, b)
    # The write may land after the read (no barrier orders them): the kernel read 0 or 5.
    assert list(b[5:]) == [0] * 11 and list(b[:5]) in ([1, 2, 3, 4, 5], [0] * 5)


def _trace_error(core_fn, tile_ty=ty(16, np.int32), extra=()):
    of_in, of_out = ObjectFifo(tile_ty), ObjectFifo(tile_ty)
    return Worker(core_fn, [of_in.cons(), of_out.prod(), *extra]).generate


@pytest.mark.parametrize("body, error, message", [
    (lambda x, y, i: x[i] + 1.5, TypeError, "the float 1.5 is combined with a int32 value"),
    (lambda x, y, i: x[i] + 2**40, ValueError, "1099511627776 does not fit int32"),
    (lambda x, y, i: x[i] if x[i] > 0 else 0, TypeError, "branch on it with `with if_(cond):`"),
    (lambda x, y, i: x[i] > 0 and x[i] < 5, TypeError, "combine comparisons with & and |"),
    (lambda x, y, i: x[16], IndexError, "index 16 of dimension 0 is outside 0 to 15"),
    (lambda x, y, i: x[i, 0], IndexError, "has 1 dimension (16,): index it with 1 integers or values, got 2"),
    (lambda x, y, i: x[0:4], TypeError, "slices are not supported in a core_fn"),
    (lambda x, y, i: range(x[i]), TypeError, "is not a Python integer while core_fn is traced"),
    (lambda x, y, i: x[i] << 1.0, TypeError, "is combined with a int32 value"),
])
def test_body_mistakes_are_clear_errors_at_trace_time(body, error, message):
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(16):
            y[i] = body(x, y, i)

    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        _trace_error(core_fn)()


def test_mixed_element_types_are_a_type_error():
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        y[0] = x[0] + y[0]

    of_in, of_out = ObjectFifo(ty(16, np.int32)), ObjectFifo(ty(16, np.int16))
    with pytest.raises(TypeError, match="between a int32 value and a int16 value"):
        Worker(core_fn, [of_in.cons(), of_out.prod()]).generate()


def test_a_value_used_after_its_loop_ended_is_an_error():
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(16):
            last = x[i]
        y[0] = last

    with pytest.raises(IronRuntimeError, match="used after that block ended"):
        _trace_error(core_fn)()


def test_else_must_follow_its_if():
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        with if_(x[0] > 0):
            y[0] = 1
        y[1] = 2
        with else_():
            y[0] = 0

    with pytest.raises(IronRuntimeError, match=r"else_\(\) must come right after"):
        _trace_error(core_fn)()


@pytest.mark.parametrize("count, shift, message", [
    (17, 20, r"in\.cons\(\) object: index 16 is outside its 16 elements \(expected 0 to 15\)"),
    (16, 3, r"integer division by zero"),
])
def test_a_body_error_when_it_runs_names_the_line(device, count, shift, message):
    """An index past the object, a division by zero: the kernel stops, the report names the body's line."""
    def core_fn(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(count):
            y[i] = x[i] // (i - shift)  # the line the report names
        of_in.release(1)
        of_out.release(1)

    line = inspect.getsourcelines(core_fn)[1] + 4
    design = one_in_one_out(core_fn, ty(16, np.int32), ty(16, np.int32), device=device)
    with pytest.raises(KernelError, match=rf"test_worker_values.py:{line}: .*{message}"):
        design(np.ones(16, np.int32), np.zeros(16, np.int32))


def test_a_kernel_written_in_python_is_traced_where_it_is_called(device):
    from tessel.iron.function import func

    line_ty = ty(64, np.uint8)

    @func
    def add_fn(src: line_ty, dst: line_ty, width: np.int32):
        for i in range_(width):
            dst[i] = src[i] + 200  # wraps at 8 bits

    def core_fn(of_in, of_out, add_fn):
        y = of_out.acquire(1)
        x = of_in.acquire(1)
        add_fn(x, y, 64)
        of_in.release(1)
        of_out.release(1)

    design = one_in_one_out(core_fn, line_ty, ty(256, np.uint8), extra=[add_fn], device=device)
    a = (np.arange(256) % 256).astype(np.uint8)
    b = np.zeros_like(a)
    design(a, b)
    np.testing.assert_array_equal(b, (a.astype(np.int32) + 200).astype(np.uint8))


def test_a_python_kernel_argument_of_another_type_is_an_error():
    from tessel.iron.function import func

    @func
    def f(src: ty(16, np.int16)):
        pass

    def core_fn(of_in, of_out):
        f(of_in.acquire(1))

    with pytest.raises(TypeError, match=r"argument 0 \(src\): the object holds 16 x int32, the function takes "
                                        r"16 x int16"):
        _trace_error(core_fn)()


def test_a_loop_to_sys_maxsize_is_a_loop_without_end():
    import sys

    def core_fn(of_in, of_out):
        for _ in range_(sys.maxsize):
            of_in.acquire(1)
            of_in.release(1)

    source, _ = _trace_error(core_fn)()
    assert f"int64_t({sys.maxsize}LL)" in source


def test_local_buffers_and_a_buffer_typed_by_its_initial_value_keep_their_values(device):
    """IRON's tiling-exploration pattern: a counter Buffer typed by its
    initial value, a LocalBuffer the body declares, arith.index_cast on the index."""
    from tessel.iron import LocalBuffer, arith
    from tessel.iron.util import np_dtype_to_mlir_type

    counter = Buffer(initial_value=np.array([0], dtype=np.int32))

    def core_fn(of_out, counter_buf):
        base = LocalBuffer(type=ty(1, np.int32), initial_value=np.array([1000], np.int32))
        out = of_out.acquire(1)
        for i in range_(4):
            out[i] = counter_buf[0] + base[0] + arith.index_cast(i, to=np_dtype_to_mlir_type(np.int32)) * 0
            counter_buf[0] += 1
        of_out.release(1)

    of_out = ObjectFifo(ty(4, np.int32), depth=1)

    def seq(t_out, out_h):
        out_h.drain(t_out, wait=True)

    rt = Runtime(seq, [ty(8, np.int32), of_out.cons()])
    w = Worker(core_fn, [of_out.prod(), counter])
    design = Program(device, rt, workers=[w]).resolve_program()
    o = np.zeros(8, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a generator running ahead (one object here) is its nature, no warning
        design(o)
    np.testing.assert_array_equal(o, 1000 + np.arange(8))
    assert len(w.buffers) == 2 and w.buffers[1].name == "local0"
    w.generate()  # a second trace declares its LocalBuffers anew, not twice
    assert len(w.buffers) == 2


def test_a_local_buffer_outside_a_core_fn_is_an_error():
    from tessel.iron import LocalBuffer

    with pytest.raises(IronRuntimeError, match="LocalBuffer is declared inside a Worker's core_fn"):
        LocalBuffer(type=ty(1, np.int32))
