"""session.device.mesh_capsule(): the card as a compat MeshDevice for another
native module, in a capsule named tessel.mesh_device."""

import ctypes

import tessel
import tessel.dispatch as km
from tessel import _tessel


def _capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


def test_the_capsule_holds_a_mesh_over_the_sessions_device():
    with km.Session() as session:
        capsule = session.device.mesh_capsule()
        assert _capsule_name(capsule) == "tessel.mesh_device"
        rows, cols, same_device = _tessel.mesh_capsule_probe(capsule, session.device._d)
        assert (rows, cols, same_device) == (1, 1, True)
        with tessel.Device.open(grid=(2, 2)) as other:
            assert _tessel.mesh_capsule_probe(capsule, other._d)[2] is False
        del capsule  # the mesh borrows the device: dropping it leaves the card open
        assert session.device.is_open


def test_a_plain_device_hands_itself_over_too():
    with tessel.Device.open(grid=(2, 1)) as d:
        assert _tessel.mesh_capsule_probe(d.mesh_capsule(), d._d) == (1, 1, True)
