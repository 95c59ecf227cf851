#pragma once
// The time step of the isotropic acoustic wave equation, 2nd order in time, order 2R in space:
//
//   next = 2 prev - next + vel * lap(prev)        (then the caller swaps prev and next)
//
// vel holds v^2 dt^2 / h^2, so the Laplacian weights are the plain second-derivative weights.
// Five implementations with the same floating-point operations in the same order, hence bitwise
// equal results: a plain triple loop kept as the reference, the cache-blocked OpenMP kernel with
// compiler-vectorised rows, the same blocks with explicit vectors and register reuse across rows,
// the same blocks swept as columns along z with the z neighbours in registers, and vectors folded
// over y and z on fields stored in that layout (FoldedField).
#include <functional>
#include <string_view>
#include <vector>

#include "field/field.hpp"
#include "stencil/folded_field.hpp"
#include "geometry/box.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

// The implementations update() can run; every one is bitwise equal to update_reference().
enum class KernelVariant {
  reference,  // the plain triple loop on the calling thread
  blocked,    // cache blocks over the OpenMP threads, rows vectorised by the compiler
  jammed,     // the same blocks, groups of rows with their y neighbours reused in registers (jammed_rows.hpp)
  columns,    // the same blocks, columns along z with their z neighbours in registers (column_rows.hpp)
  folded,     // vectors folded over y and z, on fields in that layout (folded_kernel.hpp; AVX-512 builds)
};
// "reference", "blocked", "jammed", "columns", "folded"
std::string_view to_string(KernelVariant variant);

// Whether the z-column kernel's window of 2R + 1 vectors fits this build's vector registers with
// room for the sums (AVX-512's 32 registers at every radius; AVX2's 16 at R = 1 and 2).
bool column_window_fits_registers(int radius);

// The z-column kernel's prefetch distance in rows where blocking.prefetch_rows leaves it to the
// kernel (0): 2 at R >= 4, else 1. Measured on a 256^3 grid (AMD Zen 5): at R = 8 two rows ran
// 1.05-1.16x faster than one, at R = 4 1.04-1.18x; at R = 2 two ran 0.85-0.89x as fast as one. The
// block tuner measures the distance where it runs.
int default_prefetch_rows(int radius);
// `blocking` with its prefetch distance made concrete: the one it gives, or default_prefetch_rows.
Blocking with_prefetch_rows(Blocking blocking, int radius);

// How many neighbouring vectors the z-column kernel marches along z at once at this radius (1 or 2,
// kColumnsAtOnce in column_rows.hpp).
int columns_at_once(int radius);

// Whether this build has the explicit vectors the jammed variant needs (AVX2 with FMA, or AVX-512),
// and which ("avx2", "avx512", "none"). Without them `jammed` still runs, one point at a time.
bool jammed_kernel_built();
std::string_view jammed_vector_isa();

template <typename T>
class Kernel {
 public:
  // weights: c[0..R] from second_derivative_weights(R); R must be a supported radius.
  Kernel(const std::vector<double>& weights, Blocking blocking, KernelVariant variant = KernelVariant::blocked);

  int radius() const { return radius_; }
  // The blocking as the kernel walks it (Blocking::z_innermost set for its variant, prefetch_rows
  // default_prefetch_rows where it was 0): what first touch must follow.
  const Blocking& blocking() const { return blocking_; }
  KernelVariant variant() const { return variant_; }
  // The weights as every variant computes with them: [0] = 3 c0 (three axes), [k] = c_k.
  const std::vector<T>& weights() const { return weights_; }

  // Updates the points of `region` (global indices, inside the fields' owned box) with the kernel's
  // variant. All three fields must share one layout. The halo of prev within R of the region must be
  // current. between_blocks, if given, is called by OpenMP thread 0 after each of its blocks (a hook for
  // work that must interleave with computing, such as driving communication); the reference variant
  // has no blocks and never calls it.
  // The folded variant computes on folded fields only (the overload below) and throws here.
  void update(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const Box& region,
              const std::function<void()>* between_blocks = nullptr) const;
  // The folded variant (the others throw): the blocking's y and z sizes in whole folds
  // (folded_blocking_for), x whole.
  void update(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel, const Box& region,
              const std::function<void()>* between_blocks = nullptr) const;
  void update_reference(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const Box& region) const;
  // The points of `box` with the kernel's variant on the calling thread, without checking the
  // layout (the caller checks once with check_fields): for schedules of their own, such as
  // temporal blocking, that cut the work finer than cache blocks. Not the folded variant (it throws).
  void update_on_this_thread(const Field<T>& prev, Field<T>& next, const Field<T>& vel, const Box& box) const;
  // The same for the folded variant on folded fields (the others throw): the folds of `box`.
  void update_on_this_thread(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel,
                             const Box& box) const;
  // Throws std::logic_error unless the fields share one layout with a halo of at least R and every
  // point the stencil of `region` reads is held (a region may reach into the halo).
  void check_fields(const Field<T>& prev, const Field<T>& next, const Field<T>& vel, const Box& region) const;
  void check_fields(const FoldedField<T>& prev, const FoldedField<T>& next, const FoldedField<T>& vel,
                    const Box& region) const;

  // Flops the reference implementation counts per updated point: 7R + 5 (61 at R = 8, as ISO3DFD).
  static constexpr int flops_per_point(int radius) { return 7 * radius + 5; }
  // Bytes per point assuming perfect cache reuse: read prev, vel and next, write next.
  static constexpr int bytes_per_point() { return 4 * static_cast<int>(sizeof(T)); }

 private:
  int radius_;
  Blocking blocking_;
  KernelVariant variant_;
  std::vector<T> weights_;  // weights_[0] = 3 c0 (three axes), weights_[k] = c_k
};

extern template class Kernel<float>;
extern template class Kernel<double>;

}  // namespace wave3d
