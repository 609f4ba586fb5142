"""IRON's `aie.utils.config`: where kernels' C++ headers are."""

import os

__all__ = ["cxx_header_path"]


def cxx_header_path():
    """The directory tessel's IRON kernels include from: tessel.iron.kernel's
    kernel_include_dir() where it has one, else the kernel JIT's
    (TESSEL_KERNEL_INCLUDE_DIR, which the wheel sets, else the checkout's
    kernel/include)."""
    from .. import kernel

    if hasattr(kernel, "kernel_include_dir"):
        return os.fspath(kernel.kernel_include_dir())
    env = os.environ.get("TESSEL_KERNEL_INCLUDE_DIR")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))  # python/tessel/iron/utils in a checkout
    return os.path.normpath(os.path.join(here, *[os.pardir] * 4, "kernel", "include"))
