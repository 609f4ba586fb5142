# An operation with no tensors: its body checks ttl.node() and
# ttl.grid_size() on every node of a 4x2 grid (the checks run on the
# device; a failing one stops the program naming its line). With no tensors
# the operation runs on the open device, else on device 0.
# expect: pass
# sim: no (tt-lang-sim 1.1.6 needs kernel functions)
import ttl


@ttl.operation(grid=(4, 2))
def where_am_i() -> None:
    cols, rows = ttl.grid_size(dims=2)
    assert (cols, rows) == (4, 2)
    assert ttl.grid_size(dims=1) == 8
    flat = ttl.node(dims=1)
    col, row = ttl.node(dims=2)
    assert 0 <= flat < 8
    assert flat == col * rows + row
    assert ttl.node(dims=2) == (col, row)
    assert ttl.node(dims=3) == (col, row, 0)


@ttl.operation(grid=(3, 3))
def grid_only() -> None:
    assert ttl.grid_size(dims=2) == (3, 3)  # operation-scope Python: nothing runs on the device


where_am_i()
grid_only()
