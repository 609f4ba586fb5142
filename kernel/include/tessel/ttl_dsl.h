// Helpers for the kernels tessel.ttl compiles from TT-Lang's Python DSL
// (python/tessel/ttl/compiler.py): Python's integer semantics, the checks of
// the DSL's block states, and block <-> tensor-slice copies. Generated code
// passes the Python file and line of the DSL statement (through #line), so
// every failure here names the Python line. Data-movement kernels include
// the dataflow API first (the copies need it).
#ifndef TESSEL_TTL_DSL_H
#define TESSEL_TTL_DSL_H

#include "tessel/bf16_round.h"
#include "tessel/kernel_common.h"

namespace ttl_dsl {

[[noreturn]] inline void fail(const char* message, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
  __builtin_unreachable();
}

// A message built in the kernel (no allocation): text and integers.
struct Message {
  char text[384];
  uint32_t n = 0;
  Message& operator<<(const char* s) {
    while (*s && n + 1 < sizeof(text))
      text[n++] = *s++;
    text[n] = 0;
    return *this;
  }
  Message& operator<<(int32_t v) {
    char digits[12];
    uint32_t d = 0;
    uint32_t u = v < 0 ? uint32_t(0) - uint32_t(v) : uint32_t(v);
    do {
      digits[d++] = char('0' + u % 10);
      u /= 10;
    } while (u);
    if (v < 0 && n + 1 < sizeof(text)) text[n++] = '-';
    while (d && n + 1 < sizeof(text))
      text[n++] = digits[--d];
    text[n] = 0;
    return *this;
  }
};

// A float's bits (the SFPU ops' float parameters).
inline uint32_t bits(float value) {
  uint32_t b;
  __builtin_memcpy(&b, &value, 4);
  return b;
}

// Python's // and % on integers (rounding toward negative infinity).
inline int32_t floordiv(int32_t a, int32_t b, const char* file, uint32_t line) {
  if (b == 0) fail("integer division or modulo by zero", file, line);
  int32_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int32_t mod(int32_t a, int32_t b, const char* file, uint32_t line) {
  if (b == 0) fail("integer division or modulo by zero", file, line);
  int32_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int32_t pow(int32_t a, int32_t b, const char* file, uint32_t line) {
  if (b < 0) fail("a negative integer power in a kernel (the result is a float in Python)", file, line);
  int32_t r = 1;
  while (b-- > 0)
    r *= a;
  return r;
}

// A block's state (TT-Lang's block states): what the DSL statements may do
// with it next. ROR counts the copies reading it. Pushing or copying out a
// reserved block nothing wrote runs on silicon (it sends whatever the CB
// held), so it is not a failure here.
enum State : uint8_t {
  kReleased = 0,   // pushed or popped (OS)
  kFresh = 1,      // reserved, not written (MW)
  kFull = 2,       // written, or waited (MR)
  kRead = 3,       // read by a completed copy or an expression (RW)
  kCopyReads = 4,  // a copy reads it (ROR)
  kCopyWrites = 5, // a copy writes it (NAW)
};

struct Block {
  uint8_t state = kReleased;
  uint8_t readers = 0;       // copies reading it
  uint32_t copy_line = 0;    // the line of the copy that reads or writes it
  const char* name = "";     // the Python variable
  const char* dfb = "";      // its dataflow buffer's variable
  uint32_t acquire_line = 0; // where it was reserved or waited
};

inline void used_after_release(const Block& b, const char* what, const char* file, uint32_t line) {
  Message m;
  m << what << ": block '" << b.name << "' of dataflow buffer '" << b.dfb
    << "' was already released (pushed or popped); reserve() or wait() a new block";
  fail(m.text, file, line);
}

// A copy is about to write the block.
inline void copy_writes(Block& b, const char* file, uint32_t line) {
  if (b.state == kReleased) used_after_release(b, "ttl.copy", file, line);
  if (b.state == kCopyWrites || b.state == kCopyReads) {
    Message m;
    m << "ttl.copy into block '" << b.name << "' while a copy " << (b.state == kCopyWrites ? "into" : "from")
      << " it (requested at line " << int32_t(b.copy_line) << ") is in flight: wait() for that copy first (copy lock)";
    fail(m.text, file, line);
  }
  b.state = kCopyWrites;
  b.copy_line = line;
}

// A copy is about to read the block.
inline void copy_reads(Block& b, const char* file, uint32_t line) {
  if (b.state == kReleased) used_after_release(b, "ttl.copy", file, line);
  if (b.state == kCopyWrites) {
    Message m;
    m << "ttl.copy from block '" << b.name << "' while the copy into it (requested at line " << int32_t(b.copy_line)
      << ") is in flight: wait() for that copy before reading the block";
    fail(m.text, file, line);
  }
  b.state = kCopyReads;
  ++b.readers;
  b.copy_line = line;
}

// The copy's wait() completed.
inline void copy_done(Block& b, bool wrote) {
  if (wrote) {
    if (b.state == kCopyWrites) b.state = kFull;
  } else if (b.state == kCopyReads && --b.readers == 0) {
    b.state = kRead;
  }
}

// A compute statement reads the block (an operand of an expression).
inline void compute_reads(Block& b, const char* file, uint32_t line) {
  if (b.state == kReleased) used_after_release(b, "a block expression", file, line);
  if (b.state == kFresh) {
    Message m;
    m << "block '" << b.name << "' is read before anything was stored into it (reserved at line "
      << int32_t(b.acquire_line) << "): its contents are undefined";
    fail(m.text, file, line);
  }
  if (b.state == kFull) b.state = kRead;
}

// store() writes the block.
inline void compute_writes(Block& b, const char* file, uint32_t line) {
  if (b.state == kReleased) used_after_release(b, "store()", file, line);
  b.state = kFull;
}

// push() or pop().
inline void release(Block& b, bool push, const char* file, uint32_t line) {
  const char* what = push ? "push()" : "pop()";
  if (b.state == kReleased) used_after_release(b, what, file, line);
  if (b.state == kCopyWrites || b.state == kCopyReads) {
    Message m;
    m << what << " of block '" << b.name << "' while a copy " << (b.state == kCopyWrites ? "into" : "from")
      << " it (requested at line " << int32_t(b.copy_line) << ") is in flight: wait() for the copy first";
    fail(m.text, file, line);
  }
  b.state = kReleased;
}

inline void acquire(Block& b, bool reserved, const char* name, const char* dfb, uint32_t line) {
  b.state = reserved ? kFresh : kFull;
  b.readers = 0;
  b.name = name;
  b.dfb = dfb;
  b.acquire_line = line;
}

// ttl.raw_element_read / raw_element_write / read_index: one element of a
// block in L1, by one coordinate per block dimension, in elements (a block of
// tiles counts its leading dimensions in matrices of tiles and its last two
// in elements). A block of tiles stores each 32x32 tile as four 16x16
// faces, row-major within each face; a row-major block its rows one after
// the other.
struct Coords {
  int32_t v[8];
  uint32_t n;
};
struct ElementSite {
  uint32_t l1;            // the block's first byte
  Coords extents;         // the block's shape in the coordinates' units
  uint32_t element_bytes; // 2 (bfloat16) or 4 (float32, int32, uint32)
  bool tiled;             // a block of tiles (else row-major)
  const char* what;       // the DSL call
};
inline uint32_t element_address(Block& b, const ElementSite& e, const Coords& at, bool write, const char* file,
                                uint32_t line) {
  if (b.state == kReleased) used_after_release(b, e.what, file, line);
  if (b.state == kCopyWrites || (write && b.state == kCopyReads)) {
    Message m;
    m << e.what << ": block '" << b.name << "' while a copy " << (b.state == kCopyWrites ? "into" : "from")
      << " it (requested at line " << int32_t(b.copy_line) << ") is in flight: wait() for the copy first";
    fail(m.text, file, line);
  }
  if (!write && b.state == kFresh) {
    Message m;
    m << e.what << ": block '" << b.name << "' is read before anything was written into it (reserved at line "
      << int32_t(b.acquire_line) << "): its contents are undefined";
    fail(m.text, file, line);
  }
  for (uint32_t i = 0; i < at.n; ++i)
    if (at.v[i] < 0 || at.v[i] >= e.extents.v[i]) {
      Message m;
      m << e.what << ": element (";
      for (uint32_t j = 0; j < at.n; ++j)
        (m << (j ? ", " : "")) << at.v[j];
      m << ") is outside block '" << b.name << "' of ";
      for (uint32_t j = 0; j < at.n; ++j)
        (m << (j ? "x" : "")) << e.extents.v[j];
      m << (e.tiled && at.n > 2 ? " (matrices of tiles, then elements)" : " elements");
      fail(m.text, file, line);
    }
  if (write) b.state = kFull;
  // The row among all the block's rows, and the column.
  const uint32_t n = at.n;
  uint32_t row = n >= 2 ? uint32_t(at.v[n - 2]) : 0, rows = n >= 2 ? uint32_t(e.extents.v[n - 2]) : 1;
  for (uint32_t i = n >= 2 ? n - 2 : 0; i-- > 0;) {
    row += uint32_t(at.v[i]) * rows;
    rows *= uint32_t(e.extents.v[i]);
  }
  const uint32_t col = uint32_t(at.v[n - 1]), cols = uint32_t(e.extents.v[n - 1]);
  uint32_t index;
  if (e.tiled) {
    const uint32_t tile = (row / 32) * (cols / 32) + col / 32;
    const uint32_t tr = row % 32, tc = col % 32;
    index = tile * 1024 + ((tr / 16) * 2 + tc / 16) * 256 + (tr % 16) * 16 + tc % 16;
  } else {
    index = row * cols + col;
  }
  return e.l1 + index * e.element_bytes;
}
// format: 0 float32, 1 bfloat16.
inline float element_read(uint32_t address, uint32_t format) {
  uint32_t v = format == 1 ? uint32_t(*reinterpret_cast<volatile uint16_t*>(address)) << 16
                           : *reinterpret_cast<volatile uint32_t*>(address);
  float f;
  __builtin_memcpy(&f, &v, 4);
  return f;
}
inline void element_write(uint32_t address, uint32_t format, float value) {
  uint32_t v = bits(value);
  if (format == 1) {
    *reinterpret_cast<volatile uint16_t*>(address) = tessel_bf16::from_float_bits(v); // nearest, ties to even
    return;
  }
  *reinterpret_cast<volatile uint32_t*>(address) = v;
}
// format: 2 int32, 3 uint32. A kernel's integers are int32: a uint32 element
// of 2^31 or more does not fit one.
inline int32_t element_read_int(uint32_t address, uint32_t format, const Block& b, const char* what, const char* file,
                                uint32_t line) {
  const uint32_t v = *reinterpret_cast<volatile uint32_t*>(address);
  if (format == 3 && v > 0x7FFFFFFFu) {
    Message m;
    m << what << ": an element of block '" << b.name
      << "' is 2^31 or more, beyond a kernel's 32-bit signed integers";
    fail(m.text, file, line);
  }
  return int32_t(v);
}
inline void element_write_int(uint32_t address, uint32_t format, int32_t value, const Block& b, const char* file,
                              uint32_t line) {
  if (format == 3 && value < 0) {
    Message m;
    m << "ttl.raw_element_write: " << value << " into uint32 block '" << b.name << "': a negative value";
    fail(m.text, file, line);
  }
  *reinterpret_cast<volatile uint32_t*>(address) = uint32_t(value);
}
// read_index of a float block: the element must be a non-negative integer.
inline int32_t element_index(float f, const Block& b, const char* file, uint32_t line) {
  if (!(f >= 0.0f) || f != float(int32_t(f)) || f > 2147483520.0f) {
    Message m;
    m << "ttl.read_index: an element of block '" << b.name
      << "' is not a non-negative integer, so it cannot index a tensor";
    fail(m.text, file, line);
  }
  return int32_t(f);
}
inline int32_t int_index(int32_t v, const Block& b, const char* file, uint32_t line) {
  if (v < 0) {
    Message m;
    m << "ttl.read_index: an element of block '" << b.name << "' is " << v << ", a negative index";
    fail(m.text, file, line);
  }
  return v;
}

// A tensor slice [r0:r0+rows, c0:c0+cols] (in pages: tiles, or rows of a
// row-major tensor, with a byte offset and length within the row) is in the
// tensor and has the block's shape.
inline void check_slice(const char* tensor, int32_t r0, int32_t r1, int32_t c0, int32_t c1, int32_t tensor_rows,
                        int32_t tensor_cols, int32_t block_rows, int32_t block_cols, const char* unit, const char* file,
                        uint32_t line) {
  if (r0 < 0 || c0 < 0 || r1 > tensor_rows || c1 > tensor_cols || r0 >= r1 || c0 >= c1) {
    Message m;
    m << "ttl.copy: the slice " << tensor << "[" << r0 << ":" << r1 << ", " << c0 << ":" << c1 << "] is "
      << (r0 >= r1 || c0 >= c1 ? "empty" : "outside the tensor") << " (" << tensor << " is " << tensor_rows << "x"
      << tensor_cols << " " << unit << ")";
    fail(m.text, file, line);
  }
  if (r1 - r0 != block_rows || c1 - c0 != block_cols) {
    Message m;
    m << "ttl.copy: the slice " << tensor << "[" << r0 << ":" << r1 << ", " << c0 << ":" << c1 << "] is " << (r1 - r0)
      << "x" << (c1 - c0) << " " << unit << " and the block " << block_rows << "x" << block_cols
      << ": their shapes differ";
    fail(m.text, file, line);
  }
}
inline void check_index(const char* tensor, int32_t dim, int32_t index, int32_t size, const char* file, uint32_t line) {
  if (index < 0 || index >= size) {
    Message m;
    m << "ttl.copy: index " << index << " of dimension " << dim << " of " << tensor << " is outside 0.." << size - 1;
    fail(m.text, file, line);
  }
}

#ifdef TESSEL_DATAFLOW_H
// Tiles [first + r * stride + c] for r < rows, c < cols, to or from
// consecutive tiles at l1.
template <typename Accessor>
inline void read_tiles(const Accessor& a, uint32_t l1, uint32_t tile_bytes, uint32_t first, uint32_t stride,
                       uint32_t rows, uint32_t cols, const char* file, uint32_t line) {
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c, l1 += tile_bytes)
      noc_async_read_page(first + r * stride + c, a, l1, 0, noc_index, file, line);
}
template <typename Accessor>
inline void write_tiles(const Accessor& a, uint32_t l1, uint32_t tile_bytes, uint32_t first, uint32_t stride,
                        uint32_t rows, uint32_t cols, const char* file, uint32_t line) {
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c, l1 += tile_bytes)
      noc_async_write_page(first + r * stride + c, a, l1, 0, 0, noc_index, file, line);
}
// Row-major: rows [first_row, first_row + rows) of a tensor, bytes
// [offset, offset + bytes) of each, to or from rows of row_bytes at l1.
template <typename Accessor>
inline void read_rows(const Accessor& a, uint32_t l1, uint32_t row_bytes, uint32_t first_row, uint32_t rows,
                      uint32_t offset, uint32_t bytes, const char* file, uint32_t line) {
  for (uint32_t r = 0; r < rows; ++r, l1 += row_bytes)
    noc_async_read(a.get_noc_addr(first_row + r, offset, noc_index, file, line), l1, bytes, noc_index, file, line);
}
template <typename Accessor>
inline void write_rows(const Accessor& a, uint32_t l1, uint32_t row_bytes, uint32_t first_row, uint32_t rows,
                       uint32_t offset, uint32_t bytes, const char* file, uint32_t line) {
  for (uint32_t r = 0; r < rows; ++r, l1 += row_bytes)
    noc_async_write(l1, a.get_noc_addr(first_row + r, offset, noc_index, file, line), bytes, noc_index, file, line);
}

#endif // TESSEL_DATAFLOW_H

} // namespace ttl_dsl

#endif
