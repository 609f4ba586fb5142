"""IRON's placer module name (aie.iron.placers): the sequential placer."""

from .placement import SequentialPlacer  # noqa: F401
