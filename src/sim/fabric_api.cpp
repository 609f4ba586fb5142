// The simulator side of the fabric ABI (tessel/fabric_abi.h): the kernel's
// calls, routed to its chip's fabric.
#include "sim/chip.hpp"
#include "sim/fabric.hpp"
#include "sim/kernel_api_support.hpp"

namespace tessel::sim {

namespace {

Fabric& fabric_of(tessel_kernel_ctx* k) { return *core_of(k).chip->fabric(); }

uint32_t api_chip_id(tessel_kernel_ctx* k) { return core_of(k).chip->fabric_chip(); }
uint32_t api_mesh_id(tessel_kernel_ctx* k) { return fabric_of(k).mesh_id(); }
uint32_t api_max_payload_bytes(tessel_kernel_ctx* k) { return fabric_of(k).links().max_payload_bytes; }

void api_open(tessel_kernel_ctx* k, tessel_fabric_connection* c, const char* file, uint32_t line) {
  ++k->clock;
  fabric_of(k).open(fiber_of(k), c, file, line);
}

void api_close(tessel_kernel_ctx* k, tessel_fabric_connection* c, const char* file, uint32_t line) {
  ++k->clock;
  fabric_of(k).close(fiber_of(k), c, file, line);
}

void api_stage(tessel_kernel_ctx* k, tessel_fabric_connection* c, uint32_t src_l1, uint32_t bytes, const char* file,
               uint32_t line) {
  ++k->clock;
  fabric_of(k).stage(fiber_of(k), c, src_l1, bytes, file, line);
}

void api_send(tessel_kernel_ctx* k, tessel_fabric_connection* c, uint32_t header_l1, uint32_t header_bytes,
              const char* file, uint32_t line) {
  ++k->clock;
  fabric_of(k).send(fiber_of(k), c, header_l1, header_bytes, file, line);
}

void api_fail(tessel_kernel_ctx* k, const char* message, const char* file, uint32_t line) {
  fail(k, message, file, line);
}

const tessel_fabric_api kTable = {
    api_chip_id, api_mesh_id, api_max_payload_bytes, api_open, api_close, api_stage, api_send, api_fail,
};

} // namespace

const tessel_fabric_api* fabric_api_table() { return &kTable; }

} // namespace tessel::sim
