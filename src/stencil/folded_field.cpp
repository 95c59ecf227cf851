#include "stencil/folded_field.hpp"

#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace wave3d {
namespace {

// One fold row (j, k) of a box: for each lane whether the box holds its row, and the element offset in
// the plain field of that row from the box's first row in the fold (the other lanes' offsets stay 0,
// never read).
struct FoldRowLanes {
  std::int64_t base_y = 0, base_z = 0;  // global y, z of the first row of the box in the fold
  std::uint32_t mask = 0;               // bit (zl * Fy + yl): the box holds that lane's row
  std::int64_t offsets[16] = {};
};

template <typename T>
FoldRowLanes lanes_of(const FoldedField<T>& f, const Box& box, std::int64_t j, std::int64_t k, std::int64_t row_stride,
                      std::int64_t plane_stride) {
  constexpr int Fy = FoldedField<T>::kFoldY, Fz = FoldedField<T>::kFoldZ;
  FoldRowLanes lanes;
  lanes.base_y = std::max(f.first_y(j), box.lo[1]);
  lanes.base_z = std::max(f.first_z(k), box.lo[2]);
  for (int zl = 0; zl < Fz; ++zl)
    for (int yl = 0; yl < Fy; ++yl) {
      const std::int64_t y = f.first_y(j) + yl, z = f.first_z(k) + zl;
      if (y < box.lo[1] || y >= box.hi[1] || z < box.lo[2] || z >= box.hi[2]) continue;
      lanes.mask |= 1u << (zl * Fy + yl);
      lanes.offsets[zl * Fy + yl] = (z - lanes.base_z) * plane_stride + (y - lanes.base_y) * row_stride;
    }
  return lanes;
}

// f(j, k) for every fold row that `box` (within the held points) touches, shared out over the threads.
template <typename T, typename F>
void for_fold_rows(const FoldedField<T>& folded, const Box& box, F&& f) {
  const auto [j0, j1] = folded.folds_y_of(box);
  const auto [k0, k1] = folded.folds_z_of(box);
#pragma omp parallel for schedule(static) collapse(2)
  for (std::int64_t k = k0; k < k1; ++k)
    for (std::int64_t j = j0; j < j1; ++j) f(j, k);
}

#if defined(__AVX512F__)
// A square tile of AVX-512 registers of T, one per x, and its transpose in registers: lane l of
// register i becomes lane i of register l, so that the Lanes vectors of Lanes consecutive x become
// the Lanes rows they came from (and back). The transpose swaps the off-diagonal b x b blocks of every
// 2b x 2b block for b = Lanes / 2 down to 1, each swap two two-source permutes per pair of registers.
template <typename T>
struct Tile;

template <>
struct Tile<float> {
  using reg = __m512;
  using index = std::int32_t;
  static constexpr int kLanes = 16;
  static reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, reg v) { _mm512_storeu_ps(p, v); }
  static reg zero() { return _mm512_setzero_ps(); }
  static reg keep_lanes(std::uint32_t mask, reg old, reg v) { return _mm512_mask_mov_ps(old, static_cast<__mmask16>(mask), v); }
  static __m512i indices(const index* i) { return _mm512_loadu_si512(i); }
  static reg permute(reg a, __m512i i, reg b) { return _mm512_permutex2var_ps(a, i, b); }
};

template <>
struct Tile<double> {
  using reg = __m512d;
  using index = std::int64_t;
  static constexpr int kLanes = 8;
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg v) { _mm512_storeu_pd(p, v); }
  static reg zero() { return _mm512_setzero_pd(); }
  static reg keep_lanes(std::uint32_t mask, reg old, reg v) { return _mm512_mask_mov_pd(old, static_cast<__mmask8>(mask), v); }
  static __m512i indices(const index* i) { return _mm512_loadu_si512(i); }
  static reg permute(reg a, __m512i i, reg b) { return _mm512_permutex2var_pd(a, i, b); }
};

// For each block size b: the permute indices of the lower register of a pair (i, i + b) and of the upper.
template <typename T>
struct TransposeIndices {
  static constexpr int kLanes = Tile<T>::kLanes;
  static constexpr int kStages = kLanes == 16 ? 4 : 3;
  typename Tile<T>::index lower[kStages][kLanes], upper[kStages][kLanes];
  constexpr TransposeIndices() : lower{}, upper{} {
    for (int s = 0, b = kLanes / 2; b >= 1; ++s, b /= 2)
      for (int l = 0; l < kLanes; ++l) {
        lower[s][l] = (l & b) ? kLanes + l - b : l;
        upper[s][l] = (l & b) ? kLanes + l : l + b;
      }
  }
};

template <typename T>
void transpose(typename Tile<T>::reg* r) {
  using V = Tile<T>;
  static constexpr TransposeIndices<T> kIndices;
  for (int s = 0, b = V::kLanes / 2; b >= 1; ++s, b /= 2) {
    const __m512i lower = V::indices(kIndices.lower[s]), upper = V::indices(kIndices.upper[s]);
    for (int i = 0; i < V::kLanes; ++i) {
      if (i & b) continue;
      const typename V::reg a = r[i], c = r[i + b];
      r[i] = V::permute(a, lower, c);
      r[i + b] = V::permute(a, upper, c);
    }
  }
}
#endif

// Moving `len` vectors from or to their lanes' rows: whole tiles of Lanes x transposed in registers
// where AVX-512 is built (several times faster than a lane at a time), the rest a lane at a time.
template <typename T>
void rows_into_vectors(T* vectors, const T* rows, const FoldRowLanes& lanes, std::int64_t len) {
  constexpr int kLanes = FoldedField<T>::kLanes;
  std::int64_t i = 0;
#if defined(__AVX512F__)
  using V = Tile<T>;
  for (; i + kLanes <= len; i += kLanes) {
    typename V::reg r[kLanes];
    for (int l = 0; l < kLanes; ++l) r[l] = (lanes.mask & (1u << l)) ? V::load(rows + lanes.offsets[l] + i) : V::zero();
    transpose<T>(r);
    for (int x = 0; x < kLanes; ++x) {
      T* v = vectors + (i + x) * kLanes;
      V::store(v, V::keep_lanes(lanes.mask, V::load(v), r[x]));
    }
  }
#endif
  for (int l = 0; l < kLanes; ++l)
    if (lanes.mask & (1u << l))
      for (std::int64_t x = i; x < len; ++x) vectors[x * kLanes + l] = rows[lanes.offsets[l] + x];
}

template <typename T>
void vectors_into_rows(const T* vectors, T* rows, const FoldRowLanes& lanes, std::int64_t len) {
  constexpr int kLanes = FoldedField<T>::kLanes;
  std::int64_t i = 0;
#if defined(__AVX512F__)
  using V = Tile<T>;
  for (; i + kLanes <= len; i += kLanes) {
    typename V::reg r[kLanes];
    for (int x = 0; x < kLanes; ++x) r[x] = V::load(vectors + (i + x) * kLanes);
    transpose<T>(r);
    for (int l = 0; l < kLanes; ++l)
      if (lanes.mask & (1u << l)) V::store(rows + lanes.offsets[l] + i, r[l]);
  }
#endif
  for (int l = 0; l < kLanes; ++l)
    if (lanes.mask & (1u << l))
      for (std::int64_t x = i; x < len; ++x) rows[lanes.offsets[l] + x] = vectors[x * kLanes + l];
}

}  // namespace

template <typename T>
void FoldedField<T>::copy_from(const Field<T>& field, const Box& box) {
  const Box both = intersect(intersect(box, field.with_halo()), held());
  if (both.empty()) return;
  for_fold_rows(*this, both, [&](std::int64_t j, std::int64_t k) {
    const FoldRowLanes lanes = lanes_of(*this, both, j, k, field.row_stride(), field.plane_stride());
    if (lanes.mask == 0) return;
    rows_into_vectors(vector(both.lo[0], j, k), &field.at(both.lo[0], lanes.base_y, lanes.base_z), lanes, both.extent(0));
  });
}

template <typename T>
void FoldedField<T>::copy_to(Field<T>& field, const Box& box) const {
  const Box both = intersect(intersect(box, field.with_halo()), held());
  if (both.empty()) return;
  for_fold_rows(*this, both, [&](std::int64_t j, std::int64_t k) {
    const FoldRowLanes lanes = lanes_of(*this, both, j, k, field.row_stride(), field.plane_stride());
    if (lanes.mask == 0) return;
    vectors_into_rows(vector(both.lo[0], j, k), &field.at(both.lo[0], lanes.base_y, lanes.base_z), lanes, both.extent(0));
  });
}

// Every value times zero sums to zero exactly when all are finite (NaN and infinity times zero are
// NaN): a sum the compiler vectorises over whole vectors, as an isfinite per value would not be.
template <typename T>
bool FoldedField<T>::all_finite(const Box& box) const {
  const Box both = intersect(box, held());
  if (both.empty()) return true;
  const auto [j0, j1] = folds_y_of(both);
  const auto [k0, k1] = folds_z_of(both);
  const std::int64_t len = both.extent(0) * kLanes;
  bool finite = true;
#pragma omp parallel for schedule(static) collapse(2) reduction(&& : finite)
  for (std::int64_t k = k0; k < k1; ++k)
    for (std::int64_t j = j0; j < j1; ++j) {
      const T* v = vector(both.lo[0], j, k);
      T zero = 0;
#pragma omp simd reduction(+ : zero)
      for (std::int64_t i = 0; i < len; ++i) zero += v[i] * T(0);
      finite = finite && zero == T(0);
    }
  return finite;
}

template class FoldedField<float>;
template class FoldedField<double>;

}  // namespace wave3d
