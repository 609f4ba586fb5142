"""IRON's `run_design_cli` (`aie.utils.hostruntime.cli`): the three modes of
a jit design's command line — print the design (--emit-mlir: the
emit_mlir callback, else `design.specialize(**compile_kwargs).as_mlir()`),
compile only (--xclbin-path with --insts-path: tessel writes the design
record there), or run and verify (run_and_verify)."""

import sys

from ...device import from_name, set_current_device

__all__ = ["run_design_cli"]


def _resolve(value, opts):
    return value(opts) if callable(value) else value


def run_design_cli(design, opts, *, compile_kwargs, run_and_verify=None, device=None, emit_mlir=None, validate=None):
    """Dispatch on `opts` as IRON does (see the module docstring)."""
    if validate is not None:
        validate(opts)
    if device is None:
        if not hasattr(opts, "dev"):
            raise ValueError("run_design_cli: device=None needs opts.dev (add_compile_args's -d/--dev); pass "
                             "device= otherwise")
        device = lambda o: from_name(o.dev)  # noqa: E731
    if getattr(opts, "emit_mlir", False):
        set_current_device(_resolve(device, opts))
        if emit_mlir is not None:
            emit_mlir(opts)
        else:
            print(design.specialize(**_resolve(compile_kwargs, opts)).as_mlir())
        return
    if getattr(opts, "xclbin_path", None):
        if not getattr(opts, "insts_path", None):
            sys.exit("--xclbin-path requires --insts-path (must be set together)")
        set_current_device(_resolve(device, opts))
        design.specialize(**_resolve(compile_kwargs, opts)).compile(
            xclbin_path=opts.xclbin_path, inst_path=opts.insts_path, pdi_path=getattr(opts, "pdi_path", None))
        return
    if run_and_verify is None:
        raise ValueError("run_design_cli: neither --emit-mlir nor --xclbin-path is set, and no run_and_verify "
                         "callback was given")
    set_current_device(_resolve(device, opts))
    run_and_verify(opts)
