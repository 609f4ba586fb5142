"""The dataflow-buffer and copy statements of the TT-Lang compiler
(compiler.py): which blocks a kernel holds of each DFB, acquiring and
releasing them (CB calls and the block-state checks of ttl_dsl.h), and
ttl.copy between tensor slices and blocks.
"""

from .. import formats
from ..errors import warn
from .compiler_pipes import is_pipe_end, pipe_end
from .compiler_values import Block, Scalar, Slice, Transfer, _describe, _escape
from .dsl import element_size

_TILE = 32
# The formats ttl_dsl::element_read / element_write take.
_ELEMENT_FORMATS = {"Float32": 0, "Float16_b": 1, "Int32": 2, "UInt32": 3}


class BlockStatements:
    # ---- dataflow buffers ----

    def lists(self, dfb):
        return self.held.setdefault(dfb.index, {"reserve": [], "wait": []})

    def counts(self):
        """How many blocks of each DFB the kernel holds (what loops and branches must agree on)."""
        return {i: (len(v["reserve"]), len(v["wait"])) for i, v in self.held.items() if v["reserve"] or v["wait"]}

    def snapshot(self):
        """The held blocks and their released flags (restore() puts them back)."""
        lists = {i: (list(v["reserve"]), list(v["wait"])) for i, v in self.held.items()}
        flags = [(b, b.released) for r, w in lists.values() for b in r + w]
        return lists, flags

    def restore(self, snap):
        # Branches are compiled one after the other from the same state.
        lists, flags = snap
        for i, v in self.held.items():
            v["reserve"], v["wait"] = (list(x) for x in lists.get(i, ([], [])))
        for b, released in flags:
            b.released = released

    def position(self, blk):
        lst = self.lists(blk.dfb)["reserve" if blk.reserved else "wait"]
        return lst.index(blk) if blk in lst else -1

    def acquire(self, dfb, reserved, node, var=None):
        """reserve() or wait() one block of dfb. var: the C++ state of an
        earlier block to reuse (a loop-carried temporary keeps one)."""
        lst = self.lists(dfb)["reserve" if reserved else "wait"]
        var = var or self.fresh("b")
        blk = Block(dfb, reserved, var, None, self.line)
        k = len(lst)
        if k + 1 > dfb.block_count:
            what = "reserve()" if reserved else "wait()"
            raise self.error(f"{what} of a block of dataflow buffer '{dfb.name}' while this kernel holds {k} "
                             f"{'reserved' if reserved else 'waited'} block{'s' * (k != 1)} of it: the buffer has "
                             f"{dfb.block_count} block{'s' * (dfb.block_count != 1)}, so this waits forever "
                             "(a deadlock); release the held block first or make the buffer deeper", node)
        lst.append(blk)
        pages = dfb.pages
        if reserved:
            self.emit(f"cb_reserve_back({dfb.index}, {(k + 1) * pages});")
        else:
            self.emit(f"cb_wait_front({dfb.index}, {(k + 1) * pages});")
        self.decls[f"s{var}"] = f"ttl_dsl::Block s{var};"
        name = self.naming or "block"
        blk.name = self.naming
        self.emit(f'ttl_dsl::acquire(s{var}, {"true" if reserved else "false"}, "{name}", '
                  f'"{dfb.name or dfb.index}", {self.line});')
        if not self.compute:
            self.decls[f"a{var}"] = f"uint32_t a{var} = 0;"
            ptr = "get_write_ptr" if reserved else "get_read_ptr"
            self.emit(f"a{var} = {ptr}({dfb.index}) + {k * dfb.block_bytes}u;")
        return blk

    def release(self, blk, node, explicit=False):
        lst = self.lists(blk.dfb)["reserve" if blk.reserved else "wait"]
        what = "push()" if blk.reserved else "pop()"
        if blk.released or blk not in lst:
            if explicit:
                self.emit(f'ttl_dsl::used_after_release(s{blk.var}, "{what}", __builtin_FILE(), __builtin_LINE());')
            return
        if self.compute:
            self.keep_expressions_of(blk, node)
        if lst[0] is not blk:
            raise self.error(f"{what} of block '{blk.name}' before block '{lst[0].name}', which was acquired from "
                             f"the same dataflow buffer earlier: blocks are released in the order they were "
                             "acquired", node)
        lst.pop(0)
        blk.released = True
        self.emit(f'ttl_dsl::release(s{blk.var}, {"true" if blk.reserved else "false"}, __builtin_FILE(), '
                  "__builtin_LINE());")
        call = "cb_push_back" if blk.reserved else "cb_pop_front"
        self.emit(f"{call}({blk.dfb.index}, {blk.dfb.pages});")

    def release_all(self, node):
        """Release every held block (a release may compute a temporary, which holds a block of its own)."""
        while True:
            held = [v[key][0] for v in list(self.held.values()) for key in ("reserve", "wait") if v[key]]
            if not held:
                return
            self.release(held[0], node)

    def tile_index(self, blk):
        """The CB index of the block's first tile among the waited (or reserved) front."""
        k = self.position(blk)
        if k < 0:
            raise self.error(f"block '{blk.name}' is used after it was released")
        return k * blk.dfb.pages

    # ---- copies ----

    def copy(self, call):
        if self.compute:
            raise self.error("ttl.copy is a data-movement operation; a compute kernel cannot copy", call)
        if len(call.args) != 2 or call.keywords:
            raise self.error("ttl.copy takes (source, destination)", call)
        src, dst = (self.expr(a) for a in call.args)
        if isinstance(src, Slice) and isinstance(dst, Block):
            return self.copy_tensor(src, dst, True, call)
        if isinstance(src, Block) and isinstance(dst, Slice):
            return self.copy_tensor(dst, src, False, call)
        if is_pipe_end(src) or is_pipe_end(dst):
            return self.copy_pipe(pipe_end(src), pipe_end(dst), call)
        raise self.error(f"ttl.copy copies between a tensor slice or a pipe and a block, got {_describe(src)} to "
                         f"{_describe(dst)}", call)

    def copy_tensor(self, sl, blk, read, call):
        """A copy between a tensor slice and a block. The block's last two
        dimensions are the slice's last two; each leading dimension of the
        block (a 3-D block of a batch of tiles) is a range of the slice's
        matching leading dimension, the slice's other leading dimensions are
        single indices. The block holds its tiles in row-major order."""
        t = sl.tensor
        self.check_copy_format(sl, blk, read, call)
        self.used_tensors.add(sl.index)
        if not read:
            self.ctx.written.add(sl.index)
        shape = tuple(blk.shape) if len(blk.shape) >= 2 else (1,) + tuple(blk.shape)
        rows_b, cols_b = shape[-2:]
        check = "copy_writes" if read else "copy_reads"
        self.emit(f"ttl_dsl::{check}(s{blk.var}, __builtin_FILE(), __builtin_LINE());")
        dims = sl.dims
        if t.tiled:
            sizes = list(t.shape[:-2]) + [t.shape[-2] // _TILE, t.shape[-1] // _TILE]
            unit = "tiles"
        else:
            sizes = list(t.shape)
            unit = "elements"
        if len(dims) != len(sizes):
            raise self.error(f"the slice {sl.text} has {len(dims)} indices; tensor '{sl.text.split('[')[0]}' has "
                             f"{len(sizes)} dimensions", call)
        lead_block = shape[:-2]
        if len(lead_block) > len(sizes) - 2:
            raise self.error(f"a block of shape {blk.shape} has more dimensions than the slice {sl.text}", call)
        if not t.tiled and any(d != 1 for d in lead_block):
            raise self.error(f"a block of a row-major tensor is (elements,) or (rows, elements), got shape "
                             f"{blk.shape}", call)
        name = _escape(sl.text.split("[")[0])
        # The slice's leading dimensions: the last len(lead_block) of them span the block's leading
        # dimensions (ranges of those extents), the others are single indices (or 1-wide ranges).
        extents = [1] * (len(sizes) - 2 - len(lead_block)) + list(lead_block)
        starts = []
        for d, ((start, stop), size, extent) in enumerate(zip(dims[:-2], sizes[:-2], extents)):
            if stop is None and extent == 1:
                self.emit(f'ttl_dsl::check_index("{name}", {d}, {start}, {size}, __builtin_FILE(), __builtin_LINE());')
            else:
                stop = stop if stop is not None else f"({start}) + 1"
                self.emit(f'ttl_dsl::check_slice("{name}", {start}, {stop}, 0, 1, {size}, 1, {extent}, 1, "{unit}", '
                          "__builtin_FILE(), __builtin_LINE());")
            starts.append(start)
        (r0, r1), (c0, c1) = [(a, b if b is not None else f"({a}) + 1") for a, b in dims[-2:]]
        self.emit(f'ttl_dsl::check_slice("{name}", {r0}, {r1}, {c0}, {c1}, {sizes[-2]}, {sizes[-1]}, {rows_b}, '
                  f'{cols_b}, "{unit}", __builtin_FILE(), __builtin_LINE());')
        acc = f"tensor{sl.index}"
        block_pages = rows_b * cols_b if t.tiled else rows_b
        for j in range(max(1, _product(lead_block))):
            # Leading index j of the block (row-major over its leading dimensions).
            digits, rest = [], j
            for extent in reversed(extents):
                digits.append(rest % extent)
                rest //= extent
            digits.reverse()
            lead = "0"
            for start, size, digit in zip(starts, sizes[:-2], digits):
                lead = f"(({lead}) * {size} + ({start}) + {digit})"
            l1 = f"a{blk.var} + {j * block_pages * blk.dfb.page_size}u"
            if t.tiled:
                first = f"uint32_t(({lead}) * {sizes[-2] * sizes[-1]} + ({r0}) * {sizes[-1]} + ({c0}))"
                fn = "read_tiles" if read else "write_tiles"
                self.emit(f"ttl_dsl::{fn}({acc}, {l1}, {blk.dfb.page_size}u, {first}, {sizes[-1]}u, {rows_b}u, "
                          f"{cols_b}u, __builtin_FILE(), __builtin_LINE());")
            else:
                es = element_size(t.dtype)
                first = f"uint32_t(({lead}) * {sizes[-2]} + ({r0}))"
                fn = "read_rows" if read else "write_rows"
                self.emit(f"ttl_dsl::{fn}({acc}, {l1}, {blk.dfb.page_size}u, {first}, {rows_b}u, "
                          f"uint32_t({c0}) * {es}u, {cols_b * es}u, __builtin_FILE(), __builtin_LINE());")
        return Transfer(blk, read)

    def check_copy_format(self, sl, blk, read, call):
        """A copy moves bytes and converts nothing: a block and a tensor whose
        elements differ in size is an error (the copy would corrupt both
        sides' layout); of one size but different formats, a warning (the
        bits are reinterpreted)."""
        t, dfb = sl.tensor, blk.dfb
        if t.dtype == dfb.dtype:
            return
        name = sl.text.split("[")[0]
        sizes = [formats.tile_size(f) if t.tiled else element_size(f) for f in (t.dtype, dfb.dtype)]
        unit = "tile" if t.tiled else "element"
        where = (f"ttl.copy {'from' if read else 'into'} tensor '{name}' ({t.dtype.name}) "
                 f"{'into' if read else 'from'} block '{blk.name}' of dataflow buffer '{dfb.name}' ({dfb.dtype.name})")
        if sizes[0] != sizes[1]:
            raise self.error(f"{where}: a copy moves bytes and converts nothing, and a {t.dtype.name} {unit} is "
                             f"{sizes[0]} bytes, a {dfb.dtype.name} one {sizes[1]}; make the dataflow buffer like "
                             "the tensor (or the tensor of the block's dtype)", call)
        warn(f"{self.file}:{self.line}: {where}: the copy moves the bits unconverted (both are {sizes[0]}-byte "
             f"{unit}s)", stacklevel=2)

    # ---- one element ----

    def raw_element(self, call, e):
        """ttl.raw_element_read(blk, *coords) (a float), raw_element_write(blk,
        *coords, value) and read_index(blk, *coords) (an int, for tensor
        slices): one element of a block, by one coordinate per block
        dimension, in elements (leading dimensions of a block of tiles count
        matrices of tiles), in a data-movement kernel."""
        what = f"ttl.{call}"
        if self.compute:
            raise self.error(f"{what} runs in a data-movement kernel (blocks are read and written element by element "
                             "there)", e)
        if e.keywords:
            raise self.error(f"{what} takes positional arguments only", e)
        args = self.call_args(e)
        blk = args[0] if args else None
        if not isinstance(blk, Block):
            raise self.error(f"{what} takes a block first, got {_describe(blk)}", e)
        dfb, shape = blk.dfb, tuple(blk.shape)
        write = call == "raw_element_write"
        if len(args) != 1 + len(shape) + write:
            raise self.error(f"{what} of a block of shape {shape} takes {len(shape)} element coordinates"
                             f"{' and a value' if write else ''}, got {len(args) - 1} arguments", e)
        fmt = _ELEMENT_FORMATS.get(dfb.dtype.name)
        if fmt is None:
            raise self.error(f"{what}: block '{blk.name}' holds {dfb.dtype.name}; element access takes float32, "
                             "bfloat16, int32 or uint32 blocks", e)
        coords = [self.int_code(a, e) for a in args[1:1 + len(shape)]]
        if dfb.tiled and len(shape) < 2:
            raise self.error(f"{what}: a block of tiles has two or more dimensions, got shape {shape}", e)
        # The element's row among the block's rows of elements (leading dimensions folded in).
        unit = shape[-2] * _TILE if dfb.tiled else 1
        row = coords[-2] if len(shape) >= 2 else "0"
        for i in range(len(shape) - 2):
            row = f"(({coords[i]}) * {_product(shape[i + 1:-2]) * unit} + {row})"
        if dfb.tiled:
            rows, cols, tile_cols = _product(shape[:-1]) * _TILE, shape[-1] * _TILE, shape[-1]
        else:
            rows, cols, tile_cols = _product(shape[:-1]), shape[-1], 0
        site = (f'ttl_dsl::ElementSite{{a{blk.var}, {rows}u, {cols}u, {2 if fmt == 1 else 4}u, {tile_cols}u, '
                f'"{what}"}}')
        address = (f"ttl_dsl::element_address(s{blk.var}, {site}, {row}, {coords[-1]}, {'true' if write else 'false'}, "
                   "__builtin_FILE(), __builtin_LINE())")
        if write:
            self.emit(f"ttl_dsl::element_write({address}, {fmt}u, {self.float_now(args[-1], e)});")
            return ("const", None)
        if call == "read_index":
            value = Scalar(f"ttl_dsl::element_index({address}, {fmt}u, s{blk.var}, {row}, {coords[-1]}, "
                           "__builtin_FILE(), __builtin_LINE())", "int")
        else:
            value = Scalar(f"ttl_dsl::element_read({address}, {fmt}u)", "float")
        return self.now(value, e)  # read here, as Python would

    def wait_transfer(self, tx, node):
        if tx.pipe is not None:
            self.wait_pipe(tx)
            return
        self.emit("noc_async_read_barrier();" if tx.wrote else "noc_async_write_barrier();")
        self.emit(f"ttl_dsl::copy_done(s{tx.block.var}, {'true' if tx.wrote else 'false'});")


def _product(dims):
    n = 1
    for d in dims:
        n *= d
    return n
