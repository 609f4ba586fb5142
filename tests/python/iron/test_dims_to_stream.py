"""dims_to_stream: a producer's layout transform. A forward through a
staging core reads its object in the transform's order, as IRON's matmul
designs use it to tile A and B into the kernel's r x s blocks and C back."""

import numpy as np
import pytest

from tessel.iron import IronRuntimeError, ObjectFifo, Program, Runtime, Worker
from tessel.iron.controlflow import range_

from .common import fill_drain

M, K, R, S = 8, 16, 2, 4


def ty(shape, dtype=np.int16):
    return np.ndarray[shape, np.dtype[dtype]]


def tiled(a):
    return a.reshape(M // R, R, K // S, S).transpose(0, 2, 1, 3).reshape(-1)


def test_a_forward_tiles_the_object_into_blocks(device):
    in_a = ObjectFifo(ty((M, K)), name="inA")
    mem_a = in_a.cons().forward(name="memA", dims_to_stream=[(M // R, R * K), (K // S, S), (R, K), (S, 1)])
    rt = Runtime(fill_drain, [ty((M * K,))] * 2 + [in_a.prod(), mem_a.cons()])
    design = Program(device, rt).resolve_program()
    a = np.arange(M * K, dtype=np.int16)
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, tiled(a))


def test_tile_on_the_way_in_and_back_on_the_way_out_with_a_worker_between(device):
    """The worker sees blocks (it doubles block element (0, 0) of each to show it) and C is untiled again."""
    in_a = ObjectFifo(ty((M, K)), name="inA")
    mem_a = in_a.cons().forward(name="memA", dims_to_stream=[(M // R, R * K), (K // S, S), (R, K), (S, 1)])
    mem_c = ObjectFifo(ty((M, K)), name="memC")
    out_c = mem_c.cons().forward(name="outC", dims_to_stream=[(M // R, R * K), (R, S), (K // S, R * S), (S, 1)])

    def core_fn(of_a, of_c):
        x = of_a.acquire(1)
        y = of_c.acquire(1)
        for b in range_(M * K // (R * S)):
            for e in range_(R * S):
                y[b * (R * S) // K, (b * (R * S) + e) % K] = x[b * (R * S) // K, (b * (R * S) + e) % K]
            y[b * (R * S) // K, (b * (R * S)) % K] = x[b * (R * S) // K, (b * (R * S)) % K] * 2
        of_a.release(1)
        of_c.release(1)

    rt = Runtime(fill_drain, [ty((M * K,))] * 2 + [in_a.prod(), out_c.cons()])
    design = Program(device, rt, workers=[Worker(core_fn, [mem_a.cons(), mem_c.prod()])]).resolve_program()
    a = np.arange(M * K, dtype=np.int16)
    c = np.zeros_like(a)
    design(a, c)
    want = a.reshape(M, K).copy()
    want[::R, ::S] *= 2  # the first element of each R x S block
    np.testing.assert_array_equal(c, want.reshape(-1))


@pytest.mark.parametrize("dims, error, message", [
    ([(2, 1)] * 5, ValueError, "has 5 dimensions; a DMA descriptor walks at most 4"),
    ([(0, 1)], ValueError, "sizes must be at least 1"),
    ([(2,)], TypeError, r"must be a list of \(size, stride\) pairs"),
])
def test_bad_dims_are_clear_errors(dims, error, message):
    f = ObjectFifo(ty((M, K)), name="inA")
    with pytest.raises(error, match=message):
        f.cons().forward(dims_to_stream=dims)


def test_dims_that_do_not_cover_the_object_are_refused_at_resolve(device):
    in_a = ObjectFifo(ty((M, K)), name="inA")
    mem_a = in_a.cons().forward(name="memA", dims_to_stream=[(M, K), (K // 2, 1)])
    rt = Runtime(fill_drain, [ty((M * K,))] * 2 + [in_a.prod(), mem_a.cons()])
    # A mem tile steps its outermost dimension on through the object; here that runs past its end.
    with pytest.raises(Exception, match="dims_to_stream reaches element 247 of an object of 128"):
        Program(device, rt).resolve_program()


def test_dims_on_a_fifo_the_runtime_fills_is_an_error(device):
    f = ObjectFifo(ty((M, K)), name="inA", dims_to_stream=[(M, K), (K, 1)])
    g = f.cons().forward(name="fwd")
    rt = Runtime(fill_drain, [ty((M * K,))] * 2 + [f.prod(), g.cons()])
    with pytest.raises(IronRuntimeError, match="its producer is the Runtime: the fill's tap orders what it moves"):
        Program(device, rt).resolve_program()


def scatter(a, dims):
    """numpy reference of dims_from_stream: element k lands at the pattern's k-th position."""
    sizes, strides = zip(*dims)
    offsets = np.zeros(sizes, dtype=np.int64)
    for axis, (n, st) in enumerate(dims):
        shape = [1] * len(dims)
        shape[axis] = n
        offsets = offsets + (np.arange(n) * st).reshape(shape)
    out = np.zeros_like(a)
    out[offsets.reshape(-1)] = a
    return out


@pytest.mark.parametrize("through", ["forward", "fill"])
def test_dims_from_stream_writes_the_consumers_objects_through_the_pattern(device, through):
    """IRON's matrix_vector: forward(dims_from_stream=[(m, 2), (k // 2, 2 * m), (2, 1)]) lays A out for the kernel;
    the same on a fifo the Runtime fills (ObjectFifo(dims_from_stream_per_cons=[...]))."""
    m, k = 4, 8
    dims = [(m, 2), (k // 2, 2 * m), (2, 1)]
    if through == "forward":
        in_a = ObjectFifo(ty((m * k,)), name="inA")
        core_a = in_a.cons().forward(name="coreA", dims_from_stream=dims)
    else:
        in_a = core_a = ObjectFifo(ty((m * k,)), name="inA", dims_from_stream_per_cons=[dims])
    out = ObjectFifo(ty((m * k,)), name="out")

    def core_fn(of_a, of_c):
        x = of_a.acquire(1)
        y = of_c.acquire(1)
        for i in range_(m * k):
            y[i] = x[i]
        of_a.release(1)
        of_c.release(1)

    rt = Runtime(fill_drain, [ty((m * k,))] * 2 + [in_a.prod(), out.cons()])
    design = Program(device, rt, workers=[Worker(core_fn, [core_a.cons(), out.prod()])]).resolve_program()
    a = np.arange(m * k, dtype=np.int16) + 100
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, scatter(a, dims))


def test_a_consumer_handle_takes_its_own_dims_from_stream(device):
    """IRON's combined_transpose: in.cons(dims_from_stream=...).forward(...)."""
    m, k = 4, 8
    dims = [(m, 2), (k // 2, 2 * m), (2, 1)]
    in_a = ObjectFifo(ty((m * k,)), name="inA")
    fwd = in_a.cons(dims_from_stream=dims).forward(name="fwd")
    rt = Runtime(fill_drain, [ty((m * k,))] * 2 + [in_a.prod(), fwd.cons()])
    design = Program(device, rt).resolve_program()
    a = np.arange(m * k, dtype=np.int16)
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, scatter(a, dims))
    with pytest.raises(NotImplementedError, match="consumers with different dims_from_stream"):
        in_a.cons(dims_from_stream=[(m * k, 1)])


def test_a_mem_tiles_transform_over_part_of_the_object_steps_on_through_it(device):
    """IRON's whole-array matmul: the mem tile's dims_to_stream covers one of the object's blocks; its DMA's
    outermost dimension does not wrap, so it keeps stepping, block after block, to the end of the object."""
    in_a = ObjectFifo(ty((2 * M, K)), name="inA")
    one_block = [(M // R, R * K), (K // S, S), (R, K), (S, 1)]
    out = in_a.cons().forward(name="out", dims_to_stream=one_block)
    rt = Runtime(fill_drain, [ty((2 * M * K,))] * 2 + [in_a.prod(), out.cons()])
    design = Program(device, rt).resolve_program()
    a = np.arange(2 * M * K, dtype=np.int16)
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, np.concatenate([tiled(a[:M * K]), tiled(a[M * K:])]))
