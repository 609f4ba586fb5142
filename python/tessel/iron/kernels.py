"""Ready-made external kernels, as IRON's aie.iron.kernels provides them, built
from tessel's kernel library (kernel/include/aie_kernels/, written against the
AIE API): passthrough, scale, add, mul, relu, gelu, silu, bf16_exp, reduce_add,
reduce_max, reduce_min, transpose, convert_copy, mm, mv. Each returns an
ExternalFunction whose source is the library file IRON's factory names, found
as kernel.find_kernel_source finds it."""

import numpy as np

from .kernel import ExternalFunction, aie_arch, find_kernel_source
from .tensor import dtype_to_str, str_to_dtype

_BIT_WIDTHS = {np.dtype(np.uint8): 8, np.dtype(np.int16): 16, np.dtype(np.int32): 32}
_FIXED_TILE = 1024  # add, mul, relu, bf16_exp, gelu and silu loop over 1024 elements


def _bf16():
    import ml_dtypes

    return ml_dtypes.bfloat16


def _source(file_name, factory):
    return find_kernel_source(file_name, f"kernels.{factory}")


def _tile(n, dtype):
    return np.ndarray[(n,), np.dtype[dtype]]


def _fixed_tile(factory, tile_size):
    if tile_size != _FIXED_TILE:
        raise ValueError(f"kernels.{factory}: tile_size must be {_FIXED_TILE} (the library kernel's loop bound), "
                         f"got {tile_size}")


def passthrough(tile_size: int = 4096, dtype=np.int32) -> ExternalFunction:
    """passThroughLine(in, out, n): copies n elements (np.uint8, np.int16 or
    np.int32) of a tile_size tile."""
    bits = _BIT_WIDTHS.get(np.dtype(dtype))
    if bits is None:
        raise ValueError(f"kernels.passthrough: dtype must be np.uint8, np.int16 or np.int32, got {dtype!r}")
    ty = _tile(tile_size, dtype)
    return ExternalFunction("passThroughLine", source_file=_source("passThrough.cc", "passthrough"),
                            arg_types=[ty, ty, np.int32], compile_flags=[f"-DBIT_WIDTH={bits}"])


def scale(tile_size: int = 1024, dtype=np.int32, vectorized: bool = True) -> ExternalFunction:
    """vector_scalar_mul_vector / _scalar(in, out, factor[1], n): out = in *
    factor, element-wise, modulo 2^width (np.int16 or np.int32). The vector
    form needs n a multiple of 32."""
    if np.dtype(dtype) not in (np.dtype(np.int16), np.dtype(np.int32)):
        raise ValueError(f"kernels.scale: dtype must be np.int16 or np.int32, got {dtype!r}")
    ty = _tile(tile_size, dtype)
    return ExternalFunction(f"vector_scalar_mul_{'vector' if vectorized else 'scalar'}",
                            source_file=_source("scale.cc", "scale"),
                            arg_types=[ty, ty, _tile(1, np.int32), np.int32],
                            compile_flags=[f"-DBIT_WIDTH={_BIT_WIDTHS[np.dtype(dtype)]}"])


def _eltwise_bf16(op, tile_size, vectorized):
    _fixed_tile(op, tile_size)
    ty = _tile(tile_size, _bf16())
    return ExternalFunction(f"eltwise_{op}_bf16_{'vector' if vectorized else 'scalar'}",
                            source_file=_source(f"{op}.cc", op), arg_types=[ty, ty, ty])


def add(tile_size: int = 1024, vectorized: bool = True) -> ExternalFunction:
    """eltwise_add_bf16_vector / _scalar(a, b, c): c = a + b on 1024 bfloat16."""
    return _eltwise_bf16("add", tile_size, vectorized)


def mul(tile_size: int = 1024, vectorized: bool = True) -> ExternalFunction:
    """eltwise_mul_bf16_vector / _scalar(a, b, c): c = a * b on 1024 bfloat16."""
    return _eltwise_bf16("mul", tile_size, vectorized)


def _unary_bf16(factory, symbol, tile_size):
    """The library's fixed-size bfloat16 kernels: symbol(in, out) from factory.cc."""
    _fixed_tile(factory, tile_size)
    ty = _tile(tile_size, _bf16())
    return ExternalFunction(symbol, source_file=_source(f"{factory}.cc", factory), arg_types=[ty, ty])


def relu(tile_size: int = 1024) -> ExternalFunction:
    """bf16_relu(a, c): c = max(a, 0) on 1024 bfloat16."""
    return _unary_bf16("relu", "bf16_relu", tile_size)


def bf16_exp(tile_size: int = 1024) -> ExternalFunction:
    """exp_bf16_1024(a, c): c = e^a on 1024 bfloat16."""
    return _unary_bf16("bf16_exp", "exp_bf16_1024", tile_size)


def gelu(tile_size: int = 1024) -> ExternalFunction:
    """gelu_bf16(in, out): GELU's tanh form over 1024 bfloat16 elements."""
    return _unary_bf16("gelu", "gelu_bf16", tile_size)


def silu(tile_size: int = 1024) -> ExternalFunction:
    """silu_bf16(in, out): x * sigmoid(x) over 1024 bfloat16 elements."""
    return _unary_bf16("silu", "silu_bf16", tile_size)


def _reduce(op, tile_size, dtype, vectorized):
    if np.dtype(dtype) == np.dtype(np.int32):
        suffix = ""
    elif op != "add" and np.dtype(dtype) == np.dtype(_bf16()):
        suffix = "_bfloat16"
    else:
        allowed = "np.int32" if op == "add" else "np.int32 or bfloat16"
        raise ValueError(f"kernels.reduce_{op}: dtype must be {allowed}, got {dtype!r}")
    return ExternalFunction(f"reduce_{op}_{'vector' if vectorized else 'scalar'}{suffix}",
                            source_file=_source(f"reduce_{op}.cc", f"reduce_{op}"),
                            arg_types=[_tile(tile_size, dtype), _tile(1, dtype), np.int32])


def reduce_add(tile_size: int = 1024, dtype=np.int32, vectorized: bool = True) -> ExternalFunction:
    """reduce_add_vector / _scalar(in, out[1], n): the int32 sum (wrapping)."""
    return _reduce("add", tile_size, dtype, vectorized)


def reduce_max(tile_size: int = 1024, dtype=np.int32, vectorized: bool = True) -> ExternalFunction:
    """reduce_max_vector / _scalar[_bfloat16](in, out[1], n): the largest element."""
    return _reduce("max", tile_size, dtype, vectorized)


def compute_max(dtype=np.int32) -> ExternalFunction:
    """compute_max / compute_max_bfloat16(a[1], b[1], out[1]): out = max(a, b),
    reduce_max's companion for combining partial maxima (same source)."""
    if np.dtype(dtype) == np.dtype(np.int32):
        suffix = ""
    elif np.dtype(dtype) == np.dtype(_bf16()):
        suffix = "_bfloat16"
    else:
        raise ValueError(f"kernels.compute_max: dtype must be np.int32 or bfloat16, got {dtype!r}")
    one = _tile(1, dtype)
    return ExternalFunction(f"compute_max{suffix}", source_file=_source("reduce_max.cc", "compute_max"),
                            arg_types=[one, one, one])


def reduce_min(tile_size: int = 1024, dtype=np.int32, vectorized: bool = True) -> ExternalFunction:
    """reduce_min_vector / _scalar[_bfloat16](in, out[1], n): the smallest element."""
    return _reduce("min", tile_size, dtype, vectorized)


def transpose(dim_m: int = 32, dim_n: int = 32, subtile: int = 4, dtype=None) -> ExternalFunction:
    """transpose_4x4 / transpose_8x8(in, out): transposes every subtile x
    subtile block of a dim_n x dim_m row-major matrix in place (bfloat16 by
    default; any 1-, 2- or 4-byte dtype)."""
    dtype = _bf16() if dtype is None else dtype
    if subtile not in (4, 8):
        raise ValueError(f"kernels.transpose: subtile must be 4 or 8, got {subtile}")
    width = np.dtype(dtype).itemsize
    if width not in (1, 2, 4):
        raise ValueError(f"kernels.transpose: dtype must be 1, 2 or 4 bytes wide, got {dtype!r}")
    if dim_m <= 0 or dim_n <= 0 or dim_m % subtile or dim_n % subtile:
        raise ValueError(f"kernels.transpose: dim_m and dim_n must be positive multiples of {subtile}, got "
                         f"{dim_m} x {dim_n}")
    ty = _tile(dim_m * dim_n, dtype)
    return ExternalFunction(f"transpose_{subtile}x{subtile}", source_file=_source("transpose.cc", "transpose"),
                            arg_types=[ty, ty],
                            compile_flags=[f"-DDIM_m={dim_m}", f"-DDIM_n={dim_n}", f"-DBIT_WIDTH={8 * width}"])


def convert_copy(tile_size: int = 1024) -> ExternalFunction:
    """cast_f32_bf16_row(in, out, n): float32 to bfloat16, rounded to nearest
    even; n a multiple of 16."""
    if tile_size % 16:
        raise ValueError(f"kernels.convert_copy: tile_size must be a multiple of 16, got {tile_size}")
    return ExternalFunction("cast_f32_bf16_row", source_file=_source("cast_f32_bf16.cc", "convert_copy"),
                            arg_types=[_tile(tile_size, np.float32), _tile(tile_size, _bf16()), np.int32])


# The AIE's matmul tile r x s x t per architecture and input type (mm.cc).
_MAC_DIMS = {"aie2": {"i8": (4, 8, 8), "i16": (4, 4, 4), "bf16": (4, 8, 4)},
             "aie2p": {"i8": (8, 8, 8), "i16": (4, 4, 8), "bf16": (4, 8, 8)}}


def _mm_name(t, what):
    """"i16", np.int16, "bf16" or ml_dtypes.bfloat16 -> the short name mm.cc uses."""
    if isinstance(t, str):
        return t
    try:
        return dtype_to_str(t)
    except (TypeError, ValueError):
        raise TypeError(f"kernels.mm: {what} must be a type name ('i16', 'bf16', ...) or a numpy type, got "
                        f"{t!r}") from None


def mm(dim_m: int = 64, dim_k: int = 64, dim_n: int = 64, dtype_in="i16", dtype_out="i32",
       vectorized: bool = True, b_col_maj: bool = False, input_dtype=None, output_dtype=None,
       use_chess: bool = False) -> ExternalFunction:
    """matmul_<in>_<out>(a, b, c): C += A * B on pre-tiled blocks (mm.cc;
    matmul_scalar_<in>_<out> on row-major ones when not vectorized). Its
    companion zero_<out>(c) is `.zero`; `.mac_dims` is the (r, s, t) tile of
    the current architecture and `.stream_dims` the dims_to_stream of A, B
    and C that lay the blocks out in it (IRON's names; input_dtype= and
    output_dtype= may be numpy types)."""
    dtype_in = _mm_name(input_dtype if input_dtype is not None else dtype_in, "input_dtype")
    dtype_out = _mm_name(output_dtype if output_dtype is not None else dtype_out, "output_dtype")
    pairs = {("i8", "i8"), ("i8", "i16"), ("i8", "i32"), ("i16", "i16"), ("i16", "i32"), ("bf16", "bf16"),
             ("bf16", "f32")}
    if (dtype_in, dtype_out) not in pairs:
        raise ValueError(f"kernels.mm: ({dtype_in!r}, {dtype_out!r}) is not one of "
                         f"{', '.join(f'{a}->{b}' for a, b in sorted(pairs))}")
    flags = [f"-DDIM_M={dim_m}", f"-DDIM_K={dim_k}", f"-DDIM_N={dim_n}", f"-D{dtype_in}_{dtype_out}_ONLY"]
    if b_col_maj:
        flags.append("-DB_COL_MAJ")
    tin, tout = str_to_dtype(dtype_in), str_to_dtype(dtype_out)
    src = _source("mm.cc", "mm")
    name = f"matmul_{'' if vectorized else 'scalar_'}{dtype_in}_{dtype_out}"
    f = ExternalFunction(name, source_file=src, compile_flags=flags, use_chess=use_chess,
                         arg_types=[_tile(dim_m * dim_k, tin), _tile(dim_k * dim_n, tin), _tile(dim_m * dim_n, tout)])
    f.zero = ExternalFunction(f"zero_{'' if vectorized else 'scalar_'}{dtype_out}", source_file=src,
                              compile_flags=flags, arg_types=[_tile(dim_m * dim_n, tout)])
    r, s_, t = f.mac_dims = _MAC_DIMS[aie_arch()][dtype_in]
    m, k, n = dim_m, dim_k, dim_n
    f.stream_dims = {
        "A": [(m // r, r * k), (k // s_, s_), (r, k), (s_, 1)],
        "B": ([(n // t, t * k), (k // s_, s_), (t, k), (s_, 1)] if b_col_maj else
              [(k // s_, s_ * n), (n // t, t), (s_, n), (t, 1)]),
        "C": [(m // r, r * n), (r, t), (n // t, r * t), (t, 1)],
    }
    return f


def mv(dim_m: int = 32, dim_k: int = 32, vectorized: bool = True, use_chess: bool = False) -> ExternalFunction:
    """matvec_vectorized_i16_i32 / matvec_scalar_i16_i32(a, b, c): c += A * b
    (mv.cc; the layouts are described there). Its companion zero is `.zero`."""
    flags = [f"-DDIM_M={dim_m}", f"-DDIM_K={dim_k}"]
    src = _source("mv.cc", "mv")
    f = ExternalFunction(f"matvec_{'vectorized' if vectorized else 'scalar'}_i16_i32", source_file=src,
                         compile_flags=flags,
                         arg_types=[_tile(dim_m * dim_k, np.int16), _tile(dim_k, np.int16), _tile(dim_m, np.int32)])
    f.zero = ExternalFunction(f"zero_{'vectorized' if vectorized else 'scalar'}_i32", source_file=src,
                              compile_flags=flags, arg_types=[_tile(dim_m, np.int32)])
    return f


__all__ = ["add", "bf16_exp", "compute_max", "convert_copy", "gelu", "mm", "mul", "mv", "passthrough", "reduce_add", "reduce_max",
           "reduce_min", "relu", "scale", "silu", "transpose"]
