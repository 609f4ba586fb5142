"""The dispatch ABI's header reader: scopes (namespaces, structs, enums),
macros, constexpr constants and enum values of one header, each evaluated
with header_expr (abi.py's docstring has the rules)."""

from .header_expr import (_FIXED_TYPES, _INT, _NOT_VALUE_WORDS, _QUALIFIERS, _SPECIFIERS, _TYPE_WORDS, HeaderError,
                          _Expr, _known_value, _literal, _promote, _scan, _source, _typed, _Unreadable)


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
