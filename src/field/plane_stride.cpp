#include "field/plane_stride.hpp"

#include <algorithm>
#include <array>

namespace wave3d {
namespace {

// L1 data caches of 32 KiB x 8 ways or 48 KiB x 12 ways, 64-byte lines: 64 sets.
constexpr std::int64_t kL1Sets = 64;
// The planes a z block of the column kernel spans besides its 2R neighbours (its usual depth), and the
// rows it reads ahead of the 2R + 1 around a column.
constexpr std::int64_t kBlockPlanes = 16;
constexpr std::int64_t kRowsAhead = 2;

// The rows and planes of the window (see the header).
std::int64_t window_rows(int radius) { return 2 * std::clamp(radius, 1, 8) + 1 + kRowsAhead; }
std::int64_t window_planes(int radius) { return 2 * std::clamp(radius, 1, 8) + kBlockPlanes; }

}  // namespace

int fullest_l1_set(std::int64_t row_lines, std::int64_t plane_lines, int radius) {
  std::array<int, kL1Sets> lines_in_set{};
  for (std::int64_t row = 0; row < window_rows(radius); ++row)
    for (std::int64_t plane = 0; plane < window_planes(radius); ++plane)
      ++lines_in_set[static_cast<std::size_t>((row * row_lines + plane * plane_lines) % kL1Sets)];
  return *std::max_element(lines_in_set.begin(), lines_in_set.end());
}

std::int64_t plane_stride_lines(std::int64_t row_lines, std::int64_t min_lines, int radius) {
  const std::int64_t window = window_rows(radius) * window_planes(radius);
  const auto even_spread = static_cast<int>((window + kL1Sets - 1) / kL1Sets);
  std::int64_t least_full = min_lines;
  int least = fullest_l1_set(row_lines, min_lines, radius);
  for (std::int64_t lines = min_lines; lines < min_lines + kL1Sets; ++lines) {
    const int fullest = fullest_l1_set(row_lines, lines, radius);
    if (fullest <= even_spread + 1) return lines;
    if (fullest < least) {
      least = fullest;
      least_full = lines;
    }
  }
  return least_full;
}

}  // namespace wave3d
