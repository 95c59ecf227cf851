#include "probe/stream.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "field/aligned_buffer.hpp"

namespace wave3d {

namespace {

// STREAM uses 3.0, which multiplies `a` by 15 every repetition and overflows after ~260 of them.
// With 0.4 one repetition maps a -> 0.96 a, so any allowed repetition count stays far from both
// overflow and subnormals, while every kernel still changes its output (a skipped one is caught).
constexpr double scalar = 0.4;
constexpr double start_a = 1.0;
constexpr double start_b = 2.0;
constexpr double start_c = 0.0;

constexpr std::size_t mib = std::size_t{1} << 20;

// The kernels, each in its own parallel region as in STREAM, so the time includes the fork and
// join a real parallel loop pays. `omp for simd schedule(static)` without a simd modifier splits the
// iterations exactly as `omp for schedule(static)` does; initialise() uses the same construct so each
// thread's pages are the ones it first wrote.
void copy_kernel(const double* __restrict a, double* __restrict c, std::ptrdiff_t n, int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) c[i] = a[i];
}

void scale_kernel(double* __restrict b, const double* __restrict c, std::ptrdiff_t n, int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) b[i] = scalar * c[i];
}

void add_kernel(const double* __restrict a, const double* __restrict b, double* __restrict c, std::ptrdiff_t n,
                int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void triad_kernel(double* __restrict a, const double* __restrict b, const double* __restrict c, std::ptrdiff_t n,
                  int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
}

struct Arrays {
  explicit Arrays(std::size_t elements)
      : n(static_cast<std::ptrdiff_t>(elements)),
        buf_a(elements * sizeof(double)),
        buf_b(elements * sizeof(double)),
        buf_c(elements * sizeof(double)) {}

  double* a() const { return static_cast<double*>(buf_a.data()); }
  double* b() const { return static_cast<double*>(buf_b.data()); }
  double* c() const { return static_cast<double*>(buf_c.data()); }

  std::ptrdiff_t n;
  AlignedBuffer buf_a, buf_b, buf_c;
};

// The first write to each (still unmapped) page decides the NUMA node it lives on.
void initialise(const Arrays& x, InitPolicy policy, int threads) {
  double* a = x.a();
  double* b = x.b();
  double* c = x.c();
  if (policy == InitPolicy::serial) {
    for (std::ptrdiff_t i = 0; i < x.n; ++i) {
      a[i] = start_a;
      b[i] = start_b;
      c[i] = start_c;
    }
    return;
  }
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (std::ptrdiff_t i = 0; i < x.n; ++i) {
    a[i] = start_a;
    b[i] = start_b;
    c[i] = start_c;
  }
}

int threads_granted(int requested) {
  int granted = 0;
#pragma omp parallel num_threads(requested)
  {
#pragma omp single
    granted = omp_get_num_threads();
  }
  return granted;
}

double time_kernel(StreamKernel kernel, const Arrays& x, int threads) {
  const double t0 = omp_get_wtime();
  switch (kernel) {
    case StreamKernel::copy: copy_kernel(x.a(), x.c(), x.n, threads); break;
    case StreamKernel::scale: scale_kernel(x.b(), x.c(), x.n, threads); break;
    case StreamKernel::add: add_kernel(x.a(), x.b(), x.c(), x.n, threads); break;
    case StreamKernel::triad: triad_kernel(x.a(), x.b(), x.c(), x.n, threads); break;
  }
  // A tiny array can finish within one clock tick; one tick is then the honest upper bound on the rate.
  return std::max(omp_get_wtime() - t0, omp_get_wtick());
}

void check_options(const StreamOptions& o) {
  if (o.elements == 0) throw std::invalid_argument("stream: elements must be positive");
  if (o.elements > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(double))
    throw std::invalid_argument(fmt::format("stream: {} elements per array do not fit in memory", o.elements));
  if (o.threads < 1) throw std::invalid_argument(fmt::format("stream: threads must be >= 1, not {}", o.threads));
  if (o.repetitions < 2 || o.repetitions > stream_max_repetitions)
    throw std::invalid_argument(fmt::format(
        "stream: repetitions must be in 2..{} (the first is a warm-up), not {}", stream_max_repetitions, o.repetitions));
}

}  // namespace

std::string_view to_string(StreamKernel kernel) {
  switch (kernel) {
    case StreamKernel::copy: return "copy";
    case StreamKernel::scale: return "scale";
    case StreamKernel::add: return "add";
    case StreamKernel::triad: return "triad";
  }
  return "?";
}

std::string_view stream_policy_name(InitPolicy policy) {
  switch (policy) {
    case InitPolicy::first_touch: return "first-touch";
    case InitPolicy::serial: return "serial";
  }
  return "?";
}

std::size_t stream_bytes_per_element(StreamKernel kernel) {
  const bool two_arrays = kernel == StreamKernel::copy || kernel == StreamKernel::scale;
  return (two_arrays ? 2 : 3) * sizeof(double);
}

StreamExpected stream_expected(int repetitions) {
  StreamExpected e{start_a, start_b, start_c};
  for (int r = 0; r < repetitions; ++r) {
    e.c = e.a;
    e.b = scalar * e.c;
    e.c = e.a + e.b;
    e.a = e.b + scalar * e.c;
  }
  return e;
}

std::string stream_check(const double* a, const double* b, const double* c, std::size_t n, int repetitions,
                         int threads) {
  const StreamExpected e = stream_expected(repetitions);
  threads = std::max(threads, 1);
  // All elements undergo the same operations, so they differ from the scalar replay only where the
  // compiler fused a multiply-add in one and not the other: a few ulps per repetition at most.
  const double tolerance = 8.0 * std::numeric_limits<double>::epsilon() * (repetitions + 1);
  const auto far = [tolerance](double v, double expected) {
    return !(std::abs(v - expected) <= tolerance * std::abs(expected));  // NaN counts as far
  };
  const struct {
    char name;
    const double* values;
    double expected;
  } checks[] = {{'a', a, e.a}, {'b', b, e.b}, {'c', c, e.c}};
  const auto len = static_cast<std::ptrdiff_t>(n);
  for (const auto& check : checks) {
    const double* v = check.values;
    const double expected = check.expected;
    std::int64_t wrong = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : wrong)
    for (std::ptrdiff_t i = 0; i < len; ++i) wrong += far(v[i], expected);
    if (wrong == 0) continue;
    std::ptrdiff_t first = 0;
    while (!far(v[first], expected)) ++first;  // a wrong element exists, so this stops
    return fmt::format("{} of {} elements of {} are wrong; first {}[{}] = {:.17g}, expected {:.17g}", wrong, n,
                       check.name, check.name, first, v[first], expected);
  }
  return {};
}

KernelBandwidth kernel_bandwidth(StreamKernel kernel, std::vector<double> seconds, std::size_t elements) {
  KernelBandwidth k;
  k.kernel = kernel;
  k.bytes_per_element = stream_bytes_per_element(kernel);
  const double bytes = static_cast<double>(k.bytes_per_element) * static_cast<double>(elements);
  std::vector<double> rates;
  for (double s : seconds) rates.push_back(bytes / s * 1e-9);
  std::sort(rates.begin(), rates.end());
  const std::size_t m = rates.size();
  k.best_gbs = rates.back();
  k.worst_gbs = rates.front();
  k.median_gbs = m % 2 == 1 ? rates[m / 2] : 0.5 * (rates[m / 2 - 1] + rates[m / 2]);
  k.seconds = std::move(seconds);
  return k;
}

StreamResult run_stream(const StreamOptions& options) {
  check_options(options);
  StreamResult result;
  result.options = options;
  result.bytes_per_array = options.elements * sizeof(double);
  result.threads = threads_granted(options.threads);

  const auto all_in_step = [&](bool ok) { return !options.in_step_with_others || options.in_step_with_others(ok); };
  // Fresh arrays every run: the placement must be the one this run's threads and policy produce.
  std::optional<Arrays> made;
  try {
    made.emplace(options.elements);
    if (options.before_first_touch)
      for (const AlignedBuffer* buffer : {&made->buf_a, &made->buf_b, &made->buf_c})
        options.before_first_touch(buffer->data(), buffer->bytes());
    initialise(*made, options.policy, options.threads);
  } catch (...) {
    (void)all_in_step(false);
    throw;
  }
  const Arrays& arrays = *made;

  std::array<std::vector<double>, 4> seconds;
  for (int r = 0; r < options.repetitions; ++r) {
    for (StreamKernel k : stream_kernels) {
      if (!all_in_step(true)) throw std::runtime_error("stream: another process measuring at once could not go on");
      const double t = time_kernel(k, arrays, options.threads);
      if (r > 0) seconds[static_cast<std::size_t>(k)].push_back(t);  // repetition 0 warms caches and TLB
    }
  }

  result.error = stream_check(arrays.a(), arrays.b(), arrays.c(), options.elements, options.repetitions,
                              options.threads);
  result.valid = result.error.empty();
  for (StreamKernel k : stream_kernels) {
    KernelBandwidth& out = result.kernels[static_cast<std::size_t>(k)];
    out = kernel_bandwidth(k, std::move(seconds[static_cast<std::size_t>(k)]), options.elements);
    if (!result.valid) out.best_gbs = out.median_gbs = out.worst_gbs = std::numeric_limits<double>::quiet_NaN();
  }
  return result;
}

bool bandwidths_agree(double before_gbs, double after_gbs, double tolerance) {
  if (!std::isfinite(before_gbs) || !std::isfinite(after_gbs) || before_gbs <= 0.0 || after_gbs <= 0.0) return false;
  return std::abs(after_gbs - before_gbs) <= tolerance * before_gbs;
}

std::size_t stream_elements_of_mib(std::size_t array_mib) { return array_mib * mib / sizeof(double); }

std::size_t default_stream_elements(std::optional<std::size_t> llc_bytes) {
  constexpr std::size_t floor_bytes = 64 * mib;
  constexpr std::size_t llc_factor = 4;
  const std::size_t llc = llc_bytes.value_or(0);
  if (llc > std::numeric_limits<std::size_t>::max() / (2 * llc_factor))
    throw std::invalid_argument(fmt::format("stream: last-level cache size {} bytes is implausible", llc));
  const std::size_t bytes = std::max(floor_bytes, llc_factor * llc);
  return (bytes + sizeof(double) - 1) / sizeof(double);
}

std::optional<double> StreamSweep::triad_speedup(std::size_t i) const {
  if (i >= runs.size() || !runs[i].valid) return std::nullopt;
  const auto one = std::find_if(runs.begin(), runs.end(), [](const StreamResult& r) { return r.valid && r.threads == 1; });
  if (one == runs.end()) return std::nullopt;
  return runs[i][StreamKernel::triad].best_gbs / (*one)[StreamKernel::triad].best_gbs;
}

StreamSweep sweep_threads(const StreamOptions& base, const std::vector<int>& thread_counts,
                          const std::function<void(const StreamSweep&)>& after_run) {
  StreamSweep sweep;
  sweep.runs.reserve(thread_counts.size());
  for (int t : thread_counts) {
    StreamOptions o = base;
    o.threads = t;
    sweep.runs.push_back(run_stream(o));
    if (after_run) after_run(sweep);
  }
  return sweep;
}

}  // namespace wave3d
