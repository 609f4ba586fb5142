"""Binding the module names a front end's programs import to tessel's own
modules, for one process: `import ttl.X` gets tessel.ttl.X, `from
aie.iron.device import NPU2` gets tessel.iron.device.

An Aliases value lists, by name prefix, where each imported name goes:

- a target module path: the name and its submodules import the tessel
  module of the same path below it (`ttl.X` -> `tessel.ttl.X`);
- a Mirror(module path): a package whose names are looked up in that
  module (always its current ones), and each of whose submodules is such a
  package too (`aie.helpers.taplib.tap` and `aie.helpers.taplib` both give
  tessel.iron.taplib's names);
- PACKAGE: an empty package that exists only to hold bound submodules
  (IRON's `aie` and `aie.helpers`; nothing is installed on disk);
- a Refused(message): the import raises OutOfScopeImport(message), a
  ModuleNotFoundError naming the module and why it is not provided (a
  refused name with a bound module below it is an empty package, so that
  one imports; its other submodules stay refused).

bind() installs one finder on sys.meta_path and puts the targets already
imported under their alias names, so the program and tessel share one module
object each (`ttl.settings` is the settings tessel reads). unbind() removes
the finder and every alias module, leaving no trace of the names.
"""

import dataclasses
import functools
import importlib
import importlib.abc
import importlib.util
import sys
import types
from typing import Union

__all__ = ["PACKAGE", "Aliases", "Mirror", "OutOfScopeImport", "Refused"]

PACKAGE = "package"
"""An alias target: an empty package holding bound submodules only."""


@dataclasses.dataclass(frozen=True)
class Refused:
    """An alias target: importing the name is an OutOfScopeImport with this
    message ({name} is replaced by the module imported)."""

    message: str


@dataclasses.dataclass(frozen=True)
class Mirror:
    """An alias target: a package (and its every submodule) holding the
    names of the tessel module `path`."""

    path: str


class OutOfScopeImport(ModuleNotFoundError):
    """A program imports a module the front end deliberately does not
    provide; the message says which and why."""


Target = Union[str, Mirror, Refused]


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass


class Aliases(importlib.abc.MetaPathFinder):
    """A set of alias bindings; a finder while bound."""

    def __init__(self, table: dict):
        # Longest prefix first, so `aie.helpers.taplib` wins over `aie.helpers`.
        self._table = sorted(table.items(), key=lambda kv: -len(kv[0]))
        self._roots = {name.partition(".")[0] for name in table}
        self._packages = {}

    def _entry(self, fullname: str):
        for prefix, target in self._table:
            if fullname == prefix or fullname.startswith(prefix + "."):
                return prefix, target
        return None, None

    def target(self, fullname: str):
        """The tessel module path `fullname` binds to, PACKAGE, a Mirror, a
        Refused, or None when the name is not an alias."""
        prefix, target = self._entry(fullname)
        if prefix is None:
            return None
        if isinstance(target, Refused) and any(name.startswith(fullname + ".") and not isinstance(t, Refused)
                                               for name, t in self._table):
            return PACKAGE  # a refused module's package holding a bound one (aie.extras for aie.extras.dialects.arith)
        if isinstance(target, (Refused, Mirror)) or target == PACKAGE:
            return target if fullname == prefix or not target == PACKAGE else None
        return target + fullname[len(prefix):]

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in self._roots:
            return None
        real = self.target(fullname)
        if real is None:
            return None
        if isinstance(real, Refused):
            raise OutOfScopeImport(real.message.format(name=fullname), name=fullname)
        if real == PACKAGE or isinstance(real, Mirror):
            module = self._packages.get(fullname)
            if module is None:
                module = types.ModuleType(fullname, "A namespace for bound modules (no code of its own).")
                if isinstance(real, Mirror):
                    source = importlib.import_module(real.path)
                    module.__doc__ = source.__doc__
                    module.__getattr__ = functools.partial(getattr, source)
                    if hasattr(source, "__all__"):
                        module.__all__ = list(source.__all__)
                refused = self._entry(fullname)[1]
                if isinstance(refused, Refused):  # `from aie.extras import types`: refused by name, not an AttributeError
                    module.__getattr__ = functools.partial(self._child_or_refuse, refused, fullname)
                module.__path__ = []
                self._packages[fullname] = module
            return importlib.util.spec_from_loader(fullname, _AliasLoader(module), is_package=True)
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name == real or real.startswith(f"{e.name}."):
                return None  # no such tessel module: the import fails as for any missing module
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))

    def _child_or_refuse(self, refused, package, name):
        """An attribute of a refused module's package: a bound submodule, else
        the refusal, by name (`from aie.extras import context`)."""
        if name.startswith("__"):
            raise AttributeError(name)
        child = f"{package}.{name}"
        if not isinstance(self.target(child), Refused):
            return importlib.import_module(child)
        raise OutOfScopeImport(refused.message.format(name=child), name=child)

    def bind(self, preload=()):
        """Install the finder; import each tessel module path in `preload`
        and bind it, with its submodules already imported, under its alias."""
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)
        for prefix, target in self._table:
            if isinstance(target, str) and target != PACKAGE and target in preload:
                importlib.import_module(target)
                for name, module in list(sys.modules.items()):
                    if name == target or name.startswith(target + "."):
                        sys.modules[prefix + name[len(target):]] = module

    def unbind(self):
        """Remove the finder and every module bound under an alias name,
        and what importing them set on tessel's own modules (the import
        system sets each submodule on its parent: `aie.iron.dataflow` on
        tessel.iron, when `aie.iron` is tessel.iron)."""
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        names = [n for n in sys.modules if n.partition(".")[0] in self._roots]
        for name in names:
            parent_name, _, child = name.rpartition(".")
            parent = sys.modules.get(parent_name)
            if parent is None or parent_name == getattr(parent, "__name__", parent_name):
                continue  # a root, or a parent of its own (an empty package or a mirror)
            if getattr(parent, child, None) is sys.modules[name]:
                own = sys.modules.get(f"{parent.__name__}.{child}")
                if own is not None:
                    setattr(parent, child, own)
                else:
                    delattr(parent, child)
        for name in names:
            del sys.modules[name]
        self._packages.clear()
