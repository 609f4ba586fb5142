"""IRON's trace options (`aie.utils.trace`), accepted: tessel has no
hardware trace units. Its own event trace (every kernel, data mover and
sequence op, Chrome/Perfetto JSON) is written when TESSEL_TRACE names a file
(docs/trace.md). A trace file IRON's helpers would write gets a note saying
so, so the file exists where the test program expects it."""

from ..hostruntime import TraceConfig

__all__ = ["NOTE", "TraceConfig", "write_note", "configure_trace", "parse_trace"]

NOTE = ("# tessel: no hardware trace (simulated device); set TESSEL_TRACE=FILE for tessel's event trace "
        "(docs/trace.md)")


def write_note(file_name, words=()):
    """Write the note, then any trace words (hex, one a line)."""
    with open(file_name, "w") as f:
        f.write("\n".join([NOTE, *words]) + "\n")


def configure_trace(*args, **kwargs):
    """Accepted and ignored (see the module docstring)."""
    return None


def parse_trace(*args, **kwargs):
    """Accepted: there is no hardware trace to parse; returns no events."""
    return []
