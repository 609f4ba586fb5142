// The fabric's deliveries: a packet's NoC command where it lands, checked
// as a NoC transfer on that chip is (fabric.hpp, "Model").
#include <cstring>

#include "base/warning.hpp"
#include "sim/chip.hpp"
#include "sim/fabric.hpp"
#include "sim/fabric_delivery.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/l1_layout.hpp"
#include "sim/memory_check.hpp"
#include "sim/timing.hpp"

namespace tessel::sim {

namespace {

// Where a packet's NoC address lands on the destination chip.
struct Landing {
  Core* core = nullptr; // null: a DRAM bank
  uint8_t* host = nullptr;
};

std::string device_of(const Chip& dst) {
  const std::string& label = dst.label();
  return label.empty() ? "the device" : label.substr(0, label.size() - 2);
}

Landing land(const Failer& fail, Chip& dst, uint64_t noc_addr, uint32_t size, uint32_t alignment, bool l1_only,
             const char* call) {
  const uint32_t x = uint32_t((noc_addr >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK);
  const uint32_t y = uint32_t((noc_addr >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  const uint64_t local = noc_addr & TESSEL_NOC_LOCAL_MASK;
  if (noc_addr & TESSEL_NOC_POISON_BIT) {
    std::string m = std::string(call) + ": the packet's NoC address was made from coordinates that do not fit";
    fail.fail(std::move(m));
  }
  if (local % alignment != 0) {
    std::string m = std::string(call) + ": the packet's destination address " + hex(local) + " on " + device_of(dst) +
                    " is not " + std::to_string(alignment) +
                    "-byte aligned: the router writes from a buffer slot aligned to that, so silicon would put the "
                    "bytes at the wrong offset";
    fail.fail(std::move(m));
  }
  std::string problem;
  if (const int ci = dst.core_at_noc(x, y); ci >= 0) {
    Core& core = dst.core(uint32_t(ci));
    const uint64_t offset = local & TESSEL_L1_SLOT_MASK;
    if (offset + size > dst.memory().l1_size_bytes()) {
      std::string m = std::string(call) + ": " + std::to_string(size) + " bytes at L1 " + hex(offset) + " of " +
                      device_of(dst) + " core (" + std::to_string(core.logical_x) + "," +
                      std::to_string(core.logical_y) + ") run past the end of L1 (" +
                      std::to_string(dst.memory().l1_size_bytes()) + " bytes)";
      fail.fail(std::move(m));
    }
    const TransferVerdict v = l1_destination_verdict(core, offset, offset + size, call, problem);
    if (v == TransferVerdict::Error) fail.fail(std::move(problem));
    if (v == TransferVerdict::Warning) fail.warn(std::move(problem));
    return {&core, core.l1 + offset};
  }
  if (const int bank = dst.dram_bank_at_noc(x, y); bank >= 0 && !l1_only) {
    if (local + size > dst.memory().dram_bank_size_bytes()) {
      std::string m = std::string(call) + ": " + std::to_string(size) + " bytes at DRAM bank " + std::to_string(bank) +
                      " address " + hex(local) + " of " + device_of(dst) + " run past the end of the bank";
      fail.fail(std::move(m));
    }
    if (dram_destination_verdict(dst, uint32_t(bank), local, local + size, call, problem) == TransferVerdict::Error)
      fail.fail(std::move(problem));
    return {nullptr, dst.memory().dram(uint32_t(bank)) + local};
  }
  std::string m = std::string(call) + ": the packet's NoC address " + hex(noc_addr) + " names NoC (" +
                  std::to_string(x) + "," + std::to_string(y) + ") of " + device_of(dst) +
                  ", which is not a worker core" +
                  (l1_only ? " (an atomic increment targets L1 only)" : " or a DRAM bank");
  fail.fail(std::move(m));
}

// A timed destination core's semaphores written by a packet are stamped with
// its arrival, so a wait for them ends no earlier (timing.hpp).
void stamp_arrival(Landing at, uint32_t size, uint64_t arrival) {
  if (!arrival || !at.core || !at.core->timing) return;
  const uint64_t offset = uint64_t(at.host - at.core->l1);
  for_each_semaphore_in(*at.core, offset, size,
                        [&](uint32_t s) { Timing::stamp_max(at.core->timing->semaphore[s], arrival); });
}

void write_landed(Landing at, const uint8_t* src, uint32_t size) {
  if (size <= 16 && size % 4 == 0) {
    for (uint32_t i = 0; i < size; i += 4) {
      uint32_t word;
      std::memcpy(&word, src + i, 4);
      __atomic_store_n(reinterpret_cast<uint32_t*>(at.host + i), word, __ATOMIC_RELEASE);
    }
  } else {
    std::memcpy(at.host, src, size);
  }
  if (at.core) at.core->chip->after_write(*at.core, at.host, size);
}

void increment_landed(Landing at, uint32_t value) {
  __atomic_fetch_add(reinterpret_cast<uint32_t*>(at.host), value, __ATOMIC_ACQ_REL);
  at.core->chip->after_write(*at.core, at.host, 4);
}

} // namespace

// The packet's NoC command on chip `dst`.
void apply(const Failer& fail, Chip& dst, const tessel_fabric_header& h, const uint8_t* payload, uint64_t arrival) {
  const uint32_t size = h.payload_size_bytes;
  const uint32_t l1_alignment = dst.arch().l1_alignment;
  switch (h.noc_send_type) {
  case TESSEL_FABRIC_NOC_UNICAST_WRITE: {
    const Landing at = land(fail, dst, h.noc_address[0], size, l1_alignment, false, "fabric unicast write");
    stamp_arrival(at, size, arrival);
    write_landed(at, payload, size);
    return;
  }
  case TESSEL_FABRIC_NOC_UNICAST_INLINE_WRITE: {
    uint8_t word[4];
    std::memcpy(word, &h.value, 4);
    const Landing at = land(fail, dst, h.noc_address[0], 4, 4, false, "fabric inline write");
    stamp_arrival(at, 4, arrival);
    write_landed(at, word, 4);
    return;
  }
  case TESSEL_FABRIC_NOC_UNICAST_ATOMIC_INC: {
    const Landing at = land(fail, dst, h.noc_address[0], 4, 4, true, "fabric atomic increment");
    stamp_arrival(at, 4, arrival);
    increment_landed(at, h.value);
    return;
  }
  case TESSEL_FABRIC_NOC_FUSED_UNICAST_ATOMIC_INC: {
    const char* call = "fabric fused write + atomic increment";
    const Landing data = land(fail, dst, h.noc_address[0], size, l1_alignment, false, call);
    const Landing sem = land(fail, dst, h.noc_address[1], 4, 4, true, call);
    stamp_arrival(data, size, arrival);
    stamp_arrival(sem, 4, arrival);
    write_landed(data, payload, size);
    increment_landed(sem, h.value);
    return;
  }
  case TESSEL_FABRIC_NOC_UNICAST_SCATTER_WRITE: {
    const char* call = "fabric scatter write";
    const uint32_t chunks = h.scatter_chunks;
    if (chunks < 2 || chunks > TESSEL_FABRIC_SCATTER_CHUNKS) {
      std::string m = std::string(call) + ": " + std::to_string(chunks) + " chunks; a scatter write has 2 to " +
                      std::to_string(TESSEL_FABRIC_SCATTER_CHUNKS);
      fail.fail(std::move(m));
    }
    uint32_t given = 0;
    for (uint32_t i = 0; i + 1 < chunks; ++i)
      given += h.chunk_size[i];
    if (given >= size) {
      std::string m = std::string(call) + ": the first " + std::to_string(chunks - 1) + " chunks take " +
                      std::to_string(given) + " of the payload's " + std::to_string(size) +
                      " bytes, leaving nothing for the last";
      fail.fail(std::move(m));
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < chunks; ++i) {
      const uint32_t bytes = i + 1 < chunks ? h.chunk_size[i] : size - given;
      write_landed(land(fail, dst, h.noc_address[i], bytes, l1_alignment, false, call), payload + at, bytes);
      at += bytes;
    }
    return;
  }
  default: return;
  }
}

void Fabric::deliver(uint32_t dst_chip, const tessel_fabric_header& header, const uint8_t* payload,
                     const std::string& origin) {
  if (dst_chip >= chips_.size() || !chips_[dst_chip]) return;
  try {
    apply(Failer(nullptr, nullptr, 0, &origin), *chips_[dst_chip], header, payload, 0);
  } catch (const DeliveryFailed& e) {
    if (delivery_failure_.empty()) delivery_failure_ = e.message;
  }
}

std::string Fabric::take_delivery_failure() {
  std::string failure;
  failure.swap(delivery_failure_);
  return failure;
}

} // namespace tessel::sim
