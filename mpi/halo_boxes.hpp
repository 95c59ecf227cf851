#pragma once
// What the two halo exchanges (halo_exchange.cpp, deep_halo_exchange.cpp) share: the boxes a message
// carries, the MPI type of a field value, and their phase timer. Internal to mpi/.
#include <mpi.h>

#include <chrono>
#include <cstddef>

#include "geometry/box.hpp"
#include "mpi/decomposition.hpp"

namespace wave3d::mpi::halo {

template <typename T>
MPI_Datatype datatype_of() {
  static_assert(sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double), "fields hold float or double");
  return sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The offset (-1, 0 or +1 per axis) of the face neighbour one step along `axis` in `direction`.
inline Dims3 face_offset(int axis, int direction) {
  Dims3 d{0, 0, 0};
  d[static_cast<std::size_t>(axis)] = direction < 0 ? -1 : 1;
  return d;
}

// The owned cells within `width` of the faces `d` points to (the full owned range along an axis
// where d is 0): what the neighbour at offset d needs.
inline Box send_box(const Box& owned, const Dims3& d, int width) {
  Box b = owned;
  for (std::size_t a = 0; a < 3; ++a) {
    if (d[a] < 0) b.hi[a] = owned.lo[a] + width;
    if (d[a] > 0) b.lo[a] = owned.hi[a] - width;
  }
  return b;
}

// The halo cells at offset `d`: `width` deep beyond each face d points to.
inline Box ghost_box(const Box& owned, const Dims3& d, int width) {
  Box b = owned;
  for (std::size_t a = 0; a < 3; ++a) {
    if (d[a] < 0) {
      b.lo[a] = owned.lo[a] - width;
      b.hi[a] = owned.lo[a];
    }
    if (d[a] > 0) {
      b.lo[a] = owned.hi[a];
      b.hi[a] = owned.hi[a] + width;
    }
  }
  return b;
}

}  // namespace wave3d::mpi::halo
