#pragma once
// Periodic halo fill for axes a subdomain spans completely (the single-rank case): ghost cells take
// the value of the owned cell one period away. Axes split over ranks are the halo exchange's job.
#include "field/field.hpp"
#include "geometry/grid.hpp"

namespace wave3d {

// Fills the face halos of `field` along every axis where its owned box covers the whole grid.
// Axes are filled in order x, y, z over growing ranges, so edges and corners come out right too.
template <typename T>
void fill_periodic_halo(Field<T>& field, const Grid& grid);

}  // namespace wave3d
