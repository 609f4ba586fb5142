"""IRON's `aie.utils.trace.utils`: summaries of a parsed hardware trace.
tessel has none (aie.utils.trace): each helper says so and returns nothing."""

import sys

from . import NOTE

__all__ = ["print_cycles_summary"]


def print_cycles_summary(trace_json=None, *args, **kwargs):
    """Prints the note that there is no hardware trace (on stderr)."""
    print(NOTE.lstrip("# "), file=sys.stderr)
