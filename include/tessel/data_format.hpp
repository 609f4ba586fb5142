// Tile data formats (TT-Metalium numbering) and their sizes.
#pragma once

#include <cstdint>
#include <string>

namespace tessel {

enum class DataFormat : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Bfp8 = 2,
  Bfp4 = 3,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Int32 = 8,
  UInt16 = 9,
  Int8 = 14,
  UInt32 = 24,
  UInt8 = 30,
  Invalid = 255,
};

inline constexpr uint32_t kTileHeight = 32;
inline constexpr uint32_t kTileWidth = 32;
inline constexpr uint32_t kTileHW = kTileHeight * kTileWidth;

// Bytes of one 32x32 tile in this format (Bfp formats include their 64-byte
// exponent section); 0 for Invalid.
uint32_t tile_size(DataFormat format);
std::string to_string(DataFormat format);
// The format named `name` (as to_string spells it, case-sensitive, or the
// aliases "bf16", "fp32", "bfp8_b", "bfp4_b"); throws ValidationError naming
// the accepted names otherwise.
DataFormat parse_data_format(const std::string& name);

} // namespace tessel
