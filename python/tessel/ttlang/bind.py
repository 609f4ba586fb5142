"""Binding `ttl` and `ttnn` to tessel's packages in sys.modules.

bind_modules() puts tessel.ttl under the name `ttl` and tessel.ttnn under
`ttnn`, and installs a finder on sys.meta_path so that `import ttl.X` (or
`from ttnn.Y import Z`) imports tessel.ttl.X (tessel.ttnn.Y) and binds it
under both names: the program and tessel share one module object, so
`ttl.settings` seen from the program is the settings tessel reads (the
machinery: tessel.module_alias).
"""

from ..module_alias import Aliases

__all__ = ["ALIASES", "bind_modules", "unbind_modules"]

ALIASES = {"ttl": "tessel.ttl", "ttnn": "tessel.ttnn"}
"""The names programs import, and the tessel packages they get."""

_aliases = Aliases(ALIASES)


def bind_modules():
    """Bind `ttl` and `ttnn` (and the submodules already imported) to
    tessel's, and find their other submodules as tessel's."""
    _aliases.bind(preload=ALIASES.values())


def unbind_modules():
    """Undo bind_modules: drop the aliases and the finder."""
    _aliases.unbind()
