"""reduce: the whole input handed to an ExternalFunction in one call,
func(input, output, input_size), which writes the (smaller) output.
Reductions keep state across elements, so func is a kernel, never a Python
function."""


from .. import device as device_mod
from ..dataflow import ObjectFifo
from ..program import Program
from ..runtime import Runtime
from ..worker import Worker
from ._common import Desc, describe, is_kernel


def reduce_typed(func, input_ty, output_ty, *, trace_size=0):
    if not is_kernel(func):
        raise TypeError("reduce: func must be an ExternalFunction taking (input, output, input_size); a reduction "
                        "keeps state across elements, which a Python function applied per element cannot")
    din, dout = describe(input_ty, "reduce input"), describe(output_ty, "reduce output")
    of_in, of_out = ObjectFifo(din.type(), name="in"), ObjectFifo(dout.type(), name="out")
    count = din.size

    def core_body(in_h, out_h, kernel):
        y = out_h.acquire(1)
        x = in_h.acquire(1)
        kernel(x, y, count)
        in_h.release(1)
        out_h.release(1)

    worker = Worker(core_body, [of_in.cons(), of_out.prod(), func], trace=1 if trace_size > 0 else None)

    def sequence(a, c, in_h, out_h):
        in_h.fill(a)
        out_h.drain(c, wait=True)

    rt = Runtime(sequence, [din.flat_type(), dout.flat_type(), of_in.prod(), of_out.cons()])
    return Program(device_mod.get_current_device(), rt, workers=[worker]).resolve_program()


def reduce(*args, func=None, N=None, dtype=None, out_dtype=None, trace_size=0):
    """An N-element input reduced by func to a 1-element output:
    reduce(input, output, func=..., N=..., dtype=...), or with types,
    reduce(func, input_ty, output_ty) (reduce_typed's spelling)."""
    if func is None and len(args) == 3 and is_kernel(args[0]):
        return reduce_typed(*args, trace_size=trace_size)
    if func is None or N is None or dtype is None:
        raise TypeError("reduce: give reduce(input, output, func=..., N=..., dtype=...) or reduce(func, input_ty, "
                        "output_ty)")
    in_ty = Desc((N,), dtype).type()
    out_ty = Desc((1,), dtype if out_dtype is None else out_dtype).type()
    return reduce_typed(func, in_ty, out_ty, trace_size=trace_size)
