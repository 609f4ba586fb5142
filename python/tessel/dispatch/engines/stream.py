"""Stream: a small register machine the card's dispatcher runs from its
upload region (tessel/engine_abi.h has the encoding, docs/engines.md the
instruction set).

    s = Stream(req=3)
    i, n = s.register(), s.register()
    s.li(i, 0)
    top = s.here()
    s.submit(handler, group=(0, 8), args=[i, 5])   # send and wait for its completion
    s.event(i)                                     # progress for the host
    s.addi(i, i, 1)
    more = s.register()
    s.lt(more, i, n)
    s.bnz(more, top)
    s.halt(i)

Registers are r0 .. r15 (32 bits; the start's bindings set r0, r1, ...).
SUBMIT sends a command and waits for its completion; ENQUEUE sends it and
goes on (at most 16 in flight); WAIT waits for every enqueued command;
EVENT posts an `event` with a register; HALT ends with one. The ALU
operations (add, sub, ..., lt, ...; `addi` and the like with a value) and
branches (jmp, bz, bnz to labels) are the rest.
"""

from ... import _check
from .ops import OPS, REGISTERS, K

__all__ = ["Stream", "Reg", "Label"]


class Reg:
    """A stream register r0 .. r15."""

    __slots__ = ("stream", "index")

    def __init__(self, stream, index):
        self.stream, self.index = stream, index

    def __repr__(self):
        return f"r{self.index}"


class Label:
    """A place in a stream's code, for branches; placed with Stream.place."""

    __slots__ = ("stream", "id")

    def __init__(self, stream, id):
        self.stream, self.id = stream, id


def _alu(name, code):
    def register_form(self, rd, rs, rt):
        rd, rs = self._reg(rd, name), self._reg(rs, name)
        if isinstance(rt, Reg):
            self._native.alu(code, rd, rs, self._reg(rt, name))
        else:
            self._native.alu_imm(code, rd, rs, _check.word(rt, f"Stream.{name}: its value"))
        return self

    def immediate_form(self, rd, rs, imm):
        self._native.alu_imm(code, self._reg(rd, name + "i"), self._reg(rs, name + "i"),
                             _check.word(imm, f"Stream.{name}i: its value"))
        return self

    register_form.__name__, immediate_form.__name__ = name, name + "i"
    register_form.__doc__ = f"rd = rs {name} rt (rt a register or a value)"
    immediate_form.__doc__ = f"rd = rs {name} imm"
    return register_form, immediate_form


class Stream:
    """Stream(req, deadline_microseconds=0, max_steps=0): req 1..255 names its
    events; deadline_microseconds (0: none) bounds its start to its end;
    max_steps (0: no limit) the instructions it may run."""

    kind = "stream"

    def __init__(self, req, deadline_microseconds=0, max_steps=0):
        from ... import _tessel

        self.req = _check.integer(req, "Stream: req", 1, K["KM_ENGINE_REQ_MAX"])
        self.deadline_microseconds = _check.integer(deadline_microseconds, "Stream: deadline_microseconds", 0,
                                                    0xFFFFFFFF)
        self.max_steps = _check.integer(max_steps, "Stream: max_steps", 0, 0xFFFFFFFF)
        self._native = _tessel.EngineStream(self.req, self.deadline_microseconds, self.max_steps)
        self._next = 0

    def _reg(self, r, what):
        if not isinstance(r, Reg) or r.stream is not self:
            raise TypeError(f"Stream.{what}: expected a register of this stream (Stream.register()), got "
                            f"{_check.describe(r)}")
        return r.index

    def _label(self, label, what):
        if not isinstance(label, Label) or label.stream is not self:
            raise TypeError(f"Stream.{what}: expected a label of this stream (Stream.label()), got "
                            f"{_check.describe(label)}")
        return label.id

    def register(self, index=None):
        """Register `index` (0..15), or the next one not handed out yet."""
        if index is None:
            if self._next >= REGISTERS:
                raise ValueError(f"Stream.register: all {REGISTERS} registers are handed out")
            index = self._next
        index = _check.integer(index, "Stream.register: index", 0, REGISTERS - 1)
        self._next = max(self._next, index + 1)
        return Reg(self, index)

    def label(self):
        """A new label; place it with place(label) where it should point."""
        return Label(self, self._native.label())

    def place(self, label):
        self._native.place(self._label(label, "place"))
        return self

    def here(self):
        """A label placed at the next instruction."""
        label = self.label()
        self.place(label)
        return label

    @property
    def pc(self):
        """The word the next instruction starts at."""
        return self._native.pc()

    # -- instructions ----------------------------------------------------------

    def nop(self):
        self._native.nop()
        return self

    def li(self, rd, value):
        """rd = value"""
        self._native.li(self._reg(rd, "li"), _check.word(value, "Stream.li: value"))
        return self

    def mov(self, rd, rs):
        """rd = rs"""
        self._native.alu(OPS["mov"], self._reg(rd, "mov"), self._reg(rs, "mov"), self._reg(rs, "mov"))
        return self

    def jmp(self, label):
        self._native.jmp(self._label(label, "jmp"))
        return self

    def bz(self, rs, label):
        """Branch to label when rs is 0."""
        self._native.bz(self._reg(rs, "bz"), self._label(label, "bz"))
        return self

    def bnz(self, rs, label):
        """Branch to label when rs is not 0."""
        self._native.bnz(self._reg(rs, "bnz"), self._label(label, "bnz"))
        return self

    def _command(self, what, handler, group, args, result, exclusive, queued, enqueue):
        handler = _check.integer(handler, f"Stream.{what}: handler", 0, 239)
        if queued:
            count = group if not isinstance(group, (tuple, list)) else None
            if count is None:
                raise TypeError(f"Stream.{what}: a queued command's group is a core count or a register")
            group = (0, count) if not isinstance(count, Reg) else (Reg(self, 0), count)  # first: unused
        if not isinstance(group, (tuple, list)) or len(group) != 2:
            raise TypeError(f"Stream.{what}: group must be (first, count), of values or of registers, got "
                            f"{_check.describe(group)}")
        registers = isinstance(group[0], Reg) or isinstance(group[1], Reg)
        if registers:
            first, count = (self._reg(g, what) for g in group)
        else:
            first = _check.integer(group[0], f"Stream.{what}: group's first core", 0, 0xFFFF)
            count = _check.integer(group[1], f"Stream.{what}: group's count", 1, 0xFFFF)
        if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
            raise TypeError(f"Stream.{what}: args must be a sequence of registers and values")
        words = [(True, self._reg(a, what)) if isinstance(a, Reg) else (False, _check.word(a, f"Stream.{what}: arg"))
                 for a in args]
        flags = (K["KM_FLAG_EXCLUSIVE"] if _check.flag(exclusive, f"Stream.{what}: exclusive") else 0) | (
            K["KM_FLAG_QUEUE"] if _check.flag(queued, f"Stream.{what}: queued") else 0)
        rr = None if result is None else self._reg(result, what)
        self._native.submit(handler, registers, first, count, words, flags, rr, enqueue)
        return self

    def submit(self, handler, group, args=(), result=None, exclusive=False, queued=False):
        """SUBMIT: send a command and wait for its completion. group is
        (first, count) of values or registers (queued: a count); args up to
        ten registers and values; result a register for the leader's result word."""
        return self._command("submit", handler, group, args, result, exclusive, queued, False)

    def enqueue(self, handler, group, args=(), result=None, exclusive=False, queued=False):
        """ENQUEUE: send a command and go on (at most 16 of the stream's in flight)."""
        return self._command("enqueue", handler, group, args, result, exclusive, queued, True)

    def wait(self):
        """WAIT: until every enqueued command has completed."""
        self._native.wait()
        return self

    def event(self, ra):
        """EVENT: post an `event` carrying register ra."""
        self._native.event(self._reg(ra, "event"))
        return self

    def halt(self, ra):
        """HALT: end (once its commands completed) with register ra."""
        self._native.halt(self._reg(ra, "halt"))
        return self

    def ticks(self, rd):
        """rd = the card clock (50 MHz ticks, low 32 bits)."""
        self._native.ticks(self._reg(rd, "ticks"))
        return self

    def encode(self):
        """The upload's bytes (whole 64-byte lines)."""
        return self._native.encode()

    def __repr__(self):
        return f"Stream(req={self.req}, {self.pc} words)"


for _name, _code in OPS.items():
    if _name != "mov":
        _r, _i = _alu(_name, _code)
        setattr(Stream, _name + ("_" if _name in ("and", "or") else ""), _r)
        setattr(Stream, _name + "i", _i)
del _name, _code, _r, _i
