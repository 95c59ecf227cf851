// The seed cube as ISO3DFD writes it: its initialisation loops, written out here as they stand,
// against wave3d's initial condition on every point of a small grid.
#include <gtest/gtest.h>

#include <vector>

#include "field/field.hpp"
#include "init/initial_condition.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {
namespace {

// ISO3DFD's loops: for s = 5 down to 0, z in [n3/2 - s, n3/2 + s), y in [n2/4 - s, n2/4 + s), x in
// [n1/4 - s, n1/4 + s) get val, then val *= 10.
std::vector<float> iso3dfd_seed(std::int64_t n1, std::int64_t n2, std::int64_t n3) {
  std::vector<float> prev(static_cast<std::size_t>(n1 * n2 * n3), 0.0f);
  float val = 1.f;
  for (int s = 5; s >= 0; s--) {
    for (std::int64_t i = n3 / 2 - s; i < n3 / 2 + s; i++)
      for (std::int64_t j = n2 / 4 - s; j < n2 / 4 + s; j++)
        for (std::int64_t k = n1 / 4 - s; k < n1 / 4 + s; k++) prev[static_cast<std::size_t>((i * n2 + j) * n1 + k)] = val;
    val *= 10;
  }
  return prev;
}

TEST(InitialCondition, SeedCubeIsIso3dfdsPointForPoint) {
  for (const Index3 n : {Index3{24, 20, 16}, Index3{25, 23, 13}, Index3{40, 36, 30}}) {
    const Grid grid{.n = n, .spacing = 10.0, .boundary = Boundary::zero, .radius = 4};
    const Box owned = grid.whole();
    Field<float> prev(owned, grid.radius), next(owned, grid.radius), vel(owned, grid.radius);
    const InitialCondition seed{.kind = InitialKind::seed_cube};
    apply_initial_condition(seed, grid, Physics{}, Blocking{}, prev, next, vel);
    const std::vector<float> expected = iso3dfd_seed(n[0], n[1], n[2]);
    int differences = 0;
    float largest = 0.0f;
    for (std::int64_t z = 0; z < n[2]; ++z)
      for (std::int64_t y = 0; y < n[1]; ++y)
        for (std::int64_t x = 0; x < n[0]; ++x) {
          const float want = expected[static_cast<std::size_t>((z * n[1] + y) * n[0] + x)];
          if (prev.at(x, y, z) != want && ++differences <= 5)
            ADD_FAILURE() << "grid " << n[0] << "x" << n[1] << "x" << n[2] << " point (" << x << ", " << y << ", " << z
                          << "): " << prev.at(x, y, z) << ", ISO3DFD " << want;
          largest = std::max(largest, prev.at(x, y, z));
        }
    EXPECT_EQ(differences, 0);
    EXPECT_EQ(largest, 1e4f) << "ISO3DFD's loop for s = 0 is empty: its largest value is 10^4";
  }
}

}  // namespace
}  // namespace wave3d
