"""Binding `ttl` and `ttnn` to tessel's packages in sys.modules.

bind_modules() puts tessel.ttl under the name `ttl` and tessel.ttnn under
`ttnn`, and installs a finder on sys.meta_path so that `import ttl.X` (or
`from ttnn.Y import Z`) imports tessel.ttl.X (tessel.ttnn.Y) and binds it
under both names: the program and tessel share one module object, so
`ttl.settings` seen from the program is the settings tessel reads.
"""

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["ALIASES", "bind_modules", "unbind_modules"]

ALIASES = {"ttl": "tessel.ttl", "ttnn": "tessel.ttnn"}
"""The names programs import, and the tessel packages they get."""


def _target(fullname):
    head, _, rest = fullname.partition(".")
    if head not in ALIASES:
        return None
    return ALIASES[head] + ("." + rest if rest else "")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds `ttl.*` and `ttnn.*` as the tessel modules of the same path."""

    def find_spec(self, fullname, path=None, target=None):
        real = _target(fullname)
        if real is None:
            return None
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name == real or real.startswith(f"{e.name}."):
                return None  # no such tessel module: the import fails as for any missing module
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))


_finder = _AliasFinder()


def bind_modules():
    """Bind `ttl` and `ttnn` (and the submodules already imported) to
    tessel's, and find their other submodules as tessel's."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    for alias, real in ALIASES.items():
        importlib.import_module(real)
        for name, module in list(sys.modules.items()):
            if name == real or name.startswith(real + "."):
                sys.modules[alias + name[len(real):]] = module


def unbind_modules():
    """Undo bind_modules: drop the aliases and the finder."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n.partition(".")[0] in ALIASES]:
        del sys.modules[name]
