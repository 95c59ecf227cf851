#pragma once
// CartesianComm: the ranks of a Decomposition as an MPI Cartesian communicator.
//
// Built with reorder = false, so every rank keeps its parent rank number, and with dims =
// Decomposition::mpi_dims() = {pz, py, px}, so MPI's row-major numbering (last dimension fastest)
// is exactly the decomposition's x-fastest numbering. The constructor checks that correspondence for
// every rank (MPI_Cart_coords against Decomposition::coords_of, reversed by to_mpi_order) instead of
// trusting it, because a silent mismatch would exchange halos with the wrong neighbours.
//
// The Cartesian communicator is then duplicated and all wave3d traffic uses the duplicate: a context
// of its own, so our point-to-point tags can never match a message of whoever owns the parent.
//
// Axes are given x, y, z (axis 0 = x) throughout; the reversal to MPI's dimension order stays inside.
#include <mpi.h>

#include <array>

#include "geometry/box.hpp"
#include "mpi/decomposition.hpp"

namespace wave3d::mpi {

class CartesianComm {
 public:
  // Collective over `parent`, whose size must equal decomposition.ranks(). periodic[a] says whether
  // axis a (x, y, z) wraps around. Throws std::invalid_argument on a size mismatch and
  // std::runtime_error if MPI's coordinates disagree with the decomposition; both are decided from
  // values every rank shares, so every rank throws alike and none is left waiting in a collective.
  CartesianComm(MPI_Comm parent, const Decomposition& decomposition, const std::array<bool, 3>& periodic);
  ~CartesianComm();

  CartesianComm(const CartesianComm&) = delete;
  CartesianComm& operator=(const CartesianComm&) = delete;
  CartesianComm(CartesianComm&& other) noexcept;
  CartesianComm& operator=(CartesianComm&& other) noexcept;

  // The private duplicate (with the Cartesian topology); MPI_COMM_NULL after being moved from.
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const Box& owned() const { return owned_; }     // this rank's box, in global indices
  const Dims3& dims() const { return dims_; }     // px, py, pz
  const Dims3& coords() const { return coords_; } // this rank's cx, cy, cz
  bool periodic(int axis) const;

  // The rank one step along `axis` (0..2 = x, y, z) in `direction` (-1 or +1), from MPI_Cart_shift;
  // MPI_PROC_NULL where there is none (a zero boundary). With one rank along a periodic axis that is
  // this rank itself.
  int neighbour(int axis, int direction) const;

  // The rank at `offset` (-1, 0 or +1 per axis x, y, z) from this one: a face, edge or corner
  // neighbour. MPI_PROC_NULL where that lies beyond a zero boundary; this rank itself where the
  // offset wraps around a periodic axis of one rank.
  int neighbour_at(const Dims3& offset) const;

 private:
  void release() noexcept;

  MPI_Comm cart_ = MPI_COMM_NULL;  // from MPI_Cart_create; kept only to be freed
  MPI_Comm comm_ = MPI_COMM_NULL;  // its duplicate, used for everything
  int rank_ = 0;
  int size_ = 0;
  Box owned_{};
  Dims3 dims_{1, 1, 1};
  Dims3 coords_{0, 0, 0};
  std::array<bool, 3> periodic_{false, false, false};
  std::array<std::array<int, 2>, 3> neighbours_{};  // [axis][0 = -1 side, 1 = +1 side]
};

}  // namespace wave3d::mpi
