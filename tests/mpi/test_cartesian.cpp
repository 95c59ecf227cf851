// CartesianComm under mpiexec: for every process grid of the rank count and every periodicity, the
// MPI topology's neighbours, boxes and coordinates agree with the pure Decomposition.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "mpi/cartesian.hpp"
#include "mpi/decomposition.hpp"
#include "mpi_test_support.hpp"

namespace {

using wave3d::Index3;
using wave3d::mpi::CartesianComm;
using wave3d::mpi::decompose;
using wave3d::mpi::Decomposition;
using wave3d::mpi::Dims3;
namespace t = wave3d::mpi::testing;

constexpr Index3 kGrid{24, 20, 16};

std::array<bool, 3> periodicity(int bits) { return {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0}; }

TEST(CartesianComm, NeighboursBoxesAndCoordinatesMatchTheDecomposition) {
  const int ranks = t::world_size();
  int configurations = 0;
  for (const Dims3& dims : t::all_process_grids(ranks)) {
    const Decomposition d = decompose(kGrid, ranks, dims, 1);
    for (int bits = 0; bits < 8; ++bits) {
      const auto periodic = periodicity(bits);
      t::Mismatches errors("dims " + t::text(dims) + " " + t::text(periodic));
      const CartesianComm cart(MPI_COMM_WORLD, d, periodic);
      ++configurations;

      const int rank = t::world_rank();
      if (cart.rank() != rank) errors.add("rank " + std::to_string(cart.rank()));
      if (cart.size() != ranks) errors.add("size " + std::to_string(cart.size()));
      if (cart.owned() != d.box_of(rank)) errors.add("owned box differs from the decomposition's");
      if (cart.dims() != dims) errors.add("dims " + t::text(cart.dims()));
      if (cart.coords() != d.coords_of(rank)) errors.add("coords " + t::text(cart.coords()));
      for (int axis = 0; axis < 3; ++axis) {
        if (cart.periodic(axis) != periodic[static_cast<std::size_t>(axis)]) errors.add("periodic flag");
        for (int direction : {-1, 1}) {
          const int expected = d.neighbour(rank, axis, direction, periodic[static_cast<std::size_t>(axis)]);
          const int got = cart.neighbour(axis, direction);
          if (got != (expected == -1 ? MPI_PROC_NULL : expected))
            errors.add("neighbour(" + std::to_string(axis) + ", " + std::to_string(direction) + ") = " +
                       std::to_string(got) + ", decomposition says " + std::to_string(expected));
        }
      }

      int topology = MPI_UNDEFINED;
      MPI_Topo_test(cart.comm(), &topology);
      if (topology != MPI_CART) errors.add("comm() has no Cartesian topology");
      int relation = MPI_UNEQUAL;
      MPI_Comm_compare(cart.comm(), MPI_COMM_WORLD, &relation);
      if (relation != MPI_CONGRUENT) errors.add("comm() is not a private copy of the parent's group and order");

      t::agree_nobody_failed(MPI_COMM_WORLD, errors.summary());
    }
  }
  EXPECT_GE(configurations, 8);
}

TEST(CartesianComm, RefusesADecompositionForAnotherRankCount) {
  const int ranks = t::world_size();
  const Decomposition d = decompose(kGrid, ranks + 1, {ranks + 1, 1, 1}, 1);
  EXPECT_THROW(CartesianComm(MPI_COMM_WORLD, d, {false, false, false}), std::invalid_argument);
}

TEST(CartesianComm, RejectsBadAxisOrDirection) {
  const int ranks = t::world_size();
  const CartesianComm cart(MPI_COMM_WORLD, decompose(kGrid, ranks, {0, 0, 0}, 1), {true, true, true});
  EXPECT_THROW((void)cart.neighbour(3, 1), std::invalid_argument);
  EXPECT_THROW((void)cart.neighbour(0, 0), std::invalid_argument);
  EXPECT_THROW((void)cart.periodic(-1), std::invalid_argument);
}

TEST(CartesianComm, MovingTransfersTheCommunicator) {
  const int ranks = t::world_size();
  const Decomposition d = decompose(kGrid, ranks, {0, 0, 0}, 1);
  CartesianComm a(MPI_COMM_WORLD, d, {true, false, true});
  const MPI_Comm handle = a.comm();
  CartesianComm b(std::move(a));
  EXPECT_EQ(a.comm(), MPI_COMM_NULL);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(b.comm(), handle);

  CartesianComm c(MPI_COMM_WORLD, d, {false, false, false});
  c = std::move(b);  // frees c's own communicators, takes b's
  EXPECT_EQ(c.comm(), handle);
  EXPECT_TRUE(c.periodic(0));

  int sum = 0;
  const int one = 1;
  ASSERT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c.comm()), MPI_SUCCESS);
  EXPECT_EQ(sum, ranks);
}

}  // namespace
