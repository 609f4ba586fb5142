// TT-Metalium's device profiler macros for kernels, included before every
// kernel (kernel_prelude.h), as Metalium's firmware includes its profiler:
//   DeviceZoneScopedN("name")           a zone: the enclosing scope, timed
//   DeviceZoneScopedMainN("name")       the same (Metalium's firmware zones)
//   DeviceZoneScopedMainChildN("name")  the same
//   DeviceZoneScopedSumN1/N2("name")    scopes whose durations add up into
//                                       one ZONE_TOTAL marker per kernel run
//   DeviceTimestampedData("name", v)    a TS_DATA marker carrying v (64 bits)
//   DeviceRecordEvent(id)               a TS_EVENT marker carrying id
//   DeviceZoneSetCounter(n)             later markers of this RISC carry run
//                                       host ID n
// and, accepted with no effect, DeviceValidateProfiler(c),
// DeviceProfilerInit(), DeviceTraceOnlyProfilerInit() and
// DeviceIncrementTraceCount().
//
// Cost. With the profiler off (the context's profiler_enabled is 0) a zone
// is a load and a not-taken branch at each end; on, each marker is one call
// into the simulator, which stores it in this RISC's preallocated buffer
// (sim/profiler.hpp). Times are the RISC's simulated clock (kernel_abi.h).
#ifndef TESSEL_PROFILER_H
#define TESSEL_PROFILER_H

#include "tessel/kernel_abi.h"

namespace tessel_detail {

// Metalium's timer id: 32-bit FNV-1a of "name,file,line,KERNEL_PROFILER"
// folded to 16 bits.
constexpr uint32_t profiler_timer_id(const char* text) {
  uint32_t hash = 2166136261u;
  for (; *text; ++text)
    hash = (hash ^ (unsigned char)*text) * 16777619u;
  return ((hash & 0xFFFFu) ^ (hash >> 16)) & 0xFFFFu;
}

inline __attribute__((always_inline)) uint32_t profiler_mark(tessel_kernel_ctx* k, uint32_t mark,
                                                             const tessel_profiler_site* site, uint64_t data) {
  return k->api->profiler_mark(k, mark, site, data);
}

// A zone for the lifetime of the object: `recording` is the context when the
// start marker was recorded (so the end must be), else null.
template <uint32_t StartMark, uint32_t EndMark>
struct ProfilerScope {
  tessel_kernel_ctx* recording;
  const tessel_profiler_site* site;
  uint64_t accumulator;
  __attribute__((always_inline)) ProfilerScope(const tessel_profiler_site* s, uint64_t a)
      : recording(nullptr), site(s), accumulator(a) {
    tessel_kernel_ctx* k = tessel_ctx();
    if (__builtin_expect(k->profiler_enabled != 0, 0) && profiler_mark(k, StartMark, site, accumulator)) recording = k;
  }
  __attribute__((always_inline)) ~ProfilerScope() {
    if (__builtin_expect(recording != nullptr, 0)) profiler_mark(recording, EndMark, site, accumulator);
  }
  ProfilerScope(const ProfilerScope&) = delete;
  ProfilerScope& operator=(const ProfilerScope&) = delete;
};
using ProfilerZone = ProfilerScope<TESSEL_PROFILER_ZONE_START, TESSEL_PROFILER_ZONE_END>;
using ProfilerSum = ProfilerScope<TESSEL_PROFILER_SUM_START, TESSEL_PROFILER_SUM_END>;

inline __attribute__((always_inline)) void profiler_record(uint32_t mark, const tessel_profiler_site* site,
                                                           uint64_t data) {
  tessel_kernel_ctx* k = tessel_ctx();
  if (__builtin_expect(k->profiler_enabled != 0, 0)) profiler_mark(k, mark, site, data);
}

} // namespace tessel_detail

#define TESSEL_PROFILER_STR2(x) #x
#define TESSEL_PROFILER_STR(x) TESSEL_PROFILER_STR2(x)
#define TESSEL_PROFILER_CAT2(a, b) a##b
#define TESSEL_PROFILER_CAT(a, b) TESSEL_PROFILER_CAT2(a, b)
// `site`: the static site of a macro use named `name`, at this line.
// TESSEL_PROFILER_SCOPE: a site and a scope object, their names unique by `n`.
#define TESSEL_PROFILER_SITE(site, name)                                                                               \
  static constexpr tessel_profiler_site site = {                                                                       \
      name, __FILE__, __LINE__,                                                                                        \
      tessel_detail::profiler_timer_id(name "," __FILE__ "," TESSEL_PROFILER_STR(__LINE__) ",KERNEL_PROFILER")}
#define TESSEL_PROFILER_SCOPE(type, name, accumulator, n)                                                              \
  TESSEL_PROFILER_SITE(TESSEL_PROFILER_CAT(tessel_profiler_site_, n), name);                                           \
  tessel_detail::type TESSEL_PROFILER_CAT(tessel_profiler_scope_, n)(&TESSEL_PROFILER_CAT(tessel_profiler_site_, n),   \
                                                                     accumulator)

// kernel_common.h's no-op spelling is for headers used without the prelude.
#undef DeviceZoneScopedN
#define DeviceZoneScopedN(name) TESSEL_PROFILER_SCOPE(ProfilerZone, name, 0, __COUNTER__)
#define DeviceZoneScopedMainN(name) TESSEL_PROFILER_SCOPE(ProfilerZone, name, 0, __COUNTER__)
#define DeviceZoneScopedMainChildN(name) TESSEL_PROFILER_SCOPE(ProfilerZone, name, 0, __COUNTER__)
#define DeviceZoneScopedSumN1(name) TESSEL_PROFILER_SCOPE(ProfilerSum, name, 0, __COUNTER__)
#define DeviceZoneScopedSumN2(name) TESSEL_PROFILER_SCOPE(ProfilerSum, name, 1, __COUNTER__)

#define DeviceTimestampedData(name, data)                                                                              \
  do {                                                                                                                 \
    TESSEL_PROFILER_SITE(tessel_profiler_data_site, name);                                                             \
    tessel_detail::profiler_record(TESSEL_PROFILER_TS_DATA, &tessel_profiler_data_site, (uint64_t)(data));             \
  } while (0)
#define DeviceRecordEvent(event_id)                                                                                    \
  do {                                                                                                                 \
    static constexpr tessel_profiler_site tessel_profiler_event_site = {"", __FILE__, __LINE__, 0};                    \
    tessel_detail::profiler_record(TESSEL_PROFILER_TS_EVENT, &tessel_profiler_event_site, (uint64_t)(event_id));       \
  } while (0)
#define DeviceZoneSetCounter(counter)                                                                                  \
  tessel_detail::profiler_record(TESSEL_PROFILER_SET_COUNTER, nullptr, (uint64_t)(counter))

#define DeviceValidateProfiler(condition) ((void)(condition))
#define DeviceProfilerInit()
#define DeviceTraceOnlyProfilerInit()
#define DeviceIncrementTraceCount()

#endif // TESSEL_PROFILER_H
