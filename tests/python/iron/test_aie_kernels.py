"""tessel's AIE kernel library through IRON designs: each library kernel runs in
a Worker and is checked against numpy; kernels named by object file resolve to
the library's source; bad inputs get errors naming the search path.

JIT builds are few: one worker calls every int32 kernel, one every bfloat16
kernel, one the matrix kernels, one the alignment check."""

import os
import sys

import ml_dtypes
import numpy as np
import pytest

import tessel
import tessel.iron as iron
from tessel.iron import Kernel, ObjectFifo, Program, Runtime, Worker
from tessel.iron import kernel as kernel_mod
from tessel.iron.controlflow import range_

from .common import fill_drain

bf16 = ml_dtypes.bfloat16
LIB = os.path.join(kernel_mod.kernel_include_dir(), "aie_kernels")


def arr(n, dtype):
    return np.ndarray[(n,), np.dtype[dtype]]


# ---- 32-bit data: passthrough (named by object file), scale, transpose, f32 -> bf16, reductions

T32, TILES32 = 256, 4


def int32_design(device):
    tile, one = arr(T32, np.int32), arr(1, np.int32)
    of_a, of_f = ObjectFifo(tile, name="a"), ObjectFifo(one, name="f")
    of_c, of_r = ObjectFifo(tile, name="c"), ObjectFifo(one, name="r")
    # IRON's spelling: the compiled object's name; tessel finds the library source.
    copy = Kernel("passThroughLine", "passThrough.cc.o", [tile, tile, np.int32])
    scale = iron.kernels.scale(T32, np.int32)
    blocks = iron.kernels.transpose(16, 16, 4, np.uint32)  # a 256-element tile as 16 x 16
    cast = iron.kernels.convert_copy(T32)
    reducers = [iron.kernels.reduce_add(T32), iron.kernels.reduce_max(T32), iron.kernels.reduce_min(T32),
                iron.kernels.reduce_add(T32, vectorized=False)]

    def core_fn(a, f, c, r, copy, scale, blocks, cast, *reducers):
        factor = f.acquire(1)
        for t in range(TILES32):
            x, y, s = a.acquire(1), c.acquire(1), r.acquire(1)
            if t == 0:
                copy(x, y, T32)
            elif t == 1:
                scale(x, y, factor, T32)
            elif t == 2:
                blocks(x, y)
            else:
                cast(x, y, T32)  # tile 3 holds float32 bits; the bfloat16 results fill half of y
            reducers[t](x, s, T32)
            a.release(1)
            c.release(1)
            r.release(1)
        f.release(1)

    def seq(a, f, c, r, a_h, f_h, c_h, r_h):
        a_h.fill(a)
        f_h.fill(f)
        c_h.drain(c, wait=True)
        r_h.drain(r, wait=True)

    w = Worker(core_fn, [of_a.cons(), of_f.cons(), of_c.prod(), of_r.prod(), copy, scale, blocks, cast, *reducers])
    types = [arr(T32 * TILES32, np.int32), one, arr(T32 * TILES32, np.int32), arr(TILES32, np.int32)]
    return Program(device, Runtime(seq, [*types, of_a.prod(), of_f.prod(), of_c.cons(), of_r.cons()]), [w]
                   ).resolve_program()


def test_32bit_library_kernels_match_numpy(device):
    rng = np.random.default_rng(1)
    a = rng.integers(-(2**31), 2**31 - 1, T32 * TILES32, dtype=np.int64).astype(np.int32)
    a[T32:2 * T32] = rng.integers(-5000, 5000, T32)  # a tile the reductions see small
    floats = rng.standard_normal(T32).astype(np.float32)
    floats[:4] = [np.float32(1.00390625), np.float32(-1.00390625), np.inf, np.nan]  # ties to even, inf, NaN
    a[3 * T32:] = floats.view(np.int32)
    factor = np.array([-7], np.int32)
    c = np.zeros_like(a)
    r = np.zeros(TILES32, np.int32)
    int32_design(device)(a, factor, c, r)
    tiles, got = a.reshape(TILES32, T32), c.reshape(TILES32, T32)
    np.testing.assert_array_equal(got[0], tiles[0])
    np.testing.assert_array_equal(got[1], (tiles[1].astype(np.int64) * -7).astype(np.int32))  # modulo 2^32
    blocks = tiles[2].reshape(4, 4, 4, 4)  # (block row, row, block column, column)
    np.testing.assert_array_equal(got[2].reshape(4, 4, 4, 4), blocks.transpose(0, 3, 2, 1))
    np.testing.assert_array_equal(got[3].view(np.uint16)[:T32], floats.astype(bf16).view(np.uint16))
    sums = tiles.astype(np.int64).sum(axis=1)
    want_r = [np.int64(sums[0]).astype(np.int32), tiles[1].max(), tiles[2].min(), np.int64(sums[3]).astype(np.int32)]
    np.testing.assert_array_equal(r, np.array(want_r, np.int32))


# ---- bfloat16: add, mul, relu, exp, reduce_max/min

TB = 1024


def bf16_design(device):
    # The buffers carry bfloat16 bits as uint16 (the kernels take bfloat16*).
    tile, one = arr(TB, np.uint16), arr(1, np.uint16)
    of_a, of_b = ObjectFifo(tile, name="a"), ObjectFifo(tile, name="b")
    of_c, of_r = ObjectFifo(tile, name="c"), ObjectFifo(one, name="r")
    ops = [iron.kernels.add(), iron.kernels.mul(), iron.kernels.relu(), iron.kernels.bf16_exp()]
    reducers = [iron.kernels.reduce_max(TB, bf16), iron.kernels.reduce_min(TB, bf16)]

    def core_fn(a, b, c, r, add, mul, relu, exp, rmax, rmin):
        for t in range(4):
            x, y, z, s = a.acquire(1), b.acquire(1), c.acquire(1), r.acquire(1)
            if t < 2:
                (add, mul)[t](x, y, z)
            else:
                (relu, exp)[t - 2](x, z)
            (rmax, rmin)[t % 2](x, s, TB)
            for h in (a, b, c, r):
                h.release(1)

    def seq(a, b, c, r, a_h, b_h, c_h, r_h):
        a_h.fill(a)
        b_h.fill(b)
        c_h.drain(c, wait=True)
        r_h.drain(r, wait=True)

    w = Worker(core_fn, [of_a.cons(), of_b.cons(), of_c.prod(), of_r.prod(), *ops, *reducers])
    types = [arr(4 * TB, np.uint16)] * 3 + [arr(4, np.uint16)]
    return Program(device, Runtime(seq, [*types, of_a.prod(), of_b.prod(), of_c.cons(), of_r.cons()]), [w]
                   ).resolve_program()


def test_bf16_library_kernels_match_numpy(device):
    rng = np.random.default_rng(2)
    a = rng.uniform(-4, 4, 4 * TB).astype(bf16)
    b = rng.uniform(-4, 4, 4 * TB).astype(bf16)
    c = np.zeros(4 * TB, bf16)
    r = np.zeros(4, bf16)
    bf16_design(device)(a.view(np.uint16), b.view(np.uint16), c.view(np.uint16), r.view(np.uint16))
    at, bt, ct = (v.reshape(4, TB) for v in (a, b, c))
    af, bfl = at.astype(np.float32), bt.astype(np.float32)
    # Sums and products are exact in fp32 here; the vector kernels round them by the current mode
    # (a kernel starts in conv_even: round to nearest, ties to even, as numpy's bfloat16 does).
    np.testing.assert_array_equal(ct[0].view(np.uint16), (af[0] + bfl[0]).astype(bf16).view(np.uint16))
    np.testing.assert_array_equal(ct[1].view(np.uint16), (af[1] * bfl[1]).astype(bf16).view(np.uint16))
    np.testing.assert_array_equal(ct[2].astype(np.float32), np.maximum(af[2], 0))
    # e^x in fp32 then rounded to nearest: within one bf16 ulp of numpy's.
    want = np.exp(af[3]).astype(bf16).astype(np.float32)
    ulp = np.float32(2.0) ** (np.floor(np.log2(np.abs(want))) - 7)
    assert np.all(np.abs(ct[3].astype(np.float32) - want) <= ulp)
    np.testing.assert_array_equal(r.astype(np.float32), [af[0].max(), af[1].min(), af[2].max(), af[3].min()])


# ---- matrix kernels: mm (i16 and bf16 through the same buffers) and mv

DIM = 16


def matrix_design(device):
    a_ty, c_ty, v_ty = arr(DIM * DIM, np.int16), arr(DIM * DIM, np.int32), arr(DIM, np.int32)
    of_a, of_b = ObjectFifo(a_ty, name="a"), ObjectFifo(a_ty, name="b")
    of_c, of_v = ObjectFifo(c_ty, name="c"), ObjectFifo(v_ty, name="v")
    mm16 = iron.kernels.mm(DIM, DIM, DIM, "i16", "i32")
    mmbf = iron.kernels.mm(DIM, DIM, DIM, "bf16", "f32")
    mv = iron.kernels.mv(DIM, DIM)

    def mm_fn(a, b, c, mm16, zero16, mmbf, zerobf):
        for t in range(2):
            x, y, z = a.acquire(1), b.acquire(1), c.acquire(1)
            (zero16, zerobf)[t](z)
            (mm16, mmbf)[t](x, y, z)
            (mm16, mmbf)[t](x, y, z)  # accumulates: C = 2 * A * B
            for h in (a, b, c):
                h.release(1)

    # mm.cc and mv.cc both define zero_scalar_i32 (as IRON's do): one worker each.
    def mv_fn(a, b, v, mv, zerov):
        for _ in range(2):
            x, y, w = a.acquire(1), b.acquire(1), v.acquire(1)
            zerov(w)
            mv(x, y, w)
            for h in (a, b, v):
                h.release(1)

    def seq(a, b, c, v, a_h, b_h, c_h, v_h):
        a_h.fill(a)
        b_h.fill(b)
        c_h.drain(c, wait=True)
        v_h.drain(v, wait=True)

    w_mm = Worker(mm_fn, [of_a.cons(), of_b.cons(), of_c.prod(), mm16, mm16.zero, mmbf, mmbf.zero])
    w_mv = Worker(mv_fn, [of_a.cons(), of_b.cons(), of_v.prod(), mv, mv.zero])
    types = [arr(2 * DIM * DIM, np.int16)] * 2 + [arr(2 * DIM * DIM, np.int32), arr(2 * DIM, np.int32)]
    return Program(device, Runtime(seq, [*types, of_a.prod(), of_b.prod(), of_c.cons(), of_v.cons()]), [w_mm, w_mv]
                   ).resolve_program()


def untile(flat, r, s):
    """A DIM x DIM matrix from IRON's r x s tiled layout (tiles row-major, elements row-major)."""
    return flat.reshape(DIM // r, DIM // s, r, s).transpose(0, 2, 1, 3).reshape(DIM, DIM)


def test_matrix_library_kernels_match_numpy(device):
    rng = np.random.default_rng(3)
    a16 = rng.integers(-2000, 2000, DIM * DIM, dtype=np.int16)
    b16 = rng.integers(-2000, 2000, DIM * DIM, dtype=np.int16)
    abf = (rng.integers(-16, 16, DIM * DIM) / 8).astype(bf16)
    bbf = (rng.integers(-16, 16, DIM * DIM) / 8).astype(bf16)
    a = np.concatenate([a16, abf.view(np.int16)])
    b = np.concatenate([b16, bbf.view(np.int16)])
    c = np.zeros(2 * DIM * DIM, np.int32)
    v = np.zeros(2 * DIM, np.int32)
    matrix_design(device)(a, b, c, v)
    # aie2 shapes: i16 4x4x4, bf16 4x8x4.
    want16 = 2 * untile(a16, 4, 4).astype(np.int64) @ untile(b16, 4, 4).astype(np.int64)
    np.testing.assert_array_equal(untile(c[:DIM * DIM], 4, 4), want16.astype(np.int32))
    wantbf = 2 * untile(abf, 4, 8).astype(np.float32) @ untile(bbf, 8, 4).astype(np.float32)  # exact: small values
    np.testing.assert_array_equal(untile(c[DIM * DIM:].view(np.float32), 4, 4), wantbf)
    for t, (av, bv) in enumerate(((a16, b16), (abf.view(np.int16), bbf.view(np.int16)))):
        # mv's A: column pairs, A[row][col] at (col // 2) * 2 * DIM + 2 * row + col % 2.
        rows, cols = np.meshgrid(np.arange(DIM), np.arange(DIM), indexing="ij")
        mat = av[(cols // 2) * 2 * DIM + 2 * rows + cols % 2].astype(np.int64)
        np.testing.assert_array_equal(v[t * DIM:(t + 1) * DIM], (mat @ bv[:DIM].astype(np.int64)).astype(np.int32))


# ---- an unaligned vector load stops the kernel with the rule

MISALIGNED = """
#include <aie_api/aie.hpp>
extern "C" void misaligned_copy(int32_t* in, int32_t* out, int32_t n) {
  for (int32_t i = 0; i < n; i += 16) aie::store_v(out + i, aie::load_v<16>(in + i + 1));
}
"""


def test_an_unaligned_load_v_fails_the_kernel_at_its_line(device):
    tile = arr(64, np.int32)
    k = iron.ExternalFunction("misaligned_copy", source_string=MISALIGNED, arg_types=[tile, tile, np.int32])
    of_a, of_c = ObjectFifo(tile, name="a"), ObjectFifo(tile, name="c")

    def core_fn(a, c, k):
        x, y = a.acquire(1), c.acquire(1)
        k(x, y, 48)
        a.release(1)
        c.release(1)

    w = Worker(core_fn, [of_a.cons(), of_c.prod(), k])
    design = Program(device, Runtime(fill_drain, [tile, tile, of_a.prod(), of_c.cons()]), [w]).resolve_program()
    with pytest.raises(tessel.Error) as e:
        design(np.arange(64, dtype=np.int32), np.zeros(64, np.int32))
    msg = str(e.value)
    assert "misaligned_copy.cc:4" in msg, msg
    assert "aie::load_v of 16 x int32: address 0x" in msg, msg
    assert ("is not aligned to 32 bytes (the AIE aligns vector accesses to the vector's size, at most 32 bytes; use "
            "aie::load_unaligned_v for element-aligned data)") in msg, msg


# ---- source resolution

def test_object_names_resolve_to_the_library_by_architecture(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "design.py")])
    monkeypatch.setenv("TESSEL_AIE_ARCH", "aie2")
    tile = arr(64, np.int32)
    assert Kernel("passThroughLine", "passThrough.cc.o", [tile, tile, np.int32]).source_file == \
        os.path.join(LIB, "generic", "passThrough.cc")
    assert Kernel("matmul_i16_i32", "mm.o", []).source_file == os.path.join(LIB, "aie2", "mm.cc")
    monkeypatch.setenv("TESSEL_AIE_ARCH", "aie2p")
    assert Kernel("matmul_i16_i32", "mm.o", []).source_file == os.path.join(LIB, "aie2p", "mm.cc")
    assert Kernel("vector_scalar_mul_vector", "scale.o", []).source_file == os.path.join(LIB, "aie2", "scale.cc")
    monkeypatch.delenv("TESSEL_AIE_ARCH")
    from tessel.iron import device as device_mod

    monkeypatch.setattr(device_mod, "_current", device_mod.NPU2())  # the current IRON device's architecture
    assert kernel_mod.aie_arch() == "aie2p"
    monkeypatch.setattr(device_mod, "_current", device_mod.NPU1Col1())
    assert kernel_mod.aie_arch() == "aie2"
    # A source beside the design wins over the library; so does one in the current directory.
    (tmp_path / "scale.cc").write_text('extern "C" void vector_scalar_mul_vector() {}\n')
    assert Kernel("vector_scalar_mul_vector", "scale.o", []).source_file == str(tmp_path / "scale.cc")
    # ExternalFunction(source_file=) naming IRON's tree falls back the same way.
    f = iron.ExternalFunction("reduce_add_vector", source_file="/no/such/mlir-aie/aie_kernels/aie2/reduce_add.cc",
                              arg_types=[tile, arr(1, np.int32), np.int32])
    assert f.source_file == os.path.join(LIB, "aie2", "reduce_add.cc")
    assert os.path.isfile(os.path.join(kernel_mod.kernel_include_dir(), "aie_api", "aie.hpp"))


def test_a_missing_kernel_source_lists_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "design.py")])
    (tmp_path / "design.py").write_text("")
    monkeypatch.setenv("TESSEL_AIE_ARCH", "aie2p")
    with pytest.raises(FileNotFoundError) as e:
        Kernel("k", "/nonexistent/k.o", [])
    assert str(e.value) == (
        f"Kernel 'k': no C/C++ source for '/nonexistent/k.o' (tessel builds kernels from source: looked for k.cc or "
        f"k.cpp or k.c) in /nonexistent, {tmp_path}, {LIB}/aie2p, {LIB}/generic, {LIB}/aie2")
    with pytest.raises(FileNotFoundError) as e:
        iron.ExternalFunction("f", source_file="nothing_here.cc", arg_types=[])
    assert str(e.value) == (
        f"ExternalFunction 'f': no C/C++ source for 'nothing_here.cc' (tessel builds kernels from source: looked for "
        f"nothing_here.cc) in {tmp_path}, {LIB}/aie2p, {LIB}/generic, {LIB}/aie2")


def test_bad_library_arguments_are_refused(monkeypatch):
    with pytest.raises(ValueError) as e:
        iron.kernels.passthrough(64, np.float32)
    assert str(e.value) == ("kernels.passthrough: dtype must be np.uint8, np.int16 or np.int32, got "
                            "<class 'numpy.float32'>")
    with pytest.raises(ValueError) as e:
        iron.kernels.add(512)
    assert str(e.value) == "kernels.add: tile_size must be 1024 (the library kernel's loop bound), got 512"
    with pytest.raises(ValueError) as e:
        iron.kernels.mm(dtype_in="i32", dtype_out="i32")
    assert str(e.value).startswith("kernels.mm: ('i32', 'i32') is not one of bf16->bf16, bf16->f32, i16->i16")
    with pytest.raises(ValueError) as e:
        iron.kernels.transpose(30, 32, 4)
    assert str(e.value) == "kernels.transpose: dim_m and dim_n must be positive multiples of 4, got 30 x 32"
    with pytest.raises(ValueError) as e:
        iron.kernels.reduce_add(64, bf16)
    assert str(e.value) == "kernels.reduce_add: dtype must be np.int32, got <class 'ml_dtypes.bfloat16'>"
    monkeypatch.setenv("TESSEL_AIE_ARCH", "aie3")
    with pytest.raises(ValueError) as e:
        kernel_mod.aie_arch()
    assert str(e.value) == "TESSEL_AIE_ARCH='aie3': expected one of aie2, aie2p"


def test_a_missing_include_dir_is_a_warning_and_skipped(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSEL_STRICT", raising=False)
    with pytest.warns(tessel.TesselWarning, match="include_dirs names no directory '/no/such/dir'; it is skipped"):
        f = iron.ExternalFunction("g", source_string="", include_dirs=["/no/such/dir"])
    assert "/no/such/dir" not in f.include_dirs
    monkeypatch.setenv("TESSEL_STRICT", "1")
    with pytest.raises(tessel.ValidationError):
        iron.ExternalFunction("g", source_string="", include_dirs=["/no/such/dir"])


def test_compute_max_combines_partial_maxima(device):
    """iron.kernels.compute_max, reduce_max's companion, shares its source."""
    one = arr(1, np.int32)
    rmax, cmax = iron.kernels.reduce_max(64, np.int32), iron.kernels.compute_max(np.int32)
    of_a, of_r = ObjectFifo(arr(64, np.int32), name="a"), ObjectFifo(one, name="r")

    def core_fn(a, r, rmax, cmax):
        best = iron.LocalBuffer(type=one, initial_value=np.array([-(2**31)], np.int32))
        part = iron.LocalBuffer(type=one)
        for _ in range_(4):
            x = a.acquire(1)
            rmax(x, part, 64)
            cmax(best, part, best)
            a.release(1)
        out = r.acquire(1)
        out[0] = best[0]
        r.release(1)

    w = Worker(core_fn, [of_a.cons(), of_r.prod(), rmax, cmax])
    design = Program(device, Runtime(fill_drain, [arr(256, np.int32), one, of_a.prod(), of_r.cons()]), [w]).resolve_program()
    a = np.random.default_rng(3).integers(-1000, 1000, 256).astype(np.int32)
    r = np.zeros(1, np.int32)
    design(a, r)
    assert r[0] == a.max()


def test_gelu_and_silu_through_a_parallel_transform(device, monkeypatch):
    """iron.kernels.gelu and silu as IRON's examples use them: transform_parallel_typed, no size argument."""
    from tessel.iron import device as device_mod
    from tessel.iron.algorithms import transform_parallel_typed

    monkeypatch.setattr(device_mod, "_current", device)  # 4 columns

    n = 4 * 2 * 1024  # the 4 columns of the test device, 2 channels each
    design = transform_parallel_typed(iron.kernels.gelu(tile_size=1024), arr(n, bf16), tile_size=1024,
                                      num_channels=2, pass_size_to_kernel=False)
    x = np.random.default_rng(4).uniform(-4, 4, n).astype(bf16)
    y = np.zeros_like(x)
    design(x, y)
    xf = x.astype(np.float32)
    silu = transform_parallel_typed(iron.kernels.silu(), arr(n, bf16), tile_size=1024, pass_size_to_kernel=False)
    s = np.zeros_like(x)
    silu(x, s)
    np.testing.assert_allclose(s.astype(np.float32), xf / (1 + np.exp(-xf)), rtol=2**-8, atol=1e-6)
    want = 0.5 * xf * (1 + np.tanh(np.float32(0.7978845608) * (xf + np.float32(0.044715) * xf**3)))
    # fp32 tanh within an ulp, then bfloat16 rounding: within one bfloat16 step (2^-8 relative, or 1e-6 near 0)
    np.testing.assert_allclose(y.astype(np.float32), want, rtol=2**-8, atol=1e-6)


@pytest.mark.parametrize("arch, value", [("aie2", 20), ("aie2p", 21)])
def test_external_kernels_see_the_targets_aie_arch(device, monkeypatch, arch, value):
    """__AIE_ARCH__, which IRON's kernels test (transpose.cc picks its shuffles by it), as the AIE compiler defines it."""
    monkeypatch.setenv("TESSEL_AIE_ARCH", arch)
    one = arr(1, np.int32)
    k = iron.ExternalFunction("arch_k", source_string='extern "C" void arch_k(int32_t* o) { o[0] = __AIE_ARCH__; }',
                              arg_types=[one])
    of = ObjectFifo(one, name="o", depth=1)

    def core_fn(o, k):
        y = o.acquire(1)
        k(y)
        o.release(1)

    def seq(out, o_h):
        o_h.drain(out, wait=True)

    w = Worker(core_fn, [of.prod(), k], while_true=False)
    design = Program(device, Runtime(seq, [one, of.cons()]), [w]).resolve_program()
    out = np.zeros(1, np.int32)
    design(out)
    assert out[0] == value


def test_objects_pass_to_whatever_pointer_the_kernel_takes(device):
    """IRON links a kernel by its C symbol: an int16 tile given to a kernel taking uint16_t* (IRON's transpose
    kernels are declared unsigned) runs, as it does on the NPU."""
    tile = arr(16, np.int16)
    k = iron.ExternalFunction("negate_bits", source_string='extern "C" void negate_bits(uint16_t* in, uint16_t* out) '
                              '{ for (int i = 0; i < 16; ++i) out[i] = uint16_t(~in[i]); }', arg_types=[tile, tile])
    of_in, of_out = ObjectFifo(tile, name="i"), ObjectFifo(tile, name="o")

    def core_fn(i, o, k):
        x, y = i.acquire(1), o.acquire(1)
        k(x, y)
        i.release(1)
        o.release(1)

    w = Worker(core_fn, [of_in.cons(), of_out.prod(), k], while_true=False)
    design = Program(device, Runtime(fill_drain, [tile, tile, of_in.prod(), of_out.cons()]), [w]).resolve_program()
    a = np.arange(-8, 8, dtype=np.int16)
    b = np.zeros_like(a)
    design(a, b)
    np.testing.assert_array_equal(b, ~a)


@pytest.mark.usefixtures("close_named_devices")
@pytest.mark.parametrize("current, program_device, arch_value, mm_dir", [
    ("NPU2", "NPU1Col1", 20, "aie2"), ("NPU1Col1", "NPU2", 21, "aie2p")])
def test_kernels_compile_for_the_programs_device_not_the_current_one(monkeypatch, current, program_device,
                                                                       arch_value, mm_dir):
    """A design that makes its Kernels while another device is current (tessel.iron.run makes NPU2 current) and
    resolves for `--dev npu` gets the npu's kernels, as IRON's Makefile builds them for the device it names:
    mm.cc's i16 tiles are 4x4x4 on aie2 and 4x4x8 on aie2p, so the wrong library breaks the design's layout."""
    from tessel.iron import device as device_mod

    monkeypatch.delenv("TESSEL_AIE_ARCH", raising=False)
    iron.set_current_device(getattr(device_mod, current)())
    one = arr(1, np.int32)
    k = iron.ExternalFunction("arch_k", source_string='extern "C" void arch_k(int32_t* o) { o[0] = __AIE_ARCH__; }',
                              arg_types=[one])
    mm = Kernel("matmul_i16_i32", "mm_64x64x32.o", [arr(64 * 64, np.int16)] * 2 + [arr(64 * 32, np.int32)])
    assert mm.source_file == os.path.join(LIB, "aie2p" if current == "NPU2" else "aie2", "mm.cc")
    of = ObjectFifo(one, name="o", depth=1)

    def core_fn(o, k, mm):
        y = o.acquire(1)
        k(y)
        o.release(1)

    def seq(out, o_h):
        o_h.drain(out, wait=True)

    w = Worker(core_fn, [of.prod(), k, mm], while_true=False)
    design = Program(getattr(device_mod, program_device)(), Runtime(seq, [one, of.cons()]), [w]).resolve_program()
    out = np.zeros(1, np.int32)
    design(out)
    assert out[0] == arch_value
    with kernel_mod.compiling_for(getattr(device_mod, program_device)()):
        assert mm.source_file == os.path.join(LIB, mm_dir, "mm.cc")
    assert mm.source_file == os.path.join(LIB, "aie2p" if current == "NPU2" else "aie2", "mm.cc")


def test_kernels_resolve_in_the_iron_tree_a_design_sits_in(monkeypatch, tmp_path):
    """A design inside an mlir-aie checkout gets its Makefile's kernels from the tree's aie_kernels/, before
    tessel's library; an archive name finds the source defining the function."""
    kernels = tmp_path / "aie_kernels"
    (kernels / "aie2").mkdir(parents=True)
    (kernels / "generic").mkdir()
    (kernels / "aie2" / "scale.cc").write_text('extern "C" void vector_scalar_mul_vector() {}\n')
    (kernels / "generic" / "rope.cc").write_text('extern "C" void rope(int32_t* a) {}\n')
    design_dir = tmp_path / "programming_examples" / "ml" / "rope"
    design_dir.mkdir(parents=True)
    (design_dir / "rope.py").write_text("")
    monkeypatch.chdir(design_dir)
    monkeypatch.setattr(sys, "argv", [str(design_dir / "rope.py")])
    monkeypatch.setenv("TESSEL_AIE_ARCH", "aie2")
    assert Kernel("vector_scalar_mul_vector", "scale.o", []).source_file == str(kernels / "aie2" / "scale.cc")
    assert Kernel("rope", "rope.o", []).source_file == str(kernels / "generic" / "rope.cc")
    assert Kernel("rope", "kernels.a", []).source_file == str(kernels / "generic" / "rope.cc")
    # A testbench beside the design defining a host reference of the kernel's name is not the kernel, nor is a
    # source that only calls it.
    (design_dir / "test.cpp").write_text('#include "xrt/xrt_bo.h"\nfloat rope(float x) { return x; }\n')
    (design_dir / "caller.cc").write_text('extern "C" void rope(int32_t* a);\nvoid f(int32_t* a) { rope(a); }\n')
    assert Kernel("rope", "kernels.a", []).source_file == str(kernels / "generic" / "rope.cc")
    assert Kernel("passThroughLine", "passThrough.cc.o", []).source_file == \
        os.path.join(LIB, "generic", "passThrough.cc")  # not in the tree: tessel's own
    # A newer tree keeps its kernels in family folders (aie_kernels/eltwise/add.cc).
    (kernels / "eltwise").mkdir()
    (kernels / "eltwise" / "add.cc").write_text('extern "C" void eltwise_add_bf16_vector() {}\n')
    assert Kernel("eltwise_add_bf16_vector", "add.o", []).source_file == str(kernels / "eltwise" / "add.cc")
    # Compiling for NPU2: the object name takes the tree's aie2p twin; a source the design names stays its own.
    (kernels / "aie2p").mkdir()
    (kernels / "aie2p" / "scale.cc").write_text('extern "C" void vector_scalar_mul_vector() {}\n')
    (kernels / "generic" / "scale.cc").write_text('extern "C" void vector_scalar_mul_aie_scalar() {}\n')
    by_name = Kernel("vector_scalar_mul_vector", "scale.o", [])
    named = iron.ExternalFunction("vector_scalar_mul_vector", source_file=str(kernels / "aie2" / "scale.cc"))
    monkeypatch.delenv("TESSEL_AIE_ARCH")
    from tessel.iron import device as device_mod

    with kernel_mod.compiling_for(device_mod.NPU2()):
        assert by_name.source_file == str(kernels / "aie2p" / "scale.cc")
        assert named.source_file == str(kernels / "aie2" / "scale.cc")
