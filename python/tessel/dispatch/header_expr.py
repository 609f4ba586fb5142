"""C and C++ header text as the dispatch ABI's reader sees it: tokens, the
integer types and their arithmetic, and the evaluation of a constant's
initializer (abi.py's docstring has the rules). HeaderError is the reader's
one error."""

import operator
import re

from .errors import DispatchError


class HeaderError(DispatchError, ValueError):
    """A header the reader cannot read or a constant it cannot evaluate; the
    message names the file, the line, the constant and the part it could not read."""


# ---- Tokens -----------------------------------------------------------------------------------------------------


class _Tok:
    __slots__ = ("kind", "text", "line", "start", "end")

    def __init__(self, kind, text, line, start, end):
        self.kind, self.text, self.line, self.start, self.end = kind, text, line, start, end

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


_RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^()\\ \t\n]{0,16})\(')
_LITERAL = re.compile(r"""(?:u8|u|U|L)?(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_PUNCT3 = frozenset({"...", "<<=", ">>=", "->*"})
_PUNCT2 = frozenset({"::", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->", "++", "--", "+=", "-=", "*=",
                     "/=", "%=", "&=", "|=", "^=", "##", ".*"})


def _scan(text, path):
    """(tokens, directives): the tokens outside preprocessor directives, and each
    directive as (line, its tokens). Comments are dropped, continuations joined."""
    tokens, directives = [], []
    directive = None
    i, n, line = 0, len(text), 1
    line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            line_start = True
            if directive is not None:
                directives.append(directive)
                directive = None
            continue
        if c == "\\" and (text.startswith("\n", i + 1) or text.startswith("\r\n", i + 1)):
            i += 2 if text[i + 1] == "\n" else 3
            line += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if text.startswith("//", i):
            # To the end of the line; a backslash before the newline continues the comment.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    line += 1
                    i += 2
                else:
                    i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise HeaderError(f"{path}:{line}: a /* comment is not closed")
            line += text.count("\n", i, j)
            i = j + 2
            continue
        if c == "#" and line_start and directive is None:
            directive = (line, [])
            i += 1
            continue
        line_start = False
        out = tokens if directive is None else directive[1]
        start_line = line
        m = _RAW_STRING.match(text, i)
        if m:
            close = text.find(")" + m.group(1) + '"', m.end())
            end = n if close < 0 else close + len(m.group(1)) + 2
            line += text.count("\n", i, end)
            out.append(_Tok("str", text[i:end], start_line, i, end))
            i = end
            continue
        m = _LITERAL.match(text, i)
        if m:
            kind = "str" if m.group(0).lstrip("u8UL")[0] == '"' else "chr"
            out.append(_Tok(kind, m.group(0), line, i, m.end()))
            i = m.end()
            continue
        if c in "\"'":  # an unterminated literal: the rest of the line
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(_Tok("str" if c == '"' else "chr", text[i:end], line, i, end))
            i = end
            continue
        m = _NUMBER.match(text, i)
        if m:
            out.append(_Tok("num", m.group(0), line, i, m.end()))
            i = m.end()
            continue
        m = _IDENT.match(text, i)
        if m:
            out.append(_Tok("id", m.group(0), line, i, m.end()))
            i = m.end()
            continue
        for width, table in ((3, _PUNCT3), (2, _PUNCT2)):
            if text[i:i + width] in table:
                out.append(_Tok("op", text[i:i + width], line, i, i + width))
                i += width
                break
        else:
            out.append(_Tok("op", c, line, i, i + 1))
            i += 1
    if directive is not None:
        directives.append(directive)
    return tokens, directives


def _source(text, toks):
    """The source of a token run as written, comments and line breaks as one space."""
    parts = []
    for k, t in enumerate(toks):
        if k and t.start > toks[k - 1].end:
            parts.append(" ")
        parts.append(t.text)
    return "".join(parts)


# ---- Integer types and arithmetic --------------------------------------------------------------------------------
# A value is (v, bits, signed): v already wrapped to the type. bits 1 is bool;
# 8 and 16 promote to int.

_INT = (32, True)
_FIXED_TYPES = {
    "int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
    "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
    "intptr_t": (64, True), "uintptr_t": (64, False), "intmax_t": (64, True), "uintmax_t": (64, False),
    "size_t": (64, False), "ssize_t": (64, True), "ptrdiff_t": (64, True),
    "int_fast8_t": (8, True), "uint_fast8_t": (8, False), "int_least8_t": (8, True), "uint_least8_t": (8, False),
    "bool": (1, False), "_Bool": (1, False), "char8_t": (8, False), "char16_t": (16, False),
    "char32_t": (32, False), "wchar_t": (32, True),
}
_TYPE_WORDS = frozenset({"signed", "unsigned", "short", "long", "int", "char"})
_QUALIFIERS = frozenset({"const", "volatile"})
_SPECIFIERS = frozenset({"static", "inline", "constexpr", "const", "volatile", "thread_local", "extern", "mutable",
                         "constinit", "register"})
# Words that make a KM*_* macro's body something other than a value (an
# attribute, a statement, a qualifier): such a macro is skipped.
_NOT_VALUE_WORDS = frozenset({"__attribute__", "__declspec", "__asm__", "asm", "inline", "static", "extern",
                              "const", "volatile", "struct", "union", "class", "enum", "typedef", "do", "while",
                              "for", "if", "else", "return", "switch", "goto", "noexcept", "constexpr", "alignas",
                              "template", "typename", "using", "namespace", "__forceinline", "nullptr"})


def _wrap(v, type_):
    bits, signed = type_
    if bits == 1:
        return 1 if v else 0
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _promote(a):
    return (a[0], 32, True) if a[1] < 32 else a


def _common(a, b):
    (ba, sa), (bb, sb) = a[1:], b[1:]
    if sa == sb:
        return (max(ba, bb), sa)
    unsigned_bits, signed_bits = (bb, ba) if sa else (ba, bb)
    if unsigned_bits >= signed_bits:
        return (unsigned_bits, False)
    return (signed_bits, True)


def _typed(v, type_):
    return (_wrap(v, type_), *type_)


def _known_value(v):
    """A known constant typed as a hex literal of its value would be."""
    for type_ in ((32, True), (32, False), (64, True), (64, False)):
        if _wrap(v, type_) == v:
            return (v, *type_)
    return (_wrap(v, (64, False)), 64, False)


_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[1-9][0-9]*|0[0-7]*)"
                          r"((?:[uU](?:ll|LL|l|L|z|Z)?)|(?:(?:ll|LL|l|L|z|Z)[uU]?))?")


def _literal(text):
    """(v, bits, signed) of an integer literal; 'float' for a floating literal;
    None for something that is not a number."""
    s = text.replace("'", "")
    low = s.lower()
    if low.startswith("0x"):
        if "." in low or "p" in low:
            return "float"
    elif "." in low or "e" in low or (low.endswith("f") and not low.startswith("0b")):
        return "float"
    m = _INT_LITERAL.fullmatch(s)
    if not m:
        return None
    digits, suffix = m.group(1), (m.group(2) or "").lower()
    if digits[:2].lower() == "0x":
        v, decimal = int(digits[2:], 16), False
    elif digits[:2].lower() == "0b":
        v, decimal = int(digits[2:], 2), False
    elif digits.startswith("0"):
        v, decimal = int(digits, 8), False
    else:
        v, decimal = int(digits), True
    unsigned = "u" in suffix
    long_ = "l" in suffix or "z" in suffix
    if unsigned and long_:
        candidates = [(64, False)]
    elif unsigned:
        candidates = [(32, False), (64, False)]
    elif long_:
        candidates = [(64, True)] if decimal else [(64, True), (64, False)]
    else:
        candidates = [(32, True), (64, True)] if decimal else [(32, True), (32, False), (64, True), (64, False)]
    for bits, signed in candidates:
        if v < (1 << (bits - 1 if signed else bits)):
            return (v, bits, signed)
    return "large"


_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8, "f": 12, "v": 11, "?": 63}


def _char_literal(text):
    prefix, _, body = text.partition("'")
    body = body[:-1] if body.endswith("'") else body
    if body.startswith("\\"):
        rest = body[1:]
        if rest[:1] == "x" and len(rest) > 1 and all(ch in "0123456789abcdefABCDEF" for ch in rest[1:]):
            v = int(rest[1:], 16)
        elif rest and all(ch in "01234567" for ch in rest) and len(rest) <= 3:
            v = int(rest, 8)
        elif len(rest) == 1 and rest in _ESCAPES:
            v = _ESCAPES[rest]
        else:
            return None
    elif len(body) == 1:
        v = ord(body)
    else:
        return None
    type_ = {"": (8, True), "u8": (8, False), "u": (16, False), "U": (32, False), "L": (32, True)}.get(prefix)
    return None if type_ is None else _typed(v, type_)


class _Unreadable(Exception):
    """What an expression's reader could not read (becomes a HeaderError)."""


# ---- Expressions ------------------------------------------------------------------------------------------------

_BINARY_LEVELS = (("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"),
                  ("*", "/", "%"))


class _Expr:
    """One initializer's tokens, evaluated by recursive descent in C++'s precedence."""

    def __init__(self, reader, toks, scope, line):
        self.r, self.t, self.p, self.scope, self.line = reader, toks, 0, scope, line
        self.live = True  # False in an operand a ?:, && or || does not evaluate: no errors from it

    def peek(self, k=0):
        return self.t[self.p + k].text if self.p + k < len(self.t) else None

    def take(self, text):
        if self.peek() == text:
            self.p += 1
            return True
        return False

    def expect(self, text):
        if not self.take(text):
            got = self.peek()
            raise _Unreadable(f"expected '{text}', got " + ("the end" if got is None else f"'{got}'"))

    def parse(self):
        if not self.t:
            raise _Unreadable("the value is empty")
        value = self.ternary()
        if self.p < len(self.t):
            raise _Unreadable(f"unexpected '{self.peek()}'")
        return value

    def ternary(self):
        cond = self.binary(-2)
        if not self.take("?"):
            return cond
        live = self.live
        self.live = live and cond[0] != 0
        a = self.ternary()
        self.expect(":")
        self.live = live and cond[0] == 0
        b = self.ternary()
        self.live = live
        type_ = _common(_promote(a), _promote(b))
        return _typed(a[0] if cond[0] else b[0], type_)

    def binary(self, level):
        if level == -2:  # ||
            a = self.binary(-1)
            while self.take("||"):
                live = self.live
                self.live = live and a[0] == 0
                b = self.binary(-1)
                self.live = live
                a = (int(a[0] != 0 or b[0] != 0), 32, True)
            return a
        if level == -1:  # &&
            a = self.binary(0)
            while self.take("&&"):
                live = self.live
                self.live = live and a[0] != 0
                b = self.binary(0)
                self.live = live
                a = (int(a[0] != 0 and b[0] != 0), 32, True)
            return a
        if level == len(_BINARY_LEVELS):
            return self.unary()
        a = self.binary(level + 1)
        while self.peek() in _BINARY_LEVELS[level]:
            op = self.t[self.p].text
            self.p += 1
            a = self.apply(op, a, self.binary(level + 1))
        return a

    def apply(self, op, a, b):
        a, b = _promote(a), _promote(b)
        if op in ("<<", ">>"):
            count = b[0]
            if not 0 <= count < a[1]:
                if self.live:
                    raise _Unreadable(f"shift count {count} is outside 0..{a[1] - 1} for a {a[1]}-bit operand")
                return a
            return _typed(a[0] << count if op == "<<" else a[0] >> count, a[1:])
        type_ = _common(a, b)
        x, y = _wrap(a[0], type_), _wrap(b[0], type_)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            result = {"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
            return (int(result), 32, True)
        if op in ("/", "%"):
            if y == 0:
                if self.live:
                    raise _Unreadable("division by zero")
                return (0, *type_)
            q = abs(x) // abs(y)
            q = -q if (x < 0) != (y < 0) else q
            return _typed(q if op == "/" else x - y * q, type_)
        ops = {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_, "|": operator.or_,
               "^": operator.xor}
        return _typed(ops[op](x, y), type_)

    def unary(self):
        s = self.peek()
        if s in ("-", "+", "~", "!"):
            self.p += 1
            a = _promote(self.unary())
            if s == "-":
                return _typed(-a[0], a[1:])
            if s == "~":
                return _typed(~a[0], a[1:])
            if s == "!":
                return (int(a[0] == 0), 32, True)
            return a
        if s in ("sizeof", "alignof", "_Alignof", "__alignof__"):
            raise _Unreadable(f"{s} is not supported")
        if s == "(":
            parsed = self.r.type_at(self.t, self.p + 1, self.scope)
            if parsed and parsed[1] < len(self.t) and self.t[parsed[1]].text == ")":
                self.p = parsed[1] + 1
                return _typed(self.unary()[0], parsed[0])
        return self.primary()

    def primary(self):
        if self.p >= len(self.t):
            raise _Unreadable("the expression ends early")
        tok = self.t[self.p]
        if tok.kind == "num":
            value = _literal(tok.text)
            if value == "float":
                raise _Unreadable(f"'{tok.text}' is not an integer")
            if value == "large":
                raise _Unreadable(f"'{tok.text}' is too large for any integer type")
            if value is None:
                raise _Unreadable(f"'{tok.text}' is not an integer literal")
            self.p += 1
            return value
        if tok.kind == "chr":
            value = _char_literal(tok.text)
            if value is None:
                raise _Unreadable(f"{tok.text} is not a one-character literal")
            self.p += 1
            return value
        if tok.kind == "str":
            raise _Unreadable(f"{tok.text} is a string")
        if tok.text == "(":
            self.p += 1
            value = self.ternary()
            self.expect(")")
            return value
        if tok.text in ("true", "false"):
            self.p += 1
            return (int(tok.text == "true"), 32, True)
        if tok.text == "static_cast":
            self.p += 1
            self.expect("<")
            parsed = self.r.type_at(self.t, self.p, self.scope)
            if not parsed:
                raise _Unreadable(f"static_cast to '{self.peek()}': only integer types are supported")
            self.p = parsed[1]
            self.expect(">")
            self.expect("(")
            value = self.ternary()
            self.expect(")")
            return _typed(value[0], parsed[0])
        if tok.text in ("reinterpret_cast", "const_cast", "dynamic_cast", "bit_cast"):
            raise _Unreadable(f"{tok.text} is not supported")
        if tok.kind == "id" or tok.text == "::":
            parsed = self.r.type_at(self.t, self.p, self.scope)
            if parsed:
                type_, end = parsed
                if end < len(self.t) and self.t[end].text in ("(", "{"):
                    close = ")" if self.t[end].text == "(" else "}"
                    self.p = end + 1
                    value = self.ternary()
                    self.expect(close)
                    return _typed(value[0], type_)
                spelling = _source(self.r.text, self.t[self.p:end])
                raise _Unreadable(f"'{spelling}' is a type, not a value")
            return self.name()
        raise _Unreadable(f"unexpected '{tok.text}'")

    def name(self):
        absolute = self.take("::")
        parts = []
        while True:
            tok = self.t[self.p] if self.p < len(self.t) else None
            if tok is None or tok.kind != "id":
                raise _Unreadable("expected a name after '::'")
            parts.append(tok.text)
            self.p += 1
            if self.peek() == "::" and self.p + 1 < len(self.t) and self.t[self.p + 1].kind == "id":
                self.p += 1
                continue
            break
        spelling = ("::" if absolute else "") + "::".join(parts)
        if self.peek() == "(":
            raise _Unreadable(f"'{spelling}(...)' is a call: function calls and function-like macros are not "
                              "supported")
        return self.r.resolve(parts, absolute, self.scope, self.line, spelling)
