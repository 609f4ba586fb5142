"""The persistent-dispatch examples' Python host programs pass their own checks."""

import importlib.util


def _load(root, folder, name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", root / "examples" / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_map_doubles_every_tile(root, capsys):
    assert _load(root, "dispatch_map", "map").main()
    assert "120 tiles doubled: PASSED" in capsys.readouterr().out


def test_broadcast_over_the_whole_grid_and_a_sub_rectangle(root):
    broadcast = _load(root, "dispatch_broadcast", "broadcast")
    for rect in ((0, 0, 12, 10), (2, 1, 5, 3)):
        per_job_us, wrong, state = broadcast.run(rect=rect, blocks=6, pages=2, window=3, jobs=3)
        assert wrong == 0, rect
        assert per_job_us > 0
        x, y, w, h = rect
        receivers = w * h - 1
        root = state[(x, y)]["broadcasts"][0]
        assert root["blocks"] == 3 * 6 and root["done_by"] == 3 * receivers and root["first_give_up"] is None
        assert root["wanted"][:3] == [3 * receivers * 2] * 3  # 6 blocks over 3 slots: 2 grants a slot a job
        other = state[(x + w - 1, y + h - 1)]["broadcasts"][0]
        assert other["blocks"] == 3 * 6 and other["valid"] & 0xFFFF == 6
        outside = state[(11, 9)] if rect != (0, 0, 12, 10) else None
        assert outside is None or outside["broadcasts"] == []


def test_broadcast_cli_takes_the_spec_flags(root, capsys):
    broadcast = _load(root, "dispatch_broadcast", "broadcast")
    assert broadcast.main(["--rect", "0,0,4,2", "--blocks", "4", "--pages", "1", "--window", "2", "--jobs", "2"])
    assert "0 wrong checksums" in capsys.readouterr().out


def test_graph_is_started_restarted_and_released(root, capsys):
    assert _load(root, "dispatch_graph", "graph").main()
    out = capsys.readouterr().out
    assert "state tensors PASSED against the host's loop" in out and "restarted" in out


def test_stream_enqueues_its_pipeline_and_reports_progress(root, capsys):
    assert _load(root, "dispatch_stream", "stream").main()
    assert "progress events [4, 8, 12, 16, 20, 24]" in capsys.readouterr().out


def test_thread_reduces_a_region_while_the_grid_works(root, capsys):
    thread = _load(root, "dispatch_thread", "thread")
    for mode in ("card", "host"):
        assert thread.main(mode)
        assert f"thread ({mode}): done, 4 chunks" in capsys.readouterr().out
