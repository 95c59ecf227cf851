#pragma once
// The multiply-add peak of the cores a run uses, measured rather than computed from a clock and a
// count of units: a core's clock under an all-core vector load (boost, AVX-512 offsets) and whether
// its 512-bit multiply-adds run at full width or as two halves are not known from /proc/cpuinfo, and
// the compute bound of `wave3d bench` is only as true as this peak.
//
// Each thread runs independent chains of fused multiply-adds on the widest vectors of the build (as
// many chains as keep two units of four-cycle latency busy, and some more), all threads at once.
#include <optional>

namespace wave3d {

// The GFlops of `threads` OpenMP threads together (2 flops per multiply-add and lane) running the
// chains for about `seconds` in precision T, or nullopt in a build without vector multiply-adds (the
// peak of scalar code would not bound the vector kernels).
template <typename T>
std::optional<double> measure_fma_peak_gflops(int threads, double seconds);

// The lanes of T per vector the chains run on (0 without vector multiply-adds), and those vectors' name.
template <typename T>
int fma_peak_lanes();
const char* fma_peak_vectors();

}  // namespace wave3d
