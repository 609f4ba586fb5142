"""Design records: how an IRON design printed by one process runs in another.

IRON's Makefiles build a design in steps: `python3 design.py ARGS >
build/aie.mlir` prints the MLIR module, aiecc turns it into
build/final.xclbin and build/insts.bin, and a test program (test.py through
aie.utils, or test.cpp through XRT) loads those with `-x build/final.xclbin
-i build/insts.bin -k MLIR_AIE` and runs them.

tessel runs the design itself, so what the first step prints is a *record*:
`str(resolved_design)` is a short description (comment lines, not MLIR)
and, under `python -m tessel.iron.run`, one line

    // tessel-iron-design-record {"script": ..., "args": [...], "cwd": ..., "sha256": ...}

naming the design script, its arguments, the directory it ran in, a
digest of its text and, when it was run with --kernel-flags, those
("kernel_flags": {object: [flags]}). A jit design's `compile(xclbin_path=..., inst_path=...)`
writes the same record to both paths.

The test program's `-x`/`-i` paths are mapped back to a record (locate()):
the xclbin path itself if it holds one (a jit compile wrote it), else the
one record in the xclbin's (or the insts') directory, else, of several, the
one whose name matches the xclbin's once the `final`/`aie` prefixes are
dropped (final_trace_4096.xclbin <- aie_trace_4096.mlir). load() replays
the script with its recorded arguments (its printing swallowed) and keeps
the last design it resolves, or the jit design it compiles.
"""

import contextlib
import contextvars
import hashlib
import io
import json
import os
import runpy
import sys

from .errors import IronRuntimeError

MARKER = "// tessel-iron-design-record "

_run = None  # (script, args, cwd, kernel flags) of the design `python -m tessel.iron.run` is running
_capture = contextvars.ContextVar("tessel_iron_design_capture", default=None)
_loaded = {}  # record path -> (record text, design or JitDesign)


def set_run(script, args, kernel_flags=None):
    """Called by `python -m tessel.iron.run`: the design it runs (and the
    kernel flags it was given), for the records it prints."""
    global _run
    _run = (os.path.abspath(script), list(args), os.getcwd(), dict(kernel_flags or {}))


def record_line():
    """The record line for the design being run, or None outside tessel.iron.run."""
    if _run is None:
        return None
    script, args, cwd, kernel_flags = _run
    with open(script, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    record = {"script": script, "args": args, "cwd": cwd, "sha256": digest}
    if kernel_flags:
        record["kernel_flags"] = kernel_flags
    return MARKER + json.dumps(record)


def resolved(design):
    """Program.resolve_program's hook: a replay keeps what the design resolves."""
    captured = _capture.get()
    if captured is not None:
        captured.append(design)
    return captured is not None


class Operation:
    """`module.operation` of IRON designs: verify() is True for a design
    that resolved (tessel checks it while resolving)."""

    def __init__(self, design):
        self._design = design

    def verify(self):
        return True

    def __str__(self):
        return describe(self._design)


def describe(design):
    """A few comment lines saying what the design is, then its record line."""
    spec = design.spec
    gx, gy = design.device.grid
    on = f"{design.device_name!r} (a {gx}x{gy} grid)" if design.device_name else f"a {gx}x{gy} grid"
    lines = [f"// tessel.iron design '{spec['name']}' from {spec['file']}, resolved for {on}; "
             "tessel runs it itself (this is not MLIR)"]
    for w in spec["workers"]:
        handles = ", ".join(h[2] for h in w[4]) or "no fifos"
        lines.append(f"//   worker {w[0]} on core ({w[1][0]},{w[1][1]}): {handles}")
    buffers = ", ".join(f"{count} x {dtype.name}" for count, dtype in design.buffer_layout)
    lines.append(f"//   host buffers: {buffers or 'none'}; {len(spec['channels'])} channels, {len(spec['ops'])} "
                 "sequence ops")
    record = record_line()
    if record is not None:
        lines.append(record)
    return "\n".join(lines)


def write_record(paths):
    """A jit compile's artifacts: the record written to each path (directories made)."""
    record = record_line()
    if record is None:
        raise IronRuntimeError("compile(xclbin_path=...): tessel writes a design record there, which needs the "
                               "design to run under `python -m tessel.iron.run DESIGN.py ARGS`")
    for p in paths:
        if p:
            os.makedirs(os.path.dirname(os.path.abspath(p)) or ".", exist_ok=True)
            with open(p, "w") as f:
                f.write("// tessel.iron jit design record (not an xclbin: tessel runs the design itself)\n"
                        + record + "\n")


def compiled(jit_design):
    """JitDesign.compile's hook: True when a replay is capturing (then it writes nothing)."""
    return resolved(jit_design)


def _read(path):
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return None
    try:
        text = head.decode()
    except UnicodeDecodeError:
        return None
    for line in text.splitlines():
        if line.startswith(MARKER):
            try:
                return json.loads(line[len(MARKER):])
            except ValueError:
                return None
    return None


def _stem(path, prefixes):
    stem = os.path.splitext(os.path.basename(path))[0]
    for p in prefixes:
        if stem.startswith(p):
            return stem[len(p):]
    return stem


def locate(xclbin, insts=None):
    """(path, record) for a test program's -x XCLBIN [-i INSTS] (module docstring)."""
    for p in (xclbin, insts):
        if p and _read(p) is not None:
            return p, _read(p)
    dirs = list(dict.fromkeys(os.path.dirname(os.path.abspath(p)) for p in (xclbin, insts) if p))
    found = []
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            full = os.path.join(d, n)
            if os.path.isfile(full) and _read(full) is not None:
                found.append(full)
    if len(found) == 1:
        return found[0], _read(found[0])
    want = _stem(xclbin or insts, ("final", "insts"))
    matching = [p for p in found if _stem(p, ("aie",)) == want]
    if len(matching) == 1:
        return matching[0], _read(matching[0])
    if not found:
        raise IronRuntimeError(
            f"no tessel design record for {xclbin or insts}: tessel builds no xclbin; write the record with "
            f"`python -m tessel.iron.run DESIGN.py ARGS > {os.path.join(dirs[0] if dirs else '.', 'aie.mlir')}` "
            "(the record in the xclbin's directory stands for it)")
    raise IronRuntimeError(
        f"{len(found)} tessel design records next to {xclbin or insts} ({', '.join(map(os.path.basename, found))}) "
        f"and none named like it (aie{want}.*): keep one record per build directory, or name the record after the "
        "xclbin")


def forget():
    """Drop the designs load() kept (the next load replays again)."""
    for design in _loaded.values():
        if hasattr(design, "close"):
            design.close()
    _loaded.clear()


def load(xclbin, insts=None):
    """The design (a resolved Design, or a jit design) the record for
    -x XCLBIN [-i INSTS] names, replaying its script once per process."""
    path, record = locate(xclbin, insts)
    key = os.path.abspath(path)
    if key in _loaded:
        return _loaded[key]
    design = replay(record, path)
    _loaded[key] = design
    return design


def replay(record, path="the record"):
    script, args, cwd = record.get("script"), record.get("args", []), record.get("cwd", os.getcwd())
    if not script or not os.path.isfile(script):
        raise IronRuntimeError(f"{path}: the design script {script!r} the record names does not exist")
    with open(script, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != record.get("sha256"):
            print(f"tessel.iron: {os.path.basename(script)} changed since {path} was written; running it as it "
                  "is now (re-run the step that wrote the record to refresh it)", file=sys.stderr)
    from .kernel import object_flags, set_object_flags

    captured = []
    token = _capture.set(captured)
    saved = (list(sys.argv), os.getcwd(), list(sys.path), object_flags())
    out = io.StringIO()
    try:
        set_object_flags(record.get("kernel_flags") or {})
        os.chdir(cwd)
        sys.argv = [script, *args]
        sys.path.insert(0, os.path.dirname(script))
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise IronRuntimeError(f"{path}: replaying {os.path.basename(script)} {' '.join(args)} exited with "
                                   f"status {e.code}") from None
    finally:
        _capture.reset(token)
        sys.argv[:] = saved[0]
        os.chdir(saved[1])
        sys.path[:] = saved[2]
        set_object_flags(saved[3])
    if not captured:
        raise IronRuntimeError(f"{path}: replaying {os.path.basename(script)} {' '.join(args)} resolved no design "
                               "(no Program.resolve_program() and no jit compile ran)")
    return captured[-1]
