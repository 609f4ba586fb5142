// What IRON's testbenches use from C++23's library, through tessel's
// <stdfloat> and <ranges> where the host compiler has none: prints values
// the test compares with numpy/ml_dtypes.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ranges>
#include <stdfloat>
#include <tuple>
#include <type_traits>
#include <vector>

static unsigned bits(std::bfloat16_t v) {
  std::uint16_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

int main() {
  static_assert(sizeof(std::bfloat16_t) == 2 && std::is_trivially_copyable_v<std::bfloat16_t>);
  std::bfloat16_t one = 1.0f, three = 3;
  static_assert(std::is_same_v<decltype(one / three), std::bfloat16_t>);
  static_assert(std::is_same_v<decltype(one * 2), std::bfloat16_t>);
  static_assert(std::is_same_v<decltype(one + 1.5f), float>);
  static_assert(std::is_same_v<decltype(one + 1.5), double>);
  // Conversions: ties to even (1 + 2^-8 down, 1 + 3 * 2^-8 up), a double just above a tie rounds up once.
  std::printf("round %04x %04x %04x %04x\n", bits(std::bfloat16_t(1.00390625f)), bits(std::bfloat16_t(1.01171875f)),
              bits(std::bfloat16_t(1.00390625 + 1e-12)), bits(std::bfloat16_t(-2.5e38)));
  std::printf("math %04x %04x %04x %d %d\n", bits(one / three), bits(exp(std::bfloat16_t(2))),
              bits(std::abs(-three)), int(std::isnan(std::bfloat16_t(std::nanf("")))), int(one < three));
  std::printf("limits %g %g\n", float(std::numeric_limits<std::bfloat16_t>::epsilon()),
              float(std::numeric_limits<std::bfloat16_t>::max()));
  std::uint16_t raw = 0x4049;  // read through a pointer, as testbenches read buffers
  std::printf("cast %g\n", float(*reinterpret_cast<std::bfloat16_t*>(&raw)));

  std::vector<int> rows{3, 1, 4}, cols{1, 5, 9, 2};
  long sum = 0;
  for (std::tuple<size_t, std::tuple<int&, int&>> cell : std::views::enumerate(std::views::zip(rows, cols)))
    sum += static_cast<long>(std::get<0>(cell)) * 100 + std::get<0>(std::get<1>(cell)) * std::get<1>(std::get<1>(cell));
  for (auto [i, r] : rows | std::views::enumerate) r += static_cast<int>(i);
  std::printf("ranges %ld %zu %d %d %d\n", sum, std::views::zip(rows, cols).size(), rows[0], rows[1], rows[2]);
  return 0;
}
