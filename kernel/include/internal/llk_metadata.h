// TT-Metalium's binding_details::LLKMetadata: the data format (and face
// shape) a Metal 2.0 binding token carries; format kNoFormat when the host
// gave none.
#pragma once

#include <stdint.h>

namespace binding_details {
struct LLKMetadata {
  static constexpr uint8_t kNoFormat = 0xFF;
  uint8_t format = kNoFormat;
  uint8_t face_r_dim = 16;
  uint8_t face_c_dim = 16;
  uint8_t num_faces_r_dim = 2;
  uint8_t num_faces_c_dim = 2;
};
} // namespace binding_details
