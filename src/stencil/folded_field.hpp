#pragma once
// FoldedField<T>: the values of a subdomain (and its halo) in a vector-folded layout, the one the
// folded kernel (folded_kernel.hpp) computes on.
//
// Why: in the plain layout (field.hpp) a vector holds consecutive points of one row, so each output
// vector of the star of radius R reads its 2R y and 2R z neighbours from 4R different cache lines.
// Folding a vector over a few rows and planes instead (Fold<T>::y rows x Fold<T>::z planes at one x,
// as YASK's default fold) makes a vector's x neighbours whole vectors on neighbouring lines and its
// y and z neighbours lane shifts of the few vectors around it, which the next vectors along x read
// again. On a 2-core Intel Xeon VM (AVX-512, R = 8, single precision, 256^3 points, 2 threads), the
// folded kernel ran 1303-1386 MPoints/s where wave3d's best plain-layout kernel ran 879-1009 and
// YASK's folded iso3dfd 1334-1379 (docs/performance.md).
//
// Layout: vectors indexed [z fold][y fold][x], x fastest, lane = (z % Fz) * Fy + (y % Fy) counted from
// the field's first held point. The held box is the owned box grown by the halo along x and by whole
// folds along y and z: ceil(halo / F) folds, plus one more on each side, so that the lanes of a fold
// the region only partly covers read held points too (their results are never stored).
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "field/aligned_buffer.hpp"
#include "field/field.hpp"
#include "field/first_touch.hpp"
#include "geometry/box.hpp"
#include "stencil/block_loop.hpp"

namespace wave3d {

// Points per fold along y and z for one AVX-512 vector of T.
template <typename T>
struct Fold;
template <>
struct Fold<float> {
  static constexpr int y = 4, z = 4;
};
template <>
struct Fold<double> {
  static constexpr int y = 4, z = 2;
};

template <typename T>
class FoldedField {
 public:
  using value_type = T;
  static constexpr int kFoldY = Fold<T>::y, kFoldZ = Fold<T>::z, kLanes = kFoldY * kFoldZ;
  // A run of folds [first, end) along y or z.
  struct FoldRange {
    std::int64_t first = 0, end = 0;
  };

  // Allocates without writing: first_touch() (or the kernel's first writes) place the pages.
  FoldedField(const Box& owned, int halo, bool huge_pages = false)
      : owned_(owned),
        halo_(halo),
        folds_y_(folds_beyond(halo, kFoldY)),
        folds_z_(folds_beyond(halo, kFoldZ)),
        origin_{owned.lo[0] - halo, owned.lo[1] - folds_y_ * kFoldY, owned.lo[2] - folds_z_ * kFoldZ},
        nx_(owned.extent(0) + 2 * halo),
        ny_(ceil_div(owned.extent(1), kFoldY) + 2 * folds_y_),
        nz_(ceil_div(owned.extent(2), kFoldZ) + 2 * folds_z_),
        row_vectors_(padded_row_vectors(nx_)),
        plane_vectors_(padded_plane_vectors(ny_ * row_vectors_)),
        buffer_(static_cast<std::size_t>(nz_ * plane_vectors_ * kLanes) * sizeof(T), huge_pages) {}

  // Writes zero into every element: with `first_touch`, the z folds of `computed` (the region the
  // kernel sweeps most of the points in) each by the thread the folded kernel gives it (a contiguous
  // share of that region's z folds per thread, folded_kernel.cpp), the folds below them by the first
  // thread and those above by the last (toucher_of_fold names which); with `serial` all on the
  // calling thread.
  void first_touch(InitPolicy order, const Box& computed) {
    const std::int64_t plane = fold_plane_stride();
    T* const v = values();
    if (order == InitPolicy::serial) {
      std::fill(v, v + nz_ * plane, T(0));
      return;
    }
    const auto [k0, k1] = computed_folds(computed);
#pragma omp parallel
    {
      const int thread = omp_get_thread_num(), threads = omp_get_num_threads();
      const IterationShare share = static_schedule_share(thread, k1 - k0, threads);
      const std::int64_t from = thread == 0 ? 0 : k0 + share.first;
      const std::int64_t to = thread == threads - 1 ? nz_ : k0 + share.end;
      if (from < to) std::fill(v + from * plane, v + to * plane, T(0));
    }
  }
  // Writes zero into every element for a sweep whose threads each compute a slab of rows through
  // every plane (temporal blocking's tiles): thread t of a team of n the y folds of rows
  // [starts[t], starts[t + 1]) of every z fold, starts = thread_rows(n) (n + 1 values), the folds
  // below the first start by the first thread and those from the last end on by the last.
  void first_touch_rows(const std::function<std::vector<std::int64_t>(int threads)>& thread_rows) {
    const std::int64_t row = fold_row_stride();
    T* const v = values();
    std::vector<std::int64_t> starts;
#pragma omp parallel
    {
      // One thread asks for the team's rows; the implicit barrier of single publishes them.
#pragma omp single
      starts = thread_rows(omp_get_num_threads());
      const auto [from, to] = row_folds_of_thread(omp_get_thread_num(), starts);
      // The last thread also writes the padding after each plane's last fold row.
      const std::int64_t plane = fold_plane_stride(), end = to == ny_ ? plane : to * row;
      for (std::int64_t k = 0; k < nz_ && from < to; ++k) std::fill(v + k * plane + from * row, v + k * plane + end, T(0));
    }
  }
  // The y folds [first, end) that first_touch_rows has thread t write, of a team of starts.size() - 1.
  FoldRange row_folds_of_thread(int t, const std::vector<std::int64_t>& starts) const {
    const auto threads = static_cast<int>(starts.size()) - 1;
    const auto fold_at = [&](std::int64_t y) { return std::clamp<std::int64_t>(fold_y(std::max(y, origin_[1])), 0, ny_); };
    const std::int64_t from = t == 0 ? 0 : fold_at(starts[static_cast<std::size_t>(t)]);
    const std::int64_t to = t == threads - 1 ? ny_ : fold_at(starts[static_cast<std::size_t>(t) + 1]);
    return {from, std::max(from, to)};
  }
  // The thread of a team of `threads` that first_touch(first_touch, computed) has write z fold k.
  int toucher_of_fold(std::int64_t k, const Box& computed, int threads) const {
    const auto [k0, k1] = computed_folds(computed);
    if (k < k0 || k1 == k0) return 0;
    if (k >= k1) return threads - 1;
    return static_schedule_thread(k - k0, k1 - k0, threads);
  }

  const Box& owned() const { return owned_; }
  int halo() const { return halo_; }
  // The points it holds: the owned box grown by the halo along x and by whole folds along y and z.
  Box held() const {
    return {origin_, {origin_[0] + nx_, origin_[1] + ny_ * kFoldY, origin_[2] + nz_ * kFoldZ}};
  }

  // The fold (along y or z) holding global y or z; the first held point's fold is 0.
  std::int64_t fold_y(std::int64_t y) const { return (y - origin_[1]) / kFoldY; }
  std::int64_t fold_z(std::int64_t z) const { return (z - origin_[2]) / kFoldZ; }
  // The folds [first, end) along y (z) that hold the rows (planes) of a non-empty `box`.
  FoldRange folds_y_of(const Box& box) const { return {fold_y(box.lo[1]), fold_y(box.hi[1] - 1) + 1}; }
  FoldRange folds_z_of(const Box& box) const { return {fold_z(box.lo[2]), fold_z(box.hi[2] - 1) + 1}; }
  // The first global y (z) of fold j (k).
  std::int64_t first_y(std::int64_t j) const { return origin_[1] + j * kFoldY; }
  std::int64_t first_z(std::int64_t k) const { return origin_[2] + k * kFoldZ; }

  // Elements between the vectors of neighbouring x, y folds and z folds.
  static constexpr std::int64_t x_stride() { return kLanes; }
  std::int64_t fold_row_stride() const { return row_vectors_ * kLanes; }
  std::int64_t fold_plane_stride() const { return plane_vectors_ * kLanes; }

  // The vector of global x in folds (j, k).
  T* vector(std::int64_t x, std::int64_t j, std::int64_t k) { return values() + vector_offset(x, j, k); }
  const T* vector(std::int64_t x, std::int64_t j, std::int64_t k) const { return values() + vector_offset(x, j, k); }

  T& at(std::int64_t x, std::int64_t y, std::int64_t z) { return values()[point_offset(x, y, z)]; }
  const T& at(std::int64_t x, std::int64_t y, std::int64_t z) const { return values()[point_offset(x, y, z)]; }

  // The values of `box` (the points both hold) from a plain field, and back: fold row by fold row,
  // shared out over the threads, the vectors of a fold row moved from (to) its rows of the plain
  // field in tiles transposed in registers, the lanes outside `box` left as they were (folded_field.cpp).
  void copy_from(const Field<T>& field, const Box& box);
  void copy_to(Field<T>& field, const Box& box) const;
  // Whether every value of the folds holding `box` is finite. The lanes of those folds beyond `box`
  // hold zeros or halo copies of values a neighbour holds: a value that is not finite there is one
  // on the neighbour too, so over all ranks the answer is the same as of the points alone.
  bool all_finite(const Box& box) const;

  // The allocation, for memory placement and page location.
  void* data() const { return buffer_.data(); }
  std::size_t allocated_bytes() const { return buffer_.bytes(); }

 private:
  // The z folds that `computed` spans; all of them for an empty box.
  FoldRange computed_folds(const Box& computed) const {
    return computed.empty() ? FoldRange{0, nz_} : folds_z_of(computed);
  }
  T* values() const { return static_cast<T*>(buffer_.data()); }
  static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
  static std::int64_t folds_beyond(int halo, int fold) { return ceil_div(halo, fold) + 1; }
  // A vector is one cache line, and the kernel reads the same x of a dozen or more fold rows at once
  // (its y and z neighbours). Were the strides between them multiples of 4 KiB (a 256-point subdomain
  // with a 32-point halo: 320 lines per fold row), those lines would all fall in one set of the L1
  // cache (64 sets of 12 ways on the Intel Xeon VM) and evict each other: the kernel ran 1.5-1.9x
  // slower per level there. An odd number of lines per fold row puts neighbouring fold rows in
  // different sets, and 32 lines more than a multiple of 64 per z fold puts the planes half a period
  // apart.
  static std::int64_t padded_row_vectors(std::int64_t vectors) { return vectors | 1; }
  static std::int64_t padded_plane_vectors(std::int64_t vectors) { return vectors + ((32 - vectors % 64) + 64) % 64; }

  std::int64_t vector_offset(std::int64_t x, std::int64_t j, std::int64_t k) const {
    return (k * plane_vectors_ + j * row_vectors_ + (x - origin_[0])) * kLanes;
  }
  std::int64_t point_offset(std::int64_t x, std::int64_t y, std::int64_t z) const {
    const std::int64_t dy = y - origin_[1], dz = z - origin_[2];
    return vector_offset(x, dy / kFoldY, dz / kFoldZ) + (dz % kFoldZ) * kFoldY + dy % kFoldY;
  }
  Box owned_;
  int halo_;
  std::int64_t folds_y_, folds_z_;
  Index3 origin_;  // the first held point
  std::int64_t nx_, ny_, nz_;  // held points along x, folds along y and z
  std::int64_t row_vectors_, plane_vectors_;  // vectors from one fold row (z fold) to the next, padding included
  AlignedBuffer buffer_;  // page-aligned, zero until written: the lanes beyond the owned box read zeros
};

extern template class FoldedField<float>;
extern template class FoldedField<double>;

}  // namespace wave3d
