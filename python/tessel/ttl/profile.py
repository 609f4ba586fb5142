"""The profile `python -m tessel.ttlang --profile` prints: after each
operation, the zones its kernels marked (`with ttl.signpost(name):`, and
DeviceZoneScopedN in extern C++ kernels) with how many cores ran each and
their durations in the simulator's cycles (estimated cycles under
--timing; docs/guide.md, "Profiler").
"""

import sys

__all__ = ["print_zones", "zone_durations"]

# The zones the simulator records around every kernel (not the program's own).
_FIRMWARE = ("-FW", "-KERNEL")


def zone_durations(records):
    """{zone name: [duration per (core, RISC) occurrence]} from profiler
    records, pairing each ZONE_END with the innermost open ZONE_START of the
    same core and RISC. A compute kernel's zone counts once (its markers are
    recorded for each TRISC)."""
    open_zones, out = {}, {}
    for r in sorted(records, key=lambda r: (r.core, r.risc, r.time)):
        if r.name.endswith(_FIRMWARE) or r.risc in ("TRISC_1", "TRISC_2"):
            continue
        stack = open_zones.setdefault((r.core, r.risc), [])
        if r.type == "ZONE_START":
            stack.append(r)
        elif r.type == "ZONE_END" and stack:
            start = stack.pop()
            out.setdefault(start.name, []).append(r.time - start.time)
    return out


def print_zones(device, operation):
    """Print `operation`'s zones from `device`'s records, then clear them."""
    zones = zone_durations(device.profiler_records())
    device.clear_profiler_records()
    for name, durations in sorted(zones.items()):
        n = len(durations)
        figures = (f"{durations[0]} cycles" if n == 1 else
                   f"min {min(durations)}, mean {sum(durations) / n:.0f}, max {max(durations)} cycles")
        print(f"[tessel] operation '{operation}': zone '{name}' ran {n} time{'s' if n > 1 else ''}: {figures}",
              file=sys.stderr)
