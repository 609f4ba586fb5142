"""iron.jit's caches: one build across many dispatch values, what enters the
key (specialization, CompileTime values, tensors, the generator's code and
closure values; never defaults or dispatch values), the disk cache (reload
without the generator, in this process and a new one, corrupt entries
rebuilt, failed builds and lock files leaving nothing behind, a waiter on a
removed lock file starting over), and the per-call tensor checks.

FakeRuntime and FakeDesign stand in for tessel.iron's Runtime and for a
resolved Program (what Program(...).resolve_program() returns): FakeRuntime
claims its fn_args exactly as Runtime.__init__ does, and FakeDesign keeps to
the design contract (run, dispatch_names, to_dict, from_dict). A run copies
the first `count` elements of tensor 0 into tensor 1 and zeroes the rest.
"""

import fcntl
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from tessel.iron.dispatch_time import DispatchParameter, claim_runtime_args
from tessel.iron.design_cache import acquire_lock, release_lock
from tessel.iron.jit import clear_memory_cache, jit
from tessel.iron.markers import CompileTime, DispatchTime, In, Out
from tessel.iron.tensor import arange, zeros

GENERATED = []  # one record per generator call; a list, so not part of any key


class FakeRuntime:
    def __init__(self, body, fn_args):
        self.body = body
        self.scalar_args = claim_runtime_args(self, fn_args)


class FakeDesign:
    """Stands in for a resolved Program."""

    loaded = []  # one record per from_dict

    def __init__(self, dispatch_names, fixed_count, tile):
        self.dispatch_names = list(dispatch_names)
        self.fixed_count = fixed_count
        self.tile = tile
        self.runs = []

    def run(self, tensors, scalars):
        src, dst = tensors
        count = scalars["count"] if "count" in self.dispatch_names else self.fixed_count
        self.runs.append(dict(scalars))
        dst[...] = 0
        dst.reshape(-1)[:count] = src.reshape(-1)[:count]

    def to_dict(self):
        return {"dispatch_names": self.dispatch_names, "fixed_count": self.fixed_count, "tile": self.tile}

    @classmethod
    def from_dict(cls, d):
        FakeDesign.loaded.append(d)
        return cls(d["dispatch_names"], d["fixed_count"], d["tile"])


def copy_generator(a: In, b: Out, *, count: DispatchTime[np.int32] = 3, tile: CompileTime[int] = 4,
                   mode: CompileTime[str] = "plain"):
    if mode not in {"plain", "fast", "small"}:  # a frozenset constant: its order varies between processes
        raise ValueError(mode)
    GENERATED.append({"count": count, "tile": tile, "shape": a.shape})
    rt = FakeRuntime(lambda a_h, b_h, n: None, [a, b, count])
    fixed = int(count) if isinstance(count, np.integer) else None
    return FakeDesign([p.name for _, p in rt.scalar_args], fixed, tile)


copy = jit(copy_generator)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    clear_memory_cache()
    GENERATED.clear()
    FakeDesign.loaded.clear()
    return tmp_path / "iron"


def the_build(design):
    (compiled,) = design._kernel_cache.values()
    return compiled


def counting(n, dtype=np.int32):
    """1, 2, ..., n: a copied element never looks like a zeroed one."""
    return arange(1, n + 1, dtype=dtype)


def new_tensors(n=16, dtype=np.int32):
    return counting(n, dtype), zeros(n, dtype=dtype)


# -- one build, many dispatches -------------------------------------------------------------------------------------

def test_one_build_serves_100_dispatch_values():
    a, b = new_tensors(128)
    for count in range(100):
        copy(a, b, count=count)
        assert b.numpy()[:count].tolist() == list(range(1, count + 1))
        assert not b.numpy()[count:].any()
    assert len(GENERATED) == 1
    assert len(copy._kernel_cache) == 1
    assert the_build(copy).design.runs == [{"count": c} for c in range(100)]


def test_default_is_used_and_does_not_specialize():
    a, b = new_tensors()
    copy(a, b)
    copy(a, b, count=3)
    copy(a, b, count=np.int16(7))
    assert len(GENERATED) == 1 and isinstance(GENERATED[0]["count"], DispatchParameter)
    assert the_build(copy).design.runs == [{"count": 3}, {"count": 3}, {"count": 7}]
    assert copy.dispatch_params == ["count"] == copy.compilable.dispatch_params


def test_specialize_without_values_keeps_everything_dynamic():
    a, b = new_tensors()
    copy(a, b)
    same = copy.specialize()
    assert same.dispatch_params == ["count"] and same.specialized == {}
    same(a, b, count=5)
    assert the_build(same).key == the_build(copy).key
    assert len(GENERATED) == 1 and len(FakeDesign.loaded) == 1  # the other design's build, from disk


def test_specialization_changes_the_key_and_rejects_overrides():
    a, b = new_tensors()
    copy(a, b)
    fixed = copy.specialize(count=5)
    assert fixed.dispatch_params == [] and fixed.compilable.dispatch_params == []
    fixed(a, b)
    assert b.numpy().tolist() == list(range(1, 6)) + [0] * 11
    assert len(GENERATED) == 2 and type(GENERATED[1]["count"]) is np.int32 and GENERATED[1]["count"] == 5
    assert the_build(fixed).design.runs == [{}]
    assert the_build(fixed).key != the_build(copy).key
    with pytest.raises(TypeError) as info:
        fixed(a, b, count=6)
    assert str(info.value) == "copy_generator(): `count` is fixed to 5 by specialization; use another " \
                              "specialization to change it"
    assert copy.specialize(count=5) is fixed
    assert jit(copy_generator, count=5).build(a, b).key == the_build(fixed).key
    assert copy.specialize(count=6).build(a, b).key not in (the_build(fixed).key, the_build(copy).key)
    assert len(GENERATED) == 3


def test_compile_time_values_change_the_key():
    a, b = new_tensors()
    copy(a, b, tile=4)
    copy(a, b)  # the default, 4
    copy(a, b, tile=8)
    copy(a, b, tile=8, count=1)
    copy(a, b, mode="fast")
    assert [g["tile"] for g in GENERATED] == [4, 8, 4]
    assert len(copy._kernel_cache) == 3


def test_tensor_shapes_and_dtypes_change_the_key():
    for n, dtype in [(16, np.int32), (32, np.int32), (16, np.int16), (16, np.int32)]:
        copy(*new_tensors(n, dtype))
    a, b = new_tensors(16)
    copy(a.numpy().reshape(4, 4), b.numpy().reshape(4, 4))
    assert [(g["shape"]) for g in GENERATED] == [(16,), (32,), (16,), (4, 4)]
    assert len(copy._kernel_cache) == 4


def test_closure_values_and_code_change_the_key():
    def make(factor):
        def gen(a: In, b: Out, *, count: DispatchTime[np.int32] = 3):
            rt = FakeRuntime(None, [a, b, count])
            return FakeDesign([p.name for _, p in rt.scalar_args], None, factor)

        return jit(gen)

    a, b = new_tensors()
    keys = [make(2).build(a, b).key, make(2).build(a, b).key, make(3).build(a, b).key]
    assert keys[0] == keys[1] != keys[2]

    source = "def gen(a: In, b: Out):\n    return FakeDesign([], 1, {tile})\n"
    built = []
    for tile in (4, 4, 5):
        scope = {"__name__": __name__, "In": In, "Out": Out, "FakeDesign": FakeDesign}
        exec(source.format(tile=tile), scope)
        built.append(jit(scope["gen"]).build(a, b).key)
    assert built[0] == built[1] != built[2]


def test_builds_in_threads_happen_once():
    barrier = threading.Barrier(4)
    errors = []

    def call():
        try:
            barrier.wait(10)
            copy(*new_tensors())
        except Exception as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == [] and len(GENERATED) == 1 and len(the_build(copy).design.runs) == 4


# -- the disk cache -------------------------------------------------------------------------------------------------

def test_disk_cache_survives_clearing_memory(cache_dir):
    a, b = new_tensors()
    copy(a, b, count=2)
    key = the_build(copy).key
    assert len(key) == 64 and sorted(os.listdir(cache_dir)) == [key]
    assert sorted(os.listdir(cache_dir / key)) == ["design.json"]
    entry = json.loads((cache_dir / key / "design.json").read_text())
    assert entry["design_class"] == f"{FakeDesign.__module__}:FakeDesign"
    assert entry["design"] == {"dispatch_names": ["count"], "fixed_count": None, "tile": 4}

    clear_memory_cache()
    assert copy._kernel_cache == {}
    copy(a, b, count=9)
    assert len(GENERATED) == 1 and len(FakeDesign.loaded) == 1
    assert b.numpy().tolist() == list(range(1, 10)) + [0] * 7
    assert the_build(copy).design.runs == [{"count": 9}]


def test_new_process_loads_from_disk_without_the_generator(cache_dir):
    a, b = new_tensors()
    copy(a, b)
    script = textwrap.dedent(f"""
        import importlib.util, json, sys
        import numpy as np
        spec = importlib.util.spec_from_file_location({FakeDesign.__module__!r}, {__file__!r})
        m = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = m
        spec.loader.exec_module(m)
        a, b = m.new_tensors()
        m.copy(a, b, count=5)
        print(json.dumps({{"generated": len(m.GENERATED), "loaded": len(m.FakeDesign.loaded),
                          "out": b.numpy().tolist()}}))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PYTHONHASHSEED="12345")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"generated": 0, "loaded": 1, "out": [1, 2, 3, 4, 5] + [0] * 11}


def test_failing_generator_leaves_nothing_on_disk(cache_dir):
    @jit
    def broken(a: In, b: Out, *, count: DispatchTime[np.int32] = 1):
        GENERATED.append("broken")
        raise ValueError("no design today")

    for _ in range(2):
        with pytest.raises(ValueError, match="no design today"):
            broken(*new_tensors())
    assert GENERATED == ["broken", "broken"]  # a failure is not cached
    assert broken._kernel_cache == {}
    assert not cache_dir.exists() or list(cache_dir.iterdir()) == []


def test_rejected_binding_leaves_nothing_on_disk(cache_dir):
    @jit
    def unbound(a: In, b: Out, *, count: DispatchTime[np.int32] = 1):
        return FakeDesign([], 1, 1)

    with pytest.raises(TypeError, match="missing binding"):
        unbound(*new_tensors())
    assert not cache_dir.exists() or list(cache_dir.iterdir()) == []


def test_no_lock_or_temporary_file_is_left_after_builds(cache_dir):
    for tile in (1, 2, 3):
        copy(*new_tensors(), tile=tile)
    left = sorted(name for key in os.listdir(cache_dir) for name in os.listdir(cache_dir / key))
    assert left == ["design.json"] * 3


CORRUPTIONS = [
    ("garbage", lambda text: "not json at all"),
    ("truncated", lambda text: text[: len(text) // 2]),
    ("empty", lambda text: ""),
    ("other-key", lambda text: json.dumps({**json.loads(text), "key": {"generator": "elsewhere"}})),
    ("unknown-class", lambda text: json.dumps({**json.loads(text), "design_class": "no_such_module:Nothing"})),
    ("from-dict-fails", lambda text: json.dumps({**json.loads(text), "design": {"tile": 4}})),
    ("binds-nothing", lambda text: json.dumps({**json.loads(text), "design": {
        "dispatch_names": [], "fixed_count": None, "tile": 4}})),
]


@pytest.mark.parametrize("corrupt", [c[1] for c in CORRUPTIONS], ids=[c[0] for c in CORRUPTIONS])
def test_corrupt_entry_is_rebuilt(cache_dir, corrupt):
    a, b = new_tensors()
    copy(a, b)
    path = cache_dir / the_build(copy).key / "design.json"
    good = path.read_text()
    path.write_text(corrupt(good))
    clear_memory_cache()
    copy(a, b, count=4)
    assert len(GENERATED) == 2
    assert b.numpy().tolist() == [1, 2, 3, 4] + [0] * 12
    assert path.read_text() == good
    assert sorted(os.listdir(path.parent)) == ["design.json"]


def test_waiter_on_a_removed_lock_file_starts_over(cache_dir, monkeypatch):
    """A build that waits for the lock while its holder finishes (writes the
    entry, removes the lock file, releases) finds its lock file gone, locks
    afresh and loads the entry instead of generating."""
    a, b = new_tensors()
    key = copy.build(a, b).key
    directory = cache_dir / key
    entry = (directory / "design.json").read_text()
    (directory / "design.json").unlink()
    clear_memory_cache()

    held = acquire_lock(directory)  # this test plays the other process
    waiting = threading.Event()
    real_flock = fcntl.flock

    def flock(fd, operation):
        waiting.set()
        return real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    thread = threading.Thread(target=lambda: copy(a, b, count=6))
    thread.start()
    try:
        assert waiting.wait(10)
        (directory / "design.json").write_text(entry)
    finally:
        release_lock(directory, held)
    thread.join(10)
    assert not thread.is_alive()
    assert len(GENERATED) == 1 and len(FakeDesign.loaded) == 1
    assert b.numpy().tolist() == list(range(1, 7)) + [0] * 10
    assert sorted(os.listdir(directory)) == ["design.json"]


def test_value_without_stable_form_stays_in_memory(cache_dir):
    class Config:  # hashable by identity, no stable text
        pass

    config = Config()
    a, b = new_tensors()
    copy(a, b, tile=config)
    copy(a, b, tile=config)
    assert len(GENERATED) == 1 and len(copy._kernel_cache) == 1
    assert not cache_dir.exists() or list(cache_dir.iterdir()) == []

    class Unhashable:
        __hash__ = None

    with pytest.raises(TypeError) as info:
        copy(a, b, tile=Unhashable())
    assert str(info.value) == (
        "copy_generator(): CompileTime value `tile` (Unhashable) cannot be part of the cache key: it has no stable "
        "form and is not hashable; use numbers, strings, tuples, NumPy dtypes, enums or a frozen dataclass"
    )


def test_unwritable_cache_builds_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(blocker))  # a file where the cache directory would be
    a, b = new_tensors()
    copy(a, b, count=2)
    copy(a, b, count=3)
    assert len(GENERATED) == 1 and b.numpy().tolist() == [1, 2, 3] + [0] * 13


# -- tensors on each call -------------------------------------------------------------------------------------------

def test_built_design_checks_element_counts_and_dtypes():
    a, b = new_tensors()
    compiled = copy.build(a, b)
    assert copy.build(a, b) is compiled and len(GENERATED) == 1
    with pytest.raises(RuntimeError) as info:
        compiled(counting(12), b)
    assert str(info.value) == (
        "copy_generator: tensor argument `a` has 12 elements, but the design was built for 16 (shape (16,) int32)"
    )
    with pytest.raises(RuntimeError) as info:
        compiled(a, zeros(16, dtype=np.int16))
    assert str(info.value) == "copy_generator: tensor argument `b` is int16, but the design was built for int32"
    assert compiled.design.runs == []

    compiled(a.numpy().reshape(2, 8), b, count=2)  # the same element count in another shape
    assert b.numpy().tolist() == [1, 2] + [0] * 14
    with pytest.raises(TypeError) as info:
        copy.build(a, b, count=3)
    assert str(info.value) == (
        "copy_generator.build() takes tensors and CompileTime values; DispatchTime value `count` is given when the "
        "built design is called"
    )


def test_outputs_land_in_callers_arrays():
    src = np.arange(1, 17, dtype=np.int32)
    out = np.zeros(16, dtype=np.int32)
    copy(src, out, count=16)
    assert out.tolist() == list(range(1, 17))

    backing = np.full(32, -1, dtype=np.int32)
    strided = backing[::2]  # not contiguous: staged, then written back
    copy(src, strided, count=4)
    assert backing[::2].tolist() == [1, 2, 3, 4] + [0] * 12
    assert (backing[1::2] == -1).all()
