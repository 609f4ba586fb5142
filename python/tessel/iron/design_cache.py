"""iron.jit's disk cache: `$TESSEL_CACHE_DIR/iron/<sha256 of the key>/design.json`
(default cache dir `$XDG_CACHE_HOME/tessel`, else `~/.cache/tessel`).

- An entry is written to a temporary file and renamed into place, so a
  reader sees a whole entry or none. Readers take no lock.
- A miss is built under an flock on `design.lock` in the key's directory,
  and the entry is re-read once the lock is held, so concurrent processes
  build a key once. The lock file is removed before the lock is released; a
  waiter that then finds its lock file unlinked starts over.
"""

import contextlib
import fcntl
import importlib
import os
import pathlib
import tempfile

CACHE_FORMAT = 3  # 2: Buffers carry their initial bytes; bfloat16 tensors are named, not "|V2"; 3: generator pools
ENTRY_FILE = "design.json"
LOCK_FILE = "design.lock"


def cache_root() -> pathlib.Path:
    """Where iron.jit keeps designs: $TESSEL_CACHE_DIR/iron, else
    $XDG_CACHE_HOME/tessel/iron, else ~/.cache/tessel/iron (read on every
    build, so tests may change it)."""
    root = os.environ.get("TESSEL_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = os.path.join(xdg, "tessel") if xdg else os.path.join(os.path.expanduser("~"), ".cache", "tessel")
    return pathlib.Path(root) / "iron"


def class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def import_class(path: str) -> type:
    module_name, _, qualname = path.partition(":")
    value = importlib.import_module(module_name)
    for part in qualname.split("."):
        value = getattr(value, part)
    if not isinstance(value, type):
        raise TypeError(f"{path} is not a class")
    return value


def acquire_lock(directory: pathlib.Path) -> int:
    """An fd holding an exclusive flock on directory/design.lock, creating
    both. If the holder before us unlinked the file we locked, start over."""
    path = directory / LOCK_FILE
    while True:
        directory.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:  # a failed build removed the directory in between
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                current = None
        except BaseException:
            os.close(fd)
            raise
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)


def release_lock(directory: pathlib.Path, fd: int):
    """Remove the lock file, then release the lock. In that order, a
    process that was waiting wakes holding a file no longer in the
    directory, and acquire_lock makes it start over."""
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(directory / LOCK_FILE)
    finally:
        os.close(fd)


def remove_if_empty(directory: pathlib.Path):
    try:
        directory.rmdir()
    except OSError:
        pass


def write_entry(directory: pathlib.Path, text: str):
    """Write design.json atomically: a temporary file renamed into place."""
    fd, temporary = tempfile.mkstemp(dir=directory, prefix="design.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, directory / ENTRY_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
