#pragma once
// The node's memory-bandwidth probe: the four STREAM kernels on three arrays of double, timed in the
// calling process so `wave3d bench` can compare the stencil's throughput with the triad bandwidth
// measured under the same thread count and page placement. No MPI here (node level).
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "field/first_touch.hpp"  // InitPolicy

namespace wave3d {

enum class StreamKernel { copy, scale, add, triad };  // in the order they run, as in STREAM

inline constexpr std::array<StreamKernel, 4> stream_kernels{StreamKernel::copy, StreamKernel::scale,
                                                           StreamKernel::add, StreamKernel::triad};

std::string_view to_string(StreamKernel kernel);  // "copy", "scale", "add", "triad"
// "first-touch", "serial". Not named to_string: InitPolicy belongs to field/, which may define its own.
std::string_view stream_policy_name(InitPolicy policy);

// Bytes one element of the kernel moves under STREAM's model: each array read or written once,
// write-allocate traffic not counted (copy/scale 16 B, add/triad 24 B).
std::size_t stream_bytes_per_element(StreamKernel kernel);

// Bounds the repetitions so the arrays' values stay normal numbers (see the scalar in stream.cpp).
inline constexpr int stream_max_repetitions = 10000;

struct StreamOptions {
  std::size_t elements = 0;  // per array; must be > 0
  int threads = 1;           // given to each parallel region with num_threads
  InitPolicy policy = InitPolicy::first_touch;
  int repetitions = 10;  // the first is a warm-up and is dropped, so at least 2 (at most 10000)
  // If set, called on each array after it is allocated and before it is first written, e.g. to bind its
  // pages to a NUMA node.
  std::function<void(void* data, std::size_t bytes)> before_first_touch{};
  // For several processes measuring at once (bench's ranks): if set, called before each timed kernel
  // with whether this process is fine (false once, when its arrays could not be made, just before it
  // throws), returning whether every process is; e.g. an allreduce of the flags over the processes.
  // Their kernels then start together, so that each repetition's slowest time describes the memory
  // they share (processes timing alone, out of step, each see it partly idle and add up to more than it
  // gives), and one process's failure stops the others instead of leaving them waiting.
  std::function<bool(bool ok)> in_step_with_others{};
};

struct KernelBandwidth {
  StreamKernel kernel = StreamKernel::copy;
  std::size_t bytes_per_element = 0;  // the byte model the rates below use
  // GB/s (1 GB = 1e9 bytes) over the repetitions after the warm-up: best = fastest repetition.
  double best_gbs = 0.0;
  double median_gbs = 0.0;
  double worst_gbs = 0.0;
  std::vector<double> seconds;  // the kept repetitions' times, in run order
};

// The rates of `kernel` from the kept repetitions' times over `elements` per array: best, median, worst.
KernelBandwidth kernel_bandwidth(StreamKernel kernel, std::vector<double> seconds, std::size_t elements);

struct StreamResult {
  StreamOptions options;
  int threads = 0;  // threads the parallel regions actually had (the runtime may give fewer)
  std::size_t bytes_per_array = 0;
  // True when the arrays hold, after all repetitions, the values the kernel sequence must produce.
  // When false the kernels' rates are NaN (a wrong result has no bandwidth) and `error` says why.
  bool valid = false;
  std::string error;
  std::array<KernelBandwidth, 4> kernels{};  // indexed in stream_kernels order

  const KernelBandwidth& operator[](StreamKernel k) const { return kernels[static_cast<std::size_t>(k)]; }
};

// Allocates three fresh arrays (so their pages are placed by this run's threads under options.policy),
// runs copy, scale, add, triad options.repetitions times, validates and returns the rates.
// Throws std::invalid_argument on bad options, std::runtime_error if the arrays cannot be allocated.
StreamResult run_stream(const StreamOptions& options);

// STREAM's validation, exposed so it can be tested on arrays made wrong on purpose.
// The values every element of a, b, c holds after `repetitions` rounds of copy, scale, add, triad
// from the starting values run_stream writes (a = 1, b = 2, c = 0).
struct StreamExpected {
  double a, b, c;
};
StreamExpected stream_expected(int repetitions);
// Empty when all n elements of a, b and c match stream_expected(repetitions) to rounding; otherwise
// how many are wrong and the first one. Reads the arrays with `threads` threads (static schedule).
std::string stream_check(const double* a, const double* b, const double* c, std::size_t n, int repetitions,
                         int threads);

// Whether two bandwidths of one kernel, measured before and after some other work (e.g. the stencil of
// a bench case), agree within `tolerance`, a fraction of the first: when they do not, the memory
// system changed its pace during that work, and a bound taken from either describes it only roughly.
// Not finite or not positive: no agreement.
inline constexpr double stream_agreement_tolerance = 0.10;
bool bandwidths_agree(double before_gbs, double after_gbs, double tolerance = stream_agreement_tolerance);

// Elements per array for a run that measures memory, not cache: each array at least 4x the
// last-level cache and at least 64 MiB. `llc_bytes` is the total last-level cache capacity the run
// can use (summed over all LLC instances, as STREAM's rule asks); nullopt = unknown, the 64 MiB floor.
std::size_t default_stream_elements(std::optional<std::size_t> llc_bytes);

// Elements per array of `array_mib` MiB (the commands' --array-mib).
std::size_t stream_elements_of_mib(std::size_t array_mib);

struct StreamSweep {
  std::vector<StreamResult> runs;  // one per requested thread count, in the order requested

  // Triad best-rate speed-up of runs[i] over the valid 1-thread run; nullopt without one or if
  // runs[i] failed validation.
  std::optional<double> triad_speedup(std::size_t i) const;
};

// The saturation curve: run_stream(base) with threads = each of thread_counts in turn. `after_run`, if
// given, sees the sweep so far after each run (to print rows as they come on long sweeps).
StreamSweep sweep_threads(const StreamOptions& base, const std::vector<int>& thread_counts,
                          const std::function<void(const StreamSweep&)>& after_run = {});

}  // namespace wave3d
