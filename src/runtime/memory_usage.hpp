#pragma once
// Resident memory of this process, as the Linux kernel reports it. Anything the kernel does not
// tell us (another OS, a restricted /proc) comes back as std::nullopt rather than a guess.
#include <cstdint>
#include <optional>
#include <string_view>

namespace wave3d {

struct MemoryUsage {
  std::optional<std::uint64_t> rss_bytes;       // VmRSS: resident now
  std::optional<std::uint64_t> peak_rss_bytes;  // VmHWM: high-water mark since start or last reset
};

// Reads VmRSS and VmHWM from /proc/self/status.
MemoryUsage read_memory_usage();
std::optional<std::uint64_t> current_rss_bytes();
std::optional<std::uint64_t> peak_rss_bytes();

// Parses the text of a /proc/<pid>/status file; a field that is missing or not in kB is nullopt.
MemoryUsage parse_proc_status(std::string_view status_text);

// Resets the peak (VmHWM) to the current RSS by writing "5" to /proc/self/clear_refs (Linux >= 4.0),
// so the peak of one phase of a run can be measured. False when that is not possible.
bool reset_peak_rss();

// Memory the kernel estimates is available for new allocations on this node (MemAvailable in
// /proc/meminfo), or nullopt where it does not say.
std::optional<std::uint64_t> available_memory_bytes();

}  // namespace wave3d
