"""The persistent-dispatch ABI as the host reads it from C/C++ headers.

- constants(path, known=None) -> {name: int}: every integer `constexpr`
  (also `static`/`inline`, in namespaces and structs), every
  `#define KM*_* expr` and every `enum` / `enum class` value of a header.
- headers() -> Headers: the constants of the runtime's own headers
  (tessel/persistent_abi.h and, when there, tessel/persistent.h), cached.
- handlers(source) -> {name: number}: a program's handler table, from a dict
  or from a header's `constexpr uint32_t kHandlerName = n;` lines.

How a header is read. The reader is not a compiler and runs nothing: it
tokenizes the file (comments, line continuations, string and character
literals, digit separators), keeps track of namespace, struct and enum
scopes, skips what cannot hold a constant (function bodies, templates) and
evaluates each initializer with a small recursive-descent parser:

- integer literals (decimal, hex, octal, binary; u/U/l/L/z suffixes; '
  separators) and character literals, typed as C++ types them;
- ( ), unary + - ~ !, * / % + - << >> < <= > >= == != & ^ | && || ?:, with
  C++'s precedence, integer promotions and usual arithmetic conversions
  (so ~0u is 4294967295 and -1 < 0u is false); division truncates; a shift
  count outside the operand's width and a division by zero are errors;
  signed results wrap (a compiler would reject the overflow);
- casts: uint32_t(x), uint32_t{x}, (uint32_t)x, static_cast<uint32_t>(x),
  to the fixed-width, fundamental and file-local enum types;
- names: constants defined earlier in the file, macros (expanded where they
  are used, so a macro may name a constant defined before its use), and the
  caller's `known` constants, by plain name or qualified (ns::kX, ::ns::kX):
  a qualified name resolves in the file by C++'s scope rules, then against
  `known` by its full spelling and by its last component.

A constant's value is converted to its declared type (constexpr uint32_t
kX = -1 is 4294967295; auto and macros keep the expression's type). What
the reader skips, without an error: function-like macros, macros and auto
constants whose value is not an integer expression (strings, floats,
attributes, statements), constexprs of non-integer type (float, pointers,
strings, arrays, structs), constexpr functions and anything in a template
or a function body. Everything else it cannot evaluate (sizeof, function
calls, unknown names) raises HeaderError with the file, the line, the
constant, its expression and the part it could not read. #if is not
evaluated: every branch is read, and a constant defined twice with
different values is an error.

The result's keys are the constants' plain names, and for a constant in a
namespace, struct or enum class also its qualified name (ns::kX,
Color::kRed). A plain name that two scopes give different values is
offered only qualified.
"""

import functools
import operator
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .. import _check
from .errors import DispatchError, ProgramError

__all__ = ["HeaderError", "Headers", "constants", "headers", "handlers"]

# The handler numbers a program may use (tessel/persistent_abi.h: KM_HANDLER_FIRST
# .. KM_HANDLER_LAST; a test checks these against the header).
HANDLER_FIRST = 1
HANDLER_LAST = 239
_HANDLER_RULE = "handler numbers are 1 to 239: 0 is NOP, 240 to 251 are reserved"


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


# ---- The reader -------------------------------------------------------------------------------------------------


class _Macro:
    __slots__ = ("name", "line", "undef_line", "body", "function_like")

    def __init__(self, name, line, body, function_like):
        self.name, self.line, self.body, self.function_like = name, line, body, function_like
        self.undef_line = None


class _Constant:
    __slots__ = ("name", "qual", "value", "line", "kind")

    def __init__(self, name, qual, value, line, kind):
        self.name, self.qual, self.value, self.line, self.kind = name, qual, value, line, kind


def _is_km_macro(name):
    return name.startswith("KM") and "_" in name


class _Reader:
    """One header: its tokens, macros, scopes and the constants read so far."""

    def __init__(self, path, text, known):
        self.path, self.text, self.known = path, text, known
        self.tokens, directives = _scan(text, path)
        self.macros = {}  # name -> [_Macro], in line order
        for line, toks in directives:
            if len(toks) >= 2 and toks[0].text == "define" and toks[1].kind == "id":
                name = toks[1]
                function_like = len(toks) > 2 and toks[2].text == "(" and toks[2].start == name.end
                self.macros.setdefault(name.text, []).append(_Macro(name.text, line, toks[2:], function_like))
            elif len(toks) >= 2 and toks[0].text == "undef" and toks[1].kind == "id":
                for m in reversed(self.macros.get(toks[1].text, ())):
                    if m.undef_line is None:
                        m.undef_line = line
                    break
        self.table = {}  # qualified tuple -> _Constant, for lookups (unscoped enum values also as E::v)
        self.constants = []  # every constant, in file order
        self.enums = {}  # qualified tuple of an enum type -> its underlying (bits, signed)
        self.expanding = []  # the macros being expanded, innermost last

    # -- errors --

    def error(self, line, name, toks, problem):
        return HeaderError(f"{self.path}:{line}: cannot evaluate {name} = {_source(self.text, toks)}: {problem}")

    # -- names and types --

    def macro_at(self, name, line):
        for m in reversed(self.macros.get(name, ())):
            if m.line < line and (m.undef_line is None or m.undef_line > line):
                return m
        return None

    def lookup(self, parts, absolute, scope):
        """The file's constant a (possibly qualified) name means at `scope` by C++'s
        rules (the innermost enclosing scope first), or None."""
        if absolute:
            return self.table.get(parts)
        for k in range(len(scope), -1, -1):
            found = self.table.get(scope[:k] + parts)
            if found is not None:
                return found
        return None

    def lookup_suffix(self, parts):
        """The one constant of the file whose qualified name ends in `parts` (a macro's
        body naming a namespace's constant, a partly qualified name), or None."""
        matches = {c.qual: c for q, c in self.table.items() if q[-len(parts):] == parts}
        return next(iter(matches.values())) if len(matches) == 1 else None

    def known_value(self, parts):
        spelling = "::".join(parts)
        for key in (spelling, "::" + spelling, parts[-1]):
            if key in self.known:
                return self.known[key]
        return None

    def resolve(self, parts, absolute, scope, line, spelling):
        parts = tuple(parts)
        if len(parts) == 1 and not absolute:
            macro = self.macro_at(parts[0], line)
            if macro is not None and parts[0] not in self.expanding:
                return self.expand(macro, scope, line)
        found = self.lookup(parts, absolute, scope)
        if found is not None:
            return found.value
        value = self.known_value(parts)
        if value is not None:
            return _known_value(value)
        found = self.lookup_suffix(parts)
        if found is not None:
            return found.value
        if len(parts) == 1 and parts[0] in self.expanding:
            raise _Unreadable(f"'{parts[0]}' refers to itself")
        raise _Unreadable(f"'{spelling}' is not defined earlier in the file or in known")

    def expand(self, macro, scope, line):
        if macro.function_like:
            raise _Unreadable(f"'{macro.name}' is a function-like macro (line {macro.line})")
        if not macro.body:
            raise _Unreadable(f"'{macro.name}' is defined empty (line {macro.line})")
        self.expanding.append(macro.name)
        try:
            return _Expr(self, macro.body, scope, line).parse()
        except _Unreadable as e:
            raise _Unreadable(f"{e} (in {macro.name} = {_source(self.text, macro.body)}, line {macro.line})") \
                from None
        finally:
            self.expanding.pop()

    def type_at(self, toks, i, scope):
        """((bits, signed), end) of an integer type spelled at toks[i:end], or None."""
        j = i
        while j < len(toks) and toks[j].text in _QUALIFIERS:
            j += 1
        if j < len(toks) and toks[j].text == "::":
            j += 1
        if j + 1 < len(toks) and toks[j].text == "std" and toks[j + 1].text == "::":
            j += 2
        if j >= len(toks) or toks[j].kind != "id":
            return None
        words = []
        k = j
        while k < len(toks) and (toks[k].text in _TYPE_WORDS or toks[k].text in _QUALIFIERS):
            if toks[k].text in _TYPE_WORDS:
                words.append(toks[k].text)
            k += 1
        if words:
            type_ = _fundamental(words)
            return None if type_ is None else (type_, k)
        if toks[j].text in _FIXED_TYPES:
            k = j + 1
            while k < len(toks) and toks[k].text in _QUALIFIERS:
                k += 1
            return (_FIXED_TYPES[toks[j].text], k)
        # An enum type of this file.
        parts, k = [toks[j].text], j + 1
        while k + 1 < len(toks) and toks[k].text == "::" and toks[k + 1].kind == "id":
            parts.append(toks[k + 1].text)
            k += 2
        parts = tuple(parts)
        for n in range(len(scope), -1, -1):
            if scope[:n] + parts in self.enums:
                return (self.enums[scope[:n] + parts], k)
        return None

    def declared_type(self, toks, scope):
        """(bits, signed), 'auto' or None (not an integer type) of a declaration's type tokens."""
        toks = [t for t in toks if t.text not in _SPECIFIERS]
        if len(toks) == 1 and toks[0].text == "auto":
            return "auto"
        parsed = self.type_at(toks, 0, scope) if toks else None
        return parsed[0] if parsed and parsed[1] == len(toks) else None

    # -- recording --

    def add(self, name, qual, value, line, kind, aliases=()):
        previous = self.table.get(qual)
        if previous is not None and previous.value[0] != value[0]:
            raise HeaderError(f"{self.path}:{line}: {'::'.join(qual)} is defined again with another value "
                              f"({value[0]}; line {previous.line} gave {previous.value[0]}): the reader does not "
                              "evaluate #if, so a constant needs one definition")
        if previous is None:
            constant = _Constant(name, qual, value, line, kind)
            self.table[qual] = constant
            self.constants.append(constant)
            for alias in aliases:
                self.table.setdefault(alias, constant)

    def evaluate(self, name, toks, scope, line):
        try:
            return _Expr(self, toks, scope, line).parse()
        except _Unreadable as e:
            raise self.error(line, name, toks, str(e)) from None

    # -- the file --

    def read(self):
        toks = self.tokens
        n = len(toks)
        stack = []  # the named scopes, each a tuple of names (a namespace a::b is one scope of two)
        templated = False
        i = 0
        while i < n:
            s = toks[i].text
            if s == ";":
                i += 1
            elif s == "}":
                if stack:
                    stack.pop()
                i += 1
            elif s == "{":  # a block of no declaration we read
                i = self.match(i) + 1
            elif s == "namespace":
                i = self.namespace(i, stack)
            elif s == "extern" and i + 2 < n and toks[i + 1].kind == "str" and toks[i + 2].text == "{":
                stack.append(())
                i += 3
            elif s == "template":
                i = self.skip_angles(i + 1)
                templated = True
            elif s == "typedef" and i + 1 < n and toks[i + 1].text in ("enum", "struct", "class", "union"):
                i += 1
            elif s == "enum" and not templated:
                i = self.enum(i, self.scope(stack))
            elif s in ("struct", "class", "union"):
                i, templated = self.record(i, stack, templated)
            else:
                i = self.statement(i, self.scope(stack), templated)
                templated = False

    @staticmethod
    def scope(stack):
        return tuple(name for names in stack for name in names)

    def match(self, i):
        """The index of the bracket that closes toks[i] (or the last token)."""
        pairs = {"(": ")", "[": "]", "{": "}"}
        depth = 0
        closers = []
        for j in range(i, len(self.tokens)):
            s = self.tokens[j].text
            if s in pairs:
                closers.append(pairs[s])
                depth += 1
            elif closers and s == closers[-1]:
                closers.pop()
                depth -= 1
                if depth == 0:
                    return j
        return len(self.tokens) - 1

    def skip_angles(self, i):
        """Past a template's <...> (nested brackets counted)."""
        toks = self.tokens
        if i >= len(toks) or toks[i].text != "<":
            return i
        depth = 0
        while i < len(toks):
            s = toks[i].text
            if s in ("(", "[", "{"):
                i = self.match(i)
            elif s == "<":
                depth += 1
            elif s == ">":
                depth -= 1
            elif s == ">>":
                depth -= 2
            i += 1
            if depth <= 0:
                return i
        return i

    def namespace(self, i, stack):
        toks = self.tokens
        j, names = i + 1, []
        while j < len(toks) and toks[j].text not in ("{", "=", ";"):
            if toks[j].kind == "id" and toks[j].text != "inline":
                names.append(toks[j].text)
            j += 1
        if j < len(toks) and toks[j].text == "{":
            stack.append(tuple(names))
            return j + 1
        while j < len(toks) and toks[j].text != ";":  # an alias: namespace a = b;
            j += 1
        return j + 1

    def record(self, i, stack, templated):
        """struct / class / union: its body is a scope of its name (skipped in a template)."""
        toks = self.tokens
        j = i + 1
        while j < len(toks) and toks[j].text not in ("{", ";", "=", "(", "}"):
            if toks[j].text == "[":
                j = self.match(j)
            elif toks[j].text in ("alignas", "__attribute__", "__declspec") and j + 1 < len(toks) and \
                    toks[j + 1].text == "(":
                j = self.match(j + 1)
            j += 1
        if j >= len(toks) or toks[j].text != "{":
            return self.statement(i, self.scope(stack), templated), False
        if templated:
            return self.match(j) + 1, False
        head = [t for t in toks[i + 1:j] if t.kind == "id" and t.text not in ("final", "alignas")]
        colon = next((k for k in range(i + 1, j) if toks[k].text == ":"), j)
        names = [t.text for t in head if t.start < toks[colon].start] if colon < j else [t.text for t in head]
        stack.append(tuple(names[-1:]))
        return j + 1, False

    def enum(self, i, scope):
        toks = self.tokens
        j = i + 1
        scoped = j < len(toks) and toks[j].text in ("class", "struct")
        j += scoped
        while j < len(toks) and toks[j].text == "[":
            j = self.match(j) + 1
        name = None
        if j < len(toks) and toks[j].kind == "id":
            name = toks[j].text
            j += 1
        underlying = None
        if j < len(toks) and toks[j].text == ":":
            k = j + 1
            while k < len(toks) and toks[k].text not in ("{", ";"):
                k += 1
            underlying = self.declared_type(toks[j + 1:k], scope)
            j = k
        if j >= len(toks) or toks[j].text != "{":
            return self.statement(i, scope, False)
        close = self.match(j)
        enum_scope = scope + ((name,) if name else ())
        if name:
            self.enums[enum_scope] = underlying or _INT
        previous = None
        for chunk in self.split(j + 1, close):
            if not chunk:
                continue
            tok = chunk[0]
            if tok.kind != "id":
                raise HeaderError(f"{self.path}:{tok.line}: expected an enumerator name in enum "
                                  f"{name or '(anonymous)'}, got '{tok.text}'")
            rest = chunk[1:]
            while rest and rest[0].text == "[":  # [[attributes]]
                end = next((k for k, t in enumerate(rest) if t.text == "]" and k + 1 < len(rest) and
                            rest[k + 1].text == "]"), len(rest) - 2)
                rest = rest[end + 2:]
            if rest and rest[0].text == "=":
                value = self.evaluate(tok.text, rest[1:], enum_scope, tok.line)
            elif rest:
                raise self.error(tok.line, tok.text, rest, f"unexpected '{rest[0].text}'")
            elif previous is None:
                value = (0, *_INT)
            else:
                value = _promote(previous)
                value = _typed(value[0] + 1, value[1:])
            if underlying:
                value = _typed(value[0], underlying)
            previous = value
            if scoped:
                self.add(tok.text, enum_scope + (tok.text,), value, tok.line, "enum")
            else:
                aliases = (enum_scope + (tok.text,),) if name else ()
                self.add(tok.text, scope + (tok.text,), value, tok.line, "enum", aliases)
        return close + 1

    def split(self, i, end):
        """toks[i:end] cut at the commas outside brackets."""
        chunks, chunk = [], []
        j = i
        while j < end:
            t = self.tokens[j]
            if t.text in ("(", "[", "{"):
                k = min(self.match(j), end - 1)
                chunk.extend(self.tokens[j:k + 1])
                j = k + 1
                continue
            if t.text == ",":
                chunks.append(chunk)
                chunk = []
            else:
                chunk.append(t)
            j += 1
        chunks.append(chunk)
        return chunks

    def statement(self, i, scope, templated):
        """One statement from toks[i]: a declaration (read when constexpr) or a
        function (its body skipped). Returns the index after it."""
        toks = self.tokens
        j, has_eq, head_paren = i, False, False
        while j < len(toks):
            s = toks[j].text
            if s in ("(", "["):
                if s == "(" and not has_eq:
                    head_paren = True
                j = self.match(j) + 1
                continue
            if s == "=":
                has_eq = True
            elif s == ";":
                end, after = j, j + 1
                break
            elif s == "}":
                end, after = j, j
                break
            elif s == "{":
                if has_eq or not head_paren:  # an initializer
                    j = self.match(j) + 1
                    continue
                return self.match(j) + 1  # a function body
            j += 1
        else:
            end = after = len(toks)
        if not templated and any(t.text == "constexpr" for t in toks[i:end]):
            self.declaration(toks[i:end], scope)
        return after

    def declaration(self, toks, scope):
        toks = _without_attributes(toks)
        while len(toks) >= 2 and toks[0].text in ("public", "private", "protected") and toks[1].text == ":":
            toks = toks[2:]
        if any(t.text == "(" for t in toks[:self.first(toks, ("=", "{"))]):
            return  # a function (or a direct initialization, not read)
        chunks = self.split_list(toks)
        first = chunks[0]
        h = self.first(first, ("=", "{", "["))
        if h == 0 or first[h - 1].kind != "id":
            return
        type_tokens = [t for t in first[:h - 1] if t.text not in _SPECIFIERS and t.text != "["]
        if any(t.text in ("*", "&", "&&") for t in type_tokens) or (h < len(first) and first[h].text == "["):
            return
        type_ = self.declared_type(type_tokens, scope)
        if type_ is None:
            return
        declarators = [first[h - 1:]] + chunks[1:]
        for d in declarators:
            if not d or d[0].kind != "id" or (len(d) > 1 and d[1].text == "["):
                continue
            name, rest = d[0], d[1:]
            if not rest:
                continue  # no initializer
            if rest[0].text == "=":
                rest = rest[1:]
            if rest and rest[0].text == "{" and rest[-1].text == "}":
                inner = rest[1:-1]
                if len(self.split_list(inner)) > 1:
                    continue  # an aggregate
                rest = inner if inner else None
            if rest is None:
                value = (0, *(_INT if type_ == "auto" else type_))
            else:
                if type_ == "auto" and not self.integer_expression(rest):
                    continue
                value = self.evaluate(name.text, rest, scope, name.line)
            if type_ != "auto":
                value = _typed(value[0], type_)
            self.add(name.text, scope + (name.text,), value, name.line, "constexpr")

    @staticmethod
    def first(toks, texts):
        """The index of the first token outside brackets whose text is in texts."""
        depth = 0
        for k, t in enumerate(toks):
            if depth == 0 and t.text in texts:
                return k
            if t.text in ("(", "[", "{"):
                depth += 1
            elif t.text in (")", "]", "}"):
                depth -= 1
        return len(toks)

    @staticmethod
    def split_list(toks):
        chunks, chunk, depth = [], [], 0
        for t in toks:
            if t.text in ("(", "[", "{"):
                depth += 1
            elif t.text in (")", "]", "}"):
                depth -= 1
            if t.text == "," and depth == 0:
                chunks.append(chunk)
                chunk = []
            else:
                chunk.append(t)
        chunks.append(chunk)
        return chunks

    @staticmethod
    def integer_expression(toks):
        """False for a value that is not meant as an integer (a string, a float, a
        braced list, an attribute or statement): a macro or auto constant skipped."""
        for t in toks:
            if t.kind == "str" or t.text in ("{", "}", ";", "#", "##", "[") or t.text in _NOT_VALUE_WORDS:
                return False
            if t.kind == "num" and _literal(t.text) == "float":
                return False
        if all(t.text in _TYPE_WORDS or t.text in _FIXED_TYPES or t.text in ("*", "::", "std") for t in toks):
            return False  # a type, not a value
        return True

    def km_macros(self):
        """Evaluate every object-like KM*_* macro as used at the end of the file (or
        just before its #undef). A definition after an #undef replaces the one
        before; two definitions with different values and no #undef between are
        an error (the reader does not know which #if branch is taken)."""
        for name, definitions in self.macros.items():
            if not _is_km_macro(name):
                continue
            current, before = None, None
            for m in definitions:
                if m.function_like or not m.body or not self.integer_expression(m.body):
                    continue
                use_line = m.undef_line if m.undef_line is not None else float("inf")
                self.expanding.append(name)
                try:
                    value = _Expr(self, m.body, (), use_line).parse()
                except _Unreadable as e:
                    raise self.error(m.line, name, m.body, str(e)) from None
                finally:
                    self.expanding.pop()
                if current is None:
                    current = _Constant(name, (name,), value, m.line, "macro")
                    self.constants.append(current)
                elif before.undef_line is not None and before.undef_line < m.line:
                    current.value, current.line = value, m.line
                elif current.value[0] != value[0]:
                    raise HeaderError(f"{self.path}:{m.line}: {name} is defined again with another value "
                                      f"({value[0]}; line {current.line} gave {current.value[0]}): the reader "
                                      "does not evaluate #if, so a constant needs one definition")
                before = m

    def result(self):
        """{name: int}: plain names that are unambiguous, and qualified names."""
        ordered = sorted(self.constants, key=lambda c: c.line)
        values = {}
        for c in ordered:
            values.setdefault(c.name, set()).add(c.value[0])
        out = {}
        for c in ordered:
            if len(values[c.name]) == 1:
                out.setdefault(c.name, c.value[0])
            if len(c.qual) > 1:
                out["::".join(c.qual)] = c.value[0]
        return out


def _without_attributes(toks):
    """toks without [[...]], alignas(...) and __attribute__((...))."""
    out, k = [], 0
    while k < len(toks):
        t = toks[k]
        if t.text == "[" and k + 1 < len(toks) and toks[k + 1].text == "[":
            depth = 0
            while k < len(toks):
                depth += {"[": 1, "]": -1}.get(toks[k].text, 0)
                k += 1
                if depth == 0:
                    break
            continue
        if t.text in ("alignas", "__attribute__", "__declspec") and k + 1 < len(toks) and toks[k + 1].text == "(":
            depth = 0
            k += 1
            while k < len(toks):
                depth += {"(": 1, ")": -1}.get(toks[k].text, 0)
                k += 1
                if depth == 0:
                    break
            continue
        out.append(t)
        k += 1
    return out


def _fundamental(words):
    """(bits, signed) of a fundamental type spelled in words (unsigned long, short int, ...)."""
    count = {w: words.count(w) for w in set(words)}
    if count.get("signed", 0) + count.get("unsigned", 0) > 1 or count.get("short", 0) > 1 or \
            count.get("long", 0) > 2 or count.get("int", 0) > 1 or count.get("char", 0) > 1:
        return None
    if "short" in count and "long" in count or "char" in count and ("short" in count or "long" in count):
        return None
    signed = "unsigned" not in count
    if "char" in count:
        return (8, signed)
    if "short" in count:
        return (16, signed)
    if "long" in count:
        return (64, signed)
    return (32, signed)


def _read(path, known, what):
    """The reader of `path` after reading it whole."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise HeaderError(f"{what}: cannot read {path}: {e.strerror or e}") from None
    reader = _Reader(os.fspath(path), text, known)
    reader.read()
    reader.km_macros()
    return reader


def _known(known, what):
    if known is None:
        return {}
    if not isinstance(known, Mapping):
        raise TypeError(f"{what}: known must be a dict of name -> int (or None), got {_describe(known)}")
    out = {}
    for k, v in known.items():
        if not isinstance(k, str):
            raise TypeError(f"{what}: known's keys must be str names, got {_describe(k)}")
        if isinstance(v, bool) or not hasattr(type(v), "__index__"):
            raise TypeError(f"{what}: known[{k!r}] must be an integer, got {_describe(v)}")
        out[k] = operator.index(v)
    return out


def _describe(value):
    return _check.describe(value)


def _path(path, what):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what}: path must be a str or os.PathLike, got {_describe(path)}")
    return os.fspath(path)


def constants(path: "str | os.PathLike[str]", known: "Mapping[str, int] | None" = None) -> dict[str, int]:
    """Every integer constant of the C/C++ header at `path` as {name: int}: its
    constexprs, its #define KM*_* macros and its enum values (see the module's
    docstring for what is read). `known` ({name: int}, for example
    headers().constants) supplies the constants the header uses from elsewhere.
    Raises HeaderError for a file it cannot read or a constant it cannot evaluate."""
    known = _known(known, "abi.constants")
    return _read(_path(path, "abi.constants"), known, "abi.constants").result()


# ---- The runtime's headers ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headers:
    """The runtime's own ABI: `constants` {name: int} of every header in `paths`
    (persistent.h's also as persistent::kName), a fresh dict per headers() call."""

    constants: dict[str, int]
    paths: tuple[str, ...]


def _include_dir():
    env = os.environ.get("TESSEL_KERNEL_INCLUDE_DIR")
    if env:
        return env
    # python/tessel/dispatch/abi.py in a checkout; the wheel sets the variable.
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "kernel",
                        "include")


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _runtime_headers(abi_path, abi_stamp, persistent_path, persistent_stamp):
    del abi_stamp, persistent_stamp  # part of the cache key only
    abi = _read(abi_path, {}, "abi.headers")
    merged = abi.result()
    paths = [abi_path]
    if persistent_path is not None:
        reader = _read(persistent_path, dict(merged), "abi.headers")
        for name, value in reader.result().items():
            if name in merged and merged[name] != value:
                raise HeaderError(f"abi.headers: {name} is {value} in {persistent_path} but {merged[name]} in "
                                  f"{abi_path}")
            merged[name] = value
        # persistent.h's constants by their C++ names in namespace persistent
        # (also when it lives in tessel::persistent, or in no namespace).
        for c in sorted(reader.constants, key=lambda c: c.line):
            if c.kind == "macro":
                continue
            if "persistent" in c.qual[:-1]:
                merged.setdefault("::".join(c.qual[c.qual.index("persistent"):]), c.value[0])
            elif len(c.qual) == 1:
                merged.setdefault("persistent::" + c.name, c.value[0])
        paths.append(persistent_path)
    return merged, tuple(paths)


def headers() -> Headers:
    """The constants of the runtime's headers: tessel/persistent_abi.h and, when it
    exists, tessel/persistent.h, in $TESSEL_KERNEL_INCLUDE_DIR (or the checkout's
    kernel/include). Parsed once per file version; each call returns its own dict."""
    include = os.path.normpath(_include_dir())
    abi_path = os.path.join(include, "tessel", "persistent_abi.h")
    persistent_path = os.path.join(include, "tessel", "persistent.h")
    abi_stamp = _stamp(abi_path)
    if abi_stamp is None:
        raise HeaderError(f"abi.headers: no tessel/persistent_abi.h in {include} (the kernel include directory: "
                          "set TESSEL_KERNEL_INCLUDE_DIR to the directory that holds tessel/)")
    persistent_stamp = _stamp(persistent_path)
    merged, paths = _runtime_headers(abi_path, abi_stamp, persistent_path if persistent_stamp else None,
                                     persistent_stamp)
    return Headers(dict(merged), paths)


# ---- Handlers -----------------------------------------------------------------------------------------------------

_HANDLER_NAME = re.compile(r"kHandler([A-Z0-9][A-Za-z0-9_]*)")


def _snake(camel):
    """BigStep -> big_step, Step2 -> step2, Step2Go -> step2_go, MatMul2D -> mat_mul2d,
    HTTPGet -> http_get."""
    s = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[0-9A-Z])(?=[A-Z][a-z])", "_", camel).lower()
    return re.sub(r"_+", "_", s).strip("_")


def _handler_number(value, where, what):
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise ProgramError(f"{what}: {where} is {_describe(value)}: {_HANDLER_RULE}")
    v = operator.index(value)
    if not HANDLER_FIRST <= v <= HANDLER_LAST:
        raise ProgramError(f"{what}: {where} is {v}: {_HANDLER_RULE}")
    return v


def handlers(source: "Mapping[str, int] | str | os.PathLike[str]", *, what: str = "Program.handlers") -> dict[str, int]:
    """A program's handlers as {name: number}, from a dict {name: number} (checked)
    or a header whose `constexpr uint32_t kHandlerName = n;` lines give them
    (kHandlerBigStep -> 'big_step', kHandlerStep2 -> 'step2'). Numbers are 1 to 239
    (0 is NOP, 240 to 251 are reserved), names and numbers unique; otherwise
    ProgramError naming the handler, the number and the rule."""
    owners = {}
    out = {}
    if isinstance(source, Mapping):
        for name, value in source.items():
            if not isinstance(name, str) or not name:
                raise ProgramError(f"{what}: a handler name must be a non-empty str, got {_describe(name)}")
            number = _handler_number(value, f"handler {name!r}", what)
            if number in owners:
                raise ProgramError(f"{what}: handlers {owners[number]!r} and {name!r} are both {number}: each "
                                   "handler needs its own number")
            owners[number] = name
            out[name] = number
        return out
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"{what} must be a dict {{name: number}} or a header path, got {_describe(source)}")
    path = os.fspath(source)
    reader = _read(path, headers().constants, what)
    names = {}
    for c in sorted(reader.constants, key=lambda c: c.line):
        m = _HANDLER_NAME.fullmatch(c.name)
        if c.kind != "constexpr" or not m:
            continue
        name = _snake(m.group(1))
        where = f"handler {name!r} ({c.name}, {path}:{c.line})"
        number = _handler_number(c.value[0], where, what)
        if name in names:
            raise ProgramError(f"{what}: {c.name} ({path}:{c.line}) and {names[name].name} (line "
                               f"{names[name].line}) are both handler {name!r}: handler names must be unique")
        if number in owners:
            raise ProgramError(f"{what}: handlers {owners[number]!r} and {name!r} ({path}:{c.line}) are both "
                               f"{number}: each handler needs its own number")
        names[name] = c
        owners[number] = name
        out[name] = number
    return out
