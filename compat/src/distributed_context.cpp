// DistributedContext over tessel::Ranks (tt-metalium/distributed_context.hpp).
#include "tt-metalium/distributed_context.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tessel/error.hpp"
#include "tessel/ranks.hpp"

namespace tt::tt_metal::distributed::multihost {

namespace {

ContextPtr& current() {
  static ContextPtr world;
  return world;
}

[[noreturn]] void not_modelled(const char* call) {
  throw tessel::ValidationError(std::string("DistributedContext::") + call +
                                ": not modelled by tessel (its world supports barrier, broadcast, gather, "
                                "all_gather and all_reduce; docs/multichip.md)");
}

template <class T>
void reduce_into(std::byte* acc, const std::byte* in, size_t bytes, ReduceOp op) {
  const size_t n = bytes / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, acc + i * sizeof(T), sizeof(T));
    std::memcpy(&b, in + i * sizeof(T), sizeof(T));
    switch (op) {
    case ReduceOp::SUM: a = T(a + b); break;
    case ReduceOp::MAX: a = a < b ? b : a; break;
    case ReduceOp::MIN: a = b < a ? b : a; break;
    case ReduceOp::PROD: a = T(a * b); break;
    default: not_modelled("all_reduce (logical and bitwise operations)");
    }
    std::memcpy(acc + i * sizeof(T), &a, sizeof(T));
  }
}

} // namespace

void DistributedContext::create(int, char**) {
  tessel::Ranks::world();
  if (current()) return;
  current() = std::make_shared<DistributedContext>();
  // MPI ends cleanly when the program returns from main, as tt-metal's context does.
  std::atexit([] {
    if (tessel::Ranks* ranks = tessel::Ranks::started()) ranks->finalize();
  });
}

const ContextPtr& DistributedContext::get_current_world() {
  if (!current()) create(0, nullptr);
  return current();
}

void DistributedContext::set_current_world(const ContextPtr& ctx) { current() = ctx; }
bool DistributedContext::is_initialized() { return current() != nullptr; }

Rank DistributedContext::rank() const { return Rank(int(tessel::Ranks::world().rank())); }
Size DistributedContext::size() const { return Size(int(tessel::Ranks::world().size())); }

void DistributedContext::barrier() const { tessel::Ranks::world().barrier(); }

void DistributedContext::broadcast(tt::stl::Span<std::byte> buffer, Rank root) const {
  tessel::Ranks& ranks = tessel::Ranks::world();
  const std::string mine(reinterpret_cast<const char*>(buffer.data()), buffer.size());
  const std::vector<std::string> all = ranks.all_gather(int(ranks.rank()) == *root ? mine : std::string());
  const std::string& from = all.at(size_t(*root));
  if (from.size() != buffer.size())
    throw tessel::ValidationError("DistributedContext::broadcast: rank " + std::to_string(*root) + " sent " +
                                  std::to_string(from.size()) + " bytes, this rank expects " +
                                  std::to_string(buffer.size()));
  std::memcpy(buffer.data(), from.data(), from.size());
}

void DistributedContext::all_gather(tt::stl::Span<std::byte> send_buf, tt::stl::Span<std::byte> recv_buf) const {
  tessel::Ranks& ranks = tessel::Ranks::world();
  if (recv_buf.size() != send_buf.size() * ranks.size())
    throw tessel::ValidationError("DistributedContext::all_gather: recv_buf holds " + std::to_string(recv_buf.size()) +
                                  " bytes; it needs " + std::to_string(send_buf.size() * ranks.size()) +
                                  " (send_buf's size times the ranks)");
  const std::vector<std::string> all =
      ranks.all_gather(std::string(reinterpret_cast<const char*>(send_buf.data()), send_buf.size()));
  for (size_t r = 0; r < all.size(); ++r)
    std::memcpy(recv_buf.data() + r * send_buf.size(), all[r].data(), std::min(all[r].size(), send_buf.size()));
}

void DistributedContext::gather(tt::stl::Span<std::byte> send_buf, tt::stl::Span<std::byte> recv_buf,
                                Rank root) const {
  std::vector<std::byte> all(send_buf.size() * tessel::Ranks::world().size());
  all_gather(send_buf, all);
  if (int(tessel::Ranks::world().rank()) == *root) {
    if (recv_buf.size() < all.size())
      throw tessel::ValidationError("DistributedContext::gather: recv_buf is too small on the root");
    std::memcpy(recv_buf.data(), all.data(), all.size());
  }
}

void DistributedContext::all_reduce(tt::stl::Span<std::byte> send_buf, tt::stl::Span<std::byte> recv_buf,
                                    ReduceOp op, DType dtype) const {
  if (recv_buf.size() != send_buf.size())
    throw tessel::ValidationError("DistributedContext::all_reduce: send_buf and recv_buf differ in size");
  std::vector<std::byte> all(send_buf.size() * tessel::Ranks::world().size());
  all_gather(send_buf, all);
  std::memcpy(recv_buf.data(), all.data(), send_buf.size());
  for (size_t r = 1; r < tessel::Ranks::world().size(); ++r) {
    const std::byte* in = all.data() + r * send_buf.size();
    switch (dtype) {
    case DType::INT8: reduce_into<int8_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::UINT8: reduce_into<uint8_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::INT16: reduce_into<int16_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::UINT16: reduce_into<uint16_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::INT32: reduce_into<int32_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::UINT32: reduce_into<uint32_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::INT64: reduce_into<int64_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::UINT64: reduce_into<uint64_t>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::FLOAT32: reduce_into<float>(recv_buf.data(), in, send_buf.size(), op); break;
    case DType::FLOAT64: reduce_into<double>(recv_buf.data(), in, send_buf.size(), op); break;
    default: not_modelled("all_reduce (this data type)");
    }
  }
}

void DistributedContext::send(tt::stl::Span<std::byte>, Rank, Tag) const { not_modelled("send"); }
void DistributedContext::recv(tt::stl::Span<std::byte>, Rank, Tag) const { not_modelled("recv"); }
ContextPtr DistributedContext::duplicate() const { not_modelled("duplicate"); }
ContextPtr DistributedContext::split(Color, Key) const { not_modelled("split"); }

void DistributedContext::abort(int error_code) const { tessel::Ranks::world().abort(error_code); }

} // namespace tt::tt_metal::distributed::multihost
