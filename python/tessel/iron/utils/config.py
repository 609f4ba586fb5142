"""IRON's `aie.utils.config`: where kernels' C++ headers are."""

import os

__all__ = ["cxx_header_path"]


def cxx_header_path():
    """The directory tessel's IRON kernels include from (tessel.iron.kernel's
    kernel_include_dir())."""
    from .. import kernel

    return os.fspath(kernel.kernel_include_dir())
