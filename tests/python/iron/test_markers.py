"""tessel.iron.markers: In/Out/InOut, CompileTime[T] (Compile[T]) and the
integer types DispatchTime[T] admits."""

import numpy as np
import pytest

from tessel.iron.markers import (
    Compile,
    CompileTime,
    CompileTimeAnnotation,
    DispatchTime,
    DispatchTimeAnnotation,
    In,
    InOut,
    Out,
    TensorArgument,
)

ALLOWED = "np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64"

INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("scalar_type", INTEGER_TYPES, ids=lambda t: t.__name__)
def test_dispatch_time_accepts_numpy_integer_types(scalar_type):
    annotation = DispatchTime[scalar_type]
    assert isinstance(annotation, DispatchTimeAnnotation)
    assert annotation.dtype is scalar_type
    assert repr(annotation) == f"DispatchTime[np.{scalar_type.__name__}]"
    assert DispatchTime[scalar_type] == annotation


REJECTED = [
    ("int", int, "DispatchTime[int]", "Python int has no fixed width (use np.int32 or np.int64)"),
    ("bool", bool, "DispatchTime[bool]", "booleans are rejected"),
    ("np.bool_", np.bool_, "DispatchTime[np.bool]", "booleans are rejected"),
    ("float", float, "DispatchTime[float]", "floating-point types are rejected"),
    ("np.float32", np.float32, "DispatchTime[np.float32]", "floating-point types are rejected"),
    ("np.float64", np.float64, "DispatchTime[np.float64]", "floating-point types are rejected"),
    ("complex", complex, "DispatchTime[complex]", "floating-point types are rejected"),
    ("np.integer", np.integer, "DispatchTime[np.integer]", "np.integer is abstract; name a sized type"),
    ("str", str, "DispatchTime[str]", "got str"),
    ("string", "int32", "DispatchTime['int32']", "got 'int32'"),
    ("dtype", np.dtype("int32"), "DispatchTime[np.dtype('int32')]", "got np.dtype('int32')"),
    ("two", (np.int32, np.int64), "DispatchTime[(<class 'numpy.int32'>, <class 'numpy.int64'>)]",
     "got (<class 'numpy.int32'>, <class 'numpy.int64'>)"),
]


@pytest.mark.parametrize("value_type, what, reason", [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_dispatch_time_rejects_other_types(value_type, what, reason):
    with pytest.raises(TypeError) as info:
        DispatchTime[value_type]
    assert str(info.value) == f"{what}: T must be a NumPy integer scalar type ({ALLOWED}); {reason}"


@pytest.mark.parametrize("value_type", [int, float, str, np.float32, tuple[int, int], "anything"],
                         ids=["int", "float", "str", "np.float32", "tuple", "string"])
def test_compile_time_accepts_any_type(value_type):
    annotation = CompileTime[value_type]
    assert isinstance(annotation, CompileTimeAnnotation)
    assert annotation.type is value_type


def test_compile_is_compile_time():
    assert Compile is CompileTime
    assert Compile[int] == CompileTime[int]
    assert repr(CompileTime[int]) == "CompileTime[int]"
    assert repr(CompileTime[np.int16]) == "CompileTime[np.int16]"


def test_tensor_directions():
    assert [(m.to_device, m.from_device) for m in (In, Out, InOut)] == [(True, False), (False, True), (True, True)]
    assert all(issubclass(m, TensorArgument) for m in (In, Out, InOut))


@pytest.mark.parametrize("marker", [In, Out, InOut, CompileTime, DispatchTime], ids=lambda m: m.__name__)
def test_markers_are_not_values(marker):
    with pytest.raises(TypeError) as info:
        marker()
    name = marker.__name__
    assert str(info.value) == f"iron.{name} is a parameter annotation, not a value: write `name: iron.{name}`"
