"""Bad Python input to the host API: TypeError / ValueError /
tessel.ValidationError naming the call, the argument and what was expected."""

import numpy as np
import pytest

import tessel


def message(exc_type, fn):
    with pytest.raises(exc_type) as e:
        fn()
    assert type(e.value) is exc_type or issubclass(type(e.value), exc_type)
    return str(e.value)


def test_device_open(device):
    assert message(TypeError, lambda: tessel.Device.open(grid=(2, 2.5))) == \
        "Device.open: grid[1] must be an integer (1..65535), got 2.5 (float)"
    assert message(TypeError, lambda: tessel.Device.open(grid=True)) == \
        "Device.open: grid must be an (x, y) tuple or None, got True (bool)"
    assert message(TypeError, lambda: tessel.Device.open(arch=3)) == "Device.open: arch must be a str, got 3 (int)"
    assert message(TypeError, lambda: tessel.Device()) == \
        "use tessel.Device.open(arch=..., grid=..., policy=...) to open a device"
    assert message(tessel.ValidationError, lambda: tessel.Device.open(arch="gpu")) == \
        "unknown architecture 'gpu': expected 'blackhole' or 'wormhole_b0'"


def test_buffer(device):
    assert message(ValueError, lambda: tessel.Buffer(device, -1, 64)) == \
        "Buffer: size must be a non-negative integer (0..18446744073709551615), got -1"
    assert message(TypeError, lambda: tessel.Buffer(device, 64.0, 64)) == \
        "Buffer: size must be a non-negative integer (0..18446744073709551615), got 64.0 (float)"
    assert message(TypeError, lambda: tessel.Buffer(device, True, 64)) == \
        "Buffer: size must be a non-negative integer (0..18446744073709551615), got True (bool)"
    assert message(TypeError, lambda: tessel.Buffer(device, 64, 64, "hbm")) == \
        "Buffer: type must be tessel.BufferType.DRAM or .L1 (or 'dram' / 'l1'), got 'hbm' (str)"
    b = tessel.Buffer(device, 64, 64)
    assert message(ValueError, lambda: b.write(np.zeros((4, 8), np.uint32)[:, ::2])) == (
        "Buffer.write: array is not C-contiguous (strides (32, 8) for shape (4, 4)): expected a contiguous array "
        "(numpy.ascontiguousarray makes one)")
    assert message(TypeError, lambda: b.write([1, 2, 3])) == \
        "Buffer.write: array must be a numpy array, got [1, 2, 3] (list)"
    assert message(tessel.ValidationError, lambda: b.write(np.zeros(8, np.uint32))) == \
        "Buffer.write: the array holds 32 bytes, the buffer 64 (expected an array of exactly the buffer's size)"
    assert message(ValueError, lambda: b.read(np.dtype("V24"))) == \
        "Buffer.read: 64 bytes are not a whole number of |V24 values (24 B each)"


def test_program(device):
    p = tessel.Program()
    cfg = tessel.DataMovementConfig()
    assert message(TypeError, lambda: p.add_kernel(b"k.cpp", (0, 0), cfg)) == (
        "Program.add_kernel: kernel must be a path (str or os.PathLike), got b'k.cpp' (bytes); use "
        "add_kernel_from_source for source text")
    assert message(TypeError, lambda: p.add_kernel_from_source("x", "k.cpp", "core 0", cfg)) == (
        "Program.add_kernel_from_source: cores must be a CoreRangeSet, a CoreRange, a CoreCoord, a tuple or a list "
        "of them, got 'core 0' (str)")
    assert message(ValueError, lambda: p.add_kernel_from_source("x", "k.cpp", [], cfg)) == \
        "Program.add_kernel_from_source: cores is empty: expected at least one core"
    assert message(TypeError, lambda: p.add_kernel_from_source("x", "k.cpp", (0, 0), {})) == (
        "Program.add_kernel_from_source: config must be a tessel.DataMovementConfig or tessel.ComputeConfig, "
        "got {} (dict)")
    assert message(TypeError, lambda: tessel.DataMovementConfig(compile_args=[1, True])) == \
        "DataMovementConfig: compile_args[1] must be an integer word (0..4294967295), got True (bool)"
    assert message(ValueError, lambda: tessel.DataMovementConfig(compile_args=[1 << 32])) == \
        "DataMovementConfig: compile_args[0] must be an integer word (0..4294967295), got 4294967296"
    assert message(TypeError, lambda: tessel.ComputeConfig(fp32_dest_acc_en=1)) == \
        "ComputeConfig: fp32_dest_acc_en must be True or False, got 1 (int)"
    assert message(ValueError, lambda: tessel.ComputeConfig(opt_level="O4")) == (
        "ComputeConfig: opt_level must be an integer 0..3 or a tessel.OptLevel or its name (O0, O1, O2, O3, Os, "
        "Ofast, Oz), got 'O4'")
    assert message(ValueError, lambda: tessel.DataMovementConfig(opt_level=4)) == (
        "DataMovementConfig: opt_level must be an integer 0..3 or a tessel.OptLevel or its name (O0, O1, O2, O3, "
        "Os, Ofast, Oz), got 4")
    assert message(TypeError, lambda: tessel.ComputeConfig(bfp8_pack_precise=1)) == \
        "ComputeConfig: bfp8_pack_precise must be True or False, got 1 (int)"
    assert message(TypeError, lambda: tessel.ComputeConfig(math_fidelity="HiFi5")) == (
        "ComputeConfig: math_fidelity must be a tessel.MathFidelity (one of LoFi, HiFi2, HiFi3, HiFi4), "
        "got 'HiFi5' (str)")
    assert message(ValueError, lambda: tessel.CircularBufferConfig(2048, {0: "bf17"})).startswith(
        "CircularBufferConfig: formats[0]: no data format named 'bf17'; the names are Float32, ")
    k = p.add_kernel_from_source("void kernel_main() {}\n", "k.cpp", (0, 0), cfg)
    assert message(TypeError, lambda: p.set_runtime_args(k, (0, 0), np.array([1.5]))) == \
        "Program.set_runtime_args: args must hold integer words, got an array of float64"
    assert message(ValueError, lambda: p.set_runtime_args(k, (0, 0), np.array([-1]))) == \
        "Program.set_runtime_args: args must hold integer words (0..4294967295): a value is out of range"
    assert message(TypeError, lambda: p.add_semaphore((0, 0), 1, id=np.float32(2))) == \
        "Program.add_semaphore: id must be a semaphore id (0..15), got np.float32(2.0) (float32)"
    p.add_semaphore((0, 0), 1, id=np.int32(3))  # integer-indexable: accepted
    assert message(TypeError, lambda: device.command_queue.enqueue_program("p")) == \
        "enqueue_program: program must be a tessel.Program, got 'p' (str)"
    assert message(TypeError, lambda: device.command_queue.enqueue_program(p, blocking=0)) == \
        "enqueue_program: blocking must be True or False, got 0 (int)"


def test_core_types():
    assert message(TypeError, lambda: tessel.CoreCoord(1, True)) == \
        "CoreCoord.y must be an integer (0..65535), got True (bool)"
    assert message(ValueError, lambda: tessel.CoreCoord(-1, 0)) == "CoreCoord.x must be an integer (0..65535), got -1"
    assert message(TypeError, lambda: tessel.CoreRange("a")) == \
        "CoreRange start must be a CoreCoord or an (x, y) tuple, got 'a' (str)"
    # A pair holding a core or a range is not an (x, y) pair: each item is read as a range.
    r = tessel.CoreRange((0, 0), (1, 1))
    assert message(TypeError, lambda: tessel.CoreRangeSet([r, 5])) == (
        "CoreRangeSet[1] must be a CoreRange, a CoreCoord, an (x, y) tuple or a ((x0, y0), (x1, y1)) tuple, "
        "got 5 (int)")
    assert message(TypeError, lambda: tessel.Program().add_semaphore(("a", r))) == (
        "Program.add_semaphore: cores[0] must be a CoreRange, a CoreCoord, an (x, y) tuple or a ((x0, y0), "
        "(x1, y1)) tuple, got 'a' (str)")
    assert message(TypeError, lambda: tessel.CoreRange((r, r))) == (
        "CoreRange start must be a CoreCoord or an (x, y) tuple, got (CoreRange(CoreCoord(0, 0), CoreCoord(1, 1)), "
        "CoreRange(C... (tuple)")
    # A pair of scalars is still a coordinate, checked as one.
    assert message(TypeError, lambda: tessel.CoreRangeSet([(0, 1.5)])) == \
        "CoreCoord.y must be an integer (0..65535), got 1.5 (float)"
    assert message(TypeError, lambda: tessel.CoreRangeSet(("a", 1))) == \
        "CoreCoord.x must be an integer (0..65535), got 'a' (str)"
