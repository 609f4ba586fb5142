"""Type and range checks for values users pass: a TypeError or ValueError
that names the call, the argument and what was expected, before anything
reaches the C++ core (whose own checks raise tessel.ValidationError)."""

import numbers
import operator

import numpy as np

WORD_MAX = 0xFFFFFFFF


def describe(value):
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def integer(value, what, minimum=0, maximum=WORD_MAX, expected="an integer"):
    """An integer-indexable, non-boolean value in [minimum, maximum]."""
    if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be {expected} ({minimum}..{maximum}), got {describe(value)}")
    v = operator.index(value)
    if v < minimum or v > maximum:
        raise ValueError(f"{what} must be {expected} ({minimum}..{maximum}), got {v}")
    return v


def word(value, what):
    return integer(value, what, 0, WORD_MAX, "an integer word")


def count(value, what, maximum=(1 << 64) - 1):
    return integer(value, what, 0, maximum, "a non-negative integer")


def flag(value, what):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, got {describe(value)}")
    return bool(value)


def text(value, what):
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {describe(value)}")
    return value


def words(values, what):
    """A sequence of integer words (list, tuple or integer numpy array) as a
    contiguous uint32 array."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{what} must be a 1-D array of words, got shape {values.shape}")
        if values.dtype == np.uint32:
            return np.ascontiguousarray(values)
        if values.dtype.kind not in "iu":
            raise TypeError(f"{what} must hold integer words, got an array of {values.dtype}")
        if values.size and (values.min() < 0 or values.max() > WORD_MAX):
            raise ValueError(f"{what} must hold integer words (0..{WORD_MAX}): a value is out of range")
        return values.astype(np.uint32)
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, range)):
        raise TypeError(f"{what} must be a list, tuple or numpy array of integer words, got {describe(values)}")
    return np.array([word(v, f"{what}[{i}]") for i, v in enumerate(values)], dtype=np.uint32)


def contiguous(array, what):
    """A C-contiguous numpy array (checked, never copied)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{what} must be a numpy array, got {describe(array)}")
    if not array.flags.c_contiguous:
        raise ValueError(
            f"{what} is not C-contiguous (strides {array.strides} for shape {array.shape}): "
            "expected a contiguous array (numpy.ascontiguousarray makes one)"
        )
    return array


def mapping(value, what, key, val):
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict, got {describe(value)}")
    return {key(k, f"{what} key {k!r}"): val(v, f"{what}[{k!r}]") for k, v in value.items()}


def real(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, got {describe(value)}")
    return float(value)


def timeout(value, what):
    """Non-negative seconds (a ValueError names the call otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{what}: timeout must be non-negative seconds, got {describe(value)}")
    return float(value)
