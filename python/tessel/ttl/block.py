"""ttl.block: block functions of compute kernels (fill, transpose,
broadcast, where, mask; TT-Lang spec 0.17 and later). Names the compiler
lowers (ttl/compiler.py, ttl/blockexpr.py); calling one in Python raises.
"""

__all__ = ["broadcast", "fill", "mask", "mask_posinf", "squeeze", "transpose", "unsqueeze", "where"]


def _marker(name):
    def fn(*args, **kwargs):
        raise RuntimeError(f"ttl.block.{name} runs only inside a compute kernel function; tessel compiles kernel "
                           "functions to C++ and never calls them in Python")

    fn.__name__ = fn.__qualname__ = name
    fn._ttl_block_op = name
    return fn


broadcast = _marker("broadcast")
fill = _marker("fill")
mask = _marker("mask")
mask_posinf = _marker("mask_posinf")
squeeze = _marker("squeeze")
transpose = _marker("transpose")
unsqueeze = _marker("unsqueeze")
where = _marker("where")


def kind_of(fn):
    """The op name when fn is one of these functions, else None."""
    op = getattr(fn, "_ttl_block_op", None)
    return op if op is not None and globals().get(op) is fn else None
