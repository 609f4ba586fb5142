"""The misuses a TT-Lang program can make, each reported with the Python
line of the statement (the lines are found by the `# <-` markers in this
file), and control flow as Python runs it (loops, branches, variables
carried between iterations).
"""

import os

import numpy as np
import pytest
import tessel
import tessel.ttl as ttl
from tessel.errors import DeadlockError, KernelError
from ttl_dsl_support import bf16, line_of, one_tile_op, tensor

HERE = os.path.abspath(__file__)


@pytest.fixture(scope="module")
def dev():
    with tessel.Device.open(arch="wormhole_b0", grid=(3, 2)) as d:
        yield d


def here(marker):
    return line_of(HERE, marker)


# ---------------------------------------------------------------------------
# Misuses, each with the Python line.


def _lock_reader(a, a_dfb):
    def read():
        with a_dfb.reserve() as blk:
            tx = ttl.copy(a[0, 0], blk)  # <- first copy
            again = ttl.copy(a[0, 0], blk)  # <- second copy
            tx.wait()
            again.wait()
    return read


def _push_unwaited_reader(a, a_dfb):
    def read():
        blk = a_dfb.reserve()
        tx = ttl.copy(a[0, 0], blk)
        blk.push()  # <- push in flight
        tx.wait()
    return read


def _slice_reader(a, a_dfb):
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0:2, 0:1], blk).wait()  # <- bad slice
    return read


def _plain_compute(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + x)
    return compute


@pytest.mark.parametrize("reader, message, marker", [
    (_lock_reader, "ttl.copy into block 'blk' while a copy into it (requested at line {first copy}) is in flight: "
                   "wait() for that copy first (copy lock)", "second copy"),
    (_push_unwaited_reader, "push() of block 'blk' while a copy into it (requested at line {first}) is in flight: "
                            "wait() for the copy first", "push in flight"),
    (_slice_reader, "ttl.copy: the slice a[0:2, 0:1] is outside the tensor (a is 1x1 tiles)", "bad slice"),
])
def test_block_state_misuses_name_the_line(dev, reader, message, marker):
    op = one_tile_op(_plain_compute, reader)
    a = tensor(dev, np.ones((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    message = message.replace("{first copy}", str(here("first copy")))
    message = message.replace("{first}", str(here("push in flight") - 1))
    with pytest.raises(KernelError) as e:
        op(a, y)
    assert str(e.value) == f"{HERE}:{here(marker)}: core (0,0) NCRISC: {message}"
    # The device runs the next program.
    one_tile_op(_plain_compute)(a, y)
    assert y.to_numpy()[0, 0] == 2.0


def _bad_shape_compute(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.block.fill(1.0, shape=(2, 2)))  # <- bad store
    return compute


def _copy_in_compute(a_dfb, y_dfb):
    def compute():
        with y_dfb.reserve() as o:
            ttl.copy(a_dfb, o)  # <- copy in compute
    return compute


def _unsupported_math(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.math.bessel(x))  # <- unknown function
    return compute


def _squeeze_wide(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(ttl.block.squeeze(ttl.block.fill(0.0, shape=(1, 2)), dims=[1]))  # <- wide
    return compute


def _two_consumers_reader(a, a_dfb):
    def read():
        with a_dfb.wait() as blk:  # <- second consumer
            pass
    return read


@pytest.mark.parametrize("compute, reader, message, marker, kernel", [
    (_bad_shape_compute, None, "store() of an expression of shape (2, 2) into block 'o' of shape (1, 1)", "bad store",
     "compute"),
    (_copy_in_compute, None, "ttl.copy is a data-movement operation; a compute kernel cannot copy", "copy in compute",
     "compute"),
    (_unsupported_math, None, "module tessel.ttl.math has no attribute 'bessel'", "unknown function", "compute"),
    (_squeeze_wide, None, "ttl.block.squeeze: dimension 1 of a block of shape (1, 2) has 2 tiles; only dimensions "
                          "of size 1 are removed", "wide", "compute"),
])
def test_compile_errors_name_the_line(dev, compute, reader, message, marker, kernel):
    op = one_tile_op(compute, reader)
    a = tensor(dev, np.ones((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises(ttl.CompileError) as e:
        op(a, y)
    assert str(e.value) == f"{HERE}:{here(marker)}: {message} (kernel function '{kernel}' of operation 'op')"


def test_two_consumers_on_one_core_name_both_lines(dev):
    """Kernels may share a DFB's role on different nodes; two consumers on one
    core is an error at run time naming where each consumes."""
    op = one_tile_op(_plain_compute, _two_consumers_reader)
    a = tensor(dev, np.ones((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises((KernelError, DeadlockError)) as e:
        op(a, y)
    text = str(e.value)
    assert "already has a consumer on this core" in text, text
    assert f"{HERE}:{here('second consumer')}" in text


def _starving_reader(a, a_dfb):
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()
    return read


def test_a_deadlock_names_the_python_lines(dev):
    def compute(a_dfb, y_dfb):
        def compute():
            for _ in range(2):
                with a_dfb.wait() as x, y_dfb.reserve() as o:  # <- starved wait
                    o.store(x)
        return compute

    op = one_tile_op(compute, _starving_reader)
    a = tensor(dev, np.ones((32, 32)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    with pytest.raises(DeadlockError) as e:
        op(a, y)
    text = str(e.value)
    assert f"core (0,0) COMPUTE at {HERE}:{here('starved wait')} in cb_wait_front(cb=0, pages=1)" in text
    notes = "\n".join(getattr(e.value, "__notes__", []))
    assert "COMPUTE runs kernel function 'compute'" in notes
    assert "CB 0 is dataflow buffer 'a_dfb'" in notes


# ---------------------------------------------------------------------------
# Control flow and variables, as Python runs them.


def _sum_three(a_dfb, y_dfb):
    def compute():
        acc = ttl.block.fill(0.0, shape=(1, 1))
        for _ in range(3):
            with a_dfb.wait() as a_blk:
                acc = acc + a_blk  # a value carried from one iteration to the next
        with y_dfb.reserve() as y_blk:
            y_blk.store(acc)
    return compute


def _read_three(a, a_dfb):
    def read():
        for k in range(3):
            blk = a_dfb.reserve()
            tx = ttl.copy(a[0, k], blk)
            tx.wait()  # the block stays reserved until its copy is waited
            blk.push()
    return read


def test_a_value_carried_through_a_loop_and_copies_waited_later(dev):
    op = one_tile_op(_sum_three, _read_three)
    a = bf16(np.random.default_rng(5).standard_normal((32, 96)))
    y = ttl.Tensor.allocate(dev, (32, 32))
    op(tensor(dev, a), y)
    ref = a[:, :32].astype(np.float64) + a[:, 32:64] + a[:, 64:]
    assert np.max(np.abs(y.to_numpy() - ref)) < 0.05


def _last_index_reader(a, a_dfb):
    def read():
        for k in range(3):
            pass
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, k], blk).wait()  # Python: k is 2 after the loop
    return read


def _pop_on_both_branches(a_dfb, y_dfb):
    def compute():
        x = a_dfb.wait()
        with y_dfb.reserve() as o:
            o.store(x * 2.0)
        if ttl.node(dims=1) == 0:
            x.pop()
        else:
            x.pop()
    return compute


def test_the_loop_variable_after_the_loop_and_a_pop_on_each_branch(dev):
    op = one_tile_op(_pop_on_both_branches, _last_index_reader)
    a = np.concatenate([np.full((32, 32), v, np.float32) for v in (1, 2, 3)], axis=1)
    y = ttl.Tensor.allocate(dev, (32, 32))
    op(tensor(dev, a), y)
    assert y.to_numpy()[0, 0] == 6.0


def _branch_values(a_dfb, y_dfb):
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            if ttl.node(dims=1) == 0:
                e = x * 2.0
            else:
                e = x * 3.0
            o.store(e)  # <- branch value
    return compute


def test_a_block_expression_chosen_on_the_device_is_refused(dev):
    op = one_tile_op(_branch_values)
    with pytest.raises(ttl.CompileError) as e:
        op(tensor(dev, np.ones((32, 32))), ttl.Tensor.allocate(dev, (32, 32)))
    assert str(e.value).startswith(f"{HERE}:{here('branch value')}: 'e' is given a different block, block "
                                   "expression or constant on each branch of the if at line")


def _snapshot_reader(a, a_dfb):
    def read():
        n = ttl.node(dims=1)
        rows = slice(n, n + 1)  # made now: a later change of n does not move it
        n = n + 1
        with a_dfb.reserve() as blk:
            ttl.copy(a[rows, 0], blk).wait()
    return read


def _snapshot_compute(a_dfb, y_dfb):
    def compute():
        f = 2.0
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            e = x * f  # uses f as it is now
            f = f + 1.0
            o.store(e)
    return compute


def test_slices_and_expressions_keep_the_values_of_their_variables(dev):
    op = one_tile_op(_snapshot_compute, _snapshot_reader)
    a = np.concatenate([np.full((32, 32), 1.0, np.float32), np.full((32, 32), 5.0, np.float32)])
    y = ttl.Tensor.allocate(dev, (32, 32))
    op(tensor(dev, a), y)
    assert y.to_numpy()[0, 0] == 2.0  # tile row 0 (not 1), times 2 (not 3)


def _reinterpreting_reader(a, a_dfb):
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()  # <- reinterpreting copy
    return read


def test_a_copy_between_formats_of_one_size_warns(dev, monkeypatch):
    """A float32 tensor copied into an int32 block moves the bits unconverted:
    silicon runs it, so it is a warning (an error under TESSEL_STRICT=1)."""
    @ttl.operation(grid=(1, 1))
    def op(a, i, y):
        a_dfb = ttl.make_dataflow_buffer_like(i, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
        ttl.compute()(_plain_compute(a_dfb, y_dfb))
        ttl.datamovement()(_reinterpreting_reader(a, a_dfb))

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()

    a = ttl.Tensor.from_numpy(dev, np.ones((32, 32), np.float32), dtype=tessel.DataFormat.Float32)
    i = ttl.Tensor.allocate(dev, (32, 32), dtype=tessel.DataFormat.Int32)
    y = ttl.Tensor.allocate(dev, (32, 32), dtype=tessel.DataFormat.Int32)
    message = (f"{HERE}:{here('reinterpreting copy')}: ttl.copy from tensor 'a' (Float32) into block 'blk' of "
               "dataflow buffer 'a_dfb' (Int32): the copy moves the bits unconverted (both are 4096-byte tiles)")
    monkeypatch.setenv("TESSEL_STRICT", "1")
    with pytest.raises(tessel.errors.ValidationError) as e:
        op(a, i, y)
    assert str(e.value) == message + " (TESSEL_STRICT=1 makes this an error)"
    monkeypatch.delenv("TESSEL_STRICT")
    with pytest.warns(tessel.errors.TesselWarning) as w:
        op(a, i, y)
    assert str(w[0].message) == message
    # The bits of 1.0f, doubled as integers by x + x.
    assert np.all(y.to_numpy() == 2 * 0x3F800000)
