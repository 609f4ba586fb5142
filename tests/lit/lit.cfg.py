# lit configuration for tessel's generated-kernel checks: each test is a
# .py or .test file whose RUN lines print generated source and check it with
# FileCheck. `make test` runs:
#   PATH=/usr/lib/llvm-14/bin:$PATH PYTHONPATH=python:build/default/python \
#     .venv/bin/python -m lit -q tests/lit
# ruff: noqa: F821  (lit defines `config` for the file)
import os
import shutil
import sys

import lit.formats

config.name = "tessel"
config.test_format = lit.formats.ShTest()
config.suffixes = [".py", ".test"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# Outputs (%t, lit's timing file) go under build/, out of the source tree.
config.test_exec_root = os.path.join(os.path.dirname(os.path.dirname(config.test_source_root)), "build", "lit")

# %python: the interpreter running lit (the project's .venv); %inputs: Inputs/.
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))

# lit starts tests with a clean environment, in their own directory: pass
# through what tessel needs, with relative PYTHONPATH entries made absolute
# (against the directory lit was started from).
for name in ("PATH", "HOME", "TMPDIR", "XDG_CACHE_HOME", "TESSEL_CACHE_DIR", "TESSEL_KERNEL_INCLUDE_DIR",
             "TESSEL_KERNEL_CXX"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
if os.environ.get("PYTHONPATH"):
    config.environment["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) for p in os.environ["PYTHONPATH"].split(os.pathsep) if p)
# FileCheck: from PATH, else Debian's LLVM 14 package.
if shutil.which("FileCheck", path=config.environment.get("PATH")) is None:
    config.environment["PATH"] = os.pathsep.join(["/usr/lib/llvm-14/bin", config.environment.get("PATH", "")])
