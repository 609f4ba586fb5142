// Buffer: an interleaved or sharded allocation in DRAM or L1.
//
// Interleaved: page p lives in bank p % banks at address() + (p / banks) *
// align_up(page_size, alignment); address() is the same in every bank. DRAM
// buffers use every DRAM bank; L1 buffers use one bank per worker core (bank
// b = logical core (b % grid_x, b / grid_x)).
//
// Sharded (BufferConfig::shard): the pages form a tensor of
// tensor_shape_in_pages (row-major page ids, outermost dimension first),
// cut into shards of shard_shape_in_pages (edge shards may be partial).
// Shards are numbered row-major over the grid of shards; shard s lives in
// bank banks[s % banks.size()], slot s / banks.size() of that bank, and a
// page at in-shard position o (row-major over the full shard shape) lives at
// address() + (slot * shard_volume + o) * aligned_page_size(). Every bank of
// the buffer's type reserves the same range (ceil(shards / banks) slots).
//
// Ownership: shared_ptr; the allocation is freed when the last reference
// goes (or on deallocate()). A buffer keeps its device alive.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tessel {

class Device;

enum class BufferType : uint8_t { DRAM, L1 };

// How a sharded buffer's pages are placed (see above). Ranks 1..kMaxShardRank.
struct ShardSpec {
  static constexpr uint32_t kMaxShardRank = 8;
  std::vector<uint32_t> tensor_shape_in_pages;
  std::vector<uint32_t> shard_shape_in_pages; // same rank, every dimension >= 1
  std::vector<uint32_t> banks;                // distinct bank indices of the buffer's type, in shard order
  uint32_t num_shards() const;
  uint32_t shard_volume() const;
  uint64_t tensor_volume() const;
  friend bool operator==(const ShardSpec&, const ShardSpec&) = default;
};

struct BufferConfig {
  uint64_t size_bytes = 0;
  uint32_t page_size_bytes = 0; // the unit of interleaving; size must be a multiple
  BufferType type = BufferType::DRAM;
  // Set for a sharded buffer: size_bytes must be tensor_volume() pages.
  std::optional<ShardSpec> shard;
  // Where in its memory the buffer goes, as Metalium's allocator places it:
  // from the lowest free address up (true) or from the highest down (false).
  // Unset: DRAM buffers bottom-up, L1 buffers top-down (away from the CBs,
  // which grow up from the bottom of L1).
  std::optional<bool> bottom_up;
};

class Buffer {
public:
  static std::shared_ptr<Buffer> create(const std::shared_ptr<Device>& device, const BufferConfig& config);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  uint32_t address() const { return address_; }
  uint64_t size() const { return size_; }
  uint32_t page_size() const { return page_size_; }
  uint32_t num_pages() const { return uint32_t(size_ / page_size_); }
  BufferType type() const { return type_; }
  bool is_sharded() const { return shard_.has_value(); }
  const std::optional<ShardSpec>& shard_spec() const { return shard_; }
  // Where page `page` lives: its bank and its address in that bank.
  struct PageLocation {
    uint32_t bank;
    uint64_t address;
  };
  PageLocation page_location(uint32_t page) const;
  bool is_allocated() const { return allocated_; }
  uint32_t num_banks() const;
  uint32_t aligned_page_size() const;
  // Bytes the buffer reserves in each bank (the same range in every bank).
  uint64_t bytes_per_bank() const { return bytes_per_bank_; }
  Device& device() const { return *device_; }

  void deallocate();

  // Host-side copies; size must equal size(), and src/dst must point to that
  // many bytes of host memory (a null or unmapped range is a ValidationError).
  void write(const void* src, uint64_t size_bytes);
  void read(void* dst, uint64_t size_bytes) const;

private:
  Buffer(std::shared_ptr<Device> device, const BufferConfig& config, uint32_t address, uint64_t bytes_per_bank);
  std::shared_ptr<Device> device_;
  uint32_t address_ = 0;
  uint64_t size_ = 0;
  uint32_t page_size_ = 0;
  BufferType type_ = BufferType::DRAM;
  std::optional<ShardSpec> shard_;
  uint32_t stride_ = 0; // aligned page size
  uint64_t bytes_per_bank_ = 0;
  bool allocated_ = false;
};

} // namespace tessel
