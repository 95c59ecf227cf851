// DeepHaloExchange under mpiexec. Owned cells hold a function of their global index and of the
// field, every halo cell a sentinel; after an exchange every halo cell within the width asked for,
// faces, edges and corners alike, must hold the function at the global point it mirrors (wrapped on
// periodic axes), cells beyond a zero boundary or deeper than the width must still hold the
// sentinel, and owned cells must be untouched. Two fields travel in one exchange, each to its own
// width. Run for every process grid of the rank count, several periodicities, uneven grids, float
// and double.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "field/field.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/deep_halo_exchange.hpp"
#include "mpi_test_support.hpp"

namespace {

using wave3d::Box;
using wave3d::Field;
using wave3d::Index3;
using wave3d::mpi::CartesianComm;
using wave3d::mpi::decompose;
using wave3d::mpi::DeepHaloExchange;
using wave3d::mpi::Dims3;
namespace t = wave3d::mpi::testing;

using t::kPeriodicities;
using t::kSentinel;
using t::Periodic;
using t::value_at;

struct Case {
  Index3 n;
  int halo;                // the fields' halo
  int width_a, width_b;    // the widths exchanged for the two fields
};

// Uneven grids; widths below the halo, equal to it, and zero for one field. Every axis is below 64
// so the test function stays exact in float.
constexpr Case kCases[] = {{{23, 17, 13}, 6, 6, 4}, {{40, 36, 33}, 8, 8, 6}, {{23, 17, 13}, 6, 3, 0}};
template <typename T>
void fill(Field<T>& f, int field) {
  const Box all = f.with_halo();
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x)
        f.at(x, y, z) = f.owned().contains({x, y, z}) ? value_at<T>({x, y, z}, field) : static_cast<T>(kSentinel);
}

// What a correct exchange of `width` leaves at p: the owned value, the mirrored global value, or
// the sentinel (deeper than width along some axis, or beyond a zero boundary).
template <typename T>
T expected_at(Index3 p, const Box& owned, const Index3& n, const Periodic& periodic, int width, int field) {
  for (std::size_t a = 0; a < 3; ++a) {
    if (p[a] < owned.lo[a] - width || p[a] >= owned.hi[a] + width) return static_cast<T>(kSentinel);
    if (p[a] >= 0 && p[a] < n[a]) continue;
    if (!periodic[a]) return static_cast<T>(kSentinel);
    p[a] = t::wrap(p[a], n[a]);
  }
  return value_at<T>(p, field);
}

// only_beyond: where given, halo cells are checked only beyond the owned box along one of these axes.
template <typename T>
std::optional<std::string> verify(const Field<T>& f, const Index3& n, const Periodic& periodic, int width, int field,
                                  const std::string& context, const std::array<bool, 3>* only_beyond = nullptr) {
  t::Mismatches errors(context + " field " + std::to_string(field) + " width " + std::to_string(width));
  const Box all = f.with_halo();
  const Box& owned = f.owned();
  for (std::int64_t z = all.lo[2]; z < all.hi[2]; ++z)
    for (std::int64_t y = all.lo[1]; y < all.hi[1]; ++y)
      for (std::int64_t x = all.lo[0]; x < all.hi[0]; ++x) {
        if (only_beyond != nullptr && !owned.contains({x, y, z})) {
          const Index3 p{x, y, z};
          bool checked = false;
          for (std::size_t a = 0; a < 3; ++a)
            checked = checked || ((*only_beyond)[a] && (p[a] < owned.lo[a] || p[a] >= owned.hi[a]));
          if (!checked) continue;
        }
        const T expected = expected_at<T>({x, y, z}, f.owned(), n, periodic, width, field);
        const T got = f.at(x, y, z);
        if (got != expected)
          errors.add(fmt::format("({}, {}, {}) holds {}, expected {}", x, y, z, got, expected));
      }
  return errors.summary();
}

// What whole planes (a process grid split along z only, zero boundaries along x and y) send: each
// slab's planes whole, halo columns and padding included, to every other rank along z.
template <typename T>
std::size_t whole_plane_bytes(const CartesianComm& cart, const Field<T>& a, int width_a, const Field<T>& b, int width_b) {
  std::size_t bytes = 0;
  for (int side : {-1, 1}) {
    const int peer = cart.neighbour(2, side);
    if (peer != MPI_PROC_NULL && peer != cart.rank())
      bytes += static_cast<std::size_t>(width_a * a.plane_stride() + width_b * b.plane_stride()) * sizeof(T);
  }
  return bytes;
}

template <typename T>
class DeepHaloExchangeTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DeepHaloExchangeTyped, ValueTypes);

TYPED_TEST(DeepHaloExchangeTyped, FillsFacesEdgesAndCornersOfTwoFieldsForEveryProcessGrid) {
  using T = TypeParam;
  const int ranks = t::world_size();
  for (const Case& c : kCases) {
    int tried = 0;
    for (const Dims3& dims : t::all_process_grids(ranks)) {
      if (!t::thick_enough(c.n, dims, c.halo)) continue;
      for (const Periodic& periodic : kPeriodicities) {
        const CartesianComm cart(MPI_COMM_WORLD, decompose(c.n, ranks, dims, 1), periodic);
        Field<T> a(cart.owned(), c.halo), b(cart.owned(), c.halo);
        DeepHaloExchange<T> halo(cart, cart.owned(), c.halo);
        fill(a, 0);
        fill(b, 1);
        halo.exchange({{&a, c.width_a}, {&b, c.width_b}});
        EXPECT_EQ(halo.last_bytes_sent(), halo.sends_whole_planes() ? whole_plane_bytes(cart, a, c.width_a, b, c.width_b)
                                                                    : halo.bytes_for({c.width_a, c.width_b}));
        ++tried;
        const std::string context = "grid " + t::text(c.n) + " dims " + t::text(dims) + " " + t::text(periodic);
        std::optional<std::string> error = verify(a, c.n, periodic, c.width_a, 0, context);
        if (!error) error = verify(b, c.n, periodic, c.width_b, 1, context);
        if (!t::agree_nobody_failed(MPI_COMM_WORLD, error)) return;
      }
    }
    EXPECT_GT(tried, 0) << "no process grid of " << ranks << " ranks fits grid " << t::text(c.n);
  }
}

TYPED_TEST(DeepHaloExchangeTyped, MessagesAcrossTheAxesCompletedInStartAreInWhenStartReturns) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const Case c = kCases[0];
  constexpr std::array<bool, 3> kCompleted[] = {{true, false, false}, {false, true, false}, {true, true, false}};
  for (const Dims3& dims : t::all_process_grids(ranks)) {
    if (!t::thick_enough(c.n, dims, c.halo)) continue;
    for (const Periodic& periodic : kPeriodicities)
      for (const std::array<bool, 3>& completed : kCompleted) {
        const CartesianComm cart(MPI_COMM_WORLD, decompose(c.n, ranks, dims, 1), periodic);
        Field<T> a(cart.owned(), c.halo), b(cart.owned(), c.halo);
        DeepHaloExchange<T> halo(cart, cart.owned(), c.halo, completed);
        const std::string context =
            "grid " + t::text(c.n) + " dims " + t::text(dims) + " " + t::text(periodic) + " completed " + t::text(completed);
        std::array<bool, 3> in_flight{false, false, false};
        for (int axis = 0; axis < 3; ++axis)
          for (int side : {-1, 1}) {
            const int peer = cart.neighbour(axis, side);
            if (peer != MPI_PROC_NULL && peer != cart.rank() && !completed[static_cast<std::size_t>(axis)])
              in_flight[static_cast<std::size_t>(axis)] = true;
          }
        EXPECT_EQ(halo.remote_axes(), in_flight) << context;
        fill(a, 0);
        fill(b, 1);
        halo.start({{&a, c.width_a}, {&b, c.width_b}});
        // Faces, edges and corners across a completed axis hold their values before finish().
        std::optional<std::string> error = verify(a, c.n, periodic, c.width_a, 0, context + " after start", &completed);
        if (!error) error = verify(b, c.n, periodic, c.width_b, 1, context + " after start", &completed);
        halo.finish();
        if (!error) error = verify(a, c.n, periodic, c.width_a, 0, context + " after finish");
        if (!error) error = verify(b, c.n, periodic, c.width_b, 1, context + " after finish");
        if (!t::agree_nobody_failed(MPI_COMM_WORLD, error)) return;
      }
  }
  const CartesianComm cart(MPI_COMM_WORLD, decompose(c.n, ranks, {0, 0, 0}, 1), Periodic{true, true, true});
  EXPECT_THROW(DeepHaloExchange<T>(cart, cart.owned(), c.halo, {false, false, true}), std::invalid_argument);
}

// Starts an exchange, rewrites every owned cell at least `unchanged` from the faces while it is in
// flight, finishes it and checks the ghosts hold what the owned cells held at start. False when a
// rank found an error.
template <typename T>
bool start_then_rewrite_owned(DeepHaloExchange<T>& halo, Field<T>& a, const Index3& n, const Periodic& periodic, int width,
                              int unchanged = 0) {
  fill(a, 0);
  halo.start({{&a, width, unchanged}});
  EXPECT_TRUE(halo.in_flight());
  // Overlapped compute may rewrite owned cells while the messages travel, beyond the depth it
  // leaves alone: they were packed already.
  const Box& owned = a.owned();
  const Box rewritten = owned.grown(-unchanged);
  const auto set_owned = [&](const Box& box, auto value) {
    for (std::int64_t z = box.lo[2]; z < box.hi[2]; ++z)
      for (std::int64_t y = box.lo[1]; y < box.hi[1]; ++y)
        for (std::int64_t x = box.lo[0]; x < box.hi[0]; ++x) a.at(x, y, z) = value(Index3{x, y, z});
  };
  set_owned(rewritten, [](const Index3&) { return static_cast<T>(-7); });
  while (!halo.test()) {
  }
  halo.finish();
  EXPECT_FALSE(halo.in_flight());
  set_owned(owned, [](const Index3& p) { return value_at<T>(p, 0); });  // the ghosts are left as received
  return t::agree_nobody_failed(MPI_COMM_WORLD, verify(a, n, periodic, width, 0, "owned cells rewritten after start"));
}

// Packed rows (a grid cut along x or y) and packed whole planes (cut along z only).
struct StartCase {
  Index3 n;
  Dims3 dims;  // 0 = chosen
  Periodic periodic;
};

TYPED_TEST(DeepHaloExchangeTyped, SendsWhatTheOwnedCellsHeldAtStart) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const int width = kCases[0].halo;
  for (const StartCase& s : {StartCase{kCases[0].n, {0, 0, 0}, {true, true, false}},
                             StartCase{{23, 17, 48}, {1, 1, ranks}, {false, false, true}}}) {
    const CartesianComm cart(MPI_COMM_WORLD, decompose(s.n, ranks, s.dims, width), s.periodic);
    Field<T> a(cart.owned(), width);
    DeepHaloExchange<T> halo(cart, cart.owned(), width);
    if (s.dims[2] == ranks && ranks > 1) {
      EXPECT_TRUE(halo.sends_whole_planes());
    }
    if (!start_then_rewrite_owned(halo, a, s.n, s.periodic, width)) return;
    EXPECT_EQ(halo.last_bytes_packed(), halo.last_bytes_sent());
  }
}

// Whole planes with part of each slab promised unchanged: those planes travel straight from the
// field, the rest is copied at start, and the ghosts hold the values of start either way. Packed
// rows copy everything.
TYPED_TEST(DeepHaloExchangeTyped, SendsThePlanesLeftUnchangedStraightFromTheField) {
  using T = TypeParam;
  const int ranks = t::world_size();
  const int width = kCases[0].halo;
  for (const StartCase& s : {StartCase{{23, 17, 48}, {1, 1, ranks}, {false, false, true}},
                             StartCase{{23, 17, 48}, {1, 1, ranks}, {false, false, false}},
                             StartCase{kCases[0].n, {0, 0, 0}, {true, true, false}}}) {
    const CartesianComm cart(MPI_COMM_WORLD, decompose(s.n, ranks, s.dims, width), s.periodic);
    Field<T> a(cart.owned(), width);
    DeepHaloExchange<T> halo(cart, cart.owned(), width);
    for (int unchanged : {0, 2, width, width + 3}) {
      if (!start_then_rewrite_owned(halo, a, s.n, s.periodic, width, unchanged)) return;
      const std::size_t sent = halo.last_bytes_sent();
      if (!halo.sends_whole_planes()) {
        EXPECT_EQ(halo.last_bytes_packed(), sent) << "packed rows, unchanged " << unchanged;
        continue;
      }
      // Each slab's planes beyond `unchanged` are copied: (width - unchanged) of its width planes.
      const auto beyond = static_cast<std::size_t>(std::max(0, width - unchanged));
      EXPECT_EQ(halo.last_bytes_packed() * static_cast<std::size_t>(width), sent * beyond)
          << "whole planes, unchanged " << unchanged << ", grid " << t::text(s.n);
    }
  }
}

TYPED_TEST(DeepHaloExchangeTyped, RefusesWidthsBeyondTheHaloAndUnbalancedCalls) {
  using T = TypeParam;
  const CartesianComm cart(MPI_COMM_WORLD, decompose({23, 17, 13}, t::world_size(), {0, 0, 0}, 2), {true, true, true});
  Field<T> a(cart.owned(), 2);
  DeepHaloExchange<T> halo(cart, cart.owned(), 2);
  EXPECT_THROW(halo.start({{&a, 3}}), std::logic_error);
  EXPECT_THROW(halo.finish(), std::logic_error);
}

}  // namespace
