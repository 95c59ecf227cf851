#pragma once
// The counters.events setting: a comma-separated list of PAPI event names (presets such as
// PAPI_TOT_CYC, native events such as perf::TASK-CLOCK; libpfm4 qualifiers use ':' and never ',').
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wave3d::counters {

// Events one thread counts at most (each needs room in every thread's padded slot).
inline constexpr std::size_t kMaxEvents = 32;

// The names in order, spaces around each trimmed. Throws std::invalid_argument saying what is wrong
// (an empty name, a name given twice, more than kMaxEvents names, a name with spaces inside).
std::vector<std::string> parse_event_list(std::string_view text);

}  // namespace wave3d::counters
