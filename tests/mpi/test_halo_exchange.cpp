// HaloExchange under mpiexec. Owned cells hold a function of their global index, every ghost cell a
// sentinel; after an exchange every face ghost cell must hold the function at the global point it
// mirrors (wrapped on periodic axes), face ghost cells beyond a zero boundary must still hold the
// sentinel, and owned cells must be untouched. Edge and corner ghosts are not checked: the star
// stencil never reads them. Run for every process grid of the rank count, several periodicities, uneven grids,
// two halo widths, float and double.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "field/field.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi_test_support.hpp"

namespace {

using wave3d::Box;
using wave3d::Field;
using wave3d::Index3;
using wave3d::mpi::CartesianComm;
using wave3d::mpi::decompose;
using wave3d::mpi::Decomposition;
using wave3d::mpi::Dims3;
using wave3d::mpi::HaloExchange;
namespace t = wave3d::mpi::testing;

using t::kPeriodicities;
using t::kSentinel;
using t::Periodic;
using t::value_at;

struct Shape {
  Index3 n;
  int radius;
};

// Uneven grids (no axis divides evenly by most rank counts), two halo widths. Every axis is below 64
// so the test function below stays exact in float.
constexpr Shape kShapes[] = {{{23, 17, 13}, 2}, {{23, 17, 13}, 4}, {{40, 36, 33}, 4}};
template <typename T>
void fill(Field<T>& f, int step) {
  const Box all = f.with_halo();
  const Box& owned = f.owned();
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x)
        f.at(x, y, z) = owned.contains({x, y, z}) ? value_at<T>({x, y, z}, step) : static_cast<T>(kSentinel);
}

// Checks every cell of f's allocated box (owned and ghost) against what a correct exchange leaves.
// checked_axes: the axes whose face ghosts are checked (the others are skipped).
template <typename T>
std::optional<std::string> verify(const Field<T>& f, const Index3& n, const Periodic& periodic, int step,
                                  const std::string& context,
                                  const std::array<bool, 3>& checked_axes = {true, true, true}) {
  t::Mismatches errors(context);
  const Box all = f.with_halo();
  const Box& owned = f.owned();
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x) {
        Index3 p{x, y, z};
        int outside = 0, axis = -1;
        for (int a = 0; a < 3; ++a)
          if (p[a] < owned.lo[a] || p[a] >= owned.hi[a]) ++outside, axis = a;
        // Edge and corner ghosts are unspecified: the star stencil never reads them, and z faces travel
        // as whole planes that carry the neighbour's x/y ghosts along.
        if (outside >= 2) continue;
        if (outside == 1 && !checked_axes[static_cast<std::size_t>(axis)]) continue;
        T expected = static_cast<T>(kSentinel);
        const char* kind = "face ghost";
        if (outside == 0) {
          expected = value_at<T>({x, y, z}, step);
          kind = "owned";
        } else {
          const bool inside_grid = p[axis] >= 0 && p[axis] < n[axis];
          if (inside_grid || periodic[static_cast<std::size_t>(axis)]) {
            p[axis] = t::wrap(p[axis], n[axis]);
            expected = value_at<T>(p, step);
          } else {
            kind = "ghost beyond a zero boundary";
          }
        }
        const T got = f.at(x, y, z);
        if (got != expected)
          errors.add(std::string(kind) + " (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                     std::to_string(z) + ") holds " + std::to_string(got) + ", expected " + std::to_string(expected));
      }
  return errors.summary();
}

std::string describe(const Shape& s, const Dims3& dims, const Periodic& periodic) {
  return "grid " + t::text(s.n) + " R=" + std::to_string(s.radius) + " dims " + t::text(dims) + " " +
         t::text(periodic);
}

template <typename T>
class HaloExchangeTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HaloExchangeTyped, ValueTypes);

TYPED_TEST(HaloExchangeTyped, FillsEveryFaceGhostForEveryProcessGrid) {
  using T = TypeParam;
  const int ranks = t::world_size();
  for (const Shape& shape : kShapes) {
    int tried = 0;
    for (const Dims3& dims : t::all_process_grids(ranks)) {
      if (!t::thick_enough(shape.n, dims, shape.radius)) continue;
      const Decomposition d = decompose(shape.n, ranks, dims, shape.radius);
      for (const Periodic& periodic : kPeriodicities) {
        const CartesianComm cart(MPI_COMM_WORLD, d, periodic);
        Field<T> f(cart.owned(), shape.radius);
        HaloExchange<T> halo(cart, cart.owned(), shape.radius);
        fill(f, 0);
        halo.exchange(f);
        ++tried;
        t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, 0, describe(shape, dims, periodic)));
      }
    }
    EXPECT_GT(tried, 0) << "no process grid of " << ranks << " ranks fits grid " << t::text(shape.n);
  }
}

TYPED_TEST(HaloExchangeTyped, RepeatedExchangesReuseTheSameRequests) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const Shape shape = kShapes[0];
  for (const Dims3& dims : t::all_process_grids(ranks)) {
    if (!t::thick_enough(shape.n, dims, shape.radius)) continue;
    const Periodic periodic{true, false, true};
    const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, ranks, dims, shape.radius), periodic);
    Field<T> f(cart.owned(), shape.radius);
    HaloExchange<T> halo(cart, cart.owned(), shape.radius);
    const std::size_t bytes = halo.bytes_per_exchange();
    for (int step = 0; step < 4; ++step) {
      fill(f, step);  // new owned values, ghosts back to the sentinel: stale data would show
      halo.exchange(f);
      EXPECT_FALSE(halo.in_flight());
      EXPECT_EQ(halo.bytes_per_exchange(), bytes);
      if (!t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, step,
                                                         describe(shape, dims, periodic) + " step " +
                                                             std::to_string(step))))
        break;
    }
  }
}

TYPED_TEST(HaloExchangeTyped, StartThenPollTestThenFinish) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const Shape shape = kShapes[1];
  for (const Periodic& periodic : kPeriodicities) {
    const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, ranks, {0, 0, 0}, shape.radius), periodic);
    Field<T> f(cart.owned(), shape.radius);
    HaloExchange<T> halo(cart, cart.owned(), shape.radius);
    EXPECT_TRUE(halo.test()) << "nothing started yet, so nothing is pending";
    fill(f, 1);
    halo.start(f);
    EXPECT_TRUE(halo.in_flight());
    long polls = 0;
    while (!halo.test()) ++polls;
    EXPECT_TRUE(halo.test()) << "test() must stay true once everything completed";
    halo.finish(f);
    EXPECT_FALSE(halo.in_flight());
    const auto times = halo.last_times();
    EXPECT_GE(times.pack, 0.0);
    EXPECT_GE(times.wait, 0.0);
    EXPECT_GE(times.unpack, 0.0);
    t::agree_nobody_failed(MPI_COMM_WORLD,
                           verify(f, shape.n, periodic, 1, "polled, " + t::text(periodic) + " after " +
                                                               std::to_string(polls) + " polls"));
  }
}

TYPED_TEST(HaloExchangeTyped, BytesPerExchangeCountsMessagesToOtherRanksOnly) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const int rank = t::world_rank();
  const Shape shape = kShapes[0];
  for (const Dims3& dims : t::all_process_grids(ranks)) {
    if (!t::thick_enough(shape.n, dims, shape.radius)) continue;
    const Decomposition d = decompose(shape.n, ranks, dims, shape.radius);
    for (const Periodic& periodic : kPeriodicities) {
      const CartesianComm cart(MPI_COMM_WORLD, d, periodic);
      const HaloExchange<T> halo(cart, cart.owned(), shape.radius);
      const Index3 e = cart.owned().extents();
      std::size_t expected = 0;
      std::array<bool, 3> remote{false, false, false};
      for (int axis = 0; axis < 3; ++axis)
        for (int direction : {-1, 1}) {
          const int peer = d.neighbour(rank, axis, direction, periodic[static_cast<std::size_t>(axis)]);
          if (peer == -1 || peer == rank) continue;  // zero boundary, or a copy to itself: no message
          // z faces travel as whole planes of the field's layout, the others as packed faces.
          const std::int64_t values = axis == 2 ? shape.radius * Field<T>::layout_for(cart.owned(), shape.radius).plane
                                                : shape.radius * e[(axis + 1) % 3] * e[(axis + 2) % 3];
          expected += static_cast<std::size_t>(values) * sizeof(T);
          remote[static_cast<std::size_t>(axis)] = true;
        }
      EXPECT_EQ(halo.bytes_per_exchange(), expected) << describe(shape, dims, periodic);
      EXPECT_EQ(halo.remote_axes(), remote) << describe(shape, dims, periodic);
    }
  }
}

TYPED_TEST(HaloExchangeTyped, FacesCompletedInStartAreFilledWhenStartReturns) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const int rank = t::world_rank();
  const Shape shape = kShapes[1];
  constexpr std::array<bool, 3> kCompleted[] = {{true, false, false}, {false, true, true}, {true, true, true}};
  for (const Dims3& dims : t::all_process_grids(ranks)) {
    if (!t::thick_enough(shape.n, dims, shape.radius)) continue;
    const Decomposition d = decompose(shape.n, ranks, dims, shape.radius);
    for (const Periodic& periodic : kPeriodicities)
      for (const std::array<bool, 3>& completed : kCompleted) {
        const CartesianComm cart(MPI_COMM_WORLD, d, periodic);
        Field<T> f(cart.owned(), shape.radius);
        HaloExchange<T> halo(cart, cart.owned(), shape.radius, cart.owned().lo[0], completed);
        const std::string context = describe(shape, dims, periodic) + " completed in start " + t::text(completed);
        std::array<bool, 3> in_flight{false, false, false};
        for (int axis = 0; axis < 3; ++axis)
          for (int direction : {-1, 1}) {
            const int peer = d.neighbour(rank, axis, direction, periodic[static_cast<std::size_t>(axis)]);
            if (peer != -1 && peer != rank && !completed[static_cast<std::size_t>(axis)])
              in_flight[static_cast<std::size_t>(axis)] = true;
          }
        EXPECT_EQ(halo.remote_axes(), in_flight) << context;
        for (int step = 0; step < 2; ++step) {
          fill(f, step);
          halo.start(f);
          // The faces completed in start() hold their neighbours' values before finish().
          if (!t::agree_nobody_failed(MPI_COMM_WORLD,
                                      verify(f, shape.n, periodic, step, context + " after start", completed)))
            break;
          halo.finish(f);
          if (!t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, step, context + " after finish")))
            break;
        }
      }
  }
}

TEST(HaloExchange, ProgressThreadPollsWhileTheMainThreadComputes) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI provides no MPI_THREAD_MULTIPLE";
  const int ranks = t::world_size();
  const Shape shape = kShapes[2];
  const Periodic periodic{true, true, true};
  const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, ranks, {0, 0, 0}, shape.radius), periodic);
  Field<double> f(cart.owned(), shape.radius);
  HaloExchange<double> halo(cart, cart.owned(), shape.radius);
  fill(f, 2);
  halo.start(f);
  std::atomic<bool> done{false};
  std::thread progress([&halo, &done] {
    while (!halo.test()) std::this_thread::yield();
    done = true;
  });
  // Stand-in for the interior update: OpenMP work on the main thread that reads only owned cells.
  const Box inner = cart.owned();
  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) collapse(2)
  for (std::int64_t z = inner.lo[2]; z < inner.hi[2]; ++z)
    for (std::int64_t y = inner.lo[1]; y < inner.hi[1]; ++y)
      for (std::int64_t x = inner.lo[0]; x < inner.hi[0]; ++x) sum += f.at(x, y, z);
  progress.join();  // the progress thread must be done with test() before finish()
  EXPECT_TRUE(done.load());
  EXPECT_GT(sum, 0.0);
  halo.finish(f);
  t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, 2, "progress thread"));
}

TEST(HaloExchange, LayoutMismatchAndMisuseThrow) {
  const int ranks = t::world_size();
  const Shape shape = kShapes[0];
  const Periodic periodic{true, true, true};
  const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, ranks, {0, 0, 0}, shape.radius), periodic);
  HaloExchange<double> halo(cart, cart.owned(), shape.radius);
  Field<double> right(cart.owned(), shape.radius);
  Field<double> wider_halo(cart.owned(), shape.radius + 1);
  Box shifted = cart.owned();
  shifted.lo[0] += 1;
  shifted.hi[0] += 1;
  Field<double> wrong_box(shifted, shape.radius);
  Field<double> other_line_start(cart.owned(), shape.radius, false, cart.owned().lo[0] + 1);

  // All of these throw before any MPI call, so the ranks stay in step.
  EXPECT_THROW(halo.start(wider_halo), std::logic_error);
  EXPECT_THROW(halo.start(wrong_box), std::logic_error);
  EXPECT_THROW(halo.start(other_line_start), std::logic_error);
  EXPECT_THROW(halo.finish(right), std::logic_error);  // nothing started
  EXPECT_FALSE(halo.in_flight());

  fill(right, 0);
  halo.start(right);
  EXPECT_THROW(halo.start(right), std::logic_error);  // already in flight
  EXPECT_THROW(halo.finish(wider_halo), std::logic_error);
  EXPECT_TRUE(halo.in_flight());
  halo.finish(right);  // the exchange is still intact after the refused calls
  t::agree_nobody_failed(MPI_COMM_WORLD, verify(right, shape.n, periodic, 0, "after refused calls"));

  EXPECT_THROW(HaloExchange<double>(cart, shifted, shape.radius), std::invalid_argument);
  EXPECT_THROW(HaloExchange<double>(cart, cart.owned(), -1), std::invalid_argument);
  // Every axis has a neighbour (periodic), so a halo wider than the thinnest side cannot be filled.
  const Index3 e = cart.owned().extents();
  const int too_wide = static_cast<int>(std::min({e[0], e[1], e[2]})) + 1;
  EXPECT_THROW(HaloExchange<double>(cart, cart.owned(), too_wide), std::invalid_argument);
}

TEST(HaloExchange, ZeroHaloWidthExchangesNothing) {
  const int ranks = t::world_size();
  const CartesianComm cart(MPI_COMM_WORLD, decompose({12, 10, 8}, ranks, {0, 0, 0}, 1), {true, true, true});
  HaloExchange<float> halo(cart, cart.owned(), 0);
  Field<float> f(cart.owned(), 0);
  EXPECT_EQ(halo.bytes_per_exchange(), 0u);
  halo.exchange(f);
  EXPECT_TRUE(halo.test());
}

TEST(HaloExchange, MovedExchangeKeepsItsRequests) {
  const int ranks = t::world_size();
  const Shape shape = kShapes[0];
  const Periodic periodic{true, false, true};
  const CartesianComm cart(MPI_COMM_WORLD, decompose(shape.n, ranks, {0, 0, 0}, shape.radius), periodic);
  HaloExchange<float> first(cart, cart.owned(), shape.radius);
  const std::size_t bytes = first.bytes_per_exchange();
  HaloExchange<float> second(std::move(first));
  EXPECT_EQ(second.bytes_per_exchange(), bytes);
  HaloExchange<float> third(cart, cart.owned(), shape.radius);
  third = std::move(second);  // frees third's own requests, takes second's
  Field<float> f(cart.owned(), shape.radius);
  for (int step = 0; step < 2; ++step) {
    fill(f, step);
    third.exchange(f);
    t::agree_nobody_failed(MPI_COMM_WORLD, verify(f, shape.n, periodic, step, "after moves"));
  }
}

}  // namespace
