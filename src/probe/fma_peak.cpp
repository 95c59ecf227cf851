#include "probe/fma_peak.hpp"

#include <omp.h>

#include <cstdint>

#include "stencil/simd.hpp"

namespace wave3d {
namespace {

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// Multiply-adds per thread and second over `seconds`: kChains chains of a = a * scale + shift, which
// no compiler may shorten (the operands are hidden from it) and which stay finite (|scale| < 1).
template <typename T>
double chains_per_second(double seconds) {
  using V = simd::Native<T>;
  using reg = typename V::reg;
  constexpr int kChains = 12;  // 2 units x 4 cycles of latency = 8 in flight, with room to spare
  constexpr std::int64_t kRoundsPerCheck = 4096;
  reg chain[kChains];
  for (int i = 0; i < kChains; ++i) chain[i] = simd::opaque(V::broadcast(static_cast<T>(1 + i) / kChains));
  const reg scale = simd::opaque(V::broadcast(T(0.999))), shift = simd::opaque(V::broadcast(T(0.001)));
  std::int64_t rounds = 0;
  const double start = omp_get_wtime();
  double elapsed = 0;
  do {
    for (std::int64_t r = 0; r < kRoundsPerCheck; ++r)
#pragma GCC unroll 12
      for (int i = 0; i < kChains; ++i) chain[i] = V::fma(chain[i], scale, shift);
    rounds += kRoundsPerCheck;
    elapsed = omp_get_wtime() - start;
  } while (elapsed < seconds);
  for (int i = 0; i < kChains; ++i) asm volatile("" : : "x"(chain[i]));  // the results count as used
  return static_cast<double>(rounds) * kChains / elapsed;
}
#endif

}  // namespace

template <typename T>
std::optional<double> measure_fma_peak_gflops(int threads, double seconds) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  using V = simd::Native<T>;
  double per_second = 0;
#pragma omp parallel num_threads(threads) reduction(+ : per_second)
  per_second += chains_per_second<T>(seconds);
  return per_second * V::width * 2.0 / 1e9;
#else
  (void)threads;
  (void)seconds;
  return std::nullopt;
#endif
}

template <typename T>
int fma_peak_lanes() {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  return simd::Native<T>::width;
#else
  return 0;
#endif
}

const char* fma_peak_vectors() { return simd::native_name; }

template int fma_peak_lanes<float>();
template int fma_peak_lanes<double>();
template std::optional<double> measure_fma_peak_gflops<float>(int, double);
template std::optional<double> measure_fma_peak_gflops<double>(int, double);

}  // namespace wave3d
