"""Running a user's script unchanged as __main__, for the front doors
(`python -m tessel.ttlang SCRIPT`, `python -m tessel.iron.run DESIGN.py`).

- The script's directory goes first on sys.path; sys.argv is [SCRIPT,
  *ARGS]; the script runs as __main__ with __file__ set.
- The exit status is the script's: a SystemExit's code (None: 0, an int:
  that int, anything else: printed, 1); an uncaught exception prints its
  traceback from the script's own frames and exits 1; Ctrl-C exits 130.
- `quiet` exceptions (types whose message says everything, e.g. an import
  the front end refuses) print `PROG: message` without a traceback.
"""

import os
import runpy
import sys
import traceback

__all__ = ["exit_status", "print_traceback", "run_script"]


def exit_status(code):
    """The process exit status for a SystemExit code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _internal(frame):
    name = os.path.abspath(frame.f_code.co_filename)
    return (name == os.path.abspath(__file__) or frame.f_code.co_filename == runpy.__file__
            or frame.f_globals.get("__name__") == "runpy")


def print_traceback(exc):
    """The traceback from the script's own frames (runpy's and this file's dropped)."""
    tb = exc.__traceback__
    while tb is not None and _internal(tb.tb_frame):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb if tb is not None else exc.__traceback__)


def _script_site(exc, path):
    """' (DESIGN.py:LINE)' for the innermost frame of the script itself, else ''."""
    tb, site = exc.__traceback__, ""
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == path:
            site = f" ({os.path.basename(path)}:{tb.tb_lineno})"
        tb = tb.tb_next
    return site


def run_script(script, args=(), *, prog, quiet=()):
    """Run `script` as __main__ with `args`; returns the exit status. `prog`
    names the front door in its own messages."""
    path = os.path.abspath(script)
    if not os.path.isfile(path):
        print(f"{prog}: {script}: no such file", file=sys.stderr)
        return 2
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        return exit_status(e.code)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except quiet as e:  # the message names the problem; a traceback would only hide it
        print(f"{prog}: {script}{_script_site(e, path)}: {e}", file=sys.stderr)
        return 1
    except BaseException as e:  # noqa: BLE001  (the script's own failure: reported, exit 1)
        print_traceback(e)
        return 1
    finally:
        sys.stdout.flush()
    return 0
