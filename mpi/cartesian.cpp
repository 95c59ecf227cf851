#include "mpi/cartesian.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "mpi/environment.hpp"

namespace wave3d::mpi {
namespace {

std::string dims_text(const Dims3& d) {
  return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " + std::to_string(d[2]);
}

void check_axis_direction(int axis, int direction) {
  if (axis < 0 || axis > 2 || (direction != -1 && direction != 1)) {
    throw std::invalid_argument("CartesianComm: axis must be 0..2 and direction -1 or +1, got axis " +
                                std::to_string(axis) + ", direction " + std::to_string(direction));
  }
}

}  // namespace

CartesianComm::CartesianComm(MPI_Comm parent, const Decomposition& decomposition, const std::array<bool, 3>& periodic)
    : dims_(decomposition.dims), periodic_(periodic) {
  int parent_size = 0;
  int parent_rank = 0;
  check(MPI_Comm_size(parent, &parent_size), "MPI_Comm_size");
  check(MPI_Comm_rank(parent, &parent_rank), "MPI_Comm_rank");
  if (parent_size != decomposition.ranks() || decomposition.boxes.size() != static_cast<std::size_t>(parent_size)) {
    throw std::invalid_argument("CartesianComm: the decomposition is for " + std::to_string(decomposition.ranks()) +
                                " ranks (" + dims_text(decomposition.dims) + ", " +
                                std::to_string(decomposition.boxes.size()) + " boxes) but the communicator has " +
                                std::to_string(parent_size));
  }

  const Dims3 mpi_dims = decomposition.mpi_dims();
  const Dims3 mpi_periods = to_mpi_order({periodic[0] ? 1 : 0, periodic[1] ? 1 : 0, periodic[2] ? 1 : 0});
  check(MPI_Cart_create(parent, 3, mpi_dims.data(), mpi_periods.data(), /*reorder=*/0, &cart_), "MPI_Cart_create");
  try {
    // Errors as codes, whatever the parent's handler, so check() can turn them into exceptions.
    check(MPI_Comm_set_errhandler(cart_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");

    // MPI_Cart_coords is local, and every rank checks every rank: a mismatch throws everywhere,
    // before the collective MPI_Comm_dup below.
    for (int r = 0; r < parent_size; ++r) {
      Dims3 mpi_coords{};
      check(MPI_Cart_coords(cart_, r, 3, mpi_coords.data()), "MPI_Cart_coords");
      const Dims3 expected = decomposition.coords_of(r);
      if (to_mpi_order(mpi_coords) != expected) {
        throw std::runtime_error("CartesianComm: MPI places rank " + std::to_string(r) + " of a " +
                                 dims_text(dims_) + " process grid at (x, y, z) = (" +
                                 std::to_string(mpi_coords[2]) + ", " + std::to_string(mpi_coords[1]) + ", " +
                                 std::to_string(mpi_coords[0]) + ") but the decomposition at (" +
                                 std::to_string(expected[0]) + ", " + std::to_string(expected[1]) + ", " +
                                 std::to_string(expected[2]) + "); halos would go to the wrong neighbours");
      }
    }

    check(MPI_Comm_dup(cart_, &comm_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    if (rank_ != parent_rank) {  // reorder = false promises this; the boxes are indexed by parent rank
      throw std::runtime_error("CartesianComm: MPI renumbered parent rank " + std::to_string(parent_rank) + " as " +
                               std::to_string(rank_) + " despite reorder = false");
    }
    owned_ = decomposition.box_of(rank_);
    coords_ = decomposition.coords_of(rank_);
    for (int axis = 0; axis < 3; ++axis) {
      auto& n = neighbours_[static_cast<std::size_t>(axis)];
      check(MPI_Cart_shift(comm_, 2 - axis, 1, &n[0], &n[1]), "MPI_Cart_shift");
    }
  } catch (...) {
    release();
    throw;
  }
}

CartesianComm::~CartesianComm() { release(); }

CartesianComm::CartesianComm(CartesianComm&& other) noexcept
    : cart_(std::exchange(other.cart_, MPI_COMM_NULL)),
      comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      rank_(other.rank_),
      size_(other.size_),
      owned_(other.owned_),
      dims_(other.dims_),
      coords_(other.coords_),
      periodic_(other.periodic_),
      neighbours_(other.neighbours_) {}

CartesianComm& CartesianComm::operator=(CartesianComm&& other) noexcept {
  if (this != &other) {
    release();
    cart_ = std::exchange(other.cart_, MPI_COMM_NULL);
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    rank_ = other.rank_;
    size_ = other.size_;
    owned_ = other.owned_;
    dims_ = other.dims_;
    coords_ = other.coords_;
    periodic_ = other.periodic_;
    neighbours_ = other.neighbours_;
  }
  return *this;
}

bool CartesianComm::periodic(int axis) const {
  check_axis_direction(axis, 1);
  return periodic_[static_cast<std::size_t>(axis)];
}

int CartesianComm::neighbour(int axis, int direction) const {
  check_axis_direction(axis, direction);
  return neighbours_[static_cast<std::size_t>(axis)][direction < 0 ? 0 : 1];
}

int CartesianComm::neighbour_at(const Dims3& offset) const {
  Dims3 c = coords_;
  for (std::size_t a = 0; a < 3; ++a) {
    if (offset[a] < -1 || offset[a] > 1)
      throw std::invalid_argument("CartesianComm::neighbour_at: offsets must be -1, 0 or +1, got " +
                                  std::to_string(offset[a]));
    c[a] += offset[a];
    if (c[a] >= 0 && c[a] < dims_[a]) continue;
    if (!periodic_[a]) return MPI_PROC_NULL;
    c[a] = (c[a] + dims_[a]) % dims_[a];
  }
  const Dims3 mpi_coords = to_mpi_order(c);
  int rank = MPI_PROC_NULL;
  check(MPI_Cart_rank(comm_, mpi_coords.data(), &rank), "MPI_Cart_rank");
  return rank;
}

void CartesianComm::release() noexcept {
  // Freeing after MPI_Finalize is an error, and a destructor cannot report one: the return codes are
  // deliberately ignored here, since nothing useful can be done about a failed free at teardown.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
  }
  comm_ = MPI_COMM_NULL;
  cart_ = MPI_COMM_NULL;
}

}  // namespace wave3d::mpi
