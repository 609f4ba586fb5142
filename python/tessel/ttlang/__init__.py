"""tessel.ttlang: the front door that runs a TT-Lang program unchanged on
tessel (`python -m tessel.ttlang SCRIPT [ARGS...]`, or `tessel-ttlang`).

The program's `import ttl` and `import ttnn` (and their submodules,
`ttl.math`, `ttnn.device`, ...) get tessel.ttl and tessel.ttnn; the options
go to tessel.ttl.settings, which ttnn.open_device and the DSL compiler
read. See __main__.py for the options and docs/ttnn.md.
"""

from .bind import ALIASES, bind_modules, unbind_modules

__all__ = ["ALIASES", "bind_modules", "unbind_modules"]
