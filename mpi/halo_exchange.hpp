#pragma once
// HaloExchange<T>: fills the face ghost slabs of a Field<T> from the neighbouring ranks.
//
// The MPI layer knows the field only as an owned box with a halo of width R; it never knows the
// stencil. It exchanges the six FACES only, because a star stencil reads along one axis at a time
// and so never reads an edge or corner ghost cell: the x faces span the owned y and z range only,
// the y faces the owned x and z range, the z faces the owned x and y range.
//
// Protocol, drawn along x (y and z are the same with the axes rotated); [lo, hi) is the owned range:
//
//        lo-R       lo       lo+R                         hi-R       hi       hi+R
//         | ghost-  |  send-  |          owned ...          |  send+  | ghost+  |
//         |<-- R -->|<-- R -->|                             |<-- R -->|<-- R -->|
//
//   send+ = owned [hi-R, hi) --> neighbour(x, +1), travelling +x, lands in ITS ghost- [lo'-R, lo')
//   send- = owned [lo, lo+R) --> neighbour(x, -1), travelling -x, lands in ITS ghost+ [hi', hi'+R)
//   ghost- <-- the +x-travelling message of neighbour(x, -1)   (its send+)
//   ghost+ <-- the -x-travelling message of neighbour(x, +1)   (its send-)
//
//   Tags name the direction of travel: tag = 2 * axis + (travelling + ? 1 : 0), i.e. -x 0, +x 1,
//   -y 2, +y 3, -z 4, +z 5. A send to the +x neighbour and that neighbour's receive into its ghost-
//   both use the +x tag, so they match even when both x neighbours are the same rank (2 ranks along
//   a periodic axis) or this rank itself (1 rank along a periodic axis: sent to self through MPI).
//   The tags live on CartesianComm's private duplicate communicator, so nothing else can match them.
//
//   MPI_PROC_NULL neighbours (zero boundary) get no requests and no buffers: their ghost slabs are
//   never written, and bytes_per_exchange() counts only real messages.
//
//   A neighbour that is this rank itself (one rank along a periodic axis) gets no message either:
//   start() copies the send slab straight into the opposite ghost slab, so those ghosts are valid as
//   soon as start() returns and overlapped compute need not avoid them (see remote_axes()).
//
//   Buffers are packed z-major, then y, then x (rows of the face box, x contiguous).
//
//   z faces to other ranks are not packed at all: R whole planes of the field (halo columns and
//   padding included) are contiguous in memory and z neighbours have the same x-y extent and line
//   start x (field.hpp), hence the same plane layout, so they go straight from the owned planes into
//   the neighbour's ghost planes.
//   They carry the sender's x/y ghost cells along into edge and corner ghosts, which the star stencil
//   never reads. Persistent requests bind to an address and the caller swaps time levels, so these
//   requests are made once per field buffer seen (two in a run: prev and next alternate).
//
// Order of operations
//   constructor  once: a send and a receive buffer per face, MPI_Recv_init / MPI_Send_init
//                (persistent requests), reused by every exchange
//   start(f)     copy the faces to self, pack every send face from f (OpenMP over rows)
//                -> MPI_Startall(receives) -> MPI_Startall(sends). Receives first, so a message
//                finds its buffer posted.
//   test()       MPI_Testall: true once every message of this exchange is done; any number of calls
//   finish(f)    MPI_Waitall (the "wait" time) -> unpack every receive face into f (OpenMP over rows)
//   exchange(f)  start(f) + finish(f)
//   Between start and finish the owned cells of f that are sent (the outer R layer) must not change,
//   and the ghost cells must not be read; the interior is free for overlapped compute.
//
// Threads: start and finish belong to the main thread (they open OpenMP regions). test() may run on
// a progress thread while the main thread computes, which needs MPI_THREAD_MULTIPLE; the progress
// thread must stop calling test() before finish() is called (MPI forbids two threads completing the
// same request at once).
//
// The CartesianComm must outlive the HaloExchange; every rank of it must build its HaloExchange with
// the same halo width and call start/finish the same number of times.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field/field.hpp"
#include "geometry/box.hpp"
#include "mpi/cartesian.hpp"

namespace wave3d::mpi {

// Seconds spent in the phases of the last exchange.
struct HaloTimes {
  double pack = 0.0;    // in start(): copying the send faces into buffers
  double wait = 0.0;    // in finish(): MPI_Waitall
  double unpack = 0.0;  // in finish(): copying the receive buffers into the ghost slabs
};

template <typename T>
class HaloExchange {
 public:
  // Collective-free (persistent requests are local). `owned` must be this rank's box in `comm`, and
  // along every axis with a neighbour it must be at least `halo_width` thick. Throws
  // std::invalid_argument otherwise. line_start_x: that of the fields it will exchange (field.hpp).
  // completed_in_start: axes whose faces start() exchanges completely before it returns (their wait and
  // unpack counted in last_times()); the other faces stay in flight until finish().
  HaloExchange(const CartesianComm& comm, const Box& owned, int halo_width)
      : HaloExchange(comm, owned, halo_width, owned.lo[0]) {}
  HaloExchange(const CartesianComm& comm, const Box& owned, int halo_width, std::int64_t line_start_x,
               std::array<bool, 3> completed_in_start = {false, false, false});
  ~HaloExchange();

  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;
  HaloExchange(HaloExchange&& other) noexcept;
  HaloExchange& operator=(HaloExchange&& other) noexcept;

  // See the protocol above. start and finish throw std::logic_error when f's owned box or halo width
  // differ from the ones given at construction, on start while an exchange is in flight and on finish
  // without one.
  void start(Field<T>& f);
  bool test();
  void finish(Field<T>& f);
  void exchange(Field<T>& f) {
    start(f);
    finish(f);
  }

  bool in_flight() const { return in_flight_; }
  HaloTimes last_times() const { return times_; }
  std::size_t bytes_per_exchange() const { return bytes_; }  // bytes this rank sends per exchange
  // Axes along which some ghost comes from another rank after start() returns: only near those faces
  // must overlapped compute wait for finish().
  const std::array<bool, 3>& remote_axes() const { return remote_axes_; }
  // The faces whose ghosts an exchange fills (from a neighbour, or a periodic image of this rank).
  const FaceFlags& faces_with_neighbours() const { return faces_; }
  const Box& owned() const { return owned_; }
  int halo_width() const { return halo_; }

 private:
  struct Face {
    Box box;                // the slab in global indices: owned cells to send, or ghost cells to fill
    std::vector<T> buffer;  // box.volume() values, z-major, x contiguous
    int peer = 0;           // the neighbour rank it goes to or comes from
    int tag = 0;            // the direction of travel, see above
    int axis = 0;
  };

  void check_layout(const Field<T>& f, const char* caller) const;
  void release() noexcept;

  Box owned_{};
  int halo_ = 0;
  std::int64_t line_start_x_ = 0;
  std::vector<Face> sends_;
  std::vector<Face> recvs_;
  struct LocalCopy {
    Box from, to;  // an owned slab and the ghost slab one period away, same shape
  };
  std::vector<LocalCopy> local_copies_;
  FaceFlags faces_{};
  std::array<bool, 3> remote_axes_{false, false, false};
  std::array<bool, 3> completed_in_start_{false, false, false};
  struct PlaneFace {
    int peer = 0, send_tag = 0, recv_tag = 0;
    std::int64_t send_plane = 0, recv_plane = 0;  // global z of the first plane sent / received
  };
  std::vector<PlaneFace> plane_faces_;
  struct PlaneRequests {
    const T* field = nullptr;             // the buffer these requests point into
    std::vector<MPI_Request> requests;   // receives, then sends, in plane_faces_ order
  };
  std::vector<PlaneRequests> plane_requests_;
  PlaneRequests* planes_in_flight_ = nullptr;
  PlaneRequests& plane_requests_for(Field<T>& f);
  // Waits for the messages of the faces completed in start() and unpacks them (start's second half).
  void complete_in_start(Field<T>& f, const PlaneRequests& planes);
  // Copies the received faces into f's ghosts: those completed in start(), or the others.
  void unpack(Field<T>& f, bool completed_in_start);
  std::vector<MPI_Request> all_in_flight_;  // requests_ then the in-flight plane requests
  MPI_Comm comm_ = MPI_COMM_NULL;
  // Receives first (recvs_.size() of them, in recvs_ order), then sends (in sends_ order).
  std::vector<MPI_Request> requests_;
  std::size_t bytes_ = 0;
  HaloTimes times_{};
  bool in_flight_ = false;
};

extern template class HaloExchange<float>;
extern template class HaloExchange<double>;

}  // namespace wave3d::mpi
