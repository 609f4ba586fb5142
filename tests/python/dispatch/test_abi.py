"""tessel.dispatch.abi: the header reader on every construct it reads (checked
against g++ compiling the same header), each HeaderError message, the
runtime's headers, and handler tables from a dict and from a header."""

import re
import shutil
import subprocess

import numpy as np
import pytest

from tessel.dispatch import abi
from tessel.dispatch.errors import DispatchError, ProgramError

ALL_CONSTRUCTS = r"""// A header with every construct the reader handles.
#pragma once
#include <cstdint>
#include <cstddef>

/* A block comment with // inside and a constexpr uint32_t kFake = 1; */
#define KM_ONE 1u
#define KM_SHIFTED (KM_ONE << 4)   // 16
#define KMD_REJECT_X 9
#define KM_LONG_MACRO (KM_ONE + \
                       2u + \
                       3u)
#define KM_NEG -1
#define KM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define KM_NAME "komorebi"
#define KM_RATIO 1.5f
#define KM_EMPTY
#define KM_PACKED __attribute__((packed))
#define OTHER_MACRO 7
#define KM_FROM_OTHER (OTHER_MACRO * 2)
#define NOT_KM 5
#define KM_LATE (kLater + 1)

constexpr uint32_t kDec = 1'000'000;
constexpr uint32_t kHex = 0xDEAD'BEEFu;
constexpr uint32_t kOct = 0755;
constexpr uint32_t kBin = 0b1010'1010;
constexpr uint64_t kBig = 0xFFFFFFFFFFull;
constexpr int kNegative = -42;
constexpr uint32_t kWrapped = -1;
constexpr int kSigned = 0xFFFFFFFF;
constexpr auto kAllOnes = ~0u;
constexpr auto kMinusOne = ~0;
constexpr uint16_t kSixteen = 0x12345;
constexpr uint8_t kByte = 300;
static constexpr size_t kSize = 4096;
inline constexpr std::uint32_t kStd = 7;
constexpr unsigned long long kULL = 1ULL << 40;
constexpr unsigned kUnsigned = 3, kSecond = kUnsigned * 2;
constexpr int kBraced{12};
constexpr int kBracedEq = {13};
constexpr long kLong = -5L;
constexpr char kChar = 'A';
constexpr uint32_t kCharMath = ('K' << 24) | ('M' << 16) | '\n';
constexpr bool kFlag = true;
constexpr uint32_t kFromMacro = KM_SHIFTED | KM_ONE;
constexpr uint32_t kPrecedence = 1 + 2 * 3 - 8 / 4 % 3 + (1 << 2 >> 1) - (6 & 3 | 8 ^ 1);
constexpr int kDivision = -7 / 2;
constexpr int kRemainder = -7 % 2;
constexpr uint32_t kUnsignedCompare = (-1 < 0u) ? 1 : 2;
constexpr int kLogic = (1 && 0) || !0;
constexpr uint32_t kCast1 = uint32_t(-2);
constexpr uint32_t kCast2 = (uint32_t)-3;
constexpr uint32_t kCast3 = static_cast<uint32_t>(-4) >> 28;
constexpr uint8_t kCast4 = static_cast<uint8_t>(0x1FF) + 1;
constexpr auto kCast5 = static_cast<uint8_t>(0x1FF) + 1;
constexpr int kTernary = kDec > 10 ? kDec / 1000 : 0;
constexpr int kDeadBranch = 1 ? 5 : 1 / 0;
constexpr uint32_t kMultiLine =
    kDec +
    kHex;
constexpr uint32_t kLater = 100;
constexpr float kFloat = 2.5f;
constexpr double kDouble = 1e3;
constexpr const char* kString = "x; constexpr int kNo = 1;";
constexpr uint32_t kArray[] = {1, 2, 3};
constexpr auto kAutoFloat = 1.0;
[[maybe_unused]] constexpr uint32_t kAttributed = 5;

constexpr uint32_t twice(uint32_t x) { constexpr uint32_t kInside = 9; return 2 * x + kInside; }

template <typename T>
struct Traits {
    static constexpr uint32_t kTemplated = sizeof(T);
};

template <typename T> constexpr uint32_t kVariableTemplate = sizeof(T);

namespace outer {
constexpr uint32_t kOuter = 10;
namespace inner {
constexpr uint32_t kInner = kOuter + 1;
constexpr uint32_t kShadow = 1;
}  // namespace inner
constexpr uint32_t kShadow = 2;
constexpr uint32_t kUseInner = inner::kInner * 2;
}  // namespace outer

namespace a::b {
constexpr uint32_t kNested = ::outer::kOuter + outer::inner::kInner;
}

namespace {
constexpr uint32_t kAnonymous = 77;
}

struct Layout {
    static constexpr uint32_t kFieldBytes = 64;
    uint32_t x;
    void f() { int y = 0; (void)y; }
  public:
    static constexpr uint32_t kFields = 3;
};
constexpr uint32_t kTotal = Layout::kFieldBytes * Layout::kFields;

enum Plain { kZero, kOneE, kFive = 5, kSix, kTen = kFive * 2, kEleven };
enum class Color : uint8_t { Red = 1, Green, Blue = Green + 10 };
enum class Wide : uint32_t { kTop = 0xFFFFFFFFu };
enum : int { kAnonEnum = -3, kAnonNext };
typedef enum { kTypedefA = 4, kTypedefB } TypedefEnum;
constexpr uint32_t kFromEnum = static_cast<uint32_t>(Color::Blue) + kSix;
constexpr Color kDefaultColor = Color::Green;

extern "C" {
constexpr uint32_t kExternC = 5;
}
"""

# Checked by hand and by test_constants_match_gxx.
ALL_CONSTRUCTS_VALUES = {
    "KM_ONE": 1, "KM_SHIFTED": 16, "KMD_REJECT_X": 9, "KM_LONG_MACRO": 6, "KM_NEG": -1, "KM_FROM_OTHER": 14,
    "KM_LATE": 101,
    "kDec": 1000000, "kHex": 0xDEADBEEF, "kOct": 0o755, "kBin": 0b10101010, "kBig": 0xFFFFFFFFFF, "kNegative": -42,
    "kWrapped": 0xFFFFFFFF, "kSigned": -1, "kAllOnes": 0xFFFFFFFF, "kMinusOne": -1, "kSixteen": 0x2345,
    "kByte": 44, "kSize": 4096, "kStd": 7, "kULL": 1 << 40, "kUnsigned": 3, "kSecond": 6, "kBraced": 12,
    "kBracedEq": 13, "kLong": -5, "kChar": 65, "kCharMath": (75 << 24) | (77 << 16) | 10, "kFlag": 1,
    "kFromMacro": 17, "kPrecedence": 2**32 - 4, "kDivision": -3, "kRemainder": -1, "kUnsignedCompare": 2,
    "kLogic": 1, "kCast1": 2**32 - 2, "kCast2": 2**32 - 3, "kCast3": 15, "kCast4": 0, "kCast5": 256,
    "kTernary": 1000, "kDeadBranch": 5, "kMultiLine": 1000000 + 0xDEADBEEF, "kLater": 100, "kAttributed": 5,
    "kOuter": 10, "outer::kOuter": 10, "kInner": 11, "outer::inner::kInner": 11, "outer::inner::kShadow": 1,
    "outer::kShadow": 2, "kUseInner": 22, "outer::kUseInner": 22, "kNested": 21, "a::b::kNested": 21,
    "kAnonymous": 77, "kFieldBytes": 64, "Layout::kFieldBytes": 64, "kFields": 3, "Layout::kFields": 3,
    "kTotal": 192,
    "kZero": 0, "kOneE": 1, "kFive": 5, "kSix": 6, "kTen": 10, "kEleven": 11,
    "Red": 1, "Color::Red": 1, "Green": 2, "Color::Green": 2, "Blue": 12, "Color::Blue": 12,
    "kTop": 0xFFFFFFFF, "Wide::kTop": 0xFFFFFFFF, "kAnonEnum": -3, "kAnonNext": -2, "kTypedefA": 4,
    "kTypedefB": 5, "kFromEnum": 18, "kDefaultColor": 2, "kExternC": 5,
}


@pytest.fixture
def header(tmp_path):
    def write(text, name="h.hpp"):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def test_every_construct(header):
    got = abi.constants(header(ALL_CONSTRUCTS))
    assert got == ALL_CONSTRUCTS_VALUES
    # File order, and nothing the reader must skip.
    assert list(got)[:3] == ["KM_ONE", "KM_SHIFTED", "KMD_REJECT_X"]
    for skipped in ("kFake", "KM_MAX", "KM_NAME", "KM_RATIO", "KM_EMPTY", "KM_PACKED", "OTHER_MACRO", "NOT_KM",
                    "kFloat", "kDouble", "kString", "kNo", "kArray", "kAutoFloat", "kInside", "kTemplated",
                    "kVariableTemplate", "kShadow"):
        assert skipped not in got


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_constants_match_gxx(header, tmp_path):
    """Every constant as g++ evaluates it (by its qualified name where it has one)."""
    path = header(ALL_CONSTRUCTS)
    got = abi.constants(path)
    names = [k for k in got if "::" in k or not any(q.endswith("::" + k) for q in got)]
    lines = [f'#include "{path}"', "#include <cstdio>", "#include <type_traits>",
             "template <typename T> void show(const char* n, T v) {",
             "  if constexpr (std::is_enum_v<T>) show(n, static_cast<std::underlying_type_t<T>>(v));",
             '  else if constexpr (std::is_unsigned_v<T>) std::printf("%s %llu\\n", n, (unsigned long long)v);',
             '  else std::printf("%s %lld\\n", n, (long long)v);', "}", "int main() {"]
    lines += [f'  show("{n}", {n});' for n in names] + ["}"]
    (tmp_path / "main.cpp").write_text("\n".join(lines) + "\n")
    subprocess.run(["g++", "-std=c++20", "-w", "-o", str(tmp_path / "main"), str(tmp_path / "main.cpp")],
                   check=True, timeout=120)
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True, timeout=30).stdout
    compiled = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()}
    assert len(names) == 73
    assert compiled == {n: got[n] for n in names}


def test_known_by_plain_and_qualified_names(header):
    path = header("constexpr uint32_t kA = persistent::kBroadcastArgs + 1;\n"
                  "constexpr uint32_t kB = ::persistent::kBroadcastArgs;\n"
                  "constexpr uint32_t kC = km::kBroadcastArgs;\n"
                  "constexpr uint32_t kD = KM_FLAG_RESULT | kPlain;\n"
                  "constexpr uint32_t kE = ns::kOnlyQualified;\n"
                  "constexpr uint32_t kF = ~kHigh;\n")
    known = {"persistent::kBroadcastArgs": 6, "kBroadcastArgs": 6, "KM_FLAG_RESULT": 4, "kPlain": 8,
             "ns::kOnlyQualified": 3, "kHigh": np.uint32(0xFFFFFFF0)}
    assert abi.constants(path, known=known) == {"kA": 7, "kB": 6, "kC": 6, "kD": 12, "kE": 3, "kF": 15}
    # The file's own constants come before known ones.
    path = header("constexpr int kPlain = 1;\nconstexpr int kX = kPlain;\n", "own.hpp")
    assert abi.constants(path, known={"kPlain": 99})["kX"] == 1


def test_macros_expand_where_they_are_used(header):
    path = header("#define KM_A (kB * 2)\n"
                  "constexpr int kB = 3;\n"
                  "constexpr int kC = KM_A;\n"
                  "#undef KM_A\n"
                  "#define KM_A 7\n"
                  "namespace ns { constexpr int kD = 4; }\n"
                  "#define KM_D (kD + 1)\n"
                  "#define KM_SAME 1\n"
                  "#define KM_SAME 1\n")
    assert abi.constants(path) == {"KM_A": 7, "kB": 3, "kC": 6, "kD": 4, "ns::kD": 4, "KM_D": 5, "KM_SAME": 1}


def test_ambiguous_plain_names_are_offered_qualified(header):
    path = header("namespace a { constexpr int kX = 1; }\n"
                  "namespace b { constexpr int kX = 2; }\n"
                  "namespace c { constexpr int kX = 2; }\n"
                  "constexpr int kY = a::kX + b::kX;\n")
    assert abi.constants(path) == {"a::kX": 1, "b::kX": 2, "c::kX": 2, "kY": 3}


def test_the_runtimes_header_as_the_host_reads_it():
    h = abi.headers()
    assert h.paths[0].endswith("tessel/persistent_abi.h")
    c = h.constants
    assert (c["KM_HANDLER_FIRST"], c["KM_HANDLER_LAST"]) == (abi.HANDLER_FIRST, abi.HANDLER_LAST)
    assert (c["KM_HANDLER_RESERVED_FIRST"], c["KM_HANDLER_RESERVED_LAST"]) == (240, 251)
    assert (c["KM_FLAG_RESERVED"], c["KM_FLAG_EXCLUSIVE"], c["KM_FLAG_RESULT"], c["KM_FLAG_QUEUE"]) == (1, 2, 4, 8)
    assert (c["KMD_REJECT_HANDLER"], c["KMD_REJECT_GROUP"], c["KMD_REJECT_QUEUE"]) == (1, 3, 9)
    assert (c["KM_CB_TOKEN_COMPUTE"], c["KM_CB_TOKEN_WRITER"], c["KM_CB_TRACE"]) == (29, 30, 31)
    # Every #define KM*_* of the header, counted independently of the reader.
    with open(h.paths[0]) as f:
        defines = {m.group(1) for m in re.finditer(r"^\s*#\s*define\s+(KM\w*_\w*)\s+\S", f.read(), re.M)}
    assert defines and defines <= set(c)
    # Each call hands out its own dict.
    c["KM_FLAG_RESULT"] = 0
    assert abi.headers().constants["KM_FLAG_RESULT"] == 4


def test_headers_read_persistent_h_and_cache(tmp_path, monkeypatch):
    include = tmp_path / "include"
    (include / "tessel").mkdir(parents=True)
    (include / "tessel" / "persistent_abi.h").write_text("#define KM_ARGS_MAX 10u\n")
    persistent = include / "tessel" / "persistent.h"
    persistent.write_text('#include "tessel/persistent_abi.h"\n'
                          "namespace persistent {\n"
                          "constexpr uint32_t kBroadcastArgs = KM_ARGS_MAX - 4;\n"
                          "enum class Port : uint32_t { kIn = 1, kOut };\n"
                          "}\n")
    monkeypatch.setenv("TESSEL_KERNEL_INCLUDE_DIR", str(include))
    h = abi.headers()
    assert h.paths == (str(include / "tessel" / "persistent_abi.h"), str(persistent))
    assert h.constants == {"KM_ARGS_MAX": 10, "kBroadcastArgs": 6, "persistent::kBroadcastArgs": 6, "kIn": 1,
                           "persistent::Port::kIn": 1, "kOut": 2, "persistent::Port::kOut": 2}
    hits = abi._runtime_headers.cache_info().hits
    abi.headers()
    assert abi._runtime_headers.cache_info().hits == hits + 1
    # The spec's use: a program's header naming the package's constants by their C++ names.
    program = tmp_path / "program.hpp"
    program.write_text("constexpr uint32_t kArgs = persistent::kBroadcastArgs + 2;\n"
                       "constexpr uint32_t kPort = static_cast<uint32_t>(persistent::Port::kOut);\n")
    assert abi.constants(program, known=abi.headers().constants) == {"kArgs": 8, "kPort": 2}
    # A changed header is read again.
    persistent.write_text("namespace persistent { constexpr uint32_t kBroadcastArgs = 123; }\n")
    assert abi.headers().constants["persistent::kBroadcastArgs"] == 123
    # persistent.h without a namespace: still offered as persistent::kName.
    persistent.write_text("constexpr uint32_t kLoose = 5;\n")
    assert abi.headers().constants == {"KM_ARGS_MAX": 10, "kLoose": 5, "persistent::kLoose": 5}
    persistent.unlink()
    assert abi.headers().paths == (str(include / "tessel" / "persistent_abi.h"),)


def test_headers_without_the_include_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_KERNEL_INCLUDE_DIR", str(tmp_path))
    with pytest.raises(abi.HeaderError) as e:
        abi.headers()
    assert str(e.value) == (f"abi.headers: no tessel/persistent_abi.h in {tmp_path} (the kernel include directory: "
                            "set TESSEL_KERNEL_INCLUDE_DIR to the directory that holds tessel/)")


ERRORS = [
    ("unknown-name", "constexpr uint32_t kA = 1;\nconstexpr uint32_t kB = kA + kMissing;\n",
     "{path}:2: cannot evaluate kB = kA + kMissing: 'kMissing' is not defined earlier in the file or in known"),
    ("defined-later", "constexpr uint32_t kB = kA;\nconstexpr uint32_t kA = 1;\n",
     "{path}:1: cannot evaluate kB = kA: 'kA' is not defined earlier in the file or in known"),
    ("sizeof", "#define KM_SIZE (sizeof(int) * 2)\n",
     "{path}:1: cannot evaluate KM_SIZE = (sizeof(int) * 2): sizeof is not supported"),
    ("division-by-zero", "constexpr int kX = 4 / (2 - 2);\n",
     "{path}:1: cannot evaluate kX = 4 / (2 - 2): division by zero"),
    ("shift", "constexpr uint32_t kX = 1u << 32;\n",
     "{path}:1: cannot evaluate kX = 1u << 32: shift count 32 is outside 0..31 for a 32-bit operand"),
    ("call", "constexpr uint32_t kX = twice(3);\n",
     "{path}:1: cannot evaluate kX = twice(3): 'twice(...)' is a call: function calls and function-like macros "
     "are not supported"),
    ("function-like-macro", "#define SQUARE(x) ((x) * (x))\nconstexpr uint32_t kX = SQUARE(3);\n",
     "{path}:2: cannot evaluate kX = SQUARE(3): 'SQUARE(...)' is a call: function calls and function-like macros "
     "are not supported"),
    ("junk", "constexpr uint32_t kX = 1 2;\n", "{path}:1: cannot evaluate kX = 1 2: unexpected '2'"),
    ("bad-literal", "constexpr uint32_t kX = 09;\n",
     "{path}:1: cannot evaluate kX = 09: '09' is not an integer literal"),
    ("float-in-integer", "constexpr uint32_t kX = 1.5 * 2;\n",
     "{path}:1: cannot evaluate kX = 1.5 * 2: '1.5' is not an integer"),
    ("in-a-macro", "#define INNER (kNope + 1)\n#define KM_OUTER (INNER * 2)\n",
     "{path}:2: cannot evaluate KM_OUTER = (INNER * 2): 'kNope' is not defined earlier in the file or in known "
     "(in INNER = (kNope + 1), line 1)"),
    ("self-reference", "#define KM_SELF (KM_SELF + 1)\n",
     "{path}:1: cannot evaluate KM_SELF = (KM_SELF + 1): 'KM_SELF' refers to itself"),
    ("empty-macro", "#define EMPTY\nconstexpr int kX = EMPTY;\n",
     "{path}:2: cannot evaluate kX = EMPTY: 'EMPTY' is defined empty (line 1)"),
    ("macro-redefined", "#ifdef A\n#define KM_X 1\n#else\n#define KM_X 2\n#endif\n",
     "{path}:4: KM_X is defined again with another value (2; line 2 gave 1): the reader does not evaluate #if, "
     "so a constant needs one definition"),
    ("constexpr-redefined", "namespace a { constexpr int kX = 1; }\nnamespace a { constexpr int kX = 2; }\n",
     "{path}:2: a::kX is defined again with another value (2; line 1 gave 1): the reader does not evaluate #if, "
     "so a constant needs one definition"),
    ("open-comment", "constexpr int kX = 1;\n/* never closed\n", "{path}:2: a /* comment is not closed"),
    ("missing-parenthesis", "constexpr int kX = (1 + 2;\n",
     "{path}:1: cannot evaluate kX = (1 + 2;: expected ')', got ';'"),
    ("type-as-value", "constexpr int kX = uint32_t;\n",
     "{path}:1: cannot evaluate kX = uint32_t: 'uint32_t' is a type, not a value"),
    ("enumerator", "enum E { kA = kB };\n",
     "{path}:1: cannot evaluate kA = kB: 'kB' is not defined earlier in the file or in known"),
    ("too-large", "constexpr auto kX = 99999999999999999999999;\n",
     "{path}:1: cannot evaluate kX = 99999999999999999999999: '99999999999999999999999' is too large for any "
     "integer type"),
    ("multi-character", "constexpr int kX = 'ab';\n",
     "{path}:1: cannot evaluate kX = 'ab': 'ab' is not a one-character literal"),
    ("template", "constexpr uint32_t kX = std::numeric_limits<uint32_t>::max();\n",
     "{path}:1: cannot evaluate kX = std::numeric_limits<uint32_t>::max(): 'std::numeric_limits' is not defined "
     "earlier in the file or in known"),
    ("string", "constexpr int kX = \"ab\"[0];\n", "{path}:1: cannot evaluate kX = \"ab\"[0]: \"ab\" is a string"),
    ("reinterpret", "constexpr uint32_t kX = reinterpret_cast<uint32_t>(1);\n",
     "{path}:1: cannot evaluate kX = reinterpret_cast<uint32_t>(1): reinterpret_cast is not supported"),
]


@pytest.mark.parametrize("text,message", [(t, m) for _, t, m in ERRORS], ids=[i for i, _, _ in ERRORS])
def test_header_errors(header, text, message):
    path = header(text)
    with pytest.raises(abi.HeaderError) as e:
        abi.constants(path)
    assert str(e.value) == message.format(path=path)
    assert isinstance(e.value, DispatchError) and isinstance(e.value, ValueError)


def test_missing_header(tmp_path):
    with pytest.raises(abi.HeaderError) as e:
        abi.constants(tmp_path / "nope.h")
    assert str(e.value) == f"abi.constants: cannot read {tmp_path / 'nope.h'}: No such file or directory"


# ---- Handlers ----------------------------------------------------------------------------------------------------

RULE = "handler numbers are 1 to 239: 0 is NOP, 240 to 251 are reserved"


def test_handlers_from_a_dict():
    assert abi.handlers({"step": 1, "big_step": np.uint8(2), "last": 239}) == {"step": 1, "big_step": 2, "last": 239}
    assert type(abi.handlers({"a": np.int64(5)})["a"]) is int
    assert abi.handlers({}) == {}


@pytest.mark.parametrize("number,shown", [(0, "0"), (240, "240"), (251, "251"), (252, "252"), (-1, "-1"),
                                          (True, "True (bool)"), (2.0, "2.0 (float)"), ("3", "'3' (str)")])
def test_handler_numbers_out_of_range(number, shown):
    with pytest.raises(ProgramError) as e:
        abi.handlers({"ok": 1, "step": number})
    assert str(e.value) == f"Program.handlers: handler 'step' is {shown}: {RULE}"


def test_handler_dict_errors():
    with pytest.raises(ProgramError) as e:
        abi.handlers({"a": 3, "b": 4, "c": 3})
    assert str(e.value) == "Program.handlers: handlers 'a' and 'c' are both 3: each handler needs its own number"
    with pytest.raises(ProgramError) as e:
        abi.handlers({"": 3})
    assert str(e.value) == "Program.handlers: a handler name must be a non-empty str, got '' (str)"
    with pytest.raises(ProgramError) as e:
        abi.handlers({7: 3})
    assert str(e.value) == "Program.handlers: a handler name must be a non-empty str, got 7 (int)"


def test_handlers_from_a_header(header):
    path = header("#include \"tessel/persistent_abi.h\"\n"
                  "#define KM_HANDLER_MINE 9\n"
                  "constexpr uint32_t kHandlers = 4;            // not a handler: no capital after kHandler\n"
                  "constexpr uint32_t kHandlerBigStep = KM_HANDLER_FIRST;\n"
                  "namespace prog {\n"
                  "constexpr uint32_t kHandlerStep2 = 7;\n"
                  "constexpr uint32_t kHandlerStep2Go = 8;\n"
                  "constexpr uint32_t kHandlerHTTPGet = 0x10;\n"
                  "constexpr uint32_t kHandlerMatMul2D = KM_HANDLER_LAST;\n"
                  "}\n"
                  "enum Other { kHandlerEnumValue = 3 };\n"
                  "constexpr uint32_t kOther = 4;\n")
    assert abi.handlers(path) == {"big_step": 1, "step2": 7, "step2_go": 8, "http_get": 16, "mat_mul2d": 239}


def test_handler_header_errors(header):
    path = header("constexpr uint32_t kHandlerStep = 1;\nconstexpr uint32_t kHandlerBigStep = 240;\n")
    with pytest.raises(ProgramError) as e:
        abi.handlers(path)
    assert str(e.value) == f"Program.handlers: handler 'big_step' (kHandlerBigStep, {path}:2) is 240: {RULE}"
    path = header("constexpr uint32_t kHandlerStep = 0;\n", "zero.hpp")
    with pytest.raises(ProgramError) as e:
        abi.handlers(path)
    assert str(e.value) == f"Program.handlers: handler 'step' (kHandlerStep, {path}:1) is 0: {RULE}"
    path = header("constexpr uint32_t kHandlerA = 3;\nconstexpr uint32_t kHandlerB = 3;\n", "same.hpp")
    with pytest.raises(ProgramError) as e:
        abi.handlers(path)
    assert str(e.value) == (f"Program.handlers: handlers 'a' and 'b' ({path}:2) are both 3: each handler needs its "
                            "own number")
    path = header("constexpr uint32_t kHandlerFooBar = 3;\nconstexpr uint32_t kHandlerFoo_Bar = 4;\n", "names.hpp")
    with pytest.raises(ProgramError) as e:
        abi.handlers(path)
    assert str(e.value) == (f"Program.handlers: kHandlerFoo_Bar ({path}:2) and kHandlerFooBar (line 1) are both "
                            "handler 'foo_bar': handler names must be unique")
    path = header("constexpr uint32_t kHandlerA = kNowhere;\n", "unknown.hpp")
    with pytest.raises(abi.HeaderError) as e:
        abi.handlers(path)
    assert str(e.value) == (f"{path}:1: cannot evaluate kHandlerA = kNowhere: 'kNowhere' is not defined earlier in "
                            "the file or in known")
