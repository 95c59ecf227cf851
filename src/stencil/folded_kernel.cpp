#include "stencil/folded_kernel.hpp"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "stencil/block_loop.hpp"
#include "stencil/column_rows.hpp"
#include "stencil/radius_dispatch.hpp"
#include "stencil/simd.hpp"

namespace wave3d {

#if defined(__AVX512F__)

namespace {

// simd::Native's AVX-512 operations and the two-source lane permute the folded kernel adds to them.
template <typename T>
struct FoldedVector;

template <>
struct FoldedVector<float> : simd::Native<float> {
  using index = __m512i;
  static reg permute(reg lo, index i, reg hi) { return _mm512_permutex2var_ps(lo, i, hi); }
  static index indices(const int (&lanes)[16]) { return _mm512_loadu_si512(lanes); }
};

template <>
struct FoldedVector<double> : simd::Native<double> {
  using index = __m512i;
  static reg permute(reg lo, index i, reg hi) { return _mm512_permutex2var_pd(lo, i, hi); }
  static index indices(const int (&lanes)[8]) {
    const long long wide[8] = {lanes[0], lanes[1], lanes[2], lanes[3], lanes[4], lanes[5], lanes[6], lanes[7]};
    return _mm512_loadu_si512(wide);
  }
};

// The permute indices that shift a pair of neighbouring folds (lo, then hi) by s rows (along y) or s
// planes (along z): lane (zl, yl) takes the point s further, from lo where it stays inside the fold,
// else from hi (indices of the second source start at kLanes).
template <typename T>
struct FoldShifts {
  using V = FoldedVector<T>;
  static constexpr int kFy = Fold<T>::y, kFz = Fold<T>::z, kLanes = kFy * kFz;
  typename V::index along_y[kFy], along_z[kFz];
  FoldShifts() {
    for (int s = 0; s < kFy; ++s) {
      int lanes[kLanes];
      for (int zl = 0; zl < kFz; ++zl)
        for (int yl = 0; yl < kFy; ++yl)
          lanes[zl * kFy + yl] = yl + s < kFy ? zl * kFy + yl + s : kLanes + zl * kFy + yl + s - kFy;
      along_y[s] = V::indices(lanes);
    }
    for (int s = 0; s < kFz; ++s) {
      int lanes[kLanes];
      for (int zl = 0; zl < kFz; ++zl)
        for (int yl = 0; yl < kFy; ++yl)
          lanes[zl * kFy + yl] = zl + s < kFz ? (zl + s) * kFy + yl : kLanes + (zl + s - kFz) * kFy + yl;
      along_z[s] = V::indices(lanes);
    }
  }
};

// The lanes of folds (j, k) whose points lie in `region`.
template <typename T>
typename FoldedVector<T>::mask lanes_in(const FoldedField<T>& f, const Box& region, std::int64_t j, std::int64_t k) {
  constexpr int kFy = Fold<T>::y, kFz = Fold<T>::z;
  unsigned bits = 0;
  for (int zl = 0; zl < kFz; ++zl)
    for (int yl = 0; yl < kFy; ++yl) {
      const std::int64_t y = f.first_y(j) + yl, z = f.first_z(k) + zl;
      if (y >= region.lo[1] && y < region.hi[1] && z >= region.lo[2] && z < region.hi[2])
        bits |= 1u << (zl * kFy + yl);
    }
  return static_cast<typename FoldedVector<T>::mask>(bits);
}

// The neighbour k points away (Sign -1 or +1) along an axis folded by F, from the fold vectors
// around the centre: centre[d] is the vector d folds away.
template <typename V, int F, int K, int Sign>
inline typename V::reg neighbour_of(const typename V::reg* centre, const typename V::index (&shifts)[F]) {
  constexpr int whole = K / F, part = K % F;
  if constexpr (part == 0) return centre[Sign * whole];
  else if constexpr (Sign > 0) return V::permute(centre[whole], shifts[part], centre[whole + 1]);
  else return V::permute(centre[-whole - 1], shifts[F - part], centre[-whole]);
}

// I x J rows of vectors at once: x in [x0, x1) of folds (j + q, k + o), q < I, o < J, each with the
// reference kernel's operations in its order. Neighbouring folds read the same pairs of fold vectors
// shifted alike (fold k's neighbour 5 planes up is fold k + 1's one plane up), so the rows share those
// permutes (the compiler merges the identical ones), the port the folded kernel waits on: at R = 8 in
// single precision 24 permutes per vector one row at a time, 15 for 2 x 2 rows. On the Intel Xeon VM
// (R = 8, 256^3, 2 threads, the later levels of a temporal sweep) one row at a time took 1.10 ns per
// point and thread, 1 x 2 rows 0.97-1.03, 2 x 2 0.94-0.95; 4 along z or 4 along y ran no faster.
template <typename T, int R, int J, int I>
void update_fold_rows(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel, std::int64_t x0,
                      std::int64_t x1, std::int64_t j, std::int64_t k,
                      const typename FoldedVector<T>::mask (&lanes)[I][J], const typename FoldedVector<T>::reg* c,
                      const FoldShifts<T>& shifts) {
  using V = FoldedVector<T>;
  using reg = typename V::reg;
  constexpr int kFy = Fold<T>::y, kFz = Fold<T>::z, kLanes = kFy * kFz;
  constexpr int By = (R + kFy - 1) / kFy, Bz = (R + kFz - 1) / kFz;  // folds reached on either side
  const std::int64_t sy = prev.fold_row_stride(), sz = prev.fold_plane_stride();
  const T* p = prev.vector(x0, j, k);
  const T* v = vel.vector(x0, j, k);
  T* n = next.vector(x0, j, k);
  for (std::int64_t x = x0; x < x1; ++x, p += kLanes, v += kLanes, n += kLanes) {
#pragma GCC unroll 4
    for (int q = 0; q < I; ++q)
#pragma GCC unroll 4
      for (int o = 0; o < J; ++o) {
        const T* po = p + q * sy + o * sz;
        reg zs[2 * Bz + 1], ys[2 * By + 1];
#pragma GCC unroll 9
        for (int d = -Bz; d <= Bz; ++d) zs[Bz + d] = V::load(po + d * sz);
#pragma GCC unroll 9
        for (int d = -By; d <= By; ++d) ys[By + d] = V::load(po + d * sy);
        const reg centre = zs[Bz];
        reg lap = V::mul(c[0], centre);
        for_each_distance<R>([&]<int K>() {
          const reg xpair = V::add(V::load(po - K * kLanes), V::load(po + K * kLanes));
          const reg ypair = V::add(neighbour_of<V, kFy, K, -1>(ys + By, shifts.along_y),
                                   neighbour_of<V, kFy, K, +1>(ys + By, shifts.along_y));
          const reg zpair = V::add(neighbour_of<V, kFz, K, -1>(zs + Bz, shifts.along_z),
                                   neighbour_of<V, kFz, K, +1>(zs + Bz, shifts.along_z));
          lap = V::fma(c[K], V::add(V::add(xpair, ypair), zpair), lap);
        });
        const std::int64_t off = q * sy + o * sz;
        V::store_lanes(n + off, V::fma(V::load(v + off), lap, V::sub(V::add(centre, centre), V::load(n + off))),
                       lanes[q][o]);
      }
  }
}

// The weights as vectors and the lane shifts, made once per call and shared by its rows.
template <typename T, int R>
struct FoldedStencil {
  typename FoldedVector<T>::reg c[R + 1];
  FoldShifts<T> shifts;
  explicit FoldedStencil(const T* weights) {
    for (int k = 0; k <= R; ++k) c[k] = FoldedVector<T>::broadcast(weights[k]);
  }
};

// The fold rows of folds [j0, j1) x [k0, k1) that hold points of `region`, z folds outermost.
template <typename T, int R>
void update_fold_block(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel,
                       const Box& region, std::int64_t j0, std::int64_t j1, std::int64_t k0, std::int64_t k1,
                       const FoldedStencil<T, R>& stencil) {
  std::int64_t k = k0;
  // Runs of kFoldedZFoldsAtOnce z folds, then of fewer (halving) for what is left; y folds likewise in
  // pairs.
  const auto rows_of = [&]<int J>() {
    for (; k + J <= k1; k += J) {
      std::int64_t j = j0;
      const auto at_once = [&]<int I>() {
        for (; j + I <= j1; j += I) {
          typename FoldedVector<T>::mask lanes[I][J];
          for (int q = 0; q < I; ++q)
            for (int o = 0; o < J; ++o) lanes[q][o] = lanes_in(prev, region, j + q, k + o);
          update_fold_rows<T, R, J, I>(prev, next, vel, region.lo[0], region.hi[0], j, k, lanes, stencil.c,
                                       stencil.shifts);
        }
      };
      at_once.template operator()<2>();
      at_once.template operator()<1>();
    }
  };
  static_assert(kFoldedZFoldsAtOnce == 4 || kFoldedZFoldsAtOnce == 2 || kFoldedZFoldsAtOnce == 1);
  if constexpr (kFoldedZFoldsAtOnce >= 4) rows_of.template operator()<4>();
  if constexpr (kFoldedZFoldsAtOnce >= 2) rows_of.template operator()<2>();
  rows_of.template operator()<1>();
}

template <typename T, int R>
void update_folded_radius(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel,
                          const Box& region, const T* weights, FoldedBlocking blocking,
                          const std::function<void()>* between_blocks) {
  const FoldedStencil<T, R> stencil(weights);
  // The z folds shared out as FoldedField::first_touch expects.
  const auto [j0, j1] = prev.folds_y_of(region);
  const auto [k0, k1] = prev.folds_z_of(region);
  const std::int64_t by = std::max<std::int64_t>(1, blocking.y_folds), bz = std::max<std::int64_t>(1, blocking.z_folds);
#pragma omp parallel
  {
    const auto [first, end] = static_schedule_share(omp_get_thread_num(), k1 - k0, omp_get_num_threads());
    const bool calls_hook = between_blocks != nullptr && omp_get_thread_num() == 0;
    for (std::int64_t kk = k0 + first; kk < k0 + end; kk += bz)
      for (std::int64_t jj = j0; jj < j1; jj += by) {
        update_fold_block<T, R>(prev, next, vel, region, jj, std::min(jj + by, j1), kk, std::min(kk + bz, k0 + end),
                                stencil);
        if (calls_hook) (*between_blocks)();
      }
  }
}

void check_folded_shapes(const auto& prev, const auto& next, const auto& vel, int radius) {
  if (prev.halo() < radius || !(prev.held() == next.held()) || !(prev.held() == vel.held()))
    throw std::logic_error("update_folded: the fields must share one shape with a halo of at least the radius");
}

}  // namespace

bool folded_kernel_built() { return true; }

template <typename T>
void update_folded(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel, const Box& region,
                   const T* weights, int radius, FoldedBlocking blocking,
                   const std::function<void()>* between_blocks) {
  if (region.empty()) return;
  check_folded_shapes(prev, next, vel, radius);
  dispatch_radius(radius, [&]<int R>() { update_folded_radius<T, R>(prev, next, vel, region, weights, blocking, between_blocks); });
}

template <typename T>
void update_folded_on_this_thread(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel,
                                  const Box& box, const T* weights, int radius) {
  if (box.empty()) return;
  dispatch_radius(radius, [&]<int R>() {
    const auto [j0, j1] = prev.folds_y_of(box);
    const auto [k0, k1] = prev.folds_z_of(box);
    update_fold_block<T, R>(prev, next, vel, box, j0, j1, k0, k1, FoldedStencil<T, R>(weights));
  });
}

#else

bool folded_kernel_built() { return false; }

template <typename T>
void update_folded(const FoldedField<T>&, FoldedField<T>&, const FoldedField<T>&, const Box&, const T*, int,
                   FoldedBlocking, const std::function<void()>*) {
  throw std::logic_error("update_folded: this build has no AVX-512");
}

template <typename T>
void update_folded_on_this_thread(const FoldedField<T>&, FoldedField<T>&, const FoldedField<T>&, const Box&, const T*,
                                  int) {
  throw std::logic_error("update_folded: this build has no AVX-512");
}

#endif

template <typename T>
FoldedBlocking folded_blocking_for(const Index3& size, const Index3& extent) {
  const Blocking points{size};
  const auto folds = [](std::int64_t n, int fold) { return std::max<std::int64_t>(1, (n + fold - 1) / fold); };
  return {folds(points.effective(1, extent[1]), Fold<T>::y), folds(points.effective(2, extent[2]), Fold<T>::z)};
}

template FoldedBlocking folded_blocking_for<float>(const Index3&, const Index3&);
template FoldedBlocking folded_blocking_for<double>(const Index3&, const Index3&);
template void update_folded<float>(const FoldedField<float>&, FoldedField<float>&, const FoldedField<float>&,
                                   const Box&, const float*, int, FoldedBlocking,
                                   const std::function<void()>*);
template void update_folded_on_this_thread<float>(const FoldedField<float>&, FoldedField<float>&,
                                                  const FoldedField<float>&, const Box&, const float*, int);
template void update_folded_on_this_thread<double>(const FoldedField<double>&, FoldedField<double>&,
                                                   const FoldedField<double>&, const Box&, const double*, int);
template void update_folded<double>(const FoldedField<double>&, FoldedField<double>&, const FoldedField<double>&,
                                    const Box&, const double*, int, FoldedBlocking,
                                    const std::function<void()>*);

}  // namespace wave3d
