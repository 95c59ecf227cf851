#include "output/timestamps.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace wave3d {

std::string iso8601_utc(std::chrono::system_clock::time_point time) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(time)));
}

std::string compact_utc(std::chrono::system_clock::time_point time) {
  return fmt::format("{:%Y%m%d-%H%M%S}", fmt::gmtime(std::chrono::system_clock::to_time_t(time)));
}

}  // namespace wave3d
