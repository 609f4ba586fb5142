// The fabric probe kernel and its host helpers, shared by the fabric tests
// (fabric_test.cpp) and the ranks program (ranks_probe.cpp): one kernel
// source, built once per fabric kind, whose runtime arguments pick what it does.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessel/mesh.hpp"
#include "tessel/tessel.hpp"

namespace tessel::test {

constexpr CoreCoord kCore{0, 0};

// Modes of the probe kernel (runtime argument 0).
enum Mode : uint32_t {
  kIdle = 0,       // nothing
  kSend = 1,       // write the CB page (filled with `value`) to dst DRAM `hops` away, then increment its semaphore
  kWait = 2,       // wait for the semaphore to reach 1
  kUnopened = 3,   // send on a connection built but never opened
  kLeftOpen = 4,   // open and return
  kOversize = 5,   // stage 8 KiB of payload
  kSendDram = 6,   // write to DRAM address `dst` exactly as given (an unallocated one)
  kClosedTwice = 7, // close twice
  kCommands = 8,    // at dst: an inline write (+96), a scatter (+128, +192), then a fused write (+0) + increment
  kLinearApi = 9    // kSend through the linear API's helpers (a multicast of range 1), or under FABRIC_2D the mesh API's
};

constexpr const char* kProbe = R"(
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#include "tt_metal/fabric/hw/inc/tt_fabric_api.h"
#ifdef FABRIC_2D
#include "tt_metal/fabric/hw/inc/mesh/api.h"
#else
#include "tt_metal/fabric/hw/inc/linear/api.h"
#endif

void kernel_main() {
  size_t a = 0;
  const uint32_t mode = get_arg_val<uint32_t>(a++);
  const uint32_t hops = get_arg_val<uint32_t>(a++);
  const uint32_t value = get_arg_val<uint32_t>(a++);
  const uint32_t dst = get_arg_val<uint32_t>(a++);
  const uint32_t dst_chip = get_arg_val<uint32_t>(a++);
  volatile tt_l1_ptr uint32_t* sem = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0));
  if (mode == 0) return;
  if (mode == 2) {
    noc_semaphore_wait(sem, 1);
    return;
  }
  auto fabric = FabricConnectionManager::build_from_args(a);
  auto& sender = fabric.get_forward_connection();
  if (mode == 3) {
    volatile PACKET_HEADER_TYPE* h = PacketHeaderPool::allocate_header();
    h->to_noc_unicast_atomic_inc(tt::tt_fabric::NocUnicastAtomicIncCommandHeader{0, 1});
    sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
    return;
  }
  sender.open();
  if (mode == 4) return;
  if (mode == 7) {
    sender.close();
    sender.close();
    return;
  }
  cb_reserve_back(0, 1);
  const uint32_t l1 = get_write_ptr(0);
  for (uint32_t i = 0; i < 16; ++i)
    reinterpret_cast<uint32_t*>(l1)[i] = value + i;
  volatile PACKET_HEADER_TYPE* h = PacketHeaderPool::allocate_header();
#ifdef FABRIC_2D
  tt::tt_fabric::fabric_set_unicast_route(h, dst_chip, 0);
#else
  h->to_chip_unicast(hops);
#endif
  if (mode == 8) {
    const uint64_t base = get_noc_addr_from_bank_id<true>(0, dst);
    h->to_noc_unicast_inline_write(tt::tt_fabric::NocUnicastInlineWriteCommandHeader{base + 96, 0xABCD0000u + value});
    sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
    h->to_noc_unicast_scatter_write(tt::tt_fabric::NocUnicastScatterCommandHeader({base + 128, base + 192}, {32}), 64);
    sender.send_payload_without_header_non_blocking_from_address(l1, 64);
    sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
    h->to_noc_fused_unicast_write_atomic_inc(
        tt::tt_fabric::NocUnicastAtomicIncFusedCommandHeader{base, get_noc_addr(my_x[0], my_y[0], get_semaphore(0)), 1},
        64);
    sender.send_payload_without_header_non_blocking_from_address(l1, 64);
    sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
    cb_push_back(0, 1);
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
    sender.close();
    return;
  }
  if (mode == 9) {
    const uint64_t sem = get_noc_addr(my_x[0], my_y[0], get_semaphore(0));
    const tt::tt_fabric::NocUnicastCommandHeader write{get_noc_addr_from_bank_id<true>(0, dst)};
#ifdef FABRIC_2D
    using namespace tt::tt_fabric::mesh::experimental;
    fabric_unicast_noc_unicast_write(&sender, h, uint8_t(dst_chip), 0, l1, 64, write);
    fabric_unicast_noc_unicast_atomic_inc(&sender, h, uint8_t(dst_chip), 0,
                                          tt::tt_fabric::NocUnicastAtomicIncCommandHeader{sem, 1});
#else
    using namespace tt::tt_fabric::linear::experimental;
    fabric_multicast_noc_unicast_write(&sender, h, l1, 64, write, uint8_t(hops), 1);
    fabric_unicast_noc_unicast_atomic_inc(&sender, h, tt::tt_fabric::NocUnicastAtomicIncCommandHeader{sem, 1},
                                          uint8_t(hops));
#endif
    cb_push_back(0, 1);
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
    sender.close();
    return;
  }
  if (mode == 5) {
    for (uint32_t i = 0; i < 3; ++i)
      sender.send_payload_without_header_non_blocking_from_address(get_write_ptr(0) & ~0xfffu, 4096);
  }
  const uint64_t target = get_noc_addr_from_bank_id<true>(0, dst);
  h->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{target}, 64);
  sender.wait_for_empty_write_slot();
  sender.send_payload_without_header_non_blocking_from_address(l1, 64);
  sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
  h->to_noc_unicast_atomic_inc(
      tt::tt_fabric::NocUnicastAtomicIncCommandHeader{get_noc_addr(my_x[0], my_y[0], get_semaphore(0)), 1});
  sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
  cb_push_back(0, 1);
  cb_wait_front(0, 1);
  cb_pop_front(0, 1);
  sender.close();
}
)";

inline MeshConfig mesh_config(uint32_t rows, uint32_t cols, FabricConfig fabric) {
  MeshConfig c;
  c.rows = rows;
  c.cols = cols;
  c.device.grid_x = 2;
  c.device.grid_y = 2;
  c.fabric = fabric;
  return c;
}

// One chip's probe: a program running the probe on kCore in `mode`; a
// connection toward `toward` (a chip id) when given.
struct Probe {
  Program program;
  KernelHandle kernel;
};

inline std::unique_ptr<Probe> probe(Mesh& mesh, uint32_t chip, Mode mode, uint32_t hops = 0, uint32_t value = 0,
                             uint32_t dst = 0, int toward = -1, uint32_t dst_chip = 0) {
  auto p = std::make_unique<Probe>();
  p->program.add_circular_buffer(CoreRangeSet(CoreRange(kCore)),
                                 CircularBufferConfig(4096, {{0, DataFormat::UInt32}}).set_page_size(0, 4096));
  p->program.add_semaphore(CoreRangeSet(CoreRange(kCore)), 0);
  DataMovementConfig dm{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, {}};
  if (mesh.fabric_config() == FabricConfig::Fabric2D) dm.defines["FABRIC_2D"] = "1";
  p->kernel = p->program.add_kernel_from_source(kProbe, "fabric_probe.cpp", CoreRangeSet(CoreRange(kCore)), dm);
  std::vector<uint32_t> args = {mode, hops, value, dst, dst_chip};
  if (toward >= 0) {
    args.push_back(1);
    mesh.append_fabric_connection_args(chip, uint32_t(toward), 0, p->program, kCore, args);
    args.push_back(0);
  }
  p->program.set_runtime_args(p->kernel, CoreRangeSet(CoreRange(kCore)), args);
  return p;
}

// Runs the probes (null: none on that chip); the error's message, or "".
inline std::string run(Mesh& mesh, const std::vector<Probe*>& probes) {
  std::vector<Program*> programs;
  for (Probe* p : probes)
    programs.push_back(p ? &p->program : nullptr);
  try {
    mesh.run(programs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline std::shared_ptr<Buffer> dram_page(Mesh& mesh, uint32_t chip) {
  // One 64-byte page in bank 0 (a buffer of one page per bank).
  return Buffer::create(mesh.device_ptr(chip), {64u * mesh.device(chip).dram_banks(), 64, BufferType::DRAM});
}

} // namespace tessel::test
