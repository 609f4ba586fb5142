// TT-Metalium's tt::tt_metal::detail utilities that host programs include
// util.hpp for: TileSize, SizeBytesPerBank and the preferred NoCs for DRAM
// traffic.
#pragma once

#include <cstdint>

#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/data_types.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"
#include "tt-metalium/tt_metal.hpp"

namespace tt::tt_metal::detail {

// Bytes each of num_banks banks holds of a buffer of size_bytes in pages of
// page_size_bytes, the pages spread round-robin, each rounded up to
// alignment_bytes. Throws when the size is not whole pages.
inline DeviceAddr SizeBytesPerBank(DeviceAddr size_bytes, DeviceAddr page_size_bytes, uint32_t num_banks,
                                   uint32_t alignment_bytes) {
  TT_FATAL(page_size_bytes == 0 ? size_bytes == 0 : size_bytes % page_size_bytes == 0,
           "SizeBytesPerBank: buffer size {} is not a whole number of {}-byte pages", size_bytes, page_size_bytes);
  TT_FATAL(num_banks > 0 && alignment_bytes > 0, "SizeBytesPerBank: expected at least one bank and an alignment");
  const DeviceAddr pages = page_size_bytes == 0 ? 0 : size_bytes / page_size_bytes;
  const DeviceAddr pages_per_bank = pages == 0 ? 0 : 1 + (pages - 1) / num_banks;
  const DeviceAddr aligned_page = (page_size_bytes + alignment_bytes - 1) / alignment_bytes * alignment_bytes;
  return pages_per_bank * aligned_page;
}

// The NoC each arch prefers for DRAM reads and for DRAM writes.
inline NOC GetPreferredNOCForDRAMRead(tt::ARCH) { return NOC::NOC_0; }
inline NOC GetPreferredNOCForDRAMWrite(tt::ARCH) { return NOC::NOC_1; }

} // namespace tt::tt_metal::detail
