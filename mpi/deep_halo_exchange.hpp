#pragma once
// DeepHaloExchange<T>: fills the WHOLE halo of one or more fields, faces, edges and corners, to a
// chosen width, from the up to 26 neighbouring ranks. Temporal blocking across ranks needs it: a
// sweep of L time levels computes its first level L-1 stencil radii beyond the owned box, and a
// point there reads along y and z from ghost cells that lie beyond two or three faces at once.
//
// Protocol: for every offset d in {-1, 0, +1}^3 other than (0, 0, 0) with a neighbour,
//   send  = the owned cells within `width` of the faces d points to (the full owned range along an
//           axis where d is 0) --> neighbour_at(d), travelling d;
//   ghost = the halo cells at offset d (width cells beyond each face d points to, the owned range
//           along an axis where d is 0) <-- neighbour_at(d), whose message travels -d.
//   Tags name the direction of travel (kTagBase + an index of d), so that messages to a rank that
//   is a neighbour several times over (two ranks along a periodic axis) cannot be confused; they
//   lie above the tags of HaloExchange on the same communicator.
//   A neighbour that is this rank itself (one rank along a periodic axis) is a copy, made in start().
//   No neighbour (a zero boundary): the ghost cells are left as they are.
// Every message carries the slabs of all the fields of an exchange, each to its own width, packed
// one after the other (rows of each box, z-major, x contiguous), so one exchange costs one message
// per neighbour whatever the number of fields.
//
// Whole planes: where no axis but z has a neighbour (a 1 x 1 x P process grid, zero boundaries
// along x and y), every rank's fields have the same plane layout (the same x-y extent and line start
// x, field.hpp) and the slabs are whole planes of the field, x and y halo columns and padding
// included: one contiguous run of memory each. Then each slab travels in two messages of its own
// (the planes within Slab::unchanged of the face, and those beyond), received straight into the
// ghost planes (no unpack). exchange() sends both straight from the field (no pack); start() copies
// the planes beyond, since those owned cells may change before finish(), and sends the near ones
// straight from the field. The halo columns carried hold what the receiver's hold at the same points
// (nothing writes halo cells beyond a zero boundary, on any rank).
//
// Unlike HaloExchange, whose faces are persistent requests made once for a fixed width, widths
// change from call to call (a sweep cut short before a snapshot exchanges less), so the requests are
// made at each start(). Exchanges come once per sweep of several steps: that cost is amortised.
//
// Order of operations and threads are those of HaloExchange: start(fields) packs every send and
// posts the receives, then the sends; test() may run on a progress thread (MPI_THREAD_MULTIPLE);
// finish() waits and unpacks. Between start and finish the ghost cells must not be read; every
// owned cell may change, since the sends were packed in start().
#include <mpi.h>

#include <array>
#include <cstddef>
#include <vector>

#include "field/field.hpp"
#include "geometry/box.hpp"
#include "mpi/cartesian.hpp"
#include "mpi/halo_exchange.hpp"

namespace wave3d::mpi {

template <typename T>
class DeepHaloExchange {
 public:
  // One field of an exchange and the halo width to fill (at most the field's halo, at most the
  // exchange's max_width).
  struct Slab {
    Field<T>* field = nullptr;
    int width = 0;
    // How deep from each face the owned cells stay unchanged between start() and finish(), as the
    // caller promises: with whole planes, those planes are sent straight from the field instead of
    // being copied in start() (an overlapped sweep of several levels leaves a few radii near the
    // faces alone until the halo is in). Ignored by exchange() and by packed rows.
    int unchanged = 0;
  };

  // Collective-free. `owned` must be this rank's box in `comm`; along every axis with a neighbour it
  // must be at least max_width thick (the halo comes from the immediate neighbours only). Throws
  // std::invalid_argument otherwise. completed_in_start: axes (x, y; not z) whose messages start()
  // completes and unpacks before it returns, edges and corners across them included (their wait and
  // unpack counted in last_times()); the others stay in flight until finish().
  DeepHaloExchange(const CartesianComm& comm, const Box& owned, int max_width,
                   std::array<bool, 3> completed_in_start = {false, false, false});
  ~DeepHaloExchange();

  DeepHaloExchange(const DeepHaloExchange&) = delete;
  DeepHaloExchange& operator=(const DeepHaloExchange&) = delete;

  // Every rank of the communicator must call start and finish alike, with the same widths. start
  // throws std::logic_error on a field of another box, a width beyond the field's halo or the
  // exchange's maximum, or while an exchange is in flight; finish without one.
  void start(const std::vector<Slab>& slabs) { begin(slabs, false); }
  bool test();
  void finish();
  // start and finish at once: the owned cells cannot change in between, so whole planes are sent
  // from the fields themselves.
  void exchange(const std::vector<Slab>& slabs) {
    begin(slabs, true);
    finish();
  }

  bool in_flight() const { return in_flight_; }
  HaloTimes last_times() const { return times_; }
  std::size_t last_bytes_sent() const { return last_bytes_; }  // to other ranks, in the last exchange
  // Of those, the bytes copied into send buffers first (all of them for packed rows).
  std::size_t last_bytes_packed() const { return last_bytes_packed_; }
  // The bytes of the halo cells this rank sends in one exchange of these widths (one per field), to
  // other ranks; whole planes (see above) also carry the halo columns and padding of those planes.
  std::size_t bytes_for(const std::vector<int>& widths) const;
  bool sends_whole_planes() const { return whole_planes_; }
  // The faces whose halo a neighbour fills (another rank or, along a periodic axis of one rank,
  // this one): where a sweep of several levels may compute beyond the owned box.
  const FaceFlags& faces_with_neighbours() const { return faces_; }
  // The axes along which a neighbour is another rank and the messages are in flight after start()
  // returns: those copied from this rank itself (one rank along a periodic axis) and those completed
  // in start() are in place by then, so overlapped compute need not keep away from them.
  const std::array<bool, 3>& remote_axes() const { return remote_axes_; }
  const Box& owned() const { return owned_; }
  int max_width() const { return max_width_; }

 private:
  struct Neighbour {
    Dims3 offset{};
    int peer = MPI_PROC_NULL;  // this rank itself for a copy
    std::vector<T> send, recv;
  };
  // One field's part of one message: a box of the field and where its values sit in a buffer.
  struct Part {
    Field<T>* field = nullptr;
    Box box;
    T* values = nullptr;
  };

  void begin(const std::vector<Slab>& slabs, bool send_from_fields);
  // Whether the messages to and from the neighbour at `offset` complete in start().
  bool completes_in_start(const Dims3& offset) const;
  // Copies the received messages into the fields: those completed in start(), or the others.
  void unpack(bool completed_in_start);
  void post_whole_planes(const std::vector<Slab>& slabs, bool send_from_fields);
  void release() noexcept;

  Box owned_{};
  int max_width_ = 0;
  int rank_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  FaceFlags faces_{};
  std::array<bool, 3> remote_axes_{false, false, false};
  std::array<bool, 3> completed_in_start_{false, false, false};
  bool whole_planes_ = false;
  std::vector<Neighbour> neighbours_;
  std::vector<Slab> slabs_in_flight_;
  std::vector<MPI_Request> requests_;        // in flight until finish()
  std::vector<MPI_Request> requests_first_;  // completed in start()
  std::size_t last_bytes_ = 0;
  std::size_t last_bytes_packed_ = 0;
  HaloTimes times_{};
  bool in_flight_ = false;
};

extern template class DeepHaloExchange<float>;
extern template class DeepHaloExchange<double>;

}  // namespace wave3d::mpi
