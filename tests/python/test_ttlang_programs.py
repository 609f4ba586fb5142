"""The TT-Lang acceptance corpus: every program under tests/python/ttlang runs
unchanged through `python -m tessel.ttlang PROGRAM`, in its own process.

A program's header says what must happen (tests/python/ttlang/README.md):
`# expect: pass` programs exit 0; `# expect: error REGEX` programs exit
non-zero with REGEX in their stderr (outside the program's own name) and
`FILE:LINE` (from `# line: LINE`).
`# needs: torch` programs are skipped where torch is not installed.
`# tessel: not yet (REASON)` marks a program tessel cannot run yet: it is
an expected failure, and a strict one, so that it is noticed when it starts
to pass.
"""

import faulthandler
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

CORPUS = pathlib.Path(__file__).resolve().parent / "ttlang"
PROGRAM_TIMEOUT_S = 120


@pytest.fixture(autouse=True)
def _timeout():
    """A program may take its whole timeout: the hang guard waits a little longer."""
    faulthandler.dump_traceback_later(PROGRAM_TIMEOUT_S + 30, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def read_header(path):
    """The fields of a program's leading comment block: expect, regex, line, needs, sim."""
    fields = {"expect": None, "regex": None, "line": None, "needs": set(), "sim": None, "tessel": None}
    for text in path.read_text().splitlines():
        if not text.startswith("#"):
            break
        match = re.match(r"#\s*(expect|line|needs|sim|tessel):\s*(.*?)\s*$", text)
        if not match:
            continue
        key, value = match.groups()
        if key == "expect":
            kind, _, regex = value.partition(" ")
            fields["expect"] = kind
            fields["regex"] = regex.strip() or None
        elif key == "line":
            fields["line"] = int(value)
        elif key == "needs":
            fields["needs"].update(word.strip() for word in value.split(",") if word.strip())
        else:
            fields[key] = value
    return fields


def corpus(folder):
    return sorted((CORPUS / folder).glob("*.py"))


def _case(path):
    reason = read_header(path)["tessel"]
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, id=f"{path.parent.name}/{path.stem}", marks=marks)


CASES = [_case(path) for path in corpus("programs") + corpus("errors")]


def test_the_corpus_is_complete_and_every_header_is_well_formed():
    programs, errors = corpus("programs"), corpus("errors")
    assert len(programs) >= 40, f"{len(programs)} programs"
    assert len(errors) >= 10, f"{len(errors)} error programs"
    for path in programs:
        header = read_header(path)
        assert header["expect"] == "pass", f"{path.name}: expected '# expect: pass', got {header['expect']!r}"
    for path in errors:
        header = read_header(path)
        assert header["expect"] == "error" and header["regex"], f"{path.name}: no '# expect: error REGEX'"
        re.compile(header["regex"])
        assert header["line"], f"{path.name}: no '# line: N'"
        lines = path.read_text().splitlines()
        assert lines[header["line"] - 1].rstrip().endswith("# <- error"), (
            f"{path.name}: line {header['line']} is not the statement marked '# <- error'"
        )


def _environment():
    """The programs' environment: a machine of four devices for the mesh programs (they size themselves
    from ttnn.GetNumAvailableDevices()). Eight 120-core devices take 3.75 GiB of the address space below
    4 GiB, which a process that has imported torch may not have free."""
    env = dict(os.environ)
    env.setdefault("TESSEL_MESH", "1x4")
    return env


def _tail(text, lines=40):
    return "\n".join(text.splitlines()[-lines:])


@pytest.mark.parametrize("path", CASES)
def test_ttlang_program(path):
    header = read_header(path)
    if "torch" in header["needs"] and importlib.util.find_spec("torch") is None:
        pytest.skip("needs torch")
    try:
        run = subprocess.run(
            [sys.executable, "-m", "tessel.ttlang", str(path)],
            cwd=path.parent, env=_environment(), capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as timeout:
        out = timeout.stdout or ""
        err = timeout.stderr or ""
        if isinstance(out, bytes):
            out, err = out.decode(errors="replace"), err.decode(errors="replace")
        pytest.fail(f"{path.name} did not finish in {PROGRAM_TIMEOUT_S} s\nstdout:\n{_tail(out)}\nstderr:\n{_tail(err)}")
    report = f"exit status {run.returncode}\nstdout:\n{_tail(run.stdout)}\nstderr:\n{_tail(run.stderr)}"
    if header["expect"] == "pass":
        assert run.returncode == 0, f"{path.name} failed: {report}"
        return
    assert run.returncode != 0, f"{path.name} exited 0 but must fail: {report}"
    # The program's own name says what it tests: only the message may match.
    message = run.stderr.replace(str(path), "").replace(path.name, "")
    assert re.search(header["regex"], message), f"{path.name}: stderr lacks /{header['regex']}/: {report}"
    location = re.escape(path.name) + ":" + str(header["line"]) + r"\b"
    assert re.search(location, run.stderr), f"{path.name}: stderr does not name {path.name}:{header['line']}: {report}"
