"""The engines' ALU operations, read from tessel/engine_abi.h: OPS maps
"mov", "add", "sub", "mul", "and", "or", "xor", "shl", "shr", "min", "max",
"lt", "le", "gt", "ge", "eq", "ne" to their KM_OP_* numbers. They work on
unsigned 32-bit words; comparisons give 1 or 0; shifts use the low 5 bits
of their count. Each also has an immediate form ("addi", ...) whose last
operand is a value."""

from .. import abi

K = abi.headers().constants
IMMEDIATE = K["KM_OP_IMMEDIATE"]
OPS = {name[len("KM_OP_"):].lower(): value for name, value in K.items()
       if name.startswith("KM_OP_") and K["KM_OP_MOV"] <= value <= K["KM_OP_NE"]}
ERROR_NAMES = {value: name[len("KM_STREAM_ERROR_"):].lower() for name, value in K.items()
               if name.startswith("KM_STREAM_ERROR_")}
REGISTERS = K["KM_ENGINE_REGISTERS"]

__all__ = ["OPS", "IMMEDIATE", "ERROR_NAMES", "REGISTERS", "K"]
