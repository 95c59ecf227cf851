#pragma once
// FoldedHaloExchange<T>: HaloExchange's exchange of the six faces (halo_exchange.hpp: the same
// slabs, tags, copies to self along a periodic axis of one rank and faces completed in start) on a
// FoldedField<T>, the layout the folded kernel computes on, with no plain field in between.
//
// A face travels as the whole fold vectors holding it: for every y fold and z fold the face spans,
// its x range is one run of vectors, copied into the message as it is (no lanes transposed). The
// neighbour's ghost folds take those vectors lane for lane when the folds of both ranks start at the
// same points: when every cut of the decomposition along y and z, and the grid's extent there (the
// periodic wrap), fall on a multiple of the fold (fits()). A face shallower than a fold (R = 1 or 2
// against 4 points per fold) then also carries the owned points up to the fold's end, which land on
// the ghost points beyond R that the neighbour's fold holds: the right values there too.
//
// z faces to other ranks are not packed at all: the z folds a face spans are whole planes of folds,
// one contiguous run of memory (the x halo, the y halo folds and the padding included), and z
// neighbours hold the same plane layout (the same x-y extent and halo), so they go from the owned
// folds straight into the neighbour's ghost folds. They carry the sender's x and y ghost cells along
// into edge ghosts, which the star stencil never reads (as HaloExchange's whole planes do).
//
// Against a plain field in between (the owned cells copied out of the folded level, packed, sent,
// unpacked and copied into the folded level), the folded level is read and written once each, in
// runs of whole cache lines. On a 2-core Intel Xeon VM (256^3, R = 8, 2 threads, one rank,
// periodic) the copies took as long as half the kernel (docs/performance.md).
//
// Order of operations and threads are HaloExchange's: start(f) copies the faces to self, packs every
// send face and starts the receives, then the sends; test() may run on a progress thread
// (MPI_THREAD_MULTIPLE); finish(f) waits and unpacks. Between start and finish the owned cells sent
// must not change and the ghost cells not be read. Any folded field of the owned box, halo width
// and layout can be exchanged (the solver swaps its time levels every step): the faces' persistent
// requests point into their own buffers, and the z folds' are made at each start.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "geometry/box.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/decomposition.hpp"
#include "mpi/halo_exchange.hpp"
#include "stencil/folded_field.hpp"

namespace wave3d::mpi {

// Whether every cut of n points into parts ranks along y and z, and n itself, is a multiple of the
// folds along y and z: then neighbouring ranks' folds start at the same points (see the top).
bool folds_line_up(const Index3& global_n, const Dims3& parts, int fold_y, int fold_z);

template <typename T>
class FoldedHaloExchange {
 public:
  // Whether the ranks of a grid of global_n points cut into `parts` can exchange folded fields.
  static bool fits(const Index3& global_n, const Dims3& parts) {
    return folds_line_up(global_n, parts, FoldedField<T>::kFoldY, FoldedField<T>::kFoldZ);
  }

  // As HaloExchange's (collective-free), for fields laid out as `like` (this rank's owned box; its
  // halo is the width exchanged); throws std::invalid_argument where that one does, and where the
  // decomposition of `comm` of a grid of global_n points does not fit().
  FoldedHaloExchange(const CartesianComm& comm, const Index3& global_n, const FoldedField<T>& like,
                     std::array<bool, 3> completed_in_start = {false, false, false});
  ~FoldedHaloExchange();

  FoldedHaloExchange(const FoldedHaloExchange&) = delete;
  FoldedHaloExchange& operator=(const FoldedHaloExchange&) = delete;
  FoldedHaloExchange(FoldedHaloExchange&&) = delete;
  FoldedHaloExchange& operator=(FoldedHaloExchange&&) = delete;

  // See HaloExchange. Throw std::logic_error when f's owned box or halo differ from the exchange's,
  // on start while an exchange is in flight and on finish without one.
  void start(FoldedField<T>& f);
  bool test();
  void finish(FoldedField<T>& f);
  void exchange(FoldedField<T>& f) {
    start(f);
    finish(f);
  }

  HaloTimes last_times() const { return times_; }
  std::size_t bytes_per_exchange() const { return bytes_; }
  const std::array<bool, 3>& remote_axes() const { return remote_axes_; }
  const FaceFlags& faces_with_neighbours() const { return faces_; }

 private:
  struct Face {
    Box box;                // owned cells to send, or ghost cells to fill (global indices)
    std::vector<T> buffer;  // the vectors of the folds holding box, z fold-major, then y fold, then x
    int peer = 0, tag = 0, axis = 0;
  };
  struct LocalCopy {
    Box from, to;  // an owned slab and the ghost slab one period away
  };

  void check_layout(const FoldedField<T>& f, const char* caller) const;
  void unpack(FoldedField<T>& f, bool completed_in_start);
  void release() noexcept;

  struct PlaneFace {
    int peer = 0, send_tag = 0, recv_tag = 0;
    std::int64_t send_fold = 0, recv_fold = 0;  // the first z fold sent, and received into
    int values = 0;                             // in the z folds of one message
  };

  Box owned_{};
  int halo_ = 0;
  std::int64_t plane_values_ = 0;  // values per z fold of the fields exchanged
  std::vector<Face> sends_, recvs_;
  std::vector<PlaneFace> plane_faces_;
  std::vector<LocalCopy> local_copies_;
  FaceFlags faces_{};
  std::array<bool, 3> remote_axes_{false, false, false};
  std::array<bool, 3> completed_in_start_{false, false, false};
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Request> face_requests_;  // persistent: receives in recvs_ order, then sends in sends_ order
  // The requests of the exchange in flight (the z folds' and the faces'), and the axis of each.
  std::vector<MPI_Request> flying_;
  std::vector<int> flying_axes_;
  std::size_t bytes_ = 0;
  HaloTimes times_{};
  bool in_flight_ = false;
};

extern template class FoldedHaloExchange<float>;
extern template class FoldedHaloExchange<double>;

}  // namespace wave3d::mpi
