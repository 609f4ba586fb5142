// TT-Metalium's Semaphore object: one of this core's program semaphores,
// over the free noc_semaphore_* calls (their checks, their waits, errors at
// the kernel's line).
//   up(v) / down(v)            add v; wait until the value is at least v, then subtract it
//   wait(v) / wait_min(v)      wait for exactly v / at least v
//   set(v), value()
//   up(noc, x, y, v)           atomic add on the same semaphore of core (x, y)
//   set_multicast<opts>(noc, rectangle, num_dests)     this value to every core of it
//   relay_unicast / relay_multicast(noc, dst_sem, ...) this value into another semaphore
// The scope (SemScope) chooses how silicon keeps the local word coherent; the
// simulator's cores see one memory, so every scope behaves the same, except
// that EXTERNAL's local up() is an atomic NoC increment as on silicon.
//
// Included through api/dataflow/noc_semaphore.h and
// experimental/noc_semaphore.h (experimental::Semaphore).
#ifndef TESSEL_SEMAPHORE_OBJECT_H
#define TESSEL_SEMAPHORE_OBJECT_H

#include "tessel/noc_object.h"

enum class ProgrammableCoreType { TENSIX = 0, ACTIVE_ETH = 1, IDLE_ETH = 2 };
enum class SemScope : uint8_t { LOCAL_NONATOMIC = 0, DM_LOCAL_CACHED = 1, EXTERNAL = 2 };

template <ProgrammableCoreType core_type = ProgrammableCoreType::TENSIX, SemScope Scope = SemScope::LOCAL_NONATOMIC>
class Semaphore {
  static_assert(core_type == ProgrammableCoreType::TENSIX, "Semaphore: tessel simulates Tensix cores only");
  static constexpr bool kNocUsable = Scope != SemScope::DM_LOCAL_CACHED;

  template <ProgrammableCoreType, SemScope>
  friend class Semaphore;

public:
  explicit Semaphore(uint32_t semaphore_id, TESSEL_SITE_PARAMS) : l1_addr_(get_semaphore(semaphore_id, TESSEL_SITE)) {}

  void up(uint32_t value, TESSEL_SITE_PARAMS) {
    if constexpr (Scope == SemScope::EXTERNAL) {
      noc_semaphore_inc(::get_noc_addr(l1_addr_), value, noc_index, TESSEL_SITE);
      noc_async_atomic_barrier(noc_index, TESSEL_SITE);
    } else {
      noc_semaphore_set(word(), *word() + value, TESSEL_SITE);
    }
  }
  void up(const Noc& noc, uint32_t noc_x, uint32_t noc_y, uint32_t value, uint8_t vc = NOC_UNICAST_WRITE_VC,
          TESSEL_SITE_PARAMS) {
    (void)vc;
    static_assert(
        kNocUsable,
        "Semaphore::up(noc, ...): a DM_LOCAL_CACHED semaphore is not reachable over the NoC; use SemScope::EXTERNAL");
    noc_semaphore_inc(::get_noc_addr(noc_x, noc_y, l1_addr_, noc.get_noc_id(), TESSEL_SITE), value, noc.get_noc_id(),
                      TESSEL_SITE);
  }
  // One consumer only: the wait and the subtraction are separate steps, as on silicon.
  void down(uint32_t value, TESSEL_SITE_PARAMS) {
    noc_semaphore_wait_min(word(), value, TESSEL_SITE);
    noc_semaphore_set(word(), *word() - value, TESSEL_SITE);
  }
  void wait(uint32_t value, TESSEL_SITE_PARAMS) { noc_semaphore_wait(word(), value, TESSEL_SITE); }
  void wait_min(uint32_t value, TESSEL_SITE_PARAMS) { noc_semaphore_wait_min(word(), value, TESSEL_SITE); }
  void set(uint32_t value, TESSEL_SITE_PARAMS) { noc_semaphore_set(word(), value, TESSEL_SITE); }
  uint32_t value() const { return *word(); }

  // This semaphore's value into dst_sem on core (noc_x, noc_y).
  template <ProgrammableCoreType dst_core_type = core_type, SemScope dst_scope = Scope>
  void relay_unicast(const Noc& noc, const Semaphore<dst_core_type, dst_scope>& dst_sem, uint32_t noc_x, uint32_t noc_y,
                     TESSEL_SITE_PARAMS) {
    static_assert(
        kNocUsable,
        "Semaphore::relay_unicast: a DM_LOCAL_CACHED semaphore is not reachable over the NoC; use SemScope::EXTERNAL");
    noc_semaphore_set_remote(l1_addr_, ::get_noc_addr(noc_x, noc_y, dst_sem.l1_addr_, noc.get_noc_id(), TESSEL_SITE),
                             noc.get_noc_id(), TESSEL_SITE);
  }

  // This semaphore's value into the same semaphore of every core of the
  // rectangle (the sender included with NocOptions::MCAST_INCL_SRC).
  template <NocOptions opts = NocOptions::DEFAULT>
  void set_multicast(const Noc& noc, uint32_t noc_x_start, uint32_t noc_y_start, uint32_t noc_x_end, uint32_t noc_y_end,
                     uint32_t num_dests, bool linked = false, TESSEL_SITE_PARAMS) {
    static_assert(
        kNocUsable,
        "Semaphore::set_multicast: a DM_LOCAL_CACHED semaphore is not reachable over the NoC; use SemScope::EXTERNAL");
    multicast_value<opts>(noc, l1_addr_, noc_x_start, noc_y_start, noc_x_end, noc_y_end, num_dests, linked,
                          TESSEL_SITE);
  }
  template <Noc::McastMode mcast_mode>
  void set_multicast(const Noc& noc, uint32_t noc_x_start, uint32_t noc_y_start, uint32_t noc_x_end, uint32_t noc_y_end,
                     uint32_t num_dests, bool linked = false, TESSEL_SITE_PARAMS) {
    set_multicast<mcast_mode == Noc::McastMode::INCLUDE_SRC ? NocOptions::MCAST_INCL_SRC : NocOptions::DEFAULT>(
        noc, noc_x_start, noc_y_start, noc_x_end, noc_y_end, num_dests, linked, TESSEL_SITE);
  }
  // This semaphore's value into dst_sem of every core of the rectangle.
  template <NocOptions opts = NocOptions::DEFAULT, ProgrammableCoreType dst_core_type = core_type,
            SemScope dst_scope = Scope>
  void relay_multicast(const Noc& noc, const Semaphore<dst_core_type, dst_scope>& dst_sem, uint32_t noc_x_start,
                       uint32_t noc_y_start, uint32_t noc_x_end, uint32_t noc_y_end, uint32_t num_dests,
                       bool linked = false, TESSEL_SITE_PARAMS) {
    static_assert(kNocUsable, "Semaphore::relay_multicast: a DM_LOCAL_CACHED semaphore is not reachable over the NoC; "
                              "use SemScope::EXTERNAL");
    multicast_value<opts>(noc, dst_sem.l1_addr_, noc_x_start, noc_y_start, noc_x_end, noc_y_end, num_dests, linked,
                          TESSEL_SITE);
  }
  // Multicast atomic increments are not simulated: a kernel using this does not compile.
  template <typename... Args>
  void inc_multicast(const Noc&, Args...) {
    static_assert(tessel_detail::kDependentFalse<Args...>,
                  "Semaphore::inc_multicast: tessel does not simulate multicast atomic increments; increment each "
                  "core with up(noc, x, y, value)");
  }

private:
  volatile uint32_t* word() const { return reinterpret_cast<volatile uint32_t*>(uintptr_t(l1_addr_)); }

  template <NocOptions opts>
  void multicast_value(const Noc& noc, uint32_t dst_l1_addr, uint32_t noc_x_start, uint32_t noc_y_start,
                       uint32_t noc_x_end, uint32_t noc_y_end, uint32_t num_dests, bool linked, const char* file,
                       uint32_t line) {
    const uint64_t mcast_addr = ::get_noc_multicast_addr(noc_x_start, noc_y_start, noc_x_end, noc_y_end, dst_l1_addr,
                                                         noc.get_noc_id(), file, line);
    if constexpr (has_flag(opts, NocOptions::MCAST_INCL_SRC))
      noc_semaphore_set_multicast_loopback_src(l1_addr_, mcast_addr, num_dests, linked, noc.get_noc_id(), file, line);
    else
      noc_semaphore_set_multicast(l1_addr_, mcast_addr, num_dests, linked, noc.get_noc_id(), file, line);
  }

  uint32_t l1_addr_; // kernel-visible L1 address of the semaphore word
};

namespace experimental {
using ::Semaphore;
} // namespace experimental

#endif // TESSEL_SEMAPHORE_OBJECT_H
