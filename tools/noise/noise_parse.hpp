// Parsing helpers for wave3d-noise: durations ("250us", "10ms", "2s", "0.5s") and CPU lists ("0-3,8").
// Pure functions (no I/O, no global state) so they can be unit-tested on their own.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wave3d::noise {

// A positive duration: a decimal number followed by a unit, one of ns, us, ms, s (no space, e.g.
// "250us", "10ms", "1.5s"). Returns nothing for anything else, including zero and negative values.
std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text);

// "0-3,8" -> {0,1,2,3,8}, sorted and without duplicates. Returns nothing on a syntax error, an empty
// list or a range whose end is below its start.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// The inverse, compressed into ranges: {0,1,2,3,8} -> "0-3,8".
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace wave3d::noise
