#include "runtime/byte_size.hpp"

#include <array>

#include <fmt/format.h>

namespace wave3d {

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  std::uint64_t scale = 1;
  while (unit + 1 < kUnits.size() && bytes >= scale * 1024) {
    scale *= 1024;
    ++unit;
  }
  if (bytes % scale == 0) return fmt::format("{} {}", bytes / scale, kUnits[unit]);
  return fmt::format("{:.1f} {}", static_cast<double>(bytes) / static_cast<double>(scale), kUnits[unit]);
}

}  // namespace wave3d
