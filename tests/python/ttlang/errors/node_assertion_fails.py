# An assertion on ttl.node() that is false on some node of an operation with
# no tensors: the device stops the program, naming the line and the core.
# expect: error core \(1,0\) [A-Z]+: assertion failed: ttl.node\(dims=2\) == \(row, col\)
# line: 14
# sim: no (tt-lang-sim 1.1.6 needs kernel functions)
import ttl


@ttl.operation(grid=(2, 2))
def swapped() -> None:
    col, row = ttl.node(dims=2)
    assert col < 2 and row < 2
    # Wrong on the nodes where the column and the row differ.
    assert ttl.node(dims=2) == (row, col)  # <- error


swapped()
