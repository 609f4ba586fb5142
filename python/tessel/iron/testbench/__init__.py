"""IRON's C++ testbenches (test.cpp, through XRT's C++ API) on tessel.

    python -m tessel.iron.testbench test.cpp [MORE.cpp] [-I DIR] [-D NAME[=V]] [-o EXE] [-- ARGS...]

compiles the testbench with the host compiler against tessel's XRT and
IRON test_utils (include/: xrt/xrt_device.h, xrt/xrt_kernel.h,
xrt/xrt_bo.h, test_utils.h; cxxopts from Debian's libcxxopts-dev), keeps
the executable in the cache (TESSEL_CACHE_DIR/testbench, keyed by the
sources, the flags and tessel's headers; a header a source includes is
checked for changes too), and, given `-- ARGS`, runs it with them:

    python -m tessel.iron.run design.py > build/aie.mlir
    python -m tessel.iron.testbench test.cpp -- -x build/final.xclbin -i build/insts.bin -k MLIR_AIE

The testbench's kernel calls run the design the xclbin path stands for
(its design record, design_record.py) on the simulated device; its buffer
objects are the design's host buffers (tessel/xrt_api.h says how). An
executable copied out with `-o` (and one built with the `--flags` a
Makefile can use) knows the Python and import path that run its designs;
the cached one gets them from the front door's environment.
"""

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys

from ..design_cache import cache_root
from ..kernel import kernel_include_dir

__all__ = ["INCLUDE_DIR", "build", "compile_flags", "main"]

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
"""tessel's XRT headers and test_utils.h."""

PROG = "python -m tessel.iron.testbench"
CXX = os.environ.get("CXX") or "g++"
_STANDARD = "-std=gnu++20"


def _python_path():
    """The import path the testbench's design server needs: this process's."""
    return os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))


def compile_flags(include_dirs=(), defines=(), standalone=True):
    """The flags a testbench compiles with: tessel's headers (the kernel
    headers searched after the system's), then (for an
    executable run on its own) the Python and import path that run its
    designs, then the caller's -I and -D. The front door's own runs give
    those in the environment instead (TESSEL_PYTHON, PYTHONPATH), so one
    cached build serves every Python that runs it."""
    # The kernel headers come last of all (-idirafter): <stdfloat> rounds with
    # tessel/bf16_round.h, and nothing there shadows a testbench's own header.
    flags = [_STANDARD, "-O2", "-pthread", f"-I{INCLUDE_DIR}", f"-idirafter{kernel_include_dir()}"]
    if standalone:
        flags += [f"-DTESSEL_XRT_PYTHON={json.dumps(sys.executable)}",
                  f"-DTESSEL_XRT_PYTHONPATH={json.dumps(_python_path())}"]
    flags += [f"-I{os.path.abspath(d)}" for d in include_dirs]
    flags += [f"-D{d}" for d in defines]
    return flags


def _digest_files(paths):
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.encode() + b"\0")
        try:
            with open(p, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()


def _tessel_headers():
    out = []
    for base, _, files in os.walk(INCLUDE_DIR):
        out += [os.path.join(base, f) for f in files]
    return out


def _dependencies(depfile):
    """The files a make-style depfile (g++ -MD) lists."""
    try:
        text = open(depfile).read().replace("\\\n", " ")
    except OSError:
        return None
    deps = []
    for line in text.splitlines():
        _, _, rest = line.partition(": ")
        deps += [d for d in shlex.split(rest.replace("\\ ", "\0")) if d]
    return [d.replace("\0", " ") for d in deps]


def _uses_boost_options(sources):
    """Whether the sources parse options with Boost (IRON's older
    testbenches, some of which leave its include to test_utils.h)."""
    for src in sources:
        with open(src, errors="replace") as f:
            text = f.read()
        if "boost/program_options" in text or "boost::program_options" in text:
            return True
    return False


def build(sources, include_dirs=(), defines=(), output=None):
    """The testbench executable for `sources` (built, or taken from the
    cache); a RuntimeError with the compiler's output when it does not compile."""
    sources = [os.path.abspath(s) for s in sources]
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"{PROG}: {s}: no such file")
    flags = compile_flags(include_dirs, defines, standalone=bool(output))
    libraries = []
    if _uses_boost_options(sources):
        flags.append("-DTESSEL_TEST_UTILS_BOOST")
        libraries.append("-lboost_program_options")
    key = hashlib.sha256(json.dumps([CXX, flags, sources, _digest_files(sources + _tessel_headers())]).encode())
    entry = cache_root().parent / "testbench" / key.hexdigest()[:32]
    exe = entry / "testbench"
    manifest = entry / "deps.json"
    if exe.is_file() and manifest.is_file():
        deps = json.loads(manifest.read_text())
        if _digest_files(deps["files"]) == deps["digest"]:
            return _deliver(exe, output)
    entry.mkdir(parents=True, exist_ok=True)
    tmp = entry / f"testbench.{os.getpid()}"
    cmd = [CXX, *flags, "-MD", "-MF", str(entry / "deps.d"), *sources, "-o", str(tmp), *libraries]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{PROG}: the testbench does not compile:\n{' '.join(map(shlex.quote, cmd))}\n{r.stdout}")
    files = [os.path.abspath(d) for d in (_dependencies(entry / "deps.d") or sources)]
    os.replace(tmp, exe)
    manifest.write_text(json.dumps({"files": files, "digest": _digest_files(files)}))
    return _deliver(exe, output)


def _deliver(exe, output):
    if not output:
        return str(exe)
    import shutil

    shutil.copy2(exe, output)
    return os.path.abspath(output)


def parser():
    p = argparse.ArgumentParser(
        prog=PROG, description="Compile an IRON C++ testbench (test.cpp over XRT) against tessel's XRT and run it: "
                               "its kernel calls run the design the xclbin path's record names.",
        epilog="Write the design record first: python -m tessel.iron.run design.py ARGS > build/aie.mlir. "
               "The exit status is the testbench's (1 when a kernel run failed, whatever it returns).")
    p.add_argument("sources", nargs="*", metavar="SOURCE.cpp", help="the testbench's sources (test.cpp, ...)")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="an include directory (the testbench's own are added the same way)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a preprocessor definition (as the example's CMakeLists sets them)")
    p.add_argument("-o", dest="output", metavar="EXE", help="also copy the executable here")
    p.add_argument("--flags", action="store_true", help="print the compiler flags for a testbench and exit")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    run_args = None
    if "--" in argv:
        at = argv.index("--")
        argv, run_args = argv[:at], argv[at + 1:]
    o = parser().parse_args(argv)
    if o.flags:
        print(" ".join(shlex.quote(f) for f in compile_flags(o.include_dirs, o.defines)))
        return 0
    if not o.sources:
        parser().error("give the testbench's sources (test.cpp), or --flags")
    try:
        exe = build(o.sources, o.include_dirs, o.defines, o.output)
    except (FileNotFoundError, RuntimeError) as e:
        print(e, file=sys.stderr)
        return 1
    if run_args is None:
        print(exe)
        return 0
    sys.stdout.flush()
    env = dict(os.environ, TESSEL_PYTHON=sys.executable)
    env["PYTHONPATH"] = _python_path()
    os.execve(exe, [os.path.basename(o.sources[0]).rsplit(".", 1)[0] + ".exe", *run_args], env)
