#include "solver/update_regions.hpp"

#include <algorithm>

namespace wave3d {

UpdateRegions update_regions(const Grid& grid, const Box& owned, const std::array<bool, 3>& halo_in_flight) {
  Box away_from_halo = owned;
  for (int a = 0; a < 3; ++a)
    if (halo_in_flight[a]) {
      away_from_halo.lo[a] += grid.radius;
      away_from_halo.hi[a] -= grid.radius;
    }
  UpdateRegions r;
  r.update = intersect(owned, grid.updated());
  r.interior = intersect(r.update, away_from_halo);
  r.shells = boxes_outside(r.update, r.interior);
  return r;
}

std::int64_t first_updated_x(const Grid& grid, const Box& owned) {
  return std::max(owned.lo[0], grid.updated().lo[0]);
}

std::vector<Box> kernel_sweeps(const UpdateRegions& regions, HaloMode mode) {
  if (!computes_during_exchange(mode)) return {regions.update};
  std::vector<Box> sweeps{regions.interior};
  sweeps.insert(sweeps.end(), regions.shells.begin(), regions.shells.end());
  return sweeps;
}

}  // namespace wave3d
