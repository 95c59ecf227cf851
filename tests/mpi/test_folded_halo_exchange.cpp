// FoldedHaloExchange under mpiexec. Owned points of a folded field hold a function of their global
// index, every other held point a sentinel; after an exchange every face ghost point within the halo
// width must hold the function at the global point it mirrors (wrapped on periodic axes), face ghost
// points beyond a zero boundary must still hold the sentinel, and owned points must be untouched.
// Edge and corner ghosts, and ghost points deeper than the halo (whole folds may carry them), are not
// checked: the star stencil never reads them. Run for every process grid of the rank count whose
// cuts lie on folds, several periodicities, R below, at and above the fold, float and double.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "geometry/box.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/folded_halo_exchange.hpp"
#include "mpi_test_support.hpp"
#include "stencil/folded_field.hpp"

namespace {

using wave3d::Box;
using wave3d::FoldedField;
using wave3d::Index3;
using wave3d::mpi::CartesianComm;
using wave3d::mpi::decompose;
using wave3d::mpi::Dims3;
using wave3d::mpi::FoldedHaloExchange;
using wave3d::mpi::folds_line_up;
namespace t = wave3d::mpi::testing;

using t::kPeriodicities;
using t::kSentinel;
using t::Periodic;
using t::value_at;

struct Shape {
  Index3 n;
  int radius;
};

// y and z multiples of 4 (the folds of float and of double), x any; below 64 points per axis so that
// the function below stays exact in float.
constexpr Shape kShapes[] = {{{13, 24, 16}, 2}, {{21, 48, 32}, 4}, {{10, 16, 32}, 8}, {{17, 8, 24}, 1}};
template <typename Fn>
void for_each_held(const Box& held, const Fn& fn) {
  for (std::int64_t z = held.lo[2]; z < held.hi[2]; ++z)
    for (std::int64_t y = held.lo[1]; y < held.hi[1]; ++y)
      for (std::int64_t x = held.lo[0]; x < held.hi[0]; ++x) fn(x, y, z);
}

template <typename T>
void fill(FoldedField<T>& f, int step) {
  for_each_held(f.held(), [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    f.at(x, y, z) = f.owned().contains({x, y, z}) ? value_at<T>({x, y, z}, step) : static_cast<T>(kSentinel);
  });
}

// checked_axes: the axes whose face ghosts are checked (the others are skipped).
template <typename T>
std::optional<std::string> verify(const FoldedField<T>& f, const Index3& n, const Periodic& periodic, int step,
                                  const std::string& context,
                                  const std::array<bool, 3>& checked_axes = {true, true, true}) {
  t::Mismatches errors(context);
  const Box& owned = f.owned();
  for_each_held(f.held(), [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    Index3 p{x, y, z};
    int outside = 0, axis = -1;
    std::int64_t depth = 0;
    for (int a = 0; a < 3; ++a) {
      if (p[a] < owned.lo[a]) ++outside, axis = a, depth = owned.lo[a] - p[a];
      if (p[a] >= owned.hi[a]) ++outside, axis = a, depth = p[a] - owned.hi[a] + 1;
    }
    if (outside >= 2 || (outside == 1 && (depth > f.halo() || !checked_axes[static_cast<std::size_t>(axis)]))) return;
    T expected = static_cast<T>(kSentinel);
    const char* kind = "face ghost";
    if (outside == 0) {
      expected = value_at<T>({x, y, z}, step);
      kind = "owned";
    } else if ((p[axis] >= 0 && p[axis] < n[axis]) || periodic[static_cast<std::size_t>(axis)]) {
      p[axis] = t::wrap(p[axis], n[axis]);
      expected = value_at<T>(p, step);
    } else {
      kind = "ghost beyond a zero boundary";
    }
    const T got = f.at(x, y, z);
    if (got != expected)
      errors.add(std::string(kind) + " (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                 ") holds " + std::to_string(got) + ", expected " + std::to_string(expected));
  });
  return errors.summary();
}

std::string describe(const Shape& s, const Dims3& dims, const Periodic& periodic) {
  return "grid " + t::text(s.n) + " R=" + std::to_string(s.radius) + " dims " + t::text(dims) + " " + t::text(periodic);
}

// The process grids of the world's ranks that cut `shape` thick enough and on folds of T.
template <typename T>
std::vector<Dims3> folded_grids(const Shape& shape) {
  std::vector<Dims3> grids;
  for (const Dims3& dims : t::all_process_grids(t::world_size()))
    if (t::thick_enough(shape.n, dims, shape.radius) && FoldedHaloExchange<T>::fits(shape.n, dims)) grids.push_back(dims);
  return grids;
}

TEST(FoldsLineUp, OnlyWhenEveryCutAndTheExtentAlongYAndZAreMultiplesOfTheFold) {
  EXPECT_TRUE(folds_line_up({256, 256, 256}, {1, 1, 2}, 4, 4));
  EXPECT_TRUE(folds_line_up({255, 256, 256}, {3, 2, 8}, 4, 4)) << "x is not folded";
  EXPECT_FALSE(folds_line_up({256, 256, 256}, {1, 3, 1}, 4, 4)) << "256 over 3: 86, 85, 85";
  EXPECT_TRUE(folds_line_up({256, 12, 256}, {1, 3, 1}, 4, 4));
  EXPECT_FALSE(folds_line_up({256, 256, 254}, {1, 1, 1}, 4, 4)) << "the periodic wrap";
  EXPECT_TRUE(folds_line_up({256, 256, 254}, {1, 1, 1}, 4, 2));
  EXPECT_FALSE(folds_line_up({256, 256, 36}, {1, 1, 2}, 4, 4)) << "36 over 2: 18, 18";
}

template <typename T>
class FoldedHaloExchangeTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FoldedHaloExchangeTyped, ValueTypes);

TYPED_TEST(FoldedHaloExchangeTyped, FillsEveryFaceGhostForEveryProcessGridOnFolds) {
  using T = TypeParam;
  int tried = 0;
  for (const Shape& shape : kShapes)
    for (const Dims3& dims : folded_grids<T>(shape)) {
      const auto d = decompose(shape.n, t::world_size(), dims, shape.radius);
      for (const Periodic& periodic : kPeriodicities) {
        const CartesianComm cart(MPI_COMM_WORLD, d, periodic);
        FoldedField<T> f(cart.owned(), shape.radius);
        FoldedHaloExchange<T> halo(cart, shape.n, f);
        fill(f, 0);
        halo.exchange(f);
        ++tried;
        t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, 0, describe(shape, dims, periodic)));
      }
    }
  EXPECT_GT(tried, 0) << "no process grid of " << t::world_size() << " ranks cuts any shape on folds";
}

// Two fields in turn, as the solver's time levels: the z folds' messages go to and from the field of
// each exchange, the faces' buffers are reused.
TYPED_TEST(FoldedHaloExchangeTyped, ExchangesTwoFieldsInTurn) {
  using T = TypeParam;
  const Shape shape = kShapes[1];
  for (const Dims3& dims : folded_grids<T>(shape)) {
    const Periodic periodic{true, false, true};
    const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, t::world_size(), dims, shape.radius), periodic);
    FoldedField<T> a(cart.owned(), shape.radius), b(cart.owned(), shape.radius);
    FoldedHaloExchange<T> halo(cart, shape.n, a);
    const std::size_t bytes = halo.bytes_per_exchange();
    for (int step = 0; step < 4; ++step) {
      FoldedField<T>& f = step % 2 == 0 ? a : b;
      fill(f, step);  // new owned values, ghosts back to the sentinel: stale data would show
      halo.exchange(f);
      EXPECT_EQ(halo.bytes_per_exchange(), bytes);
      if (!t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, step,
                                                         describe(shape, dims, periodic) + " step " +
                                                             std::to_string(step))))
        break;
    }
  }
}

// Overlap mode: the x faces complete in start (its ghosts are in when it returns), the rest after
// polling test() and finish().
TYPED_TEST(FoldedHaloExchangeTyped, XFacesCompleteInStartTheRestInFinish) {
  using T = TypeParam;
  const Shape shape = kShapes[0];
  for (const Periodic& periodic : kPeriodicities) {
    const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, t::world_size(), {0, 0, 0}, shape.radius), periodic);
    if (!FoldedHaloExchange<T>::fits(shape.n, cart.dims())) continue;
    FoldedField<T> f(cart.owned(), shape.radius);
    FoldedHaloExchange<T> halo(cart, shape.n, f, {true, false, false});
    EXPECT_FALSE(halo.remote_axes()[0]);
    EXPECT_TRUE(halo.test()) << "nothing started yet, so nothing is pending";
    fill(f, 1);
    halo.start(f);
    const std::string context = describe(shape, cart.dims(), periodic);
    t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, 1, context + " after start", {true, false, false}));
    while (!halo.test()) {
    }
    EXPECT_TRUE(halo.test()) << "test() must stay true once everything completed";
    halo.finish(f);
    t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, 1, context + " after finish"));
  }
}

TYPED_TEST(FoldedHaloExchangeTyped, RefusesAFieldOfAnotherLayoutAndUnpairedCalls) {
  using T = TypeParam;
  const Shape shape = kShapes[1];
  const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, t::world_size(), {0, 0, 0}, shape.radius),
                           {true, true, true});
  if (!FoldedHaloExchange<T>::fits(shape.n, cart.dims())) GTEST_SKIP() << "the chosen grid does not cut on folds";
  FoldedField<T> f(cart.owned(), shape.radius), deeper(cart.owned(), shape.radius + 1);
  FoldedHaloExchange<T> halo(cart, shape.n, f);
  EXPECT_THROW(halo.start(deeper), std::logic_error);
  EXPECT_THROW(halo.finish(f), std::logic_error);
  halo.start(f);
  EXPECT_THROW(halo.start(f), std::logic_error);
  halo.finish(f);
}

}  // namespace
