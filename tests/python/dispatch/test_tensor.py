"""tessel.dispatch.tensor on a simulated Blackhole: every dtype in both
layouts written and read back against numpy references, where the pages
lie, shard_grid tensors in L1, the busy guard, and the session-level reads
(pages, page ranges, chunks, bfloat16 tiles)."""

import numpy as np
import pytest

import tessel
from tessel.dispatch import formats, tensor
from tessel.dispatch.errors import DispatchError

rng = np.random.default_rng(7)

INTEGER = {"int32": np.int32, "uint32": np.uint32, "uint16": np.uint16, "uint8": np.uint8}
CASES = [(d, layout) for d in ("bfloat16", "float32", *INTEGER) for layout in ("row", "tile")]
CASES += [("bfloat8_b", "tile"), ("bfloat4_b", "tile")]
SHAPES = [(40, 70), (2, 33, 64), (96,)]
# Every dtype and layout on each shape (a tile tensor has at least two dimensions).
WRITE_READ = [(d, layout, s) for d, layout in CASES for s in SHAPES if layout == "row" or len(s) >= 2]


def ref_bf16(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    exp = (u >> 23) & 0xFF
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return (np.where(exp == 0, (u & 0x80000000) >> 16, rounded).astype(np.uint32) << 16).view(np.float32)


def ref_pad(x):
    *lead, rows, cols = x.shape
    p = np.zeros((*lead, -(-rows // 32) * 32, -(-cols // 32) * 32), x.dtype)
    p[..., :rows, :cols] = x
    return p


def ref_tiles(p):
    """[tiles, 32, 32] of a padded array, tiles row-major, leading dimensions outermost."""
    *lead, R, C = p.shape
    return p.reshape(-1, R // 32, 32, C // 32, 32).transpose(0, 1, 3, 2, 4).reshape(-1, 32, 32)


def ref_tilize(p):
    return ref_tiles(p).reshape(-1, 2, 16, 2, 16).transpose(0, 1, 3, 2, 4).reshape(-1)


def sample(dtype, shape):
    if dtype in INTEGER:
        info = np.iinfo(INTEGER[dtype])
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=np.int64)
    return (rng.standard_normal(shape) * 4).astype(np.float32)


@pytest.mark.parametrize("dtype,layout,shape", WRITE_READ,
                         ids=[f"{d}-{layout}-{'x'.join(map(str, s))}" for d, layout, s in WRITE_READ])
def test_write_and_read_back(device, dtype, layout, shape):
    x = sample(dtype, shape)
    t = tensor.create(device, None, dtype, layout, data=x)
    banks = device.dram_banks
    if layout == "row":
        size = formats.dtype_info(dtype)[1]
        assert (t.shape, t.pages, t.page_bytes) == (shape, int(np.prod(shape[:-1])), shape[-1] * size)
        assert t.aligned_page_bytes == -(-t.page_bytes // device.dram_alignment) * device.dram_alignment
        want = ref_bf16(x) if dtype == "bfloat16" else x
        want_bytes = (formats.bf16_bits(x).astype("<u2") if dtype == "bfloat16" else
                      x.astype(np.dtype(formats.dtype_info(dtype)[0]).newbyteorder("<"))).tobytes()
    else:
        padded = ref_pad(x)
        assert t.shape == padded.shape
        assert (t.pages, t.page_bytes) == (padded.size // 1024, formats.tile_bytes(dtype))
        assert t.aligned_page_bytes == -(-t.page_bytes // device.dram_alignment) * device.dram_alignment
        if dtype in ("bfloat8_b", "bfloat4_b"):
            want_bytes = formats.to_bytes(ref_tilize(padded), dtype).tobytes()
            want = formats.untilize(formats.from_bytes(np.frombuffer(want_bytes, np.uint8), dtype), t.shape)
            # A shared exponent per 16 values: within a step of the group's largest value.
            step = 2.0 ** (-6 if dtype == "bfloat8_b" else -2)
            groups = np.abs(padded).reshape(*padded.shape[:-1], -1, 16).max(axis=-1, keepdims=True)
            limit = np.repeat(groups, 16, axis=-1).reshape(padded.shape) * step
            assert np.all(np.abs(want - padded) <= limit)
        elif dtype == "bfloat16":
            want = ref_bf16(padded)
            want_bytes = formats.bf16_bits(ref_tilize(padded)).astype("<u2").tobytes()
        else:
            want = padded
            want_bytes = ref_tilize(padded).astype(np.dtype(formats.dtype_info(dtype)[0]).newbyteorder("<")).tobytes()
    assert t.address == t.buffer.address and t.layout == layout and t.dtype == dtype and t.shard_grid is None
    assert t.buffer.type == tessel.BufferType.DRAM and not t.buffer.is_sharded
    assert t.accessor_args() == tessel.TensorAccessorArgs(t.buffer).get_compile_time_args()
    assert len(t.accessor_args()) == 2
    for p in range(min(t.pages, 2 * banks + 1)):
        assert t.buffer.page_location(p) == (p % banks, t.address + (p // banks) * t.aligned_page_bytes)
    got = t.read()
    assert got.dtype == formats.dtype_info(dtype)[0] and got.shape == t.shape
    np.testing.assert_array_equal(got, want)
    assert t.read_bytes().tobytes() == want_bytes
    np.testing.assert_array_equal(tensor.read_pages(t), np.frombuffer(want_bytes, np.uint8).reshape(t.pages, -1))


def test_empty_then_write(device):
    t = tensor.create(device, (3, 50), "bfloat16", "tile")
    assert (t.shape, t.pages) == ((32, 64), 2)
    x = rng.standard_normal((3, 50)).astype(np.float32)
    t.write(x)  # a shape that pads to the tensor's
    np.testing.assert_array_equal(t.read(), ref_bf16(ref_pad(x)))
    y = rng.standard_normal((32, 64)).astype(np.float32)
    t.write(y.tolist())
    np.testing.assert_array_equal(t.read(), ref_bf16(y))
    r = tensor.create(device, [4, 8], "uint16")
    r.write(np.arange(32).reshape(4, 8))
    np.testing.assert_array_equal(r.read(), np.arange(32, dtype=np.uint16).reshape(4, 8))


@pytest.mark.parametrize("grid,dtype,words", [((3, 2), "uint32", 16), ((12, 1), "bfloat16", 24), ((1, 1), "uint8", 5),
                                               ((12, 10), "int32", 3)], ids=["3x2", "12x1", "1x1", "12x10"])
def test_shard_grid(device, grid, dtype, words):
    cores = grid[0] * grid[1]
    x = sample(dtype, (cores, words))
    t = tensor.create(device, None, dtype, shard_grid=grid, data=x)
    assert t.shard_grid == grid and t.shape == (cores, words) and t.pages == cores
    assert t.buffer.type == tessel.BufferType.L1 and t.buffer.is_sharded
    columns = device.grid.x
    for i in range(cores):  # row i in the L1 of core (i % x, i // x), all at one address
        core = (i % grid[0], i // grid[0])
        assert t.buffer.page_location(i) == (core[1] * columns + core[0], t.address)
    assert len(t.accessor_args()) == 4 + 2 * 2 + cores
    np.testing.assert_array_equal(t.read(), ref_bf16(x) if dtype == "bfloat16" else x)


def test_busy_guards_the_tensors_own_reads_and_writes(device):
    state = {"reason": None}
    t = tensor.create(device, (8, 32), "bfloat16", "tile", busy=lambda: state["reason"])
    t.write(np.ones((8, 32), np.float32))
    state["reason"] = "a persistent run is loaded"
    hint = "the cores of a loaded run return only at its stop, so this would wait forever"
    for call, name, rest in [(t.read, "Tensor.read", "use session.read(...) while a run is loaded, or read after "
                              "run.stop()"),
                             (t.read_bytes, "Tensor.read_bytes", "use session.read(...) while a run is loaded, or "
                              "read after run.stop()"),
                             (lambda: t.write(np.zeros((8, 32))), "Tensor.write", "write before session.load(...) or "
                              "after run.stop()")]:
        with pytest.raises(DispatchError) as e:
            call()
        assert str(e.value) == f"{name}: a persistent run is loaded; {hint}: {rest}"
    # The session-level reads do not wait for the cores: they work while a run is loaded.
    np.testing.assert_array_equal(tensor.read_bf16(t), ref_pad(np.ones((8, 32), np.float32)))
    assert tensor.read_pages(t).shape == (1, 2048)
    assert tensor.read_range(t, 0, 1).shape == (1, 2048)
    with pytest.raises(DispatchError) as e:
        tensor.create(device, None, "uint32", data=[1, 2], busy=lambda: "a persistent run is loaded")
    assert str(e.value) == (f"session.tensor: a persistent run is loaded; {hint}: write before session.load(...) or "
                            "after run.stop()")
    assert tensor.create(device, (4,), "uint32", busy=lambda: "busy").pages == 1  # nothing to write
    state["reason"] = None
    t.write(np.zeros((8, 32)))
    assert not t.read().any()


def test_free(device):
    before = device.memory_statistics("dram").allocated_bytes
    t = tensor.create(device, (64, 1024), "float32")
    assert device.memory_statistics("dram").allocated_bytes > before
    t.free()
    assert device.memory_statistics("dram").allocated_bytes == before
    assert t.freed
    t.free()
    for call, name in [(t.read, "Tensor.read"), (t.read_bytes, "Tensor.read_bytes"),
                       (lambda: t.write(np.zeros((64, 1024))), "Tensor.write"),
                       (t.accessor_args, "Tensor.accessor_args")]:
        with pytest.raises(DispatchError) as e:
            call()
        assert str(e.value) == f"{name}: the tensor was freed (Tensor.free)"
    with pytest.raises(DispatchError) as e:
        tensor.read_pages(t)
    assert str(e.value) == "session.read: tensor was freed (Tensor.free)"


def test_read_pages_and_bf16_of_several_tensors(device):
    a = tensor.create(device, None, "uint8", data=rng.integers(0, 256, (10, 48)))
    b = tensor.create(device, None, "bfloat16", "tile", data=rng.standard_normal((40, 40)).astype(np.float32))
    c = tensor.create(device, None, "bfloat16", "tile", data=rng.standard_normal((2, 32, 64)).astype(np.float32))
    pages = tensor.read_pages(a, b)
    assert isinstance(pages, list) and [p.shape for p in pages] == [(10, 48), (4, 2048)]
    np.testing.assert_array_equal(pages[0], a.read())
    np.testing.assert_array_equal(pages[1].reshape(-1), b.read_bytes())
    both = tensor.read_bf16(b, c)
    assert [v.shape for v in both] == [(64, 64), (2, 32, 64)]
    np.testing.assert_array_equal(both[0], b.read())
    np.testing.assert_array_equal(both[1], c.read())


def test_read_range(device):
    x = rng.integers(0, 2**32, (37, 20), dtype=np.uint64).astype(np.uint32)
    t = tensor.create(device, None, "uint32", data=x)
    rows = x.view(np.uint8).reshape(37, 80)
    for first, pages in [(0, None), (0, 37), (5, 1), (8, 9), (36, 1), (30, None), (37, 0), (37, None), (4, 0)]:
        got = tensor.read_range(t, first, pages)
        want = rows[first:] if pages is None else rows[first:first + pages]
        assert got.dtype == np.uint8 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tensor.read_range(t, first=np.int64(2), pages=np.uint8(3)), rows[2:5])
    for first, pages, message in [
            (0, 38, "pages 0 to 37 are outside the tensor, which has 37 pages (0 to 36)"),
            (36, 2, "pages 36 to 37 are outside the tensor, which has 37 pages (0 to 36)"),
            (-1, 2, "pages -1 to 0 are outside the tensor, which has 37 pages (0 to 36)"),
            (38, None, "first page 38 is outside the tensor, which has 37 pages (0 to 36)"),
            (-1, None, "first page -1 is outside the tensor, which has 37 pages (0 to 36)"),
            (40, 0, "first page 40 is outside the tensor, which has 37 pages (0 to 36)")]:
        with pytest.raises(DispatchError) as e:
            tensor.read_range(t, first, pages)
        assert str(e.value) == f"session.read: {message}"


@pytest.mark.parametrize("chunk_bytes", [80, 81, 240, 2 << 20, 80 * 37, 80 * 36])
def test_read_chunks_cover_the_tensor(device, chunk_bytes):
    x = rng.integers(0, 256, (37, 80), dtype=np.uint8)
    t = tensor.create(device, None, "uint8", data=x)
    chunks = list(tensor.read_chunks(t, chunk_bytes))
    per = chunk_bytes // 80
    assert [first for first, _ in chunks] == list(range(0, 37, per))
    assert all(p.nbytes <= chunk_bytes and p.shape[1] == 80 for _, p in chunks)
    assert sum(p.shape[0] for _, p in chunks) == 37
    np.testing.assert_array_equal(np.concatenate([p for _, p in chunks]), x)


def test_read_chunks_default_and_tile_pages(device):
    x = rng.standard_normal((2, 96, 64)).astype(np.float32)
    t = tensor.create(device, None, "float32", "tile", data=x)
    chunks = list(tensor.read_chunks(t))
    assert [(first, p.shape) for first, p in chunks] == [(0, (12, 4096))]
    chunks = list(tensor.read_chunks(t, 3 * 4096 + 100))
    assert [(first, p.shape[0]) for first, p in chunks] == [(0, 3), (3, 3), (6, 3), (9, 3)]
    np.testing.assert_array_equal(np.concatenate([p for _, p in chunks]).reshape(-1), t.read_bytes())


def test_read_tiles_bf16(device):
    x = rng.standard_normal((3, 70, 100)).astype(np.float32)
    t = tensor.create(device, None, "bfloat16", "tile", data=x)
    tiles = ref_tiles(ref_bf16(ref_pad(x)))
    assert t.pages == tiles.shape[0] == 3 * 3 * 4
    for first, pages in [(0, 36), (0, 1), (5, 7), (35, 1), (12, 0)]:
        got = tensor.read_tiles_bf16(t, first, pages)
        assert got.dtype == np.float32 and got.shape == (pages, 32, 32)
        np.testing.assert_array_equal(got, tiles[first:first + pages])
    with pytest.raises(DispatchError) as e:
        tensor.read_tiles_bf16(t, 30, 7)
    assert str(e.value) == \
        "session.read_tiles_bf16: pages 30 to 36 are outside the tensor, which has 36 pages (0 to 35)"
