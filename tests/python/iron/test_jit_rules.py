"""The rules of dispatch-time scalars on the generator side and of iron.jit
signatures and calls: every forbidden use of a symbolic parameter, the
Runtime binding rules (nested, duplicate, missing, multiple sequences, bare
scalar type, stale), Worker arguments, and the exact message of each.

FakeRuntime and FakeDesign stand in for tessel.iron's Runtime and for a
resolved Program (what Program(...).resolve_program() returns): FakeRuntime
claims its fn_args exactly as Runtime.__init__ does, and FakeDesign keeps to
the design contract (run, dispatch_names, to_dict, from_dict).
"""

import copy
import math
import operator

import numpy as np
import pytest

from tessel.iron.dispatch_time import (
    NO_DEFAULT,
    DispatchParameter,
    active_generation,
    check_worker_args,
    claim_runtime_args,
    generation,
)
from tessel.iron.jit import JitDesign, clear_memory_cache, jit
from tessel.iron.markers import CompileTime, DispatchTime, In, InOut, Out
from tessel.iron.tensor import arange, zeros


class FakeRuntime:
    """Claims its DispatchTime arguments as Runtime.__init__ does."""

    def __init__(self, body, fn_args):
        self.body = body
        self.scalar_args = claim_runtime_args(self, fn_args)


class FakeWorker:
    def __init__(self, core_fn, fn_args):
        check_worker_args(fn_args)
        self.fn_args = fn_args


class FakeDesign:
    """Stands in for a resolved Program: remembers which parameters its
    Runtime claimed and every run's scalars; a run copies tensor 0 to 1."""

    def __init__(self, dispatch_names):
        self.dispatch_names = list(dispatch_names)
        self.runs = []

    @classmethod
    def of(cls, runtime):
        return cls([p.name for _, p in runtime.scalar_args])

    def run(self, tensors, scalars):
        self.runs.append(dict(scalars))
        if len(tensors) == 2:
            tensors[1][...] = tensors[0]

    def to_dict(self):
        return {"dispatch_names": self.dispatch_names}

    @classmethod
    def from_dict(cls, d):
        return cls(d["dispatch_names"])


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    clear_memory_cache()


def advice(name="bar"):
    return (
        f"its value exists only at dispatch. Use the Runtime callback's argument for runtime arithmetic and control "
        f"flow, or make `{name}` CompileTime[...] or fix it with specialize({name}=...) for a generation-time value"
    )


def refusal(what, name="bar", dtype="np.int32"):
    return (
        f"DispatchTime parameter `{name}` ({dtype}) used in {what} while the design is being generated: "
        + advice(name)
    )


# -- forbidden uses of a symbolic parameter -------------------------------------------------------------------------

def _if(p):
    if p:
        pass


def _iadd(p):
    p += 1


def _ishift(p):
    p <<= 1


FORBIDDEN = [
    # (id, use, what the message says was done)
    ("add", lambda p: p + 1, "arithmetic (`+`)"),
    ("radd", lambda p: 1 + p, "arithmetic (`+`)"),
    ("iadd", _iadd, "arithmetic (`+=`)"),
    ("sub", lambda p: p - 1, "arithmetic (`-`)"),
    ("rsub", lambda p: 1 - p, "arithmetic (`-`)"),
    ("mul", lambda p: p * 2, "arithmetic (`*`)"),
    ("truediv", lambda p: p / 2, "arithmetic (`/`)"),
    ("floordiv", lambda p: p // 2, "arithmetic (`//`)"),
    ("rfloordiv", lambda p: 64 // p, "arithmetic (`//`)"),
    ("mod", lambda p: p % 2, "arithmetic (`%`)"),
    ("pow", lambda p: p ** 2, "arithmetic (`**`)"),
    ("rpow", lambda p: 2 ** p, "arithmetic (`**`)"),
    ("matmul", lambda p: p @ p, "arithmetic (`@`)"),
    ("lshift", lambda p: p << 1, "arithmetic (`<<`)"),
    ("ilshift", _ishift, "arithmetic (`<<=`)"),
    ("rshift", lambda p: p >> 1, "arithmetic (`>>`)"),
    ("and", lambda p: p & 1, "arithmetic (`&`)"),
    ("or", lambda p: p | 1, "arithmetic (`|`)"),
    ("xor", lambda p: p ^ 1, "arithmetic (`^`)"),
    ("divmod", lambda p: divmod(p, 2), "arithmetic (`divmod()`)"),
    ("neg", lambda p: -p, "arithmetic (`unary -`)"),
    ("pos", lambda p: +p, "arithmetic (`unary +`)"),
    ("abs", abs, "arithmetic (`abs()`)"),
    ("invert", lambda p: ~p, "arithmetic (`~`)"),
    ("round", round, "arithmetic (`round()`)"),
    ("floor", math.floor, "arithmetic (`math.floor()`)"),
    ("ceil", math.ceil, "arithmetic (`math.ceil()`)"),
    ("trunc", math.trunc, "arithmetic (`math.trunc()`)"),
    ("np-scalar-add", lambda p: np.int32(3) + p, "arithmetic (`+`)"),
    ("np-array-mul", lambda p: np.arange(4) * p, "arithmetic (`*`)"),
    ("eq", lambda p: p == 3, "a comparison (`==`)"),
    ("ne", lambda p: p != 3, "a comparison (`!=`)"),
    ("lt", lambda p: p < 3, "a comparison (`<`)"),
    ("le", lambda p: p <= 3, "a comparison (`<=`)"),
    ("gt", lambda p: p > 3, "a comparison (`>`)"),
    ("ge", lambda p: p >= 3, "a comparison (`>=`)"),
    ("reflected-lt", lambda p: 3 < p, "a comparison (`>`)"),
    ("np-less", lambda p: np.arange(4) < p, "a comparison (`<`)"),
    ("if", _if, "a truth test (`if`, `while`, `bool()`, `and`/`or`/`not`)"),
    ("bool", bool, "a truth test (`if`, `while`, `bool()`, `and`/`or`/`not`)"),
    ("not", lambda p: not p, "a truth test (`if`, `while`, `bool()`, `and`/`or`/`not`)"),
    ("range", range, "`range()` or as an index (`__index__`)"),
    ("list-index", lambda p: [1, 2][p], "`range()` or as an index (`__index__`)"),
    ("operator-index", operator.index, "`range()` or as an index (`__index__`)"),
    ("int", int, "`int()`"),
    ("float", float, "`float()`"),
    ("complex", complex, "`complex()`"),
    ("np.int32", np.int32, "a NumPy value conversion (`np.asarray`, `np.int32(...)`)"),
    ("np.asarray", np.asarray, "a NumPy value conversion (`np.asarray`, `np.int32(...)`)"),
    ("np.array-list", lambda p: np.array([p]), "a NumPy value conversion (`np.asarray`, `np.int32(...)`)"),
    ("np.dtype", np.dtype, "a NumPy dtype conversion (`np.dtype(...)`)"),
    ("np.sum", np.sum, "a NumPy function (`np.sum`)"),
    ("np.sqrt", np.sqrt, "a NumPy ufunc (`np.sqrt`)"),
    ("iter", iter, "iteration"),
    ("for", lambda p: [x for x in p], "iteration"),
    ("len", len, "`len()`"),
    ("in", lambda p: 1 in p, "a membership test (`in`)"),
    ("getitem", lambda p: p[0], "indexing (`[]`)"),
]


@pytest.mark.parametrize("use, what", [f[1:] for f in FORBIDDEN], ids=[f[0] for f in FORBIDDEN])
def test_forbidden_use_of_symbolic_parameter(use, what):
    p = DispatchParameter("bar", np.int32)
    with pytest.raises(TypeError) as info:
        use(p)
    assert str(info.value) == refusal(what)


def test_refusal_message_in_full():
    with pytest.raises(TypeError) as info:
        range(DispatchParameter("count", np.int64, 3))
    assert str(info.value) == (
        "DispatchTime parameter `count` (np.int64) used in `range()` or as an index (`__index__`) while the design is "
        "being generated: its value exists only at dispatch. Use the Runtime callback's argument for runtime "
        "arithmetic and control flow, or make `count` CompileTime[...] or fix it with specialize(count=...) for a "
        "generation-time value"
    )


def test_storing_and_forwarding_is_allowed():
    p = DispatchParameter("bar", np.uint16, 7)
    alias = p
    held = [p, (p,), {"k": p}]
    by_parameter = {p: "seen"}
    assert alias is p and held[0] is p and held[1][0] is p and held[2]["k"] is p
    assert by_parameter[alias] == "seen"
    assert hash(p) == hash(alias) and hash(p) != hash(DispatchParameter("bar", np.uint16, 7))
    assert copy.copy(p) is p and copy.deepcopy(held)[0] is p
    assert (p.name, p.dtype, p.default) == ("bar", np.uint16, 7)
    assert DispatchParameter("baz", np.int8).default is NO_DEFAULT
    assert repr(p) == "DispatchParameter(bar: np.uint16 = 7)" and f"{p}" == repr(p)


def test_parameter_is_immutable():
    p = DispatchParameter("bar", np.int32)
    with pytest.raises(AttributeError) as info:
        p.name = "other"
    assert str(info.value) == "DispatchParameter `bar` is immutable"


def test_parameter_needs_an_integer_type():
    with pytest.raises(TypeError) as info:
        DispatchParameter("bar", int)
    assert str(info.value).startswith("DispatchParameter `bar`: T must be a NumPy integer scalar type (")


# -- Worker arguments -----------------------------------------------------------------------------------------------

WORKER_PLACES = [
    ("direct", lambda p: ["fifo", p], "fn_args[1]"),
    ("in-list", lambda p: ["fifo", [0, p]], "fn_args[1][1]"),
    ("in-dict", lambda p: [{"n": p}], "fn_args[0]['n']"),
    ("in-tuple-in-list", lambda p: [[(p,)]], "fn_args[0][0][0]"),
]


@pytest.mark.parametrize("make_args, path", [w[1:] for w in WORKER_PLACES], ids=[w[0] for w in WORKER_PLACES])
def test_worker_args_reject_parameter(make_args, path):
    p = DispatchParameter("bar", np.int32)
    with pytest.raises(TypeError) as info:
        FakeWorker(lambda *a: None, make_args(p))
    assert str(info.value) == (
        f"Worker {path} is DispatchTime parameter `bar`: a Worker's arguments are fixed when the design is built, and "
        f"`bar` has a value only at dispatch. Make `bar` CompileTime[...] or fix it with specialize(bar=...) for "
        f"worker configuration, or forward it to the Runtime and use the callback's argument"
    )


def test_worker_args_accept_ordinary_values():
    FakeWorker(lambda *a: None, ["fifo", [1, 2], {"k": np.int32(3)}, np.int32])


# -- Runtime binding ------------------------------------------------------------------------------------------------

def test_claims_report_positions_in_any_order():
    bar, baz = DispatchParameter("bar", np.int32), DispatchParameter("baz", np.int32)
    tensor_type = np.ndarray[(16,), np.dtype[np.int32]]
    with generation([bar, baz], generator="design") as gen:
        rt = FakeRuntime(None, [tensor_type, baz, ["fifo", np.int32(4)], bar, 7])
    assert rt.scalar_args == [(1, baz), (3, bar)]
    assert [(b.parameter, b.runtime, b.position) for b in gen.bindings] == [(bar, rt, 3), (baz, rt, 1)]
    assert active_generation() is None


def test_outside_a_generation_scalar_types_pass_and_positions_return():
    assert claim_runtime_args(object(), [np.int32, np.ndarray[(16,), np.dtype[np.int32]], 5]) == []
    p = DispatchParameter("n", np.int32)
    assert claim_runtime_args(object(), [np.int32, p]) == [(1, p)]


@pytest.mark.parametrize("fn_args, path", [
    (lambda p: [[p]], "fn_args[0][0]"),
    (lambda p: ["x", (1, p)], "fn_args[1][1]"),
    (lambda p: [{"count": p}], "fn_args[0]['count']"),
], ids=["list", "tuple", "dict"])
def test_nested_parameter_rejected(fn_args, path):
    p = DispatchParameter("bar", np.int32)
    with pytest.raises(TypeError) as info, generation([p], generator="design"):
        FakeRuntime(None, fn_args(p))
    outer = path[:path.index("]") + 1]
    assert str(info.value) == (
        f"Runtime {path} is DispatchTime parameter `bar`, nested inside {outer}: a DispatchTime parameter must be a "
        f"direct Runtime argument (fn_args=[..., bar]), not inside a list, tuple or dict"
    )


def test_duplicate_binding_rejected():
    p = DispatchParameter("bar", np.int32)
    alias = p
    with pytest.raises(TypeError) as info, generation([p], generator="design"):
        FakeRuntime(None, [p, "fifo", alias])
    assert str(info.value) == (
        "Runtime fn_args[0] and fn_args[2] are both DispatchTime parameter `bar`: duplicate binding; forward each "
        "parameter exactly once"
    )


def test_binding_to_two_runtimes_rejected():
    p = DispatchParameter("bar", np.int32)
    with pytest.raises(TypeError) as info, generation([p], generator="design") as gen:
        first = FakeRuntime(None, ["a", p])
        FakeRuntime(None, [p])
    assert str(info.value) == (
        "Runtime fn_args[0] is DispatchTime parameter `bar`, already bound to another Runtime (its fn_args[1]): "
        "bindings to multiple sequences are rejected; a design has one runtime sequence, so forward `bar` to exactly "
        "one Runtime"
    )
    assert [(b.runtime, b.position) for b in gen.bindings] == [(first, 1)]


def test_bare_scalar_type_rejected_while_parameters_are_unbound():
    p = DispatchParameter("bar", np.int32)
    with pytest.raises(TypeError) as info, generation([p], generator="design"):
        FakeRuntime(None, ["buffer", np.int32])
    assert str(info.value) == (
        "Runtime fn_args[1] is the bare scalar type np.int32 while `design` has unbound DispatchTime parameters "
        "(`bar`): a bare scalar-type substitute is bound to no dispatch value. Pass the parameter the generator "
        "received (fn_args=[..., bar]) and use the callback's argument"
    )


def test_bare_scalar_type_allowed_when_nothing_is_dynamic():
    with generation([], generator="design"):
        assert FakeRuntime(None, [np.int32]).scalar_args == []


def test_missing_binding_rejected():
    bar, baz = DispatchParameter("bar", np.int32), DispatchParameter("baz", np.int32)
    with pytest.raises(TypeError) as info:
        with generation([bar, baz], generator="design"):
            FakeRuntime(None, [baz])
    assert str(info.value) == (
        "`design`: missing binding: forward `bar` to exactly one Runtime as a direct argument "
        "(Runtime(seq, fn_args=[..., bar]))"
    )
    with pytest.raises(TypeError) as info:
        with generation([DispatchParameter("bar", np.int32), DispatchParameter("baz", np.int32)], generator="d"):
            pass
    assert str(info.value) == (
        "`d`: missing bindings: forward each of `bar`, `baz` to exactly one Runtime as a direct argument "
        "(Runtime(seq, fn_args=[..., bar]))"
    )


def test_generator_error_passes_through_without_missing_binding_check():
    with pytest.raises(KeyError):
        with generation([DispatchParameter("bar", np.int32)], generator="design"):
            raise KeyError("from the generator")
    assert active_generation() is None


def test_stale_parameter_from_an_earlier_generation_rejected():
    old = DispatchParameter("bar", np.int32)
    with generation([old], generator="design"):
        FakeRuntime(None, [old])
    new = DispatchParameter("bar", np.int32)
    with pytest.raises(TypeError) as info, generation([new], generator="design"):
        FakeRuntime(None, [old, new])
    assert str(info.value) == (
        "Runtime fn_args[0] is DispatchTime parameter `bar` of an earlier generation of `design`, not of this "
        "generation of `design`: forward the parameter the generator received in this call"
    )


# -- the same rules reached through iron.jit ------------------------------------------------------------------------

def _jit_design(body):
    """A jit design over one int32 dispatch scalar `bar` whose generator runs
    body(bar) before binding bar to its Runtime."""

    def generator(a: In, b: Out, *, bar: DispatchTime[np.int32] = 1):
        body(bar)
        return FakeDesign.of(FakeRuntime(None, [a, b, bar]))

    return jit(generator)


@pytest.mark.parametrize("body, what", [
    (_if, "a truth test (`if`, `while`, `bool()`, `and`/`or`/`not`)"),
    (lambda bar: list(range(bar)), "`range()` or as an index (`__index__`)"),
    (lambda bar: bar * 4, "arithmetic (`*`)"),
    (lambda bar: np.zeros((4,), dtype=np.int32) + np.int32(bar), "a NumPy value conversion (`np.asarray`, "
                                                                 "`np.int32(...)`)"),
], ids=["if", "range", "mul", "np.int32"])
def test_generation_time_use_fails_the_call(body, what):
    design = _jit_design(body)
    a, b = arange(4, dtype=np.int32), zeros(4, dtype=np.int32)
    with pytest.raises(TypeError) as info:
        design(a, b)
    assert str(info.value) == refusal(what)
    assert design._kernel_cache == {}


def test_worker_use_fails_the_call():
    def body(bar):
        FakeWorker(lambda *a: None, ["of_in", [bar]])

    with pytest.raises(TypeError) as info:
        _jit_design(body)(arange(4, dtype=np.int32), zeros(4, dtype=np.int32))
    assert str(info.value).startswith("Worker fn_args[1][0] is DispatchTime parameter `bar`: ")


def test_jit_missing_binding():
    @jit
    def unbound(a: In, *, n: DispatchTime[np.int32] = 2):
        return FakeDesign.of(FakeRuntime(None, [a, np.int32(4)]))

    with pytest.raises(TypeError) as info:
        unbound(arange(4, dtype=np.int32))
    assert str(info.value) == (
        "`test_jit_missing_binding.<locals>.unbound`: missing binding: forward `n` to exactly one Runtime as a "
        "direct argument (Runtime(seq, fn_args=[..., n]))"
    )


def test_jit_bare_scalar_type():
    @jit
    def substitute(a: In, *, n: DispatchTime[np.int32] = 2):
        return FakeDesign.of(FakeRuntime(None, [a, np.int32]))

    with pytest.raises(TypeError) as info:
        substitute(arange(4, dtype=np.int32))
    assert "is the bare scalar type np.int32 while `test_jit_bare_scalar_type.<locals>.substitute` has unbound " \
           "DispatchTime parameters (`n`)" in str(info.value)


def test_specialised_parameter_is_a_typed_constant():
    seen = {}

    @jit
    def gen(a: In, b: Out, *, bar: DispatchTime[np.int16] = 1, baz: DispatchTime[np.uint8] = 2):
        seen["bar"], seen["baz"] = bar, baz
        return FakeDesign.of(FakeRuntime(None, [a, b, baz]))

    gen.specialize(bar=5)(arange(4, dtype=np.int32), zeros(4, dtype=np.int32))
    assert type(seen["bar"]) is np.int16 and int(seen["bar"]) == 5
    assert isinstance(seen["baz"], DispatchParameter) and seen["baz"].dtype is np.uint8 and seen["baz"].default == 2


def test_spec_example_binds_in_any_order():
    """The spec's example: two dispatch scalars forwarded as [baz, bar]."""

    @jit
    def design(*, bar: DispatchTime[np.int32], baz: DispatchTime[np.int32]):
        rt = FakeRuntime(lambda baz_value, bar_value: None, [baz, bar])
        assert [(i, p.name) for i, p in rt.scalar_args] == [(0, "baz"), (1, "bar")]
        return FakeDesign.of(rt)

    design(bar=1, baz=2)
    design(bar=-7, baz=2**31 - 1)
    (compiled,) = design._kernel_cache.values()
    assert compiled.design.dispatch_names == ["baz", "bar"]
    assert compiled.design.runs == [{"bar": 1, "baz": 2}, {"bar": -7, "baz": 2**31 - 1}]


def test_design_must_bind_the_unbound_parameters():
    @jit
    def other_runtime(a: In, *, n: DispatchTime[np.int32] = 1):
        FakeRuntime(None, [n])
        return FakeDesign([])  # not the Runtime that took n

    with pytest.raises(TypeError) as info:
        other_runtime(arange(4, dtype=np.int32))
    assert str(info.value) == (
        "`test_design_must_bind_the_unbound_parameters.<locals>.other_runtime` returned a design whose Runtime binds "
        "DispatchTime parameters [], but the unbound parameters are ['n']: return the design built from the Runtime "
        "that received them"
    )


def test_generator_must_return_a_design():
    @jit
    def nothing(a: In):
        return None

    with pytest.raises(TypeError) as info:
        nothing(arange(4, dtype=np.int32))
    assert str(info.value) == (
        "`test_generator_must_return_a_design.<locals>.nothing` returned None (NoneType), which has no run, "
        "dispatch_names, to_dict: a jit generator returns the resolved design (Program(...).resolve_program())"
    )


# -- signatures -----------------------------------------------------------------------------------------------------

def test_dispatch_time_must_be_keyword_only():
    def positional(a: In, count: DispatchTime[np.int32] = 3):
        pass

    with pytest.raises(TypeError) as info:
        jit(positional)
    assert str(info.value) == (
        "test_dispatch_time_must_be_keyword_only.<locals>.positional: DispatchTime parameter `count` must be "
        "keyword-only, even when defaulted or specialized: put it after `*` (def positional(..., *, count: "
        "DispatchTime[np.int32]))"
    )


def gen_three(a: In, b: Out, c=None, *, count: DispatchTime[np.int32] = 3, tile: CompileTime[int] = 8):
    return FakeDesign.of(FakeRuntime(None, [a, b, count]))


@pytest.mark.parametrize("make, message", [
    (lambda: jit(gen_three, size=4),
     "gen_three: cannot specialize `size`: the generator has no such parameter (DispatchTime and CompileTime "
     "parameters: c, count, tile)"),
    (lambda: jit(gen_three, a=4),
     "gen_three: cannot specialize `a`: it is a tensor parameter (In); only DispatchTime and CompileTime parameters "
     "can be specialized"),
    (lambda: jit(gen_three, count=3).specialize(count=4),
     "gen_three: cannot specialize `count` again: it is already fixed to 3 by specialization"),
    (lambda: jit(gen_three, count=2**31),
     "gen_three: specialize(`count`) = 2147483648 is out of range for np.int32 (-2147483648..2147483647)"),
    (lambda: jit(gen_three, count=True),
     "gen_three: specialize(`count`) must be an integer (int or NumPy integer) for np.int32, got True (bool)"),
    (lambda: jit(print), "iron.jit needs a Python function to generate the design, got <built-in function print> "
                         "(builtin_function_or_method)"),
], ids=["unknown", "tensor", "twice", "range", "bool", "not-a-function"])
def test_bad_specialization_or_generator(make, message):
    with pytest.raises((TypeError, ValueError)) as info:
        make()
    assert str(info.value) == message


def test_signature_rules():
    def keyword_tensor(a: In, *, b: Out):
        pass

    def star_args(a: In, *rest):
        pass

    def bare_dispatch(*, n: DispatchTime = 1):
        pass

    def bad_default(*, n: DispatchTime[np.uint8] = 256):
        pass

    def tensor_default(a: In = None):
        pass

    cases = [
        (keyword_tensor, "tensor parameter `b` (Out) must be positional; keyword-only parameters (after `*`) are for "
                         "DispatchTime and CompileTime values"),
        (star_args, "a jit generator takes named parameters only; `*rest` is not supported"),
        (bare_dispatch, "DispatchTime parameter `n` needs its type: DispatchTime[np.int32]"),
        (bad_default, "the default of `n` = 256 is out of range for np.uint8 (0..255)"),
        (tensor_default, "tensor parameter `a` (In) cannot have a default: every call binds every tensor"),
    ]
    for fn, message in cases:
        with pytest.raises((TypeError, ValueError)) as info:
            jit(fn)
        assert str(info.value) == f"{fn.__qualname__}: {message}"


def test_decorator_forms():
    def gen(a: In, *, n: DispatchTime[np.int32] = 1):
        return FakeDesign.of(FakeRuntime(None, [a, n]))

    assert isinstance(jit(gen), JitDesign)
    assert jit(n=3)(gen).dispatch_params == []
    assert jit(gen, n=3).specialized == {"n": 3}
    assert jit(gen).dispatch_params == ["n"] and jit(gen).compilable.dispatch_params == ["n"]
    assert jit(gen).__name__ == "gen" and jit(gen).__wrapped__ is gen


def test_unannotated_parameters():
    """Positional without a default: a tensor; otherwise configuration."""
    seen = {}

    @jit
    def gen(a, b: np.ndarray, n: int, scale=2, *, mode="fast"):
        seen.update(a=a, n=n, scale=scale, mode=mode)
        return FakeDesign.of(FakeRuntime(None, [a, b]))

    assert gen.dispatch_params == []
    assert [p.describe() for p in gen._params] == [
        "a (InOut)", "b (InOut)", "n (CompileTime[int])", "scale (CompileTime[Any])", "mode (CompileTime[Any])"]
    x = arange(4, dtype=np.int32)
    gen(x, zeros(4, dtype=np.int32), n=1, mode="slow")
    assert seen == {"a": x, "n": 1, "scale": 2, "mode": "slow"}
    with pytest.raises(TypeError) as info:
        gen(x, 5, n=1)
    assert str(info.value) == (
        "test_unannotated_parameters.<locals>.gen: tensor argument `b` must be a tessel.iron.Tensor or numpy array, "
        "got 5 (int) (`b` has no In/Out/InOut annotation and is positional, so it is taken as a tensor; annotate it "
        "CompileTime[...] for a value)"
    )


# -- calls ----------------------------------------------------------------------------------------------------------

@pytest.fixture
def tensors():
    return arange(8, dtype=np.int32), zeros(8, dtype=np.int32)


CALL_ERRORS = [
    ("override-specialized", lambda t: jit(gen_three, count=3)(*t, count=4), TypeError,
     "gen_three(): `count` is fixed to 3 by specialization; use another specialization to change it"),
    ("override-specialized-compile", lambda t: jit(gen_three, tile=16)(*t, tile=32), TypeError,
     "gen_three(): `tile` is fixed to 16 by specialization; use another specialization to change it"),
    ("out-of-range", lambda t: jit(gen_three)(*t, count=-(2**31) - 1), ValueError,
     "gen_three(): `count` = -2147483649 is out of range for np.int32 (-2147483648..2147483647)"),
    ("float", lambda t: jit(gen_three)(*t, count=2.0), TypeError,
     "gen_three(): `count` must be an integer (int or NumPy integer) for np.int32, got 2.0 (float)"),
    ("bool", lambda t: jit(gen_three)(*t, count=np.True_), TypeError,
     "gen_three(): `count` must be an integer (int or NumPy integer) for np.int32, got np.True_ (bool)"),
    ("unknown", lambda t: jit(gen_three)(*t, size=3), TypeError,
     "gen_three() got an unexpected keyword argument `size`; its parameters: a (In), b (Out), c (CompileTime[Any]), "
     "count (DispatchTime[np.int32]), tile (CompileTime[int])"),
    ("too-many", lambda t: jit(gen_three)(*t, t[0]), TypeError,
     "gen_three() takes 2 tensor arguments (a, b), got 3; pass CompileTime and DispatchTime values by keyword"),
    ("missing-tensor", lambda t: jit(gen_three)(t[0]), TypeError, "gen_three() missing tensor argument `b` (Out)"),
    ("twice", lambda t: jit(gen_three)(*t, b=t[1]), TypeError, "gen_three() got two values for tensor argument `b`"),
    ("not-a-tensor", lambda t: jit(gen_three)(t[0], [0, 0]), TypeError,
     "gen_three: tensor argument `b` must be a tessel.iron.Tensor or numpy array, got [0, 0] (list)"),
]


@pytest.mark.parametrize("call, error, message", [c[1:] for c in CALL_ERRORS], ids=[c[0] for c in CALL_ERRORS])
def test_call_errors(tensors, call, error, message):
    with pytest.raises(error) as info:
        call(tensors)
    assert str(info.value) == message


def test_missing_dispatch_value_without_default(tensors):
    @jit
    def needs(a: In, b: Out, *, n: DispatchTime[np.int64]):
        return FakeDesign.of(FakeRuntime(None, [a, b, n]))

    with pytest.raises(TypeError) as info:
        needs(*tensors)
    assert str(info.value) == (
        "test_missing_dispatch_value_without_default.<locals>.needs(): missing DispatchTime value `n` (np.int64): it "
        "has no default, so pass n=... on every call or fix it with specialize(n=...)"
    )
    assert needs._kernel_cache == {}
    needs(*tensors, n=np.int64(2**40))
    (compiled,) = needs._kernel_cache.values()
    assert compiled.design.runs == [{"n": 2**40}]


def test_missing_compile_time_value(tensors):
    @jit
    def needs(a: In, b: Out, *, tile: CompileTime[int]):
        return FakeDesign.of(FakeRuntime(None, [a, b]))

    with pytest.raises(TypeError) as info:
        needs(*tensors)
    assert str(info.value) == "test_missing_compile_time_value.<locals>.needs() missing CompileTime value `tile`: " \
                              "pass tile=..."


def test_inout_tensor_keyword_call(tensors):
    @jit
    def gen(a: In, b: InOut):
        return FakeDesign.of(FakeRuntime(None, [a, b]))

    a, b = tensors
    gen(a, b=b)
    assert b.numpy().tolist() == list(range(8))


# -- host tensors ---------------------------------------------------------------------------------------------------

def test_tensor_constructors():
    from tessel.iron.tensor import Tensor, asnumpy, ones, randint, tensor

    z = zeros(2, 3, dtype=np.int16, device="cpu")
    assert (z.shape, z.dtype, z.device, z.numel(), len(z)) == ((2, 3), np.dtype(np.int16), "cpu", 6, 2)
    assert zeros((4,)).dtype == np.float32 and ones(3).numpy().tolist() == [1.0, 1.0, 1.0]
    assert arange(2, 8, 2, dtype=np.uint8).numpy().tolist() == [2, 4, 6]
    data = [[1, 2], [3, 4]]
    t = tensor(data, dtype=np.int32)
    data[0][0] = 99
    assert t[0, 0] == 1 and isinstance(t, Tensor) and t.device == "npu"

    np.random.seed(7)
    first = randint(0, 100, (64,), dtype=np.int16)
    np.random.seed(7)
    again = randint(0, 100, (64,), dtype=np.int16)
    assert first.dtype == np.int16 and first.shape == (64,)
    assert (first.numpy() == again.numpy()).all() and 0 <= first.numpy().min() and first.numpy().max() < 100
    assert asnumpy(first) is first.numpy()


def test_tensor_storage_is_shared():
    t = arange(6, dtype=np.int32)
    view = t.numpy()
    t[1:3] = [10, 11]
    view[5] = 50
    assert np.asarray(t).tolist() == [0, 10, 11, 3, 4, 50]
    assert np.asarray(t) is view and np.array(t, copy=True) is not view
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert list(t) == [0, 10, 11, 3, 4, 50]
    assert t.to("cpu") is t and t.device == "cpu" and t.fill_(2)[4] == 2


def test_tensor_rejects_unknown_device():
    with pytest.raises(ValueError) as info:
        zeros(4, device="gpu")
    assert str(info.value) == "tessel.iron.zeros: device must be 'npu' or 'cpu', got 'gpu'"
    with pytest.raises(TypeError) as info:
        zeros(-1)
    assert str(info.value) == "tessel.iron.zeros: shape must be non-negative integers, got (-1,)"
