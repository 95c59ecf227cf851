#include "stencil/kernel.hpp"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>

#include "stencil/block_loop.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/column_rows.hpp"
#include "stencil/folded_kernel.hpp"
#include "stencil/jammed_rows.hpp"
#include "stencil/radius_dispatch.hpp"
#include "stencil/simd.hpp"

namespace wave3d {
namespace {

// N vectors (of V's width) of one row starting at p. Each point takes the reference kernel's
// arithmetic in its order, so the variants agree bitwise. Why N > 1: each point's k loop is one
// chain of dependent multiply-adds, and one chain alone waits on the multiply-add latency at every
// k; N independent chains interleaved keep the units busy. Two of the five additions per k go to
// the multiply-add units (add_on_multiplier, the same sum), so that adders and multiply-adders share
// the work on cores that keep them apart.
template <typename V, typename T, int R, int N>
inline void update_vectors(const T* __restrict p, T* __restrict nx, const T* __restrict v,
                           const typename V::reg* c, typename V::reg one, std::int64_t s1, std::int64_t s2) {
  using reg = typename V::reg;
  reg lap[N];
#pragma GCC unroll 4
  for (int n = 0; n < N; ++n) lap[n] = V::mul(c[0], V::load(p + n * V::width));
#pragma GCC unroll 16
  for (int k = 1; k <= R; ++k) {
#pragma GCC unroll 4
    for (int n = 0; n < N; ++n) {
      const T* q = p + n * V::width;
      const reg xs = V::add(V::load(q - k), V::load(q + k));
      const reg ys = V::add_on_multiplier(V::load(q - k * s1), V::load(q + k * s1), one);
      const reg zs = V::add_on_multiplier(V::load(q - k * s2), V::load(q + k * s2), one);
      lap[n] = V::fma(c[k], V::add(V::add(xs, ys), zs), lap[n]);
    }
  }
#pragma GCC unroll 4
  for (int n = 0; n < N; ++n) {
    const std::int64_t o = n * V::width;
    const reg centre = V::load(p + o);
    V::store(nx + o, V::fma(V::load(v + o), lap[n], V::sub(V::add(centre, centre), V::load(nx + o))));
  }
}

// One row segment of `len` points: pairs of vectors, then single vectors, then the row end one point
// at a time with the same arithmetic.
template <typename T, int R>
inline void update_row(const T* p, T* nx, const T* v, const T* c, std::int64_t len, std::int64_t s1,
                       std::int64_t s2) {
  std::int64_t i = 0;
  if constexpr (simd::has_native) {
    using V = simd::Native<T>;
    const auto cv = simd::broadcast_weights<V, R>(c);
    const typename V::reg one = V::one();
    for (; i + 2 * V::width <= len; i += 2 * V::width)
      update_vectors<V, T, R, 2>(p + i, nx + i, v + i, cv.data(), one, s1, s2);
    for (; i + V::width <= len; i += V::width)
      update_vectors<V, T, R, 1>(p + i, nx + i, v + i, cv.data(), one, s1, s2);
  }
  using S = simd::Scalar<T>;
  for (; i < len; ++i) update_vectors<S, T, R, 1>(p + i, nx + i, v + i, c, S::one(), s1, s2);
}

template <typename T>
inline void prefetch_row(const T* row, std::int64_t len) {
  constexpr std::int64_t per_line = kCacheLine / sizeof(T);
  for (std::int64_t i = 0; i < len; i += per_line) __builtin_prefetch(row + i, 0, 3);
}

template <typename T>
void check_layout(const Field<T>& prev, const Field<T>& next, const Field<T>& vel, const Box& region, int radius) {
  if (!(prev.owned() == next.owned() && prev.owned() == vel.owned() && prev.halo() == next.halo() &&
        prev.halo() == vel.halo()))
    throw std::logic_error("kernel: prev, next and vel do not share one layout");
  if (prev.halo() < radius) throw std::logic_error("kernel: field halo is narrower than the stencil radius");
  // A region may reach into the halo (temporal blocking computes halo points redundantly), as long
  // as every point it reads is allocated.
  const Box read = region.grown(radius);
  if (!region.empty() && intersect(read, prev.with_halo()) != read)
    throw std::logic_error("kernel: the stencil of the region reads beyond the field's halo");
}

// One block (or any box of the region) on the calling thread.
template <typename T, int R, KernelVariant variant>
void update_box(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const T* c, const Box& b,
                int prefetch_rows) {
  const std::int64_t s1 = prev.row_stride(), s2 = prev.plane_stride();
  const T* pb = prev.data();
  T* nb = next.data();
  const T* vb = vel.data();
  const std::int64_t len = b.extent(0);
  if constexpr (variant == KernelVariant::columns) {
    // A box one plane thin (a temporal sweep's wave front) has no column to march: rows do better.
    if (b.extent(2) > 1) {
      const std::int64_t o = prev.offset(b.lo[0], b.lo[1], b.lo[2]);
      update_columns<T, R>(pb + o, nb + o, vb + o, c, len, b.extent(1), b.extent(2), s1, s2, prefetch_rows);
      return;
    }
  }
  for (std::int64_t z = b.lo[2]; z < b.hi[2]; ++z) {
    if constexpr (variant == KernelVariant::jammed) {
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; y += kJamRows) {
        const int rows = static_cast<int>(std::min<std::int64_t>(kJamRows, b.hi[1] - y));
        const std::int64_t o = prev.offset(b.lo[0], y, z);
        // Plane z+R of the next group's rows is the one part of prev this block has not read yet.
        for (int u = 0; u < rows; ++u) prefetch_row(pb + o + (rows + u) * s1 + R * s2, len);
        update_rows_jammed<T, R>(rows, pb + o, nb + o, vb + o, c, len, s1, s2);
      }
    } else {
      for (std::int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
        const std::int64_t o = prev.offset(b.lo[0], y, z);
        // The next row's leading z neighbour (plane z+R) is the one line of prev not yet in cache:
        // every other row it reads was read by the rows before it. Ask for it one row early.
        prefetch_row(pb + o + s1 + R * s2, len);
        update_row<T, R>(pb + o, nb + o, vb + o, c, len, s1, s2);
      }
    }
  }
}

template <typename T, int R, KernelVariant variant>
void update_blocked(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const T* c, const Box& region,
                    const Blocking& blocking, const std::function<void()>* between_blocks) {
  for_each_block(region, blocking, prev.line_start_x(), [&](const Box& b) {
    update_box<T, R, variant>(prev, next, vel, c, b, blocking.prefetch_rows);
    if (between_blocks != nullptr && omp_get_thread_num() == 0) (*between_blocks)();
  });
}

template <typename T, int R>
void update_plain(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const T* c, const Box& region) {
  const std::int64_t s1 = prev.row_stride(), s2 = prev.plane_stride();
  for (std::int64_t z = region.lo[2]; z < region.hi[2]; ++z)
    for (std::int64_t y = region.lo[1]; y < region.hi[1]; ++y)
      for (std::int64_t x = region.lo[0]; x < region.hi[0]; ++x) {
        const std::int64_t o = prev.offset(x, y, z);
        const T* p = prev.data() + o;
        T lap = c[0] * p[0];
        for (int k = 1; k <= R; ++k)
          lap = simd::multiply_add(c[k], ((p[-k] + p[k]) + (p[-k * s1] + p[k * s1])) + (p[-k * s2] + p[k * s2]), lap);
        next.data()[o] = simd::multiply_add(vel.data()[o], lap, T(2) * p[0] - next.data()[o]);
      }
}

}  // namespace

std::string_view to_string(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::reference: return "reference";
    case KernelVariant::blocked: return "blocked";
    case KernelVariant::jammed: return "jammed";
    case KernelVariant::columns: return "columns";
    case KernelVariant::folded: return "folded";
  }
  return "unknown";
}

bool jammed_kernel_built() { return simd::has_native; }

bool column_window_fits_registers(int radius) {
  // The window, the weights' registers that the compiler keeps and a few sums and operands.
  return 2 * radius + 1 + 8 <= simd::native_registers;
}
int columns_at_once(int radius) {
  int at_once = 1;
  dispatch_radius(radius, [&]<int R>() { at_once = kColumnsAtOnce<simd::ColumnVector<float>, R>; });
  return at_once;
}
std::string_view jammed_vector_isa() { return simd::native_name; }

int default_prefetch_rows(int radius) { return radius >= 4 ? 2 : 1; }

Blocking with_prefetch_rows(Blocking blocking, int radius) {
  if (blocking.prefetch_rows <= 0) blocking.prefetch_rows = default_prefetch_rows(radius);
  return blocking;
}

template <typename T>
Kernel<T>::Kernel(const std::vector<double>& weights, Blocking blocking, KernelVariant variant)
    : radius_(static_cast<int>(weights.size()) - 1),
      blocking_(with_prefetch_rows(blocking, radius_)),
      variant_(variant) {
  blocking_.z_innermost = variant == KernelVariant::columns;
  if (!is_supported_radius(radius_))
    throw std::invalid_argument("stencil radius " + std::to_string(radius_) + " is not one of 1, 2, 4, 8");
  weights_.resize(weights.size());
  weights_[0] = static_cast<T>(3.0 * weights[0]);
  for (std::size_t k = 1; k < weights.size(); ++k) weights_[k] = static_cast<T>(weights[k]);
}

template <typename T>
void Kernel<T>::update(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const Box& region,
                       const std::function<void()>* between_blocks) const {
  if (variant_ == KernelVariant::reference) return update_reference(prev, next, vel, region);
  if (variant_ == KernelVariant::folded) throw std::logic_error("kernel: the folded variant computes on folded fields");
  check_layout(prev, next, vel, region, radius_);
  dispatch_radius(radius_, [&]<int R>() {
    if (variant_ == KernelVariant::jammed)
      update_blocked<T, R, KernelVariant::jammed>(prev, next, vel, weights_.data(), region, blocking_, between_blocks);
    else if (variant_ == KernelVariant::columns)
      update_blocked<T, R, KernelVariant::columns>(prev, next, vel, weights_.data(), region, blocking_, between_blocks);
    else
      update_blocked<T, R, KernelVariant::blocked>(prev, next, vel, weights_.data(), region, blocking_, between_blocks);
  });
}

template <typename T>
void Kernel<T>::update(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel, const Box& region,
                       const std::function<void()>* between_blocks) const {
  if (variant_ != KernelVariant::folded)
    throw std::logic_error(std::string("kernel: the ") + std::string(to_string(variant_)) +
                           " variant computes on plain fields");
  const FoldedBlocking folds = folded_blocking_for<T>(blocking_.size, {region.extent(0), region.extent(1), region.extent(2)});
  update_folded(prev, next, vel, region, weights_.data(), radius_, folds, between_blocks);
}

template <typename T>
void Kernel<T>::update_on_this_thread(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const Box& box) const {
  if (box.empty()) return;
  const T* c = weights_.data();
  const int ahead = blocking_.prefetch_rows;
  dispatch_radius(radius_, [&]<int R>() {
    switch (variant_) {
      case KernelVariant::reference: return update_plain<T, R>(prev, next, vel, c, box);
      case KernelVariant::blocked: return update_box<T, R, KernelVariant::blocked>(prev, next, vel, c, box, ahead);
      case KernelVariant::jammed: return update_box<T, R, KernelVariant::jammed>(prev, next, vel, c, box, ahead);
      case KernelVariant::columns: return update_box<T, R, KernelVariant::columns>(prev, next, vel, c, box, ahead);
      case KernelVariant::folded: throw std::logic_error("kernel: the folded variant computes on folded fields");
    }
  });
}

template <typename T>
void Kernel<T>::check_fields(const Field<T>& prev, const Field<T>& next, const Field<T>& vel, const Box& region) const {
  check_layout(prev, next, vel, region, radius_);
}

template <typename T>
void Kernel<T>::update_on_this_thread(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel,
                                      const Box& box) const {
  if (variant_ != KernelVariant::folded)
    throw std::logic_error(std::string("kernel: the ") + std::string(to_string(variant_)) +
                           " variant computes on plain fields");
  update_folded_on_this_thread(prev, next, vel, box, weights_.data(), radius_);
}

template <typename T>
void Kernel<T>::check_fields(const FoldedField<T>& prev, const FoldedField<T>& next, const FoldedField<T>& vel,
                             const Box& region) const {
  if (!(prev.held() == next.held() && prev.held() == vel.held() && prev.halo() == next.halo() &&
        prev.halo() == vel.halo()))
    throw std::logic_error("kernel: prev, next and vel do not share one layout");
  if (prev.halo() < radius_) throw std::logic_error("kernel: field halo is narrower than the stencil radius");
  // A fold the region covers in part reads whole folds around it: one fold more than the points.
  Box readable = prev.held();
  readable.lo[1] += FoldedField<T>::kFoldY;
  readable.hi[1] -= FoldedField<T>::kFoldY;
  readable.lo[2] += FoldedField<T>::kFoldZ;
  readable.hi[2] -= FoldedField<T>::kFoldZ;
  const Box read = region.grown(radius_);
  if (!region.empty() && intersect(read, readable) != read)
    throw std::logic_error("kernel: the stencil of the region reads beyond the field's halo");
}

template <typename T>
void Kernel<T>::update_reference(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const Box& region) const {
  check_layout(prev, next, vel, region, radius_);
  dispatch_radius(radius_, [&]<int R>() { update_plain<T, R>(prev, next, vel, weights_.data(), region); });
}

template class Kernel<float>;
template class Kernel<double>;

}  // namespace wave3d
