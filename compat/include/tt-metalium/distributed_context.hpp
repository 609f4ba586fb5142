// TT-Metalium's DistributedContext (tt::tt_metal::distributed::multihost):
// the processes of a multi-host run, over tessel::Ranks (MPI's world under
// mpirun, else a world of one; docs/multichip.md). The topology, barrier,
// broadcast, gather and reduce collectives and abort are here; point-to-point
// messages, communicator splits and fault tolerance are not modelled (they
// throw tessel::ValidationError naming the call).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "tt_stl/span.hpp"
#include "tt_stl/strong_type.hpp"

namespace tt::tt_metal::distributed::multihost {

enum class ReduceOp : std::uint8_t { SUM, MAX, MIN, PROD, LAND, LOR, BAND, BOR };
enum class DType : std::uint8_t {
  INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64, FLOAT32, FLOAT64, BOOL, BYTE, COMPLEX_FLOAT, COMPLEX_DOUBLE,
};

template <typename T, typename = void>
struct dtype_of;
template <> struct dtype_of<std::int8_t> { static constexpr DType value = DType::INT8; };
template <> struct dtype_of<std::uint8_t> { static constexpr DType value = DType::UINT8; };
template <> struct dtype_of<std::int16_t> { static constexpr DType value = DType::INT16; };
template <> struct dtype_of<std::uint16_t> { static constexpr DType value = DType::UINT16; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::INT32; };
template <> struct dtype_of<std::uint32_t> { static constexpr DType value = DType::UINT32; };
template <> struct dtype_of<std::int64_t> { static constexpr DType value = DType::INT64; };
template <> struct dtype_of<std::uint64_t> { static constexpr DType value = DType::UINT64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::FLOAT32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::FLOAT64; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::BOOL; };
template <typename T>
inline constexpr DType dtype_of_v = dtype_of<T>::value;

using Rank = tt::stl::StrongType<int, struct RankTag>;
using Tag = tt::stl::StrongType<int, struct TagTag>;
using Color = tt::stl::StrongType<int, struct ColorTag>;
using Key = tt::stl::StrongType<int, struct KeyTag>;
using Size = tt::stl::StrongType<int, struct SizeTag>;
using DistributedContextId = tt::stl::StrongType<int, struct DistributedContextIdTag>;

class DistributedContext;
using ContextPtr = std::shared_ptr<DistributedContext>;

class DistributedContext {
public:
  // Starts the world (MPI under mpirun; argc/argv are not needed); MPI ends
  // when the program returns from main.
  static void create(int argc, char** argv);
  static const ContextPtr& get_current_world();
  static void set_current_world(const ContextPtr& ctx);
  static bool is_initialized();
  DistributedContextId id() const { return id_; }

  Rank rank() const;
  Size size() const;
  bool supports_fault_tolerance() const { return false; }

  void barrier() const;
  // `buffer` from `root` to every rank.
  void broadcast(tt::stl::Span<std::byte> buffer, Rank root) const;
  // Every rank's send_buf, in rank order, into recv_buf (size() times as long).
  void all_gather(tt::stl::Span<std::byte> send_buf, tt::stl::Span<std::byte> recv_buf) const;
  void gather(tt::stl::Span<std::byte> send_buf, tt::stl::Span<std::byte> recv_buf, Rank root) const;
  // Element-wise SUM, MAX, MIN, PROD over the ranks (other ops throw).
  void all_reduce(tt::stl::Span<std::byte> send_buf, tt::stl::Span<std::byte> recv_buf, ReduceOp op,
                  DType dtype) const;
  template <class T>
  void all_reduce(tt::stl::Span<T> send_buf, tt::stl::Span<T> recv_buf, ReduceOp op) const {
    all_reduce(std::as_writable_bytes(send_buf), std::as_writable_bytes(recv_buf), op, dtype_of_v<T>);
  }

  // Not modelled: throw tessel::ValidationError.
  void send(tt::stl::Span<std::byte> buffer, Rank dest, Tag tag) const;
  void recv(tt::stl::Span<std::byte> buffer, Rank source, Tag tag) const;
  ContextPtr duplicate() const;
  ContextPtr split(Color color, Key key) const;

  // Ends every rank now.
  [[noreturn]] void abort(int error_code) const;

  virtual ~DistributedContext() = default;

private:
  DistributedContextId id_{0};
};

} // namespace tt::tt_metal::distributed::multihost
