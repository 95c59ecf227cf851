#pragma once
// The folded kernel: the reference kernel's arithmetic, operation for operation, on fields in the
// vector-folded layout of FoldedField (why that layout: folded_field.hpp). Built where the build has
// AVX-512 (its two-source lane permutes make the y and z neighbours); elsewhere folded_kernel_built()
// is false and update_folded throws.
//
// For each output vector (Fold::y rows x Fold::z planes at one x): its x neighbours at distance k are
// the vectors k further along x; its y neighbours at distance k the vector k / Fold::y folds away
// where k is a whole number of folds, else the permute of that fold's vector and the next one's that
// takes each lane's row k away; likewise along z. Folds that the region covers only in part compute
// every lane and store the region's lanes alone.
#include <cstdint>
#include <functional>

#include "geometry/box.hpp"
#include "stencil/blocking.hpp"
#include "stencil/folded_field.hpp"

namespace wave3d {

bool folded_kernel_built();

// How many neighbouring z folds the kernel computes at once (at the same x, two y folds at a time),
// sharing the lane permutes of the fold vectors they both read (what is left of a box's z folds in
// runs of half as many, and so on), and how many a temporal sweep's wave front advances at a time.
inline constexpr int kFoldedZFoldsAtOnce = 2;
inline constexpr int kFoldedZFoldsPerFrontStep = 2;

// How many y and z folds one thread's cache block spans (its z folds taken in chunks of z_folds, and
// within each chunk the y folds in chunks of y_folds, x innermost). The defaults ran fastest of a few
// on the Intel VM (R = 8, 256^3, 2 threads: 4 x 16 folds 1230 MPoints/s, 8 x 8 1216, 16 x 4 1201).
struct FoldedBlocking {
  std::int64_t y_folds = 4;
  std::int64_t z_folds = 16;
};

// Updates the points of `region` (global indices, inside the owned box of all three fields, which
// share one shape) from prev, whose values must be current `radius` points around the region, into
// next, with vel; weights c[0..radius] as Kernel holds them (c[0] already times 3), radius 1, 2, 4 or
// 8. Bitwise equal to Kernel::update_reference on the same values. Runs on a new OpenMP team, each
// thread a contiguous share of the region's z folds. between_blocks, if given, is called by OpenMP
// thread 0 after each of its blocks (as Kernel::update's).
template <typename T>
void update_folded(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel, const Box& region,
                   const T* weights, int radius, FoldedBlocking blocking = {},
                   const std::function<void()>* between_blocks = nullptr);

// The same for the points of `box` on the calling thread, its folds in order (z outermost, x
// innermost): for schedules of their own, such as temporal blocking. The box's folds and the
// radius's around them must be held by the fields.
template <typename T>
void update_folded_on_this_thread(const FoldedField<T>& prev, FoldedField<T>& next, const FoldedField<T>& vel,
                                  const Box& box, const T* weights, int radius);

// The folded blocking that covers at least `blocking`'s y and z sizes (in points; 0 = the whole
// extent, here `extent`) in whole folds: how a run's blocking.size reaches the folded kernel.
template <typename T>
FoldedBlocking folded_blocking_for(const Index3& size, const Index3& extent);

}  // namespace wave3d
