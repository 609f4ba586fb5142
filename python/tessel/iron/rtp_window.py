"""The runtime-parameter window (docs/sequences.md): a runtime-parameter
write of the sequence reaches its core late, so a worker may read the old
value unless a WorkerRuntimeBarrier orders the two: one the sequence sets
after the write and the worker waits for (wait_for_value) before the read.
A read the sequence writes without such a barrier is a race: a RaceWarning
naming the worker, the buffer and both lines (an IronRuntimeError under
TESSEL_STRICT=1). A wait the barrier's initial value already holds passes
at once, before any set, and orders nothing (worker.py, _note_wait). The
card shows the window under random:<seed> policies
(src/flow/rtp_propagation.hpp)."""

import os

from .errors import warn_or_raise
from .runtime import SET_BARRIER, WRITE_RTP


def check(file, ops, workers):
    """Warns once per (write, read) pair left unordered. `ops` are the
    recorded sequence's, `workers` the design's, in their spec order."""
    sets = {}  # worker index -> [(op index, barrier number, value)]
    for i, op in enumerate(ops):
        if op[0] == SET_BARRIER:
            sets.setdefault(op[2], []).append((i, op[3], op[6]))
    reported = set()
    for i, op in enumerate(ops):
        if op[0] != WRITE_RTP:
            continue
        line, wi, bi, element = op[1], op[2], op[3], op[4]
        worker = workers[wi]
        buffer = worker.buffers[bi]
        later = [(n, v) for j, n, v in sets.get(wi, []) if j > i]
        for read_buffer, read_element, site, waited, passed in worker.rtp_reads:
            if read_buffer is not buffer or (read_element is not None and read_element != element):
                continue
            if any(n in waited and (not v.is_constant() or v.constant >= waited[n]) for n, v in later):
                continue
            key = (wi, bi, element, line, site)
            if key in reported:
                continue
            reported.add(key)
            warn_or_raise(f"worker '{worker.name}' reads runtime parameter '{buffer.name}'[{element}] at "
                          f"{os.path.basename(site[0])}:{site[1]} with no WorkerRuntimeBarrier between the read and "
                          f"the sequence's write at {os.path.basename(file)}:{line} (one the sequence sets after the "
                          "write and the worker waits for before the read): the write may reach the core after the "
                          f"read, which then sees the old value{_passed_at_once(worker, waited, passed)}", (file, line))


def _passed_at_once(worker, waited, passed):
    """Why a wait of the worker before the read orders nothing, when its
    barrier's initial value passes it (none: '')."""
    for n in sorted(passed):
        if n not in waited:
            value, (file, line), released = passed[n]
            initial = worker.barriers[n].initial_value
            gives = f" and the worker's release_with_value calls before it give {released}" if released else ""
            return (f"; the worker's wait_for_value({value}) at {os.path.basename(file)}:{line} passes at once, "
                    f"before any set: the barrier starts at {initial} "
                    f"(WorkerRuntimeBarrier(initial_value={initial})){gives}, enough for every wait before the read, "
                    "so it orders nothing")
    return ""
