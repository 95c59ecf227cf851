#pragma once
// The points of a subdomain the time step updates, and the regions the kernel sweeps them in: what
// the step computes, and so what first touch must follow for each page to be placed by the thread
// that will compute it.
#include <array>
#include <cstdint>
#include <vector>

#include "config/run_config.hpp"
#include "geometry/box.hpp"
#include "geometry/grid.hpp"

namespace wave3d {

struct UpdateRegions {
  Box update;               // the owned points updated each step (owned minus any fixed boundary layer)
  Box interior;             // the updated points whose stencil reaches no halo cell that may be in flight
  std::vector<Box> shells;  // the rest of `update`, around `interior`
};

// The regions of the subdomain `owned` of `grid`. halo_in_flight: the axes along which ghost cells may
// still be arriving while the interior is computed; the interior keeps R points away from those faces only.
UpdateRegions update_regions(const Grid& grid, const Box& owned, const std::array<bool, 3>& halo_in_flight);

// The first x a row of `owned` is updated at: past a zero boundary's fixed layer on the grid's low x
// face, else the first owned x. The solver's fields start a cache line there (field.hpp).
std::int64_t first_updated_x(const Grid& grid, const Box& owned);

// The regions the kernel sweeps each step under `mode`, in order, each a for_each_block of its own
// (engine/step_driver.cpp): bulk sweeps the update region; overlap the interior, then every shell.
std::vector<Box> kernel_sweeps(const UpdateRegions& regions, HaloMode mode);

}  // namespace wave3d
