"""tessel.dispatch.engines: streams and graphs the card's dispatcher runs
from its upload region, with no host step between their start and their end
(spec: persistent-dispatch-host-api, Engines; docs/engines.md).

    from tessel.dispatch.engines.graph import Graph
    from tessel.dispatch.engines.stream import Stream

Run.upload writes one into the region, Run.start / restart / cancel /
release drive it, Run.wait_engine returns its end event, and Run.run_hostfed
runs the same stream or graph from the host.
"""

from .events import EngineEvent, EngineHandle, HostfedCommand, HostfedResult, Upload
from .graph import CpuNode, Graph, Node, Value
from .ops import ERROR_NAMES, OPS
from .stream import Label, Reg, Stream

__all__ = ["Stream", "Graph", "Reg", "Label", "Value", "Node", "CpuNode", "Upload", "EngineHandle", "EngineEvent",
           "HostfedResult", "HostfedCommand", "OPS", "ERROR_NAMES"]
