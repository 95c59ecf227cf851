#pragma once
// Detour traces in the format LogGOPSim reads for noise injection (and wave3d-noise writes for its
// bursts): one line per detour, "start_ns<TAB>duration_ns", start counted from the probe's time origin
// on CLOCK_MONOTONIC, in the order the detours happened. One file per probed CPU.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "probe/noise_analysis.hpp"

namespace wave3d {

// "detours-<host>-cpu<N>.tsv"; characters of `host` outside [A-Za-z0-9._-] become '_'. The host is in
// the name so the traces of several nodes can share one directory.
std::string detour_trace_name(std::string_view host, int cpu);

std::string format_detour_trace(std::span<const Detour> detours);

// Writes the trace atomically (a reader never sees half a file); throws std::runtime_error naming the path.
void write_detour_trace(const std::filesystem::path& path, std::span<const Detour> detours);

}  // namespace wave3d
