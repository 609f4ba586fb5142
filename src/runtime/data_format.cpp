#include "tessel/data_format.hpp"

namespace tessel {

uint32_t tile_size(DataFormat f) {
  switch (f) {
  case DataFormat::Float32:
  case DataFormat::Int32:
  case DataFormat::UInt32: return 4096;
  case DataFormat::Float16:
  case DataFormat::Float16_b:
  case DataFormat::UInt16: return 2048;
  case DataFormat::Int8:
  case DataFormat::UInt8: return 1024;
  case DataFormat::Bfp8:
  case DataFormat::Bfp8_b: return 1024 + 64;
  case DataFormat::Bfp4:
  case DataFormat::Bfp4_b: return 512 + 64;
  case DataFormat::Invalid: return 0;
  }
  return 0;
}

std::string to_string(DataFormat f) {
  switch (f) {
  case DataFormat::Float32: return "Float32";
  case DataFormat::Float16: return "Float16";
  case DataFormat::Bfp8: return "Bfp8";
  case DataFormat::Bfp4: return "Bfp4";
  case DataFormat::Float16_b: return "Float16_b";
  case DataFormat::Bfp8_b: return "Bfp8_b";
  case DataFormat::Bfp4_b: return "Bfp4_b";
  case DataFormat::Int32: return "Int32";
  case DataFormat::UInt16: return "UInt16";
  case DataFormat::Int8: return "Int8";
  case DataFormat::UInt32: return "UInt32";
  case DataFormat::UInt8: return "UInt8";
  case DataFormat::Invalid: return "Invalid";
  }
  return "DataFormat(" + std::to_string(int(f)) + ")";
}

} // namespace tessel
