"""tt-run for tessel: run a multi-host program under mpirun from a rank-binding file.

    python -m tessel.ttrun --rank-binding rank_bindings.yaml [--mpi-args "..."] PROGRAM [ARGS...]

As tt-metal's tt-run (ttnn/distributed/ttrun.py) does, this reads a YAML file of

    rank_bindings:
      - rank: 0
        mesh_id: 0
        mesh_host_rank: 0            # optional
        env_overrides: {NAME: value}  # optional
      - rank: 1
        ...
    global_env: {NAME: value}         # optional
    mesh_graph_desc_path: path        # optional, passed on as TT_MESH_GRAPH_DESC_PATH

and starts one process per binding with mpirun (one MPMD app context each),
with TT_MESH_ID, TT_MESH_HOST_RANK and TT_MESH_GRAPH_DESC_PATH set as tt-run
sets them, global_env and the binding's env_overrides. tessel runs one mesh
split over the ranks (docs/multichip.md), so every binding must name the same
mesh_id; ranks must be 0..n-1. As root, --allow-run-as-root is added;
--oversubscribe always (ranks may outnumber cores). --dry-run prints the
mpirun command instead of running it.

The file is read with PyYAML when it is installed, else with a reader of the
subset above (block mappings and lists, flow mappings {a: b}, scalars).
"""

import argparse
import os
import shlex
import subprocess
import sys

__all__ = ["load_rank_bindings", "mpirun_command", "main"]


class RankBindingError(ValueError):
    """A rank-binding file that is not as expected: what, where, and what was expected."""


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text in ("null", "~", ""):
        return None
    try:
        return int(text)
    except ValueError:
        return text


def _flow_mapping(text, where):
    inner = text.strip()[1:-1].strip()
    out = {}
    for part in filter(None, (p.strip() for p in inner.split(","))):
        if ":" not in part:
            raise RankBindingError(f"{where}: '{part}' in {text} is not 'key: value'")
        k, v = part.split(":", 1)
        out[_scalar(k)] = _scalar(v)
    return out


def _value(text, where):
    text = text.strip()
    return _flow_mapping(text, where) if text.startswith("{") and text.endswith("}") else _scalar(text)


def _parse_subset(lines, path):
    """Block mappings and lists by indentation (the rank-binding schema's YAML)."""
    rows = []
    for number, raw in enumerate(lines, 1):
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if line.strip():
            rows.append((number, len(line) - len(line.lstrip(" ")), line.strip()))

    def block(i, indent):
        if i < len(rows) and rows[i][2].startswith("- "):
            items = []
            while i < len(rows) and rows[i][1] == indent and rows[i][2].startswith("- "):
                number, _, text = rows[i]
                rest = text[2:]
                if ":" in rest and not rest.startswith("{"):
                    # "- key: value" opens a mapping item; its other keys are indented past the dash.
                    rows[i] = (number, indent + 2, rest)
                    item, i = mapping(i, indent + 2)
                else:
                    item, i = _value(rest, f"{path}:{number}"), i + 1
                items.append(item)
            return items, i
        return mapping(i, indent)

    def mapping(i, indent):
        out = {}
        while i < len(rows) and rows[i][1] == indent and not rows[i][2].startswith("- "):
            number, _, text = rows[i]
            if ":" not in text:
                raise RankBindingError(f"{path}:{number}: '{text}' is not 'key: value'")
            key, rest = text.split(":", 1)
            i += 1
            if rest.strip():
                out[_scalar(key)] = _value(rest, f"{path}:{number}")
            elif i < len(rows) and rows[i][1] > indent:
                out[_scalar(key)], i = block(i, rows[i][1])
            elif i < len(rows) and rows[i][1] == indent and rows[i][2].startswith("- "):
                out[_scalar(key)], i = block(i, indent)
            else:
                out[_scalar(key)] = None
        return out, i

    if not rows:
        return {}
    value, i = block(0, rows[0][1])
    if i != len(rows):
        number, _, text = rows[i]
        raise RankBindingError(f"{path}:{number}: '{text}' is not indented as the lines before it")
    return value


def load_rank_bindings(path):
    """The file's bindings, sorted by rank, checked; and its global settings."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        import yaml  # noqa: PLC0415 (optional)
        data = yaml.safe_load(text)
    except ImportError:
        data = _parse_subset(text.splitlines(), path)
    if not isinstance(data, dict) or not isinstance(data.get("rank_bindings"), list) or not data["rank_bindings"]:
        raise RankBindingError(f"{path}: expected a mapping with a non-empty list 'rank_bindings'")
    bindings = []
    for i, b in enumerate(data["rank_bindings"]):
        if not isinstance(b, dict) or not isinstance(b.get("rank"), int) or not isinstance(b.get("mesh_id"), int):
            raise RankBindingError(f"{path}: rank_bindings[{i}] needs an integer 'rank' and 'mesh_id', got {b!r}")
        env = b.get("env_overrides") or {}
        if not isinstance(env, dict):
            raise RankBindingError(f"{path}: rank_bindings[{i}].env_overrides must be a mapping, got {env!r}")
        bindings.append(b)
    bindings.sort(key=lambda b: b["rank"])
    ranks = [b["rank"] for b in bindings]
    if ranks != list(range(len(bindings))):
        raise RankBindingError(f"{path}: the ranks are {ranks}; expected each of 0..{len(bindings) - 1} once")
    meshes = sorted({b["mesh_id"] for b in bindings})
    if len(meshes) != 1:
        raise RankBindingError(f"{path}: the bindings name meshes {meshes}; tessel runs one mesh split over the ranks "
                               "(Big-Mesh), not several meshes joined by sockets (docs/multichip.md)")
    global_env = data.get("global_env") or {}
    if not isinstance(global_env, dict):
        raise RankBindingError(f"{path}: global_env must be a mapping, got {global_env!r}")
    return bindings, global_env, data.get("mesh_graph_desc_path")


def mpirun_command(bindings, global_env, mesh_graph_desc_path, program, mpi_args=()):
    """mpirun's argument list: one app context per binding, with its environment."""
    command = ["mpirun", *mpi_args]
    if os.geteuid() == 0 and "--allow-run-as-root" not in mpi_args:
        command.append("--allow-run-as-root")
    if "--oversubscribe" not in mpi_args:
        command.append("--oversubscribe")
    for i, b in enumerate(bindings):
        if i:
            command.append(":")
        env = {str(k): str(v) for k, v in global_env.items()}
        env["TT_MESH_ID"] = str(b["mesh_id"])
        env["TT_MESH_HOST_RANK"] = str(b.get("mesh_host_rank", b["rank"]))
        if mesh_graph_desc_path:
            env["TT_MESH_GRAPH_DESC_PATH"] = str(mesh_graph_desc_path)
        env.update({str(k): str(v) for k, v in (b.get("env_overrides") or {}).items()})
        command += ["-np", "1"]
        for k, v in env.items():
            command += ["-x", f"{k}={v}"]
        command += list(program)
    return command


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tessel.ttrun", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rank-binding", required=True, help="the rank-binding YAML file")
    parser.add_argument("--mpi-args", default="", help="more mpirun arguments, one string")
    parser.add_argument("--dry-run", action="store_true", help="print the mpirun command instead of running it")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="the program and its arguments")
    args = parser.parse_args(argv)
    if not args.program:
        parser.error("no program given")
    try:
        bindings, global_env, mgd = load_rank_bindings(args.rank_binding)
    except (OSError, RankBindingError) as e:
        print(f"tessel.ttrun: {e}", file=sys.stderr)
        return 2
    command = mpirun_command(bindings, global_env, mgd, args.program, shlex.split(args.mpi_args))
    if args.dry_run:
        print(shlex.join(command))
        return 0
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
