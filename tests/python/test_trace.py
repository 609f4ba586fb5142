"""The event trace (docs/trace.md), loaded by Perfetto's own trace processor
(trace_processor.py: the perfetto package's API over the trace processor the
Perfetto UI runs) and checked with SQL on its slice, flow and thread tables:
a track per core and RISC, kernel spans, waits that say what for, compute
spans, NoC transfers as flows between the right tracks, DPRINT lines,
persistent-dispatch commands, the ring, a file cut short; and the statistics
(`python -m tessel stats`)."""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

import tessel
from tessel import _tessel
from trace_processor import WasmTraceProcessor, unavailable_reason

_WHY = unavailable_reason()
needs_tp = pytest.mark.skipif(_WHY is not None, reason=f"Perfetto's trace processor cannot run: {_WHY}")

# Slices with the names of their thread and of their parent slice.
SLICES = """
    select s.id, s.name, s.category as cat, s.ts, s.dur, s.depth, s.arg_set_id, t.name as thread,
           p.category as parent_cat
    from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid)
    left join slice p on s.parent_id = p.id
"""
# Every flow: its slices' names and threads.
FLOWS = """
    select so.name as out_name, tout.name as out_thread, si.name as in_name, tin.name as in_thread,
           extract_arg(si.arg_set_id, 'args.bytes') as bytes
    from flow f join slice so on f.slice_out = so.id join slice si on f.slice_in = si.id
    join thread_track a on so.track_id = a.id join thread tout on tout.utid = a.utid
    join thread_track b on si.track_id = b.id join thread tin on tin.utid = b.utid
"""


def _load(root, folder, name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", root / "examples" / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(tp, sql):
    return [r.__dict__ for r in tp.query(sql)]


def arg(tp, arg_set_id, key):
    got = rows(tp, f"select extract_arg({arg_set_id}, 'args.{key}') as v")
    return got[0]["v"]


def no_import_errors(tp):
    """The trace processor took every event: no error or data-loss counters."""
    bad = rows(tp, "select name, idx, value from stats where severity in ('error', 'data_loss') and value > 0")
    assert bad == []


@pytest.fixture(scope="module")
def eltwise_trace(tmp_path_factory):
    """eltwise_binary's add, sub and mul (8 tiles over a 2x1 grid), traced."""
    root = pathlib.Path(__file__).resolve().parents[2]
    path = tmp_path_factory.mktemp("trace") / "eltwise.json"
    with tessel.Device.open(grid=(2, 1), trace=path) as d:
        assert d.trace_path == str(path.resolve())
        assert d.trace_ring == 0
        results = _load(root, "eltwise_binary", "eltwise_binary").run(d, 8)
    assert all(bad == 0 for bad, _ in results.values())
    return path


@needs_tp
def test_tracks_kernels_waits_and_compute(eltwise_trace):
    with WasmTraceProcessor(trace=str(eltwise_trace)) as tp:
        no_import_errors(tp)
        process = rows(tp, "select name from process where pid = 1")[0]["name"]
        assert process == "tessel device #1: blackhole 2x1 (time: logical steps, shown as 1 us each)"
        threads = {r["name"] for r in rows(tp, "select name from thread where upid is not null")}
        assert {"core (0,0) BRISC", "core (0,0) NCRISC", "core (0,0) COMPUTE", "core (0,0) L1", "core (1,0) BRISC",
                "DRAM bank 0", "DRAM bank 7"} <= threads
        slices = rows(tp, SLICES)
        kernels = {}
        for s in slices:
            if s["cat"] == "kernel":
                kernels.setdefault(s["thread"], []).append(s["name"])
                assert s["depth"] == 0
        # Three programs (add, sub, mul): a kernel span each on every RISC of both cores.
        assert sorted(kernels) == sorted(f"core ({x},0) {r}" for x in (0, 1) for r in ("BRISC", "NCRISC", "COMPUTE"))
        assert all(len(names) == 3 for names in kernels.values())
        assert all(name.endswith("reader.cpp") for name in kernels["core (1,0) BRISC"])
        assert all(name.endswith("compute.cpp") for name in kernels["core (0,0) COMPUTE"])
        # Waits nest in their kernel and say what they wait for, and where.
        waits = [s for s in slices if s["cat"] == "wait"]
        assert waits and all(w["parent_cat"] == "kernel" and w["depth"] == 1 for w in waits)
        compute_input = [w for w in waits if w["thread"] == "core (0,0) COMPUTE" and w["name"] == "wait CB0 front"]
        assert compute_input
        w = compute_input[0]
        assert arg(tp, w["arg_set_id"], "what").startswith("cb_wait_front(cb=0, pages=1): CB 0 has 0 visible")
        assert arg(tp, w["arg_set_id"], "file") == "compute.cpp"
        assert arg(tp, w["arg_set_id"], "line") > 0
        writer_waits = {w["name"] for w in waits if w["thread"].endswith("NCRISC")}
        assert writer_waits == {"wait CB16 front"}
        # Compute spans: the op and the pack of every tile, on the compute RISCs.
        computes = [s for s in slices if s["cat"] == "compute"]
        assert all(c["thread"].endswith("COMPUTE") and c["parent_cat"] == "kernel" for c in computes)
        assert sum(arg(tp, c["arg_set_id"], "eltwise_tiles") or 0 for c in computes) == 3 * 8
        assert sum(arg(tp, c["arg_set_id"], "pack_tiles") or 0 for c in computes) == 3 * 8
        ops = {op for c in computes for op in c["name"].split(", ")}
        assert {"add_tiles", "sub_tiles", "mul_tiles", "pack_tile"} <= ops


@needs_tp
def test_noc_transfers_are_flows_from_the_issuing_risc_to_the_dram_bank(eltwise_trace):
    with WasmTraceProcessor(trace=str(eltwise_trace)) as tp:
        flows = rows(tp, FLOWS)
        reads = [f for f in flows if f["out_name"] == "noc_async_read"]
        writes = [f for f in flows if f["out_name"] == "noc_async_write"]
        assert len(flows) == len(reads) + len(writes)
        assert len(reads) == 3 * 8 * 2  # two input tiles per output tile
        assert len(writes) == 3 * 8
        assert {f["out_thread"] for f in reads} == {"core (0,0) BRISC", "core (1,0) BRISC"}
        assert all(f["in_thread"].startswith("DRAM bank ") and f["in_name"] == "NoC read" for f in reads)
        assert {f["out_thread"] for f in writes} == {"core (0,0) NCRISC", "core (1,0) NCRISC"}
        assert all(f["in_thread"].startswith("DRAM bank ") and f["in_name"] == "NoC write" for f in writes)
        assert all(f["bytes"] == 2048 for f in flows)
        # Interleaved pages: page p lives in bank p % 8, so every bank served reads.
        assert len({f["in_thread"] for f in reads}) == 8


def test_the_closed_trace_is_strict_json_and_its_statistics_add_up(eltwise_trace):
    events = json.loads(eltwise_trace.read_text())
    assert events[-1]["name"] == "tessel_trace_end"
    stats = tessel.trace_stats(eltwise_trace, longest_waits=3)
    assert stats.complete and stats.events == len(events)
    (device,) = stats.devices
    assert (device.label, device.time_base, device.ring_events) == ("blackhole 2x1", "logical", 0)
    assert len(stats.riscs) == 6
    assert sum(r.noc_read_bytes for r in stats.riscs) == 3 * 8 * 2 * 2048
    assert sum(r.noc_write_bytes for r in stats.riscs) == 3 * 8 * 2048
    assert sum(r.tiles.math for r in stats.riscs) == 3 * 8
    compute = [r for r in stats.riscs if r.risc == "COMPUTE"]
    assert [c.core for c in compute] == [tessel.CoreCoord(0, 0), tessel.CoreCoord(1, 0)]
    assert all(r.kernel_runs == 3 and r.busy_time + r.wait_time == r.kernel_time for r in stats.riscs)
    assert len(stats.longest_waits) == 3
    assert stats.longest_waits[0].duration >= stats.longest_waits[-1].duration > 0
    assert stats.longest_waits[0].file in ("reader.cpp", "compute.cpp", "writer.cpp")
    # The CLI prints the same report.
    out = subprocess.run([sys.executable, "-m", "tessel", "stats", str(eltwise_trace), "--waits", "3"],
                         capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.returncode == 0, out.stderr
    assert out.stdout == stats.report
    assert "device #1: blackhole 2x1; time logical" in out.stdout
    assert "\n  (0,0)   COMPUTE  " in out.stdout and "longest waits:" in out.stdout


@needs_tp
def test_a_trace_cut_short_still_loads(eltwise_trace, tmp_path):
    data = eltwise_trace.read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(data[: len(data) * 3 // 5])  # mid-event, no closing bracket
    with WasmTraceProcessor(trace=str(cut)) as tp:
        n = rows(tp, "select count(*) as n from slice")[0]["n"]
    with WasmTraceProcessor(trace=str(eltwise_trace)) as tp:
        whole = rows(tp, "select count(*) as n from slice")[0]["n"]
    assert 0 < n < whole
    assert not tessel.trace_stats(cut).complete


@needs_tp
@pytest.mark.parametrize("arch,cycle_ns", [("blackhole", 0.741), ("wormhole_b0", 1.0)])
def test_an_estimated_trace_loads_whole_on_either_clock(arch, cycle_ns, tmp_path, monkeypatch):
    # A cycle is shown as 1 ns on both archs; Blackhole's real 0.741 ns made
    # back-to-back spans overlap once Perfetto rounded them, and it dropped them.
    path = tmp_path / f"timed_{arch}.json"
    monkeypatch.setenv("TESSEL_TRACE", str(path))
    monkeypatch.setenv("TESSEL_TIMING", "1")
    passed, summary, _, _ = _tessel.examples.run("eltwise_binary", arch, 2, 1, "deterministic", 8, "", "")
    assert passed, summary
    events = json.loads(path.read_text())
    spans = sum(1 for e in events if e.get("ph") == "X")
    with WasmTraceProcessor(trace=str(path)) as tp:
        no_import_errors(tp)
        assert rows(tp, "select count(*) as n from slice")[0]["n"] == spans > 100
        # Every span of a RISC's track sits inside one of its kernel spans, as written.
        loose = rows(tp, SLICES + " where s.category != 'kernel' and s.depth = 0 and "
                     + "(t.name like '%BRISC' or t.name like '%NCRISC' or t.name like '%COMPUTE')")
        assert loose == []
    (meta,) = [e["args"] for e in events if e["name"] == "tessel_trace"]
    assert (meta["time_base"], meta["ns_per_step"], meta["cycle_ns"]) == ("estimated", 1, cycle_ns)
    # tessel stats reads the stamps back as whole cycles.
    stats = tessel.trace_stats(path)
    assert stats.devices[0].time_base == "estimated"
    assert all(r.busy_time + r.wait_time == r.kernel_time > 0 for r in stats.riscs)


def test_the_waits_a_deadlock_stopped_in_are_listed(tmp_path):
    path = tmp_path / "deadlock.json"
    waiter = '#include "api/dataflow/dataflow_api.h"\nvoid kernel_main() { cb_wait_front(0, 1); }\n'
    with tessel.Device.open(grid=(2, 1), trace=path) as d:
        p = tessel.Program()
        cores = ((0, 0), (1, 0))
        p.add_circular_buffer(cores, tessel.CircularBufferConfig(2048, {0: "bf16"}).set_page_size(0, 2048))
        p.add_kernel_from_source(waiter, "waiter.cpp", cores, tessel.DataMovementConfig())
        with pytest.raises(tessel.DeadlockError):
            d.command_queue.enqueue_program(p)
    stats = tessel.trace_stats(path)
    assert [(w.core, w.risc, w.file, w.line, w.stopped) for w in stats.stopped_waits] == [
        (tessel.CoreCoord(0, 0), "BRISC", "waiter.cpp", 2, True), (tessel.CoreCoord(1, 0), "BRISC", "waiter.cpp", 2, True)]
    assert stats.devices[0].stopped_waits_left_out == 0
    assert "waits a run stopped in (a deadlock, an error or an interrupt):" in stats.report
    assert "cb_wait_front(cb=0, pages=1)" in stats.report


@needs_tp
def test_core_to_core_multicast_and_semaphores_through_tessel_trace(tmp_path, monkeypatch):
    path = tmp_path / "multicast.json"
    monkeypatch.setenv("TESSEL_TRACE", str(path))
    passed, summary, _, _ = _tessel.examples.run("multicast", "blackhole", 2, 2, "deterministic", 2, "", "")
    assert passed, summary
    with WasmTraceProcessor(trace=str(path)) as tp:
        no_import_errors(tp)
        flows = rows(tp, FLOWS)
        mcast = {f["in_thread"] for f in flows if f["out_name"] == "noc_async_write_multicast"}
        assert mcast == {"core (1,0) L1", "core (0,1) L1", "core (1,1) L1"}
        assert all(f["out_thread"] == "core (0,0) BRISC" for f in flows if f["out_name"] == "noc_async_write_multicast")
        incs = {(f["out_thread"], f["in_thread"]) for f in flows if f["out_name"] == "noc_semaphore_inc"}
        assert incs == {(f"core ({x},{y}) BRISC", "core (0,0) L1") for x, y in ((1, 0), (0, 1), (1, 1))}
        waits = rows(tp, "select s.name, t.name as thread, extract_arg(s.arg_set_id, 'args.what') as what "
                         + "from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid) "
                         + "where s.category = 'wait' and s.name like 'wait semaphore%'")
        assert any(w["thread"] == "core (0,0) BRISC" and "noc_semaphore_wait" in w["what"] for w in waits)


DPRINT = """#include "api/dataflow/dataflow_api.h"
#include "debug/dprint.h"
void kernel_main() {
  for (uint32_t i = 0; i < 3; ++i) DPRINT << "tile " << i << ENDL();
}
"""


@needs_tp
def test_dprint_lines_of_every_core_are_instants(tmp_path, capfd):
    path = tmp_path / "dprint.json"
    with tessel.Device.open(grid=(2, 1), trace=path) as d:
        p = tessel.Program()
        p.add_kernel_from_source(DPRINT, "dprint.cpp", (1, 0), tessel.DataMovementConfig())
        d.command_queue.enqueue_program(p)
    assert "tile 0" not in capfd.readouterr().out  # TESSEL_DPRINT_CORES still decides what the console shows
    with WasmTraceProcessor(trace=str(path)) as tp:
        lines = rows(tp, SLICES + " where s.category = 'dprint' order by s.ts")
        assert [arg(tp, s["arg_set_id"], "text") for s in lines] == ["tile 0", "tile 1", "tile 2"]
        assert {s["thread"] for s in lines} == {"core (1,0) BRISC"}
        assert all(s["dur"] == 0 and s["parent_cat"] == "kernel" for s in lines)


@needs_tp
def test_persistent_dispatch_commands_are_spans_on_the_cores_that_ran_them(root, tmp_path, monkeypatch):
    path = tmp_path / "dispatch.json"
    monkeypatch.setenv("TESSEL_TRACE", str(path))
    assert _load(root, "dispatch_map", "map").main(jobs=3, group=2)
    with WasmTraceProcessor(trace=str(path)) as tp:
        no_import_errors(tp)
        commands = rows(tp, SLICES + " where s.category = 'command'")
        handler = commands[0]["name"]
        assert handler.startswith("handler ")
        # Jobs j of 2 cores each: cores 2j and 2j + 1 (row-major on the 12x10 grid) ran job j on all three RISCs.
        by_core = {}
        for c in commands:
            assert c["name"] == handler and c["parent_cat"] == "kernel" and c["dur"] > 0
            core = c["thread"].rsplit(" ", 1)[0]
            by_core[core] = by_core.get(core, 0) + 1
        assert by_core == {f"core ({i},0)": 3 for i in range(6)}
        sequences = {arg(tp, c["arg_set_id"], "sequence") for c in commands}
        assert len(sequences) == 3
        # The reader waits for its next command (on the card: `what` says so).
        waits = rows(tp, SLICES + " where s.name = 'wait command'")
        assert waits and len({w["thread"].rsplit(" ", 1)[1] for w in waits}) == 1
        assert arg(tp, waits[0]["arg_set_id"], "what") == "its next command (the card's mailbox)"


def test_a_ring_keeps_each_riscs_last_events(root, tmp_path):
    path = tmp_path / "ring.json"
    with tessel.Device.open(grid=(2, 1), trace=path, trace_ring=4) as d:
        assert d.trace_ring == 4
        _load(root, "eltwise_binary", "eltwise_binary").run(d, 8)
    events = [e for e in json.loads(path.read_text()) if e["ph"] != "M"]
    assert 0 < len(events) <= 6 * 4
    kernels = [e for e in events if e.get("cat") == "kernel"]
    assert len(kernels) == 6 and all(k["args"]["run"] == kernels[0]["args"]["run"] for k in kernels)
    stats = tessel.trace_stats(path)
    assert stats.devices[0].ring_events == 4
    # The last run (mul) of every RISC is counted whole.
    assert sum(r.noc_read_bytes for r in stats.riscs) == 8 * 2 * 2048
