// TT-Metalium's tt::stl::Span: std::span.
#pragma once

#include <span>

namespace tt::stl {
template <typename T, std::size_t Extent = std::dynamic_extent>
using Span = std::span<T, Extent>;
}
