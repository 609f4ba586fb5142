"""Program: kernels, circular buffers, semaphores and runtime arguments
(include/tessel/program.hpp), with the configs and enums it takes."""

import enum
import operator
import os

import numpy as np

from . import _check, _tessel
from .core import coord, rects
from .device import Buffer


class DataFormat(enum.IntEnum):
    Float32 = 0
    Float16 = 1
    Bfp8 = 2
    Bfp4 = 3
    Float16_b = 5
    Bfp8_b = 6
    Bfp4_b = 7
    Int32 = 8
    UInt16 = 9
    Int8 = 14
    UInt32 = 24
    UInt8 = 30


_FORMAT_ALIASES = {
    "bf16": DataFormat.Float16_b, "bfloat16": DataFormat.Float16_b, "float16_b": DataFormat.Float16_b,
    "fp32": DataFormat.Float32, "float32": DataFormat.Float32, "bfp8_b": DataFormat.Bfp8_b,
    "bfp4_b": DataFormat.Bfp4_b, "int32": DataFormat.Int32, "uint32": DataFormat.UInt32,
    "uint16": DataFormat.UInt16, "uint8": DataFormat.UInt8, "int8": DataFormat.Int8,
}


def data_format(value, what):
    """A DataFormat from a DataFormat or its name ('Float16_b', 'bf16', 'bfp8_b', ...)."""
    if isinstance(value, DataFormat):
        return value
    if isinstance(value, str):
        if value in DataFormat.__members__:
            return DataFormat[value]
        if value.lower() in _FORMAT_ALIASES:
            return _FORMAT_ALIASES[value.lower()]
        names = ", ".join(list(DataFormat.__members__) + sorted(_FORMAT_ALIASES))
        raise ValueError(f"{what}: no data format named {value!r}; the names are {names}")
    raise TypeError(f"{what} must be a tessel.DataFormat or a format name, got {_check.describe(value)}")


class DataMovementProcessor(enum.IntEnum):
    RISCV_0 = 0
    RISCV_1 = 1


class NOC(enum.IntEnum):
    NOC_0 = 0
    NOC_1 = 1
    RISCV_0_default = 0
    RISCV_1_default = 1


class MathFidelity(enum.IntEnum):
    LoFi = 0
    HiFi2 = 2
    HiFi3 = 3
    HiFi4 = 4


class UnpackToDestMode(enum.IntEnum):
    Default = 0
    UnpackToDestFp32 = 1


def _enum(value, cls, what):
    if isinstance(value, cls):
        return value
    if isinstance(value, str) and value in cls.__members__:
        return cls[value]
    raise TypeError(f"{what} must be a tessel.{cls.__name__} (one of {', '.join(cls.__members__)}), "
                    f"got {_check.describe(value)}")


def _defines(value, what):
    return _check.mapping(value, what, _check.text, lambda v, w: _check.text(str(v) if isinstance(v, int)
                                                                               and not isinstance(v, bool) else v, w))


def _named(value, what):
    return _check.mapping(value, what, _check.text, _check.word)


class OptLevel(enum.IntEnum):
    """A kernel's optimisation level (TT-Metalium's KernelBuildOptLevel): the
    kernel is built with that flag (-O0 .. -O3, -Os, -Ofast, -Oz)."""
    O0 = 0
    O1 = 1
    O2 = 2
    O3 = 3
    Os = 4
    Ofast = 5
    Oz = 6


def _opt(value, what):
    """-1 for None, else the level's number (OptLevel's values)."""
    if value is None:
        return -1
    if isinstance(value, OptLevel):
        return int(value)
    expected = f"an integer 0..3 or a tessel.OptLevel or its name ({', '.join(OptLevel.__members__)})"
    if isinstance(value, str):
        if value in OptLevel.__members__:
            return int(OptLevel[value])
        raise ValueError(f"{what} must be {expected}, got {value!r}")
    if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be {expected}, got {_check.describe(value)}")
    if not 0 <= operator.index(value) <= 3:
        raise ValueError(f"{what} must be {expected}, got {operator.index(value)}")
    return operator.index(value)


def _names(value, what):
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list of names (str), got {_check.describe(value)}")
    for i, name in enumerate(value):
        if not isinstance(name, str):
            raise TypeError(f"{what}[{i}] must be a name (str), got {_check.describe(name)}")
    return tuple(value)


def _name_words(value, what):
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict of name (str) to a number, got {_check.describe(value)}")
    out = {}
    for name, number in value.items():
        if not isinstance(name, str):
            raise TypeError(f"{what}: keys must be names (str), got {_check.describe(name)}")
        out[name] = _check.word(number, f"{what}[{name!r}]")
    return out


class KernelBindings:
    """Names a kernel written for named arguments reads (docs/guide.md, "Named
    bindings"): args::<name> for runtime_args (runtime argument i),
    common_runtime_args (common argument i) and the config's named compile-time
    arguments; dfb::<name> for dataflow_buffers {name: CB index}; sem::<name>
    for semaphores {name: id}; tensor::<name> for tensors [(name, offset of its
    TensorAccessorArgs in compile_args)], whose addresses are the common
    arguments after the named ones; scratch::<name> for scratchpads [(name,
    bytes per core) or (name, bytes per core, data format)], regions of each
    core's L1 the host sets aside, whose L1 addresses are the common arguments
    after the tensors' ones."""

    def __init__(self, runtime_args=(), common_runtime_args=(), dataflow_buffers=None, semaphores=None, tensors=(),
                 scratchpads=()):
        self.runtime_args = _names(runtime_args, "KernelBindings: runtime_args")
        self.common_runtime_args = _names(common_runtime_args, "KernelBindings: common_runtime_args")
        self.dataflow_buffers = _name_words(dataflow_buffers or {}, "KernelBindings: dataflow_buffers")
        self.semaphores = _name_words(semaphores or {}, "KernelBindings: semaphores")
        if isinstance(tensors, (str, dict)) or not isinstance(tensors, (list, tuple)):
            raise TypeError("KernelBindings: tensors must be a list of (name, compile-time args offset), got "
                            + _check.describe(tensors))
        self.tensors = []
        for i, t in enumerate(tensors):
            if not isinstance(t, (tuple, list)) or len(t) != 2 or not isinstance(t[0], str):
                raise TypeError(f"KernelBindings: tensors[{i}] must be (name, compile-time args offset), got "
                                + _check.describe(t))
            self.tensors.append((t[0], _check.word(t[1], f"KernelBindings: tensors[{i}] offset")))
        self.tensors = tuple(self.tensors)
        if isinstance(scratchpads, (str, dict)) or not isinstance(scratchpads, (list, tuple)):
            raise TypeError("KernelBindings: scratchpads must be a list of (name, bytes per core[, data format]), got "
                            + _check.describe(scratchpads))
        self.scratchpads = []
        for i, s in enumerate(scratchpads):
            if not isinstance(s, (tuple, list)) or len(s) not in (2, 3) or not isinstance(s[0], str):
                raise TypeError(f"KernelBindings: scratchpads[{i}] must be (name, bytes per core[, data format]), got "
                                + _check.describe(s))
            size = _check.word(s[1], f"KernelBindings: scratchpads[{i}] bytes per core")
            fmt = data_format(s[2], f"KernelBindings: scratchpads[{i}] data format") if len(s) == 3 else None
            self.scratchpads.append((s[0], size) if fmt is None else (s[0], size, fmt))
        self.scratchpads = tuple(self.scratchpads)

    def _native(self):
        return (list(self.runtime_args), list(self.common_runtime_args), self.dataflow_buffers, self.semaphores,
                list(self.tensors),
                [(s[0], s[1], int(s[2]) if len(s) == 3 else 255) for s in self.scratchpads])


def _bindings(value, what):
    if value is None:
        return None
    if not isinstance(value, KernelBindings):
        raise TypeError(f"{what} must be a tessel.KernelBindings or None, got {_check.describe(value)}")
    return value


class DataMovementConfig:
    """A kernel on a data-movement RISC (BRISC = RISCV_0, NCRISC = RISCV_1)."""

    def __init__(self, processor=DataMovementProcessor.RISCV_0, noc=None, compile_args=(), defines=None,
                 named_compile_args=None, opt_level=None, bindings=None):
        self.processor = _enum(processor, DataMovementProcessor, "DataMovementConfig: processor")
        self.noc = NOC(int(self.processor)) if noc is None else _enum(noc, NOC, "DataMovementConfig: noc")
        self.compile_args = tuple(_check.words(list(compile_args) if isinstance(compile_args, tuple)
                                               else compile_args, "DataMovementConfig: compile_args").tolist())
        self.defines = _defines(defines or {}, "DataMovementConfig: defines")
        self.named_compile_args = _named(named_compile_args or {}, "DataMovementConfig: named_compile_args")
        self.opt_level = _opt(opt_level, "DataMovementConfig: opt_level")
        self.bindings = _bindings(bindings, "DataMovementConfig: bindings")


def ReaderDataMovementConfig(compile_args=(), defines=None, **kw):
    return DataMovementConfig(DataMovementProcessor.RISCV_1, NOC.RISCV_1_default, compile_args, defines, **kw)


def WriterDataMovementConfig(compile_args=(), defines=None, **kw):
    return DataMovementConfig(DataMovementProcessor.RISCV_0, NOC.RISCV_0_default, compile_args, defines, **kw)


class ComputeConfig:
    """A kernel on the compute RISCs (unpack, math, pack)."""

    def __init__(self, math_fidelity=MathFidelity.HiFi4, fp32_dest_acc_en=False, dst_full_sync_en=False,
                 math_approx_mode=False, unpack_to_dest_mode=(), compile_args=(), defines=None,
                 named_compile_args=None, opt_level=None, bfp8_pack_precise=False, enable_trisc2_rvv=False,
                 bindings=None):
        self.math_fidelity = _enum(math_fidelity, MathFidelity, "ComputeConfig: math_fidelity")
        self.fp32_dest_acc_en = _check.flag(fp32_dest_acc_en, "ComputeConfig: fp32_dest_acc_en")
        self.dst_full_sync_en = _check.flag(dst_full_sync_en, "ComputeConfig: dst_full_sync_en")
        self.math_approx_mode = _check.flag(math_approx_mode, "ComputeConfig: math_approx_mode")
        # No effect on the simulation (docs/deviations.md); each keys the build apart.
        self.bfp8_pack_precise = _check.flag(bfp8_pack_precise, "ComputeConfig: bfp8_pack_precise")
        self.enable_trisc2_rvv = _check.flag(enable_trisc2_rvv, "ComputeConfig: enable_trisc2_rvv")
        if not isinstance(unpack_to_dest_mode, (tuple, list)):
            raise TypeError("ComputeConfig: unpack_to_dest_mode must be a list of tessel.UnpackToDestMode, got "
                            + _check.describe(unpack_to_dest_mode))
        self.unpack_to_dest_mode = tuple(_enum(u, UnpackToDestMode, f"ComputeConfig: unpack_to_dest_mode[{i}]")
                                         for i, u in enumerate(unpack_to_dest_mode))
        self.compile_args = tuple(_check.words(list(compile_args) if isinstance(compile_args, tuple)
                                               else compile_args, "ComputeConfig: compile_args").tolist())
        self.defines = _defines(defines or {}, "ComputeConfig: defines")
        self.named_compile_args = _named(named_compile_args or {}, "ComputeConfig: named_compile_args")
        self.opt_level = _opt(opt_level, "ComputeConfig: opt_level")
        self.bindings = _bindings(bindings, "ComputeConfig: bindings")


class CircularBufferConfig:
    """A CB region of total_size bytes shared by one or more CB indices,
    each with its data format (formats: {index: DataFormat or name})."""

    def __init__(self, total_size, formats):
        total = _check.word(total_size, "CircularBufferConfig: total_size")
        fmts = _check.mapping(formats, "CircularBufferConfig: formats",
                              lambda k, w: _check.integer(k, w, 0, 255, "a CB index"), data_format)
        self._c = _tessel.CircularBufferConfig(total, {k: int(v) for k, v in fmts.items()})
        self.formats = fmts

    def set_page_size(self, index, page_size):
        self._c.set_page_size(_check.integer(index, "CircularBufferConfig.set_page_size: index", 0, 255, "a CB index"),
                              _check.word(page_size, "CircularBufferConfig.set_page_size: page_size"))
        return self

    def set_globally_allocated_address(self, buffer):
        if not isinstance(buffer, Buffer):
            raise TypeError("CircularBufferConfig.set_globally_allocated_address: buffer must be a tessel.Buffer, "
                            f"got {_check.describe(buffer)}")
        self._c.set_globally_allocated_address(buffer._b)
        self._buffer = buffer  # the CB uses the buffer's memory: keep it alive with the config
        return self

    @property
    def total_size(self):
        return self._c.total_size()


def _kernel_handle(k, what):
    return _check.word(k, what)


class Program:
    """Kernels, circular buffers and semaphores placed on cores, and their
    runtime arguments. Structure is compiled once; runtime-argument words are
    applied on every enqueue."""

    def __init__(self):
        self._p = _tessel.Program()
        self._keep = []  # buffers that CBs of this program use in place

    def add_kernel(self, kernel, cores, config):
        """A kernel from a file (a path, resolved against the working
        directory, then $TESSEL_KERNEL_PATH, then $TT_METAL_HOME)."""
        if not isinstance(kernel, (str, os.PathLike)):
            raise TypeError(f"Program.add_kernel: kernel must be a path (str or os.PathLike), got "
                            f"{_check.describe(kernel)}; use add_kernel_from_source for source text")
        return self._add(os.fspath(kernel), False, "", cores, config, "Program.add_kernel")

    def add_kernel_from_source(self, source, name, cores, config):
        """A kernel from source text; name is shown in messages."""
        _check.text(source, "Program.add_kernel_from_source: source")
        _check.text(name, "Program.add_kernel_from_source: name")
        return self._add(source, True, name, cores, config, "Program.add_kernel_from_source")

    def _add(self, text, is_source, name, cores, config, what):
        r = rects(cores, f"{what}: cores")
        c = config
        if isinstance(c, DataMovementConfig):
            return self._p.add_data_movement_kernel(text, is_source, name, r, int(c.processor), int(c.noc),
                                                    list(c.compile_args), c.defines, c.named_compile_args, c.opt_level,
                                                    None if c.bindings is None else c.bindings._native())
        if isinstance(c, ComputeConfig):
            return self._p.add_compute_kernel(text, is_source, name, r, int(c.math_fidelity), c.fp32_dest_acc_en,
                                              c.dst_full_sync_en, c.math_approx_mode, c.bfp8_pack_precise,
                                              c.enable_trisc2_rvv,
                                              [int(u) for u in c.unpack_to_dest_mode], list(c.compile_args),
                                              c.defines, c.named_compile_args, c.opt_level,
                                              None if c.bindings is None else c.bindings._native())
        raise TypeError(f"{what}: config must be a tessel.DataMovementConfig or tessel.ComputeConfig, got "
                        f"{_check.describe(config)}")

    def add_circular_buffer(self, cores, config):
        if not isinstance(config, CircularBufferConfig):
            raise TypeError("Program.add_circular_buffer: config must be a tessel.CircularBufferConfig, got "
                            f"{_check.describe(config)}")
        handle = self._p.add_circular_buffer(rects(cores, "Program.add_circular_buffer: cores"), config._c)
        if getattr(config, "_buffer", None) is not None:
            self._keep.append(config._buffer)
        return handle

    def add_semaphore(self, cores, initial_value=0, id=None):
        """Returns the semaphore id kernels pass to get_semaphore()."""
        r = rects(cores, "Program.add_semaphore: cores")
        v = _check.word(initial_value, "Program.add_semaphore: initial_value")
        i = -1 if id is None else _check.integer(id, "Program.add_semaphore: id", 0, 15, "a semaphore id")
        return self._p.add_semaphore(r, v, i)

    def set_runtime_args(self, kernel, cores, args):
        self._p.set_runtime_args(_kernel_handle(kernel, "Program.set_runtime_args: kernel"),
                                 rects(cores, "Program.set_runtime_args: cores"),
                                 _check.words(args, "Program.set_runtime_args: args"))

    def set_common_runtime_args(self, kernel, args):
        self._p.set_common_runtime_args(_kernel_handle(kernel, "Program.set_common_runtime_args: kernel"),
                                        _check.words(args, "Program.set_common_runtime_args: args"))

    def runtime_args(self, kernel, core):
        """The kernel's runtime args on `core` as a writable uint32 view into
        the program: change words in place. The view is valid until
        set_runtime_args changes that length."""
        c = coord(core, "Program.runtime_args: core")
        return self._p.runtime_args(_kernel_handle(kernel, "Program.runtime_args: kernel"), c.x, c.y)

    def common_runtime_args(self, kernel):
        return self._p.common_runtime_args(_kernel_handle(kernel, "Program.common_runtime_args: kernel"))

    @property
    def num_kernels(self):
        return self._p.num_kernels()
