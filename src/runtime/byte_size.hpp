#pragma once
// Byte counts for people: binary units, whole numbers when exact ("32 MiB"), else one decimal.
#include <cstdint>
#include <string>

namespace wave3d {

std::string format_bytes(std::uint64_t bytes);

}  // namespace wave3d
