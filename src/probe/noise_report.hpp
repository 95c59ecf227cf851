#pragma once
// The human form of `wave3d noise`: one table row per probed CPU and method, notes on anything that
// went other than planned, and a log2 histogram of the detours over all CPUs.
#include <cstdint>
#include <string>
#include <vector>

#include "probe/noise_result.hpp"

namespace wave3d {

// Three significant digits in the largest unit that keeps the number at least 1: "850 ns", "12.3 us",
// "1.50 ms", "2.00 s".
std::string format_duration_ns(double ns);

// Columns: rank, host, cpu, core, method, samples, baseline, noise %, largest, p99 detour, detours,
// threshold. FWQ: samples are quanta, baseline the fastest quantum, a detour a quantum's time above
// it. Selfish: samples are clock reads, baseline the fastest loop iteration, a detour a gap above the
// threshold. Ends with a newline.
std::string format_noise_table(const std::vector<RankNoise>& ranks);

// Lines for CPUs whose thread was not on its CPU at the end, and for traces missing detours (the
// per-CPU detour storage was full). Empty when there is nothing to say.
std::string format_noise_notes(const std::vector<RankNoise>& ranks);

// One row per log2 bin from the lowest to the highest non-empty one, one column per method run, the
// counts summed over every CPU of every rank. Empty when no method ran.
std::string format_noise_histogram(const std::vector<RankNoise>& ranks);

}  // namespace wave3d
