// The kernel ABI's NoC and semaphore calls (noc_api.cpp), for the function
// table in kernel_api.cpp. Signatures as in tessel_sim_api (kernel_abi.h).
#pragma once

#include <cstdint>

#include "tessel/kernel_abi.h"

namespace tessel::sim {

void api_noc_read(tessel_kernel_ctx*, uint64_t src, uint32_t dst_l1, uint32_t size, uint32_t noc, const char* file,
                  uint32_t line);
void api_noc_write(tessel_kernel_ctx*, uint32_t src_l1, uint64_t dst, uint32_t size, uint32_t noc, const char* file,
                   uint32_t line);
void api_noc_write_multicast(tessel_kernel_ctx*, uint32_t src_l1, uint64_t mcast, uint32_t size, uint32_t num_dests,
                             uint32_t loopback, uint32_t noc, const char* file, uint32_t line);
void api_noc_inline_write(tessel_kernel_ctx*, uint64_t dst, uint32_t value, uint32_t be, uint32_t noc, const char* file,
                          uint32_t line);
void api_noc_barrier(tessel_kernel_ctx*, uint32_t kind, uint32_t noc, const char* file, uint32_t line);
void api_sem_wait(tessel_kernel_ctx*, volatile uint32_t* sem, uint32_t value, uint32_t mode, const char* file,
                  uint32_t line);
void api_sem_set(tessel_kernel_ctx*, volatile uint32_t* sem, uint32_t value, const char* file, uint32_t line);
void api_sem_inc(tessel_kernel_ctx*, uint64_t dst, uint32_t incr, uint32_t noc, const char* file, uint32_t line);
void api_sem_set_multicast(tessel_kernel_ctx*, uint32_t src_l1, uint64_t mcast, uint32_t num_dests, uint32_t loopback,
                           uint32_t noc, const char* file, uint32_t line);
uint32_t api_note_bad_noc_coord(tessel_kernel_ctx*, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                                uint32_t multicast, const char* file, uint32_t line);

} // namespace tessel::sim
