#pragma once
// The few vector operations the register-reuse kernel needs, for the widest vectors with fused
// multiply-add this build targets (AVX-512 or AVX2), and the same operations on one scalar so that
// row ends compute with exactly the arithmetic of the vector body.
//
// Every fused multiply-add in the kernels is written out (the project compiles with
// -ffp-contract=off): whether the compiler would fuse a product depends on the shape of the code
// around it, and the kernels must agree bit for bit whatever their shape.
#include <cmath>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// GCC 12 warns that the placeholder operand of its lane-shift intrinsics (_mm512_alignr_epi32 and
// _epi64, used below) is used uninitialized, at every use: a known false alarm of those headers,
// silenced for them alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

namespace wave3d::simd {

// a * b + c, rounded once where the machine has a fused multiply-add; the scalar kernels use it too.
template <typename T>
inline T multiply_add(T a, T b, T c) {
#if defined(__FMA__) || defined(__AVX512F__) || defined(__ARM_FEATURE_FMA)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// One lane. add_on_multiplier(a, b, one()) is a + b computed as a * 1 + b: bitwise the same sum, but
// on the multiply-add units, which some cores (AMD Zen) keep apart from the adders; moving part of
// the stencil's additions there balances the two.
template <typename T>
struct Scalar {
  using reg = T;
  static constexpr int width = 1;
  static reg load(const T* p) { return *p; }
  static void store(T* p, reg v) { *p = v; }
  static reg broadcast(T v) { return v; }
  static reg add(reg a, reg b) { return a + b; }
  static reg sub(reg a, reg b) { return a - b; }
  static reg mul(reg a, reg b) { return a * b; }
  static reg fma(reg a, reg b, reg c) { return multiply_add(a, b, c); }
  static reg add_on_multiplier(reg a, reg b, reg) { return a + b; }  // the same sum: speed is no matter here
  static reg one() { return T(1); }
  // Lanes under a mask (part of a vector): one lane, there or not.
  using mask = bool;
  static mask lanes_between(int first, int end) { return first < end; }
  static void store_lanes(T* p, reg v, mask m) {
    if (m) *p = v;
  }
  static constexpr bool has_lane_shift = false;
};

template <typename T>
struct Native;  // the widest vector with fused multiply-add of this build, if any (see has_native)

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// v, hidden from the optimiser so that a multiply by it is not folded away.
template <typename V>
inline V opaque(V v) {
  asm("" : "+x"(v));
  return v;
}

#endif

#if defined(__AVX512F__)
template <>
struct Native<float> {
  using reg = __m512;
  static constexpr int width = 16;
  static reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, reg v) { _mm512_storeu_ps(p, v); }
  static reg broadcast(float v) { return _mm512_set1_ps(v); }
  static reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static reg add_on_multiplier(reg a, reg b, reg one) { return _mm512_fmadd_ps(a, one, b); }
  static reg one() { return opaque(broadcast(1)); }
  // Lanes first..end-1 (part of a vector, at a row's start or end): stores leave the others alone.
  using mask = __mmask16;
  static mask lanes_between(int first, int end) { return static_cast<mask>(((1u << end) - 1u) & ~((1u << first) - 1u)); }
  static void store_lanes(float* p, reg v, mask m) { _mm512_mask_storeu_ps(p, m, v); }
  // The vector K points further along (K <= width) from the vector `cur` and the one after it, and K
  // points back from the one before it: lane shifts in registers in place of loads across lines.
  static constexpr bool has_lane_shift = true;
  template <int K>
  static reg ahead(reg cur, reg after) {
    if constexpr (K == width) return after;
    else return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(after), _mm512_castps_si512(cur), K));
  }
  template <int K>
  static reg behind(reg before, reg cur) {
    if constexpr (K == width) return before;
    else return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(cur), _mm512_castps_si512(before), width - K));
  }
};
template <>
struct Native<double> {
  using reg = __m512d;
  static constexpr int width = 8;
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg v) { _mm512_storeu_pd(p, v); }
  static reg broadcast(double v) { return _mm512_set1_pd(v); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg fma(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
  static reg add_on_multiplier(reg a, reg b, reg one) { return _mm512_fmadd_pd(a, one, b); }
  static reg one() { return opaque(broadcast(1)); }
  using mask = __mmask8;
  static mask lanes_between(int first, int end) { return static_cast<mask>(((1u << end) - 1u) & ~((1u << first) - 1u)); }
  static void store_lanes(double* p, reg v, mask m) { _mm512_mask_storeu_pd(p, m, v); }
  static constexpr bool has_lane_shift = true;
  template <int K>
  static reg ahead(reg cur, reg after) {
    if constexpr (K == width) return after;
    else return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(after), _mm512_castpd_si512(cur), K));
  }
  template <int K>
  static reg behind(reg before, reg cur) {
    if constexpr (K == width) return before;
    else return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(cur), _mm512_castpd_si512(before), width - K));
  }
};
inline constexpr bool has_native = true;
inline constexpr const char* native_name = "avx512";
inline constexpr int native_registers = 32;  // how many vectors the registers hold at once
#elif defined(__AVX2__) && defined(__FMA__)
template <>
struct Native<float> {
  using reg = __m256;
  static constexpr int width = 8;
  static reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, reg v) { _mm256_storeu_ps(p, v); }
  static reg broadcast(float v) { return _mm256_set1_ps(v); }
  static reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static reg add_on_multiplier(reg a, reg b, reg one) { return _mm256_fmadd_ps(a, one, b); }
  static reg one() { return opaque(broadcast(1)); }
  // Lanes first..end-1 (part of a vector, at a row's start or end): stores leave the others alone.
  using mask = __m256i;
  static mask lanes_between(int first, int end) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(first), lane),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32(end), lane));
  }
  static void store_lanes(float* p, reg v, mask m) { _mm256_maskstore_ps(p, m, v); }
  static constexpr bool has_lane_shift = false;  // AVX2 shifts lanes within 128-bit halves only
};
template <>
struct Native<double> {
  using reg = __m256d;
  static constexpr int width = 4;
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  static reg broadcast(double v) { return _mm256_set1_pd(v); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg fma(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  static reg add_on_multiplier(reg a, reg b, reg one) { return _mm256_fmadd_pd(a, one, b); }
  static reg one() { return opaque(broadcast(1)); }
  using mask = __m256i;
  static mask lanes_between(int first, int end) {
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(first), lane),
                               _mm256_cmpgt_epi64(_mm256_set1_epi64x(end), lane));
  }
  static void store_lanes(double* p, reg v, mask m) { _mm256_maskstore_pd(p, m, v); }
  static constexpr bool has_lane_shift = false;
};
inline constexpr bool has_native = true;
inline constexpr const char* native_name = "avx2";
inline constexpr int native_registers = 16;
#else
inline constexpr bool has_native = false;
inline constexpr const char* native_name = "none";
inline constexpr int native_registers = 0;
#endif

// The vectors of the z-column kernel: the native ones where the build has them, else one lane.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
template <typename T>
using ColumnVector = Native<T>;
#else
template <typename T>
using ColumnVector = Scalar<T>;
#endif

// The stencil weights c[0..R], each broadcast to a whole register of V. A plain array member rather
// than a std::array: a vector type as a template argument loses its alignment attribute (GCC warns).
template <typename V, int R>
struct BroadcastWeights {
  typename V::reg c[R + 1];
  const typename V::reg* data() const { return c; }
};

template <typename V, int R, typename T>
BroadcastWeights<V, R> broadcast_weights(const T* weights) {
  BroadcastWeights<V, R> w;
  for (int k = 0; k <= R; ++k) w.c[k] = V::broadcast(weights[k]);
  return w;
}

}  // namespace wave3d::simd
