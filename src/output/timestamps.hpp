#pragma once
// Wall-clock times of a run as text, always in UTC so that runs on machines in different time
// zones sort and compare correctly.
#include <chrono>
#include <string>

namespace wave3d {

// ISO 8601, second resolution: "2024-05-01T12:34:56Z".
std::string iso8601_utc(std::chrono::system_clock::time_point time);
// For file names, sortable and free of ':' : "20240501-123456".
std::string compact_utc(std::chrono::system_clock::time_point time);

}  // namespace wave3d
