// Decomposition without MPI: hand-worked tables, a brute-force reference for every rank count 1..64,
// exact tiling, rank/coordinate mapping, neighbours, and every error message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "field/field.hpp"
#include "mpi/decomposition.hpp"

namespace {

using wave3d::Box;
using wave3d::Index3;
using wave3d::mpi::decompose;
using wave3d::mpi::Decomposition;
using wave3d::mpi::DecompositionError;
using wave3d::mpi::Dims3;

constexpr Dims3 kChoose{0, 0, 0};

// The message of the DecompositionError that fn throws; fails the test if it throws nothing.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const DecompositionError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a DecompositionError";
  return {};
}

// ---- Brute-force reference, written independently of the implementation ---------------------------

struct Reference {
  bool feasible = false;
  Dims3 dims{};
  std::vector<Box> boxes;
};

// Split sizes along one axis: everyone n / p, then one more to each of the first n % p.
std::vector<std::int64_t> sizes(std::int64_t n, int p) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(p), n / p);
  for (std::int64_t i = 0; i < n % p; ++i) s[static_cast<std::size_t>(i)] += 1;
  return s;
}

// Boxes in rank order, built by nested loops with x innermost.
std::vector<Box> reference_boxes(const Index3& n, const Dims3& p) {
  const auto sx = sizes(n[0], p[0]), sy = sizes(n[1], p[1]), sz = sizes(n[2], p[2]);
  std::vector<Box> boxes;
  std::int64_t z = 0;
  for (int cz = 0; cz < p[2]; z += sz[static_cast<std::size_t>(cz)], ++cz) {
    std::int64_t y = 0;
    for (int cy = 0; cy < p[1]; y += sy[static_cast<std::size_t>(cy)], ++cy) {
      std::int64_t x = 0;
      for (int cx = 0; cx < p[0]; x += sx[static_cast<std::size_t>(cx)], ++cx) {
        boxes.push_back(Box{{x, y, z},
                            {x + sx[static_cast<std::size_t>(cx)], y + sy[static_cast<std::size_t>(cy)],
                             z + sz[static_cast<std::size_t>(cz)]}});
      }
    }
  }
  return boxes;
}

// Sum over boxes of the areas of faces that lie inside the grid (so border another box).
std::uint64_t reference_surface(const Index3& n, const std::vector<Box>& boxes) {
  std::uint64_t total = 0;
  for (const Box& b : boxes) {
    const Index3 e = b.extents();
    for (int a = 0; a < 3; ++a) {
      const auto area = static_cast<std::uint64_t>(e[(a + 1) % 3] * e[(a + 2) % 3]);
      if (b.lo[a] > 0) total += area;
      if (b.hi[a] < n[a]) total += area;
    }
  }
  return total;
}

Reference reference(const Index3& n, int ranks, int radius) {
  Reference best;
  std::uint64_t best_surface = 0;
  for (int px = 1; px <= ranks; ++px)
    for (int py = 1; py <= ranks; ++py)
      for (int pz = 1; pz <= ranks; ++pz) {
        if (px * py * pz != ranks) continue;
        const Dims3 p{px, py, pz};
        const auto boxes = reference_boxes(n, p);
        bool ok = true;
        for (const Box& b : boxes)
          for (int a = 0; a < 3; ++a)
            if (p[a] > 1 && b.extent(a) < radius) ok = false;
        if (!ok) continue;
        const std::uint64_t s = reference_surface(n, boxes);
        // Least surface, then fewest x cuts, then fewest y cuts.
        if (!best.feasible || std::tie(s, px, py) < std::tie(best_surface, best.dims[0], best.dims[1])) {
          best = {true, p, boxes};
          best_surface = s;
        }
      }
  return best;
}

struct Shape {
  Index3 n;
  int radius;
};

const std::vector<Shape> kShapes = {
    {{64, 64, 64}, 1},  {{64, 64, 64}, 8},  {{256, 64, 32}, 4}, {{97, 31, 17}, 1},
    {{97, 31, 17}, 3},  {{1000, 10, 10}, 2}, {{5, 7, 3}, 1},     {{2, 3, 5}, 1},
};

TEST(Decomposition, MatchesBruteForceForOneToSixtyFourRanks) {
  for (const Shape& shape : kShapes) {
    for (int ranks = 1; ranks <= 64; ++ranks) {
      SCOPED_TRACE(::testing::Message() << "n = " << shape.n[0] << "x" << shape.n[1] << "x" << shape.n[2]
                                        << ", R = " << shape.radius << ", ranks = " << ranks);
      const Reference ref = reference(shape.n, ranks, shape.radius);
      if (!ref.feasible) {
        EXPECT_THROW(decompose(shape.n, ranks, kChoose, shape.radius), DecompositionError);
        continue;
      }
      const Decomposition d = decompose(shape.n, ranks, kChoose, shape.radius);
      EXPECT_EQ(d.dims, ref.dims);
      EXPECT_EQ(d.boxes, ref.boxes);
      EXPECT_EQ(d.halo_surface, reference_surface(shape.n, ref.boxes));
      EXPECT_EQ(d.global_n, shape.n);
    }
  }
}

// ---- Hand-worked tables ----------------------------------------------------------------------------

struct GridCase {
  Index3 n;
  int radius;
  int ranks;
  Dims3 expected;
};

TEST(Decomposition, ChoosesTheExpectedProcessGrid) {
  // On a cube the surface is proportional to px + py + pz - 3; ties go to the smaller px, then py.
  // 256x64x32: a cut across x costs 64*32 = 2048, across y 8192, across z 16384 (per side), so
  //   8 ranks: 8x1x1 and 4x2x1 both cost 7*2048 = 3*2048 + 8192; the tie keeps fewer x cuts;
  //   64 ranks: 16x4x1, 16x2x2 and 8x4x2 all cost 27*2048; 8x4x2 has the fewest x cuts.
  // 97x31x17: cuts cost 527 (x), 1649 (y), 3007 (z). 1000x10x10: x cuts are 100 times cheaper.
  const std::vector<GridCase> cases = {
      {{64, 64, 64}, 8, 1, {1, 1, 1}},    {{64, 64, 64}, 8, 2, {1, 1, 2}},    {{64, 64, 64}, 8, 3, {1, 1, 3}},
      {{64, 64, 64}, 8, 4, {1, 2, 2}},    {{64, 64, 64}, 8, 5, {1, 1, 5}},    {{64, 64, 64}, 8, 6, {1, 2, 3}},
      {{64, 64, 64}, 8, 8, {2, 2, 2}},    {{64, 64, 64}, 8, 9, {1, 3, 3}},    {{64, 64, 64}, 8, 12, {2, 2, 3}},
      {{64, 64, 64}, 8, 16, {2, 2, 4}},   {{64, 64, 64}, 8, 18, {2, 3, 3}},   {{64, 64, 64}, 8, 24, {2, 3, 4}},
      {{64, 64, 64}, 8, 27, {3, 3, 3}},   {{64, 64, 64}, 8, 32, {2, 4, 4}},   {{64, 64, 64}, 8, 36, {3, 3, 4}},
      {{64, 64, 64}, 8, 48, {3, 4, 4}},   {{64, 64, 64}, 8, 60, {3, 4, 5}},   {{64, 64, 64}, 8, 64, {4, 4, 4}},
      {{256, 64, 32}, 4, 2, {2, 1, 1}},   {{256, 64, 32}, 4, 4, {4, 1, 1}},   {{256, 64, 32}, 4, 8, {4, 2, 1}},
      {{256, 64, 32}, 4, 16, {8, 2, 1}},  {{256, 64, 32}, 4, 64, {8, 4, 2}},  {{97, 31, 17}, 1, 2, {2, 1, 1}},
      {{97, 31, 17}, 1, 3, {3, 1, 1}},    {{97, 31, 17}, 1, 6, {6, 1, 1}},    {{97, 31, 17}, 1, 8, {4, 2, 1}},
      {{1000, 10, 10}, 2, 4, {4, 1, 1}},  {{1000, 10, 10}, 2, 64, {64, 1, 1}},
      // Radius limits. 7 ranks along z of 64 leave 9 points each, enough for R = 8. 97x31x17 with R = 8
      // allows at most 12 x 3 x 2: for 12 ranks 6x2x1 (5*527 + 1649 = 4284) beats 12x1x1 (5797) and
      // 4x3x1 (4879); for 24 ranks 8x3x1 (6987) beats 6x2x2 (7291) and 12x2x1 (7446).
      {{64, 64, 64}, 8, 7, {1, 1, 7}},    {{97, 31, 17}, 8, 12, {6, 2, 1}},   {{97, 31, 17}, 8, 24, {8, 3, 1}},
  };
  for (const GridCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "n = " << c.n[0] << "x" << c.n[1] << "x" << c.n[2] << ", ranks = " << c.ranks);
    EXPECT_EQ(decompose(c.n, c.ranks, kChoose, c.radius).dims, c.expected);
  }
}

TEST(Decomposition, UnevenSplitsGiveTheRemainderToTheFirstCoordinates) {
  const Decomposition d = decompose({10, 1, 1}, 3, kChoose, 1);
  ASSERT_EQ(d.dims, (Dims3{3, 1, 1}));
  EXPECT_EQ(d.boxes[0], (Box{{0, 0, 0}, {4, 1, 1}}));
  EXPECT_EQ(d.boxes[1], (Box{{4, 0, 0}, {7, 1, 1}}));
  EXPECT_EQ(d.boxes[2], (Box{{7, 0, 0}, {10, 1, 1}}));

  // 1000 over 64: 1000 = 64 * 15 + 40, so coordinates 0..39 own 16 points and 40..63 own 15.
  const Decomposition e = decompose({1000, 10, 10}, 64, kChoose, 2);
  ASSERT_EQ(e.dims, (Dims3{64, 1, 1}));
  for (int r = 0; r < 64; ++r) EXPECT_EQ(e.boxes[r].extent(0), r < 40 ? 16 : 15) << "rank " << r;
  EXPECT_EQ(e.boxes[39].hi[0], 640);
  EXPECT_EQ(e.boxes[40].lo[0], 640);

  const auto r = wave3d::mpi::split_range(17, 3, 0);
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 6);
  EXPECT_EQ(wave3d::mpi::split_range(17, 3, 1).hi, 12);
  EXPECT_EQ(wave3d::mpi::split_range(17, 3, 2).hi, 17);
}

TEST(Decomposition, BoxesTileTheGridExactlyForEveryRankCount) {
  const std::vector<Index3> shapes = {{64, 64, 64}, {256, 64, 32}, {97, 31, 17}, {1000, 10, 10}, {13, 64, 5}};
  for (const Index3& n : shapes) {
    const Box whole = wave3d::box_from_extents(n);
    for (int ranks = 1; ranks <= 64; ++ranks) {
      SCOPED_TRACE(::testing::Message() << "n = " << n[0] << "x" << n[1] << "x" << n[2] << ", ranks = " << ranks);
      const Decomposition d = decompose(n, ranks, kChoose, 1);
      ASSERT_EQ(d.ranks(), ranks);
      ASSERT_EQ(static_cast<int>(d.boxes.size()), ranks);
      std::int64_t volume = 0;
      for (int a = 0; a < ranks; ++a) {
        const Box& b = d.boxes[a];
        EXPECT_FALSE(b.empty());
        EXPECT_EQ(wave3d::intersect(b, whole), b);
        volume += b.volume();
        for (int c = a + 1; c < ranks; ++c) EXPECT_TRUE(wave3d::intersect(b, d.boxes[c]).empty()) << a << " " << c;
        // Extents along an axis differ by at most one, larger ones first.
        const Dims3 co = d.coords_of(a);
        for (int axis = 0; axis < 3; ++axis) {
          const std::int64_t base = n[axis] / d.dims[axis];
          EXPECT_EQ(b.extent(axis), base + (co[axis] < n[axis] % d.dims[axis] ? 1 : 0));
        }
      }
      EXPECT_EQ(volume, whole.volume());  // in the grid + disjoint + same volume = exact tiling
    }
  }
}

// ---- Requested grids ---------------------------------------------------------------------------------

TEST(Decomposition, HonoursRequestedProcessGrids) {
  EXPECT_EQ(decompose({64, 64, 64}, 8, {8, 1, 1}, 8).dims, (Dims3{8, 1, 1}));
  EXPECT_EQ(decompose({64, 64, 64}, 8, {1, 2, 4}, 8).dims, (Dims3{1, 2, 4}));
  // Partly requested: the free axes are chosen by the same rule.
  EXPECT_EQ(decompose({64, 64, 64}, 16, {0, 0, 4}, 8).dims, (Dims3{2, 2, 4}));
  EXPECT_EQ(decompose({64, 64, 64}, 16, {1, 0, 0}, 8).dims, (Dims3{1, 4, 4}));
  EXPECT_EQ(decompose({64, 64, 64}, 12, {0, 6, 0}, 8).dims, (Dims3{1, 6, 2}));
  EXPECT_EQ(decompose({256, 64, 32}, 8, {0, 1, 0}, 4).dims, (Dims3{8, 1, 1}));
  // A requested grid is honoured even where the rule would choose another.
  const Decomposition d = decompose({256, 64, 32}, 4, {1, 1, 4}, 4);
  EXPECT_EQ(d.dims, (Dims3{1, 1, 4}));
  EXPECT_EQ(d.boxes[3], (Box{{0, 0, 24}, {256, 64, 32}}));
}

// ---- Rank order, MPI mapping, neighbours ----------------------------------------------------------

TEST(Decomposition, RankOrderIsXFastestAndRoundTrips) {
  const Decomposition d = decompose({64, 64, 64}, 24, kChoose, 1);
  ASSERT_EQ(d.dims, (Dims3{2, 3, 4}));
  for (int r = 0; r < d.ranks(); ++r) {
    const Dims3 c = d.coords_of(r);
    EXPECT_EQ(r, c[0] + 2 * (c[1] + 3 * c[2]));
    EXPECT_EQ(d.rank_of(c), r);
    EXPECT_EQ(d.box_of(r), d.boxes[r]);
  }
  EXPECT_EQ(d.coords_of(1), (Dims3{1, 0, 0}));
  EXPECT_EQ(d.coords_of(2), (Dims3{0, 1, 0}));
  EXPECT_EQ(d.coords_of(6), (Dims3{0, 0, 1}));
  EXPECT_THROW(d.coords_of(24), std::out_of_range);
  EXPECT_THROW(d.rank_of({2, 0, 0}), std::out_of_range);
}

TEST(Decomposition, MpiDimsReproduceOurRankOrderUnderMpiRowMajorNumbering) {
  const Decomposition d = decompose({64, 64, 64}, 24, kChoose, 1);
  const Dims3 md = d.mpi_dims();
  EXPECT_EQ(md, (Dims3{4, 3, 2}));
  for (int r = 0; r < d.ranks(); ++r) {
    // MPI_Cart_rank: row-major, last dimension fastest, on MPI-ordered coordinates.
    const Dims3 mc = wave3d::mpi::to_mpi_order(d.coords_of(r));
    EXPECT_EQ(mc[2] + md[2] * (mc[1] + md[1] * mc[0]), r);
    EXPECT_EQ(wave3d::mpi::to_mpi_order(mc), d.coords_of(r));
  }
}

TEST(Decomposition, NeighboursNonPeriodicStopAtTheEdge) {
  const Decomposition d = decompose({64, 64, 64}, 24, kChoose, 1);  // 2 x 3 x 4
  const int r = d.rank_of({0, 1, 3});
  EXPECT_EQ(d.neighbour(r, 0, -1, false), -1);
  EXPECT_EQ(d.neighbour(r, 0, +1, false), d.rank_of({1, 1, 3}));
  EXPECT_EQ(d.neighbour(r, 1, -1, false), d.rank_of({0, 0, 3}));
  EXPECT_EQ(d.neighbour(r, 1, +1, false), d.rank_of({0, 2, 3}));
  EXPECT_EQ(d.neighbour(r, 2, -1, false), d.rank_of({0, 1, 2}));
  EXPECT_EQ(d.neighbour(r, 2, +1, false), -1);
  EXPECT_THROW(d.neighbour(r, 3, 1, false), std::invalid_argument);
  EXPECT_THROW(d.neighbour(r, 0, 0, false), std::invalid_argument);
}

TEST(Decomposition, NeighboursPeriodicWrapAround) {
  const Decomposition d = decompose({64, 64, 64}, 24, kChoose, 1);  // 2 x 3 x 4
  const int r = d.rank_of({0, 1, 3});
  EXPECT_EQ(d.neighbour(r, 0, -1, true), d.rank_of({1, 1, 3}));
  EXPECT_EQ(d.neighbour(r, 0, +1, true), d.rank_of({1, 1, 3}));  // two along x: both sides the same rank
  EXPECT_EQ(d.neighbour(r, 2, +1, true), d.rank_of({0, 1, 0}));
  EXPECT_EQ(d.neighbour(d.rank_of({1, 2, 0}), 1, +1, true), d.rank_of({1, 0, 0}));

  const Decomposition single = decompose({64, 64, 64}, 2, kChoose, 1);  // 1 x 1 x 2
  EXPECT_EQ(single.neighbour(1, 0, +1, true), 1);  // one rank along x: itself
  EXPECT_EQ(single.neighbour(1, 0, +1, false), -1);
}

TEST(Decomposition, NeighbourThereAndBackIsTheRankItself) {
  for (bool periodic : {false, true}) {
    const Decomposition d = decompose({97, 31, 17}, 30, kChoose, 1);
    for (int r = 0; r < d.ranks(); ++r)
      for (int axis = 0; axis < 3; ++axis)
        for (int dir : {-1, 1}) {
          const int n = d.neighbour(r, axis, dir, periodic);
          if (n < 0) continue;
          EXPECT_EQ(d.neighbour(n, axis, -dir, periodic), r);
          // Neighbours touch: the shared face is where one box ends and the other begins.
          if (!periodic || d.coords_of(n)[axis] == d.coords_of(r)[axis] + dir) {
            EXPECT_EQ(dir > 0 ? d.boxes[r].hi[axis] : d.boxes[r].lo[axis],
                      dir > 0 ? d.boxes[n].lo[axis] : d.boxes[n].hi[axis]);
          }
        }
  }
}

// ---- Errors ------------------------------------------------------------------------------------------

TEST(DecompositionErrors, RankCountBelowOne) {
  const std::string m = error_of([] { decompose({64, 64, 64}, 0, kChoose, 8); });
  EXPECT_NE(m.find("MPI rank count (mpiexec -n) = 0"), std::string::npos) << m;
  EXPECT_NE(m.find("at least 1"), std::string::npos) << m;
  EXPECT_NE(error_of([] { decompose({64, 64, 64}, -3, kChoose, 8); }).find("= -3"), std::string::npos);
}

TEST(DecompositionErrors, RequestedGridDoesNotDivideTheRankCount) {
  EXPECT_EQ(error_of([] { decompose({64, 64, 64}, 8, {3, 2, 0}, 8); }),
            "parallel.process_grid = [3, 2, 0] does not fit 8 ranks: 8 is not divisible by 3*2 (the non-zero entries "
            "must multiply to a divisor of 8)");
  const std::string m = error_of([] { decompose({64, 64, 64}, 8, {0, 0, 3}, 8); });
  EXPECT_NE(m.find("parallel.process_grid = [0, 0, 3] does not fit 8 ranks: 8 is not divisible by 3 "), std::string::npos)
      << m;
}

TEST(DecompositionErrors, RequestedGridProductDiffersFromTheRankCount) {
  const std::string m = error_of([] { decompose({64, 64, 64}, 8, {2, 2, 3}, 8); });
  EXPECT_EQ(m, "parallel.process_grid = [2, 2, 3] does not fit 8 ranks: 2*2*3 = 12, but the product must equal the "
               "rank count 8");
  const std::string big = error_of([] { decompose({64, 64, 64}, 8, {2000000000, 2000000000, 2000000000}, 8); });
  EXPECT_NE(big.find("= more than 8"), std::string::npos) << big;
}

TEST(DecompositionErrors, NegativeRequestedEntry) {
  const std::string m = error_of([] { decompose({64, 64, 64}, 8, {-1, 0, 0}, 8); });
  EXPECT_NE(m.find("parallel.process_grid = [-1, 0, 0] is invalid"), std::string::npos) << m;
  EXPECT_NE(m.find("or 0 to let wave3d choose"), std::string::npos) << m;
}

TEST(DecompositionErrors, RequestedGridThinnerThanTheRadius) {
  const std::string m = error_of([] { decompose({20, 20, 20}, 4, {4, 1, 1}, 8); });
  EXPECT_EQ(m, "parallel.process_grid = [4, 1, 1] does not fit grid.n = [20, 20, 20]: grid.n[0] = 20 over 4 ranks "
               "along x gives subdomains of 5 points, thinner than the stencil radius 8; use at most 2 ranks along x");
  // Uneven: the smallest and largest sizes; every thin axis is named.
  const std::string u = error_of([] { decompose({22, 20, 9}, 8, {4, 1, 2}, 8); });
  EXPECT_NE(u.find("grid.n[0] = 22 over 4 ranks along x gives subdomains of 5 to 6 points"), std::string::npos) << u;
  EXPECT_NE(u.find("grid.n[2] = 9 over 2 ranks along z gives subdomains of 4 to 5 points, thinner than the stencil "
                   "radius 8; use at most 1 rank along z"),
            std::string::npos)
      << u;
}

TEST(DecompositionErrors, NoFactorisationFitsNamesTheClosest) {
  const std::string m = error_of([] { decompose({20, 20, 20}, 16, kChoose, 8); });
  EXPECT_NE(m.find("no process grid for 16 ranks fits grid.n = [20, 20, 20] with stencil radius 8"), std::string::npos)
      << m;
  EXPECT_NE(m.find("at most 2 x 2 x 2 ranks along x, y, z"), std::string::npos) << m;
  // Thinnest 5 points is the best any factorisation reaches; of those 2x2x4 has the least surface.
  EXPECT_NE(m.find("The closest is 2 x 2 x 4: grid.n[2] = 20 over 4 ranks along z gives subdomains of 5 points"),
            std::string::npos)
      << m;

  const std::string prime = error_of([] { decompose({64, 64, 64}, 61, kChoose, 8); });
  EXPECT_NE(prime.find("The closest is 1 x 1 x 61: grid.n[2] = 64 over 61 ranks along z gives subdomains of 1 to 2 "
                       "points"),
            std::string::npos)
      << prime;

  const std::string partial = error_of([] { decompose({20, 20, 20}, 8, {4, 0, 0}, 8); });
  EXPECT_NE(partial.find("no process grid for 8 ranks with parallel.process_grid = [4, 0, 0] fits"), std::string::npos)
      << partial;
  EXPECT_NE(partial.find("grid.n[0] = 20 over 4 ranks along x"), std::string::npos) << partial;
}

TEST(DecompositionErrors, InvalidGridOrRadius) {
  EXPECT_NE(error_of([] { decompose({0, 10, 10}, 1, kChoose, 1); }).find("grid.n = [0, 10, 10] is invalid"),
            std::string::npos);
  EXPECT_NE(error_of([] { decompose({10, 10, 10}, 1, kChoose, 0); }).find("stencil radius = 0 is invalid"),
            std::string::npos);
}

TEST(Decomposition, OneRankNeverFailsOnThickness) {
  // No cut, no exchange: even a grid thinner than R decomposes (the grid validation judges it).
  EXPECT_EQ(decompose({4, 4, 4}, 1, kChoose, 8).boxes.front(), (Box{{0, 0, 0}, {4, 4, 4}}));
}

// ---- Memory ------------------------------------------------------------------------------------------

TEST(DecompositionMemory, EstimateMatchesFieldAllocation) {
  // The estimate is Field's own layout (the larger of the two line starts a solver uses), one plane
  // times the planes: this checks the two agree.
  using wave3d::mpi::estimate_bytes_per_rank;
  for (int radius : {1, 4, 8}) {
    for (int ranks : {1, 6, 7}) {
      const Decomposition d = decompose({97, 31, 17}, ranks, kChoose, radius);
      for (int r = 0; r < d.ranks(); ++r) {
        SCOPED_TRACE(::testing::Message() << "R = " << radius << ", " << ranks << " ranks, rank " << r);
        // Rows starting a cache line at the first owned x, or past a zero boundary's layer.
        const std::int64_t past_layer = d.boxes[r].lo[0] + radius;
        const std::size_t f = std::max(wave3d::Field<float>(d.boxes[r], radius).allocated_bytes(),
                                       wave3d::Field<float>(d.boxes[r], radius, false, past_layer).allocated_bytes());
        const std::size_t g = std::max(wave3d::Field<double>(d.boxes[r], radius).allocated_bytes(),
                                       wave3d::Field<double>(d.boxes[r], radius, false, past_layer).allocated_bytes());
        EXPECT_EQ(estimate_bytes_per_rank(d, r, radius, sizeof(float)), 3 * f);
        EXPECT_EQ(estimate_bytes_per_rank(d, r, radius, sizeof(double), 2), 2 * g);
      }
    }
  }
}

TEST(DecompositionMemory, CheckFitsInMemory) {
  constexpr std::uint64_t GiB = 1ull << 30;
  const Decomposition d = decompose({2048, 2048, 2048}, 8, kChoose, 8);  // 1024^3 per rank
  // Per rank: rows of 16 + 1024 + 8 -> 1056 floats (66 lines) by 1040 rows is 68640 lines per plane,
  // padded to 68645 (80 floats more) to spread the kernel's lines over the L1 sets (plane_stride.hpp);
  // 1040 planes; 3 fields: 12.8 GiB.
  const std::uint64_t per_rank = wave3d::mpi::estimate_bytes_per_rank(d, 0, 8, 4);
  EXPECT_EQ(per_rank, 3ull * 4 * (1056ull * 1040 + 80) * 1040);
  EXPECT_NO_THROW(wave3d::mpi::check_fits_in_memory(d, 8, 4, 4, 4 * per_rank));
  EXPECT_NO_THROW(wave3d::mpi::check_fits_in_memory(d, 8, 4, 64, 8 * per_rank));  // at most 8 ranks share a node

  const std::string m = error_of([&] { wave3d::mpi::check_fits_in_memory(d, 8, 4, 4, 31 * GiB); });
  EXPECT_NE(m.find("grid.n = [2048, 2048, 2048] does not fit in memory"), std::string::npos) << m;
  EXPECT_NE(m.find("the largest rank needs 12.8 GiB"), std::string::npos) << m;
  EXPECT_NE(m.find("1024 x 1024 x 1024 points plus a halo of 8"), std::string::npos) << m;
  EXPECT_NE(m.find("4 ranks per node need 51.1 GiB, but only 31.0 GiB is available"), std::string::npos) << m;
  EXPECT_NE(m.find("MemAvailable"), std::string::npos) << m;

  const std::string one = error_of([&] { wave3d::mpi::check_fits_in_memory(d, 8, 8, 1, GiB); });
  EXPECT_NE(one.find("1 rank per node needs"), std::string::npos) << one;
  EXPECT_NE(one.find("single precision"), std::string::npos) << one;
  EXPECT_THROW(wave3d::mpi::check_fits_in_memory(d, 8, 4, 0, GiB), std::invalid_argument);
}

}  // namespace
