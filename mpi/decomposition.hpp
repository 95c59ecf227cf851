#pragma once
// Domain decomposition: which part of the global grid each rank owns. A pure function of plain values
// (no MPI calls, no mpi.h) so it can be tested exhaustively without mpiexec and computed identically
// on every rank.
//
// Process grid and rank order
//   The ranks form a px x py x pz grid along x, y, z (x = axis 0 = n1, the unit-stride axis). A rank's
//   coordinates (cx, cy, cz) and its rank number are related by
//       rank = cx + px * (cy + py * cz)            (x fastest, like the field layout)
//
// Mapping to MPI_Cart_create (the MPI layer uses reorder = false, so MPI's order must equal ours)
//   MPI numbers a Cartesian grid row-major with the LAST dimension fastest:
//       rank = c[2] + d[2] * (c[1] + d[1] * c[0])
//   Passing dims d = mpi_dims() = {pz, py, px} therefore gives exactly our order, and the coordinates
//   MPI reports (MPI_Cart_coords, MPI_Cart_shift's dimension index) are reversed: MPI dimension 0 is
//   z, 1 is y, 2 is x, and MPI coords {c0, c1, c2} = {cz, cy, cx}. to_mpi_order() does that reversal
//   (it is its own inverse). Neighbour ranks agree with MPI_Cart_shift on MPI dimension 2 - axis,
//   with -1 standing for MPI_PROC_NULL.
//
// Choice of process grid (when not fully requested)
//   Every factorisation px * py * pz = ranks that matches the non-zero requested entries and leaves
//   every subdomain at least `radius` points thick along each axis that is cut is a candidate. The
//   chosen one minimises the halo surface: the sum over ranks of the areas of their box faces that
//   border another rank (interior cut planes, each counted once per side). The periodic wrap is not
//   counted, and need not be: with periodic boundaries every axis also copies one wrap plane pair,
//   by message or, with one rank along it, locally, which adds the same constant to every candidate.
//   Ties go to fewer cuts along x (rows stay long, so halo packing and the kernel's inner loop stay
//   efficient), then to fewer cuts along y.
//
// Uneven splits: n points over p ranks give every rank n / p points, and the first n % p coordinates
// along that axis one more (10 over 3 -> 4, 3, 3).
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "geometry/box.hpp"

namespace wave3d::mpi {

// A configuration that cannot be decomposed (or does not fit in memory); what() is one sentence for
// the user naming the setting, its value and what is allowed.
class DecompositionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Dims3 = std::array<int, 3>;  // per axis x, y, z: ranks (dims) or a rank's coordinates

// Reverses an x,y,z triple into MPI's dimension order (z, y, x) and back; see the header comment.
constexpr Dims3 to_mpi_order(const Dims3& a) { return {a[2], a[1], a[0]}; }

// parallel.process_grid (ranks along x, y, z; 0 = decompose chooses) as decompose takes it.
inline Dims3 requested_dims(const Index3& process_grid) {
  return {static_cast<int>(process_grid[0]), static_cast<int>(process_grid[1]), static_cast<int>(process_grid[2])};
}

// The half-open range [lo, hi) of part `index` when n points are split over `parts` ranks along one
// axis, remainder first.
struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};
Range split_range(std::int64_t n, int parts, int index);

struct Decomposition {
  Index3 global_n{0, 0, 0};
  Dims3 dims{1, 1, 1};      // px, py, pz
  std::vector<Box> boxes;   // boxes[rank]: the points the rank owns, in global indices
  std::uint64_t halo_surface = 0;  // the quantity minimised (see the header comment), in points

  int ranks() const { return dims[0] * dims[1] * dims[2]; }
  Dims3 coords_of(int rank) const;
  int rank_of(const Dims3& coords) const;
  const Box& box_of(int rank) const;

  // The rank next to `rank` one step along `axis` (0..2) in `direction` (-1 or +1). At the edge of
  // the process grid: the wrapped-around rank if periodic, otherwise -1 (MPI_PROC_NULL in the MPI
  // layer). With one rank along a periodic axis that is the rank itself.
  int neighbour(int rank, int axis, int direction, bool periodic) const;

  // Dims for MPI_Cart_create: {pz, py, px}.
  Dims3 mpi_dims() const { return to_mpi_order(dims); }
};

// Decomposes global_n over `ranks`. requested[a] = 0 lets decompose choose along axis a; a non-zero
// entry is honoured. Throws DecompositionError when that is impossible.
Decomposition decompose(const Index3& global_n, int ranks, const Dims3& requested, int radius);

// The halo surface (see the header comment) of splitting global_n into dims.
std::uint64_t halo_surface(const Index3& global_n, const Dims3& dims);

// Bytes `rank` allocates for `fields` fields of its owned box with a halo of `radius`, laid out as
// field/field.hpp does (rows and planes padded to cache lines), rows starting a line at the first
// owned x or `radius` points in (past a zero boundary's fixed layer), whichever takes more. Field storage
// only: halo-exchange buffers, MPI and the executable come on top, so the caller should keep some
// headroom.
std::uint64_t estimate_bytes_per_rank(const Decomposition& d, int rank, int radius, std::size_t bytes_per_value,
                                      int fields = 3);

// The field bytes of `ranks_per_node` copies of the largest rank (saturating): what a node must hold.
std::uint64_t field_bytes_per_node(const Decomposition& d, int radius, std::size_t bytes_per_value, int ranks_per_node,
                                   int fields = 3);

// Throws DecompositionError unless `ranks_per_node` copies of the largest rank's fields fit in
// `available_bytes` (the node's MemAvailable, read by the caller). Which ranks share a node is not
// known here, so the largest rank stands for all of them: a bound that errs on the safe side.
void check_fits_in_memory(const Decomposition& d, int radius, std::size_t bytes_per_value, int ranks_per_node,
                          std::uint64_t available_bytes, int fields = 3);

}  // namespace wave3d::mpi
