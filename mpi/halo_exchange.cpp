#include "mpi/halo_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <stdexcept>
#include <string>
#include <utility>

#include "mpi/environment.hpp"
#include "mpi/halo_boxes.hpp"

namespace wave3d::mpi {
namespace {

using halo::datatype_of;
using halo::box_text;
using halo::seconds_since;
using halo::travel_tag;



// The owned cells within `width` of the `direction` face along `axis` (the owned range along the
// other two axes: faces, no edges or corners), and the ghost cells just outside that face.
Box send_slab(const Box& owned, int axis, int direction, int width) {
  return halo::send_box(owned, halo::face_offset(axis, direction), width);
}
Box ghost_slab(const Box& owned, int axis, int direction, int width) {
  return halo::ghost_box(owned, halo::face_offset(axis, direction), width);
}

// Calls fn(face, row, y, z) for every row (x contiguous) of every face for which take(face) holds.
// One OpenMP region for all faces, each face's rows shared out by a nowait loop: the faces touch
// disjoint memory, so threads need not wait for each other between faces, only once at the end of
// the region.
template <typename Faces, typename Take, typename Fn>
void for_each_face_row(Faces& faces, const Take& take, const Fn& fn) {
#pragma omp parallel
  for (auto& face : faces) {
    if (!take(face)) continue;  // the same on every thread: the loops below still pair up
    const std::int64_t ny = face.box.extent(1);
    const std::int64_t rows = ny * face.box.extent(2);
#pragma omp for schedule(static) nowait
    for (std::int64_t r = 0; r < rows; ++r) fn(face, r, face.box.lo[1] + r % ny, face.box.lo[2] + r / ny);
  }
}

}  // namespace

template <typename T>
HaloExchange<T>::HaloExchange(const CartesianComm& comm, const Box& owned, int halo_width, std::int64_t line_start_x,
                              std::array<bool, 3> completed_in_start)
    : owned_(owned), halo_(halo_width), line_start_x_(line_start_x), completed_in_start_(completed_in_start),
      comm_(comm.comm()) {
  if (comm.comm() == MPI_COMM_NULL) throw std::invalid_argument("HaloExchange: the CartesianComm was moved from");
  if (halo_width < 0) {
    throw std::invalid_argument("HaloExchange: halo width must be >= 0, got " + std::to_string(halo_width));
  }
  if (owned != comm.owned()) {
    throw std::invalid_argument("HaloExchange: box " + box_text(owned) + " is not rank " +
                                std::to_string(comm.rank()) + "'s box " + box_text(comm.owned()) +
                                " in the decomposition; faces would not match the neighbours'");
  }
  if (halo_width == 0) return;  // nothing to exchange

  for (int axis = 0; axis < 3; ++axis) {
    for (int direction : {-1, 1}) {
      const int peer = comm.neighbour(axis, direction);
      if (peer == MPI_PROC_NULL) continue;  // zero boundary: ghosts stay as they are
      faces_[static_cast<std::size_t>(axis)][direction < 0 ? 0 : 1] = true;
      if (owned.extent(axis) < halo_width) {
        throw std::invalid_argument("HaloExchange: rank " + std::to_string(comm.rank()) + " owns " +
                                    std::to_string(owned.extent(axis)) + " points along " + kAxisNames[axis] +
                                    ", fewer than the halo width " + std::to_string(halo_width) +
                                    "; halos come from the immediate neighbour only");
      }
      if (peer == comm.rank()) {
        // Travelling `direction` from this rank to itself: lands in the ghost on the other side.
        local_copies_.push_back({send_slab(owned, axis, direction, halo_width),
                                 ghost_slab(owned, axis, -direction, halo_width)});
        continue;
      }
      remote_axes_[axis] = !completed_in_start[axis];
      if (axis == 2) {
        const std::int64_t plane = Field<T>::layout_for(owned, halo_width, line_start_x).plane;
        bytes_ += static_cast<std::size_t>(halo_width * plane) * sizeof(T);
        plane_faces_.push_back({peer, travel_tag(axis, direction), travel_tag(axis, -direction),
                                direction < 0 ? owned.lo[2] : owned.hi[2] - halo_width,
                                direction < 0 ? owned.lo[2] - halo_width : owned.hi[2]});
        continue;
      }
      Face send{send_slab(owned, axis, direction, halo_width), {}, peer, travel_tag(axis, direction), axis};
      // The ghost on this side is filled by the neighbour's message travelling the other way.
      Face recv{ghost_slab(owned, axis, direction, halo_width), {}, peer, travel_tag(axis, -direction), axis};
      if (send.box.volume() > INT_MAX) {
        throw std::invalid_argument("HaloExchange: a face of " + std::to_string(send.box.volume()) +
                                    " values exceeds MPI's int count");
      }
      send.buffer.resize(static_cast<std::size_t>(send.box.volume()));
      recv.buffer.resize(static_cast<std::size_t>(recv.box.volume()));
      bytes_ += send.buffer.size() * sizeof(T);
      sends_.push_back(std::move(send));
      recvs_.push_back(std::move(recv));
    }
  }

  // The requests capture buffer addresses: created only now that the faces are final (moving a
  // std::vector keeps its heap block, so later moves of this object keep them valid too).
  try {
    requests_.reserve(recvs_.size() + sends_.size());
    for (Face& face : recvs_) {
      MPI_Request request = MPI_REQUEST_NULL;
      check(MPI_Recv_init(face.buffer.data(), static_cast<int>(face.buffer.size()), datatype_of<T>(), face.peer,
                          face.tag, comm.comm(), &request),
            "MPI_Recv_init");
      requests_.push_back(request);
    }
    for (Face& face : sends_) {
      MPI_Request request = MPI_REQUEST_NULL;
      check(MPI_Send_init(face.buffer.data(), static_cast<int>(face.buffer.size()), datatype_of<T>(), face.peer,
                          face.tag, comm.comm(), &request),
            "MPI_Send_init");
      requests_.push_back(request);
    }
  } catch (...) {
    release();
    throw;
  }
}

template <typename T>
HaloExchange<T>::~HaloExchange() {
  release();
}

template <typename T>
HaloExchange<T>::HaloExchange(HaloExchange&& other) noexcept
    : owned_(other.owned_),
      halo_(other.halo_),
      line_start_x_(other.line_start_x_),
      sends_(std::move(other.sends_)),
      recvs_(std::move(other.recvs_)),
      local_copies_(std::move(other.local_copies_)),
      faces_(other.faces_),
      remote_axes_(other.remote_axes_),
      completed_in_start_(other.completed_in_start_),
      plane_faces_(std::move(other.plane_faces_)),
      plane_requests_(std::exchange(other.plane_requests_, {})),
      planes_in_flight_(std::exchange(other.planes_in_flight_, nullptr)),
      all_in_flight_(std::exchange(other.all_in_flight_, {})),
      comm_(other.comm_),
      requests_(std::exchange(other.requests_, {})),
      bytes_(std::exchange(other.bytes_, 0)),
      times_(other.times_),
      in_flight_(std::exchange(other.in_flight_, false)) {}

template <typename T>
HaloExchange<T>& HaloExchange<T>::operator=(HaloExchange&& other) noexcept {
  if (this != &other) {
    release();
    owned_ = other.owned_;
    halo_ = other.halo_;
    line_start_x_ = other.line_start_x_;
    sends_ = std::exchange(other.sends_, {});
    recvs_ = std::exchange(other.recvs_, {});
    local_copies_ = std::exchange(other.local_copies_, {});
    faces_ = other.faces_;
    remote_axes_ = other.remote_axes_;
    completed_in_start_ = other.completed_in_start_;
    plane_faces_ = std::exchange(other.plane_faces_, {});
    plane_requests_ = std::exchange(other.plane_requests_, {});
    planes_in_flight_ = std::exchange(other.planes_in_flight_, nullptr);
    all_in_flight_ = std::exchange(other.all_in_flight_, {});
    comm_ = other.comm_;
    requests_ = std::exchange(other.requests_, {});
    bytes_ = std::exchange(other.bytes_, 0);
    times_ = other.times_;
    in_flight_ = std::exchange(other.in_flight_, false);
  }
  return *this;
}

template <typename T>
void HaloExchange<T>::check_layout(const Field<T>& f, const char* caller) const {
  if (f.owned() == owned_ && f.halo() == halo_ && f.line_start_x() == line_start_x_) return;
  throw std::logic_error(std::string("HaloExchange::") + caller + ": the field owns " + box_text(f.owned()) +
                         " with halo " + std::to_string(f.halo()) + " and line start x " +
                         std::to_string(f.line_start_x()) + " but the exchange was built for " + box_text(owned_) +
                         " with halo " + std::to_string(halo_) + " and line start x " + std::to_string(line_start_x_));
}

template <typename T>
void HaloExchange<T>::start(Field<T>& f) {
  check_layout(f, "start");
  if (in_flight_) throw std::logic_error("HaloExchange::start: the previous exchange has not been finished");
  const auto t0 = std::chrono::steady_clock::now();
  for (const LocalCopy& copy : local_copies_) {
    const std::int64_t nx = copy.from.extent(0), ny = copy.from.extent(1);
    const std::int64_t rows = ny * copy.from.extent(2);
    const Index3 shift{copy.to.lo[0] - copy.from.lo[0], copy.to.lo[1] - copy.from.lo[1], copy.to.lo[2] - copy.from.lo[2]};
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t y = copy.from.lo[1] + r % ny, z = copy.from.lo[2] + r / ny;
      halo::prefetch_short_row_ahead<false>(f, copy.from, r);
      halo::prefetch_short_row_ahead<true>(f, copy.to, r);
      std::copy_n(f.data() + f.offset(copy.from.lo[0], y, z), nx,
                  f.data() + f.offset(copy.from.lo[0] + shift[0], y + shift[1], z + shift[2]));
    }
  }
  const auto every_face = [](const Face&) { return true; };
  for_each_face_row(sends_, every_face, [&f](Face& face, std::int64_t row, std::int64_t y, std::int64_t z) {
    const std::int64_t nx = face.box.extent(0);
    halo::prefetch_short_row_ahead<false>(f, face.box, row);
    std::copy_n(f.data() + f.offset(face.box.lo[0], y, z), nx, face.buffer.data() + row * nx);
  });
  times_ = HaloTimes{seconds_since(t0), 0.0, 0.0};

  PlaneRequests& planes = plane_requests_for(f);
  const int n_planes = static_cast<int>(plane_faces_.size());
  const int n_recv = static_cast<int>(recvs_.size());
  const int n_send = static_cast<int>(sends_.size());
  if (n_planes > 0) check(MPI_Startall(n_planes, planes.requests.data()), "MPI_Startall (plane receives)");
  if (n_recv > 0) check(MPI_Startall(n_recv, requests_.data()), "MPI_Startall (receives)");
  if (n_planes > 0) check(MPI_Startall(n_planes, planes.requests.data() + n_planes), "MPI_Startall (plane sends)");
  if (n_send > 0) check(MPI_Startall(n_send, requests_.data() + n_recv), "MPI_Startall (sends)");
  all_in_flight_ = requests_;
  all_in_flight_.insert(all_in_flight_.end(), planes.requests.begin(), planes.requests.end());
  planes_in_flight_ = &planes;
  in_flight_ = true;
  complete_in_start(f, planes);
}

template <typename T>
void HaloExchange<T>::complete_in_start(Field<T>& f, const PlaneRequests& planes) {
  std::vector<MPI_Request> now;
  for (std::size_t i = 0; i < recvs_.size(); ++i)
    if (completed_in_start_[static_cast<std::size_t>(recvs_[i].axis)]) now.push_back(requests_[i]);
  for (std::size_t i = 0; i < sends_.size(); ++i)
    if (completed_in_start_[static_cast<std::size_t>(sends_[i].axis)]) now.push_back(requests_[recvs_.size() + i]);
  if (completed_in_start_[2]) now.insert(now.end(), planes.requests.begin(), planes.requests.end());
  if (now.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  // Waitall works on copies of the handles; the persistent requests themselves stay valid, and
  // finish() finds these inactive (done) in all_in_flight_.
  check(MPI_Waitall(static_cast<int>(now.size()), now.data(), MPI_STATUSES_IGNORE), "MPI_Waitall (faces completed in start)");
  times_.wait = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  unpack(f, true);
  times_.unpack = seconds_since(t1);
}

template <typename T>
void HaloExchange<T>::unpack(Field<T>& f, bool completed_in_start) {
  const auto now = [&](const Face& face) {
    return completed_in_start_[static_cast<std::size_t>(face.axis)] == completed_in_start;
  };
  for_each_face_row(recvs_, now, [&f](const Face& face, std::int64_t row, std::int64_t y, std::int64_t z) {
    const std::int64_t nx = face.box.extent(0);
    halo::prefetch_short_row_ahead<true>(f, face.box, row);
    std::copy_n(face.buffer.data() + row * nx, nx, f.data() + f.offset(face.box.lo[0], y, z));
  });
}

template <typename T>
bool HaloExchange<T>::test() {
  // Completed (inactive) persistent requests count as done, so repeated calls keep returning true;
  // before the first start every request is inactive as well.
  if (!in_flight_ || all_in_flight_.empty()) return true;
  int done = 0;
  check(MPI_Testall(static_cast<int>(all_in_flight_.size()), all_in_flight_.data(), &done, MPI_STATUSES_IGNORE),
        "MPI_Testall");
  return done != 0;
}

template <typename T>
void HaloExchange<T>::finish(Field<T>& f) {
  check_layout(f, "finish");
  if (!in_flight_) throw std::logic_error("HaloExchange::finish: no exchange was started");
  const auto t0 = std::chrono::steady_clock::now();
  if (!all_in_flight_.empty()) {
    check(MPI_Waitall(static_cast<int>(all_in_flight_.size()), all_in_flight_.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
  }
  // MPI_Testall/Waitall work on the copies in all_in_flight_; persistent handles stay valid and the
  // originals in requests_ and the plane set are the same handles.
  in_flight_ = false;
  planes_in_flight_ = nullptr;
  times_.wait += seconds_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  unpack(f, false);
  times_.unpack += seconds_since(t1);
}

template <typename T>
typename HaloExchange<T>::PlaneRequests& HaloExchange<T>::plane_requests_for(Field<T>& f) {
  for (PlaneRequests& set : plane_requests_)
    if (set.field == f.data()) return set;
  PlaneRequests set;
  set.field = f.data();
  const std::int64_t count = static_cast<std::int64_t>(halo_) * f.plane_stride();
  if (count > INT_MAX) throw std::invalid_argument("HaloExchange: a z face of " + std::to_string(count) +
                                                   " values exceeds MPI's int count");
  // The first element of a plane: its first row's first allocated element (halo rows included).
  auto plane_start = [&](std::int64_t z) { return f.data() + f.row_begin_offset(owned_.lo[1] - halo_, z); };
  try {
    for (const PlaneFace& face : plane_faces_) {
      MPI_Request request = MPI_REQUEST_NULL;
      check(MPI_Recv_init(plane_start(face.recv_plane), static_cast<int>(count), datatype_of<T>(), face.peer,
                          face.recv_tag, comm_, &request),
            "MPI_Recv_init");
      set.requests.push_back(request);
    }
    for (const PlaneFace& face : plane_faces_) {
      MPI_Request request = MPI_REQUEST_NULL;
      check(MPI_Send_init(plane_start(face.send_plane), static_cast<int>(count), datatype_of<T>(), face.peer,
                          face.send_tag, comm_, &request),
            "MPI_Send_init");
      set.requests.push_back(request);
    }
  } catch (...) {
    for (MPI_Request& request : set.requests) MPI_Request_free(&request);
    throw;
  }
  plane_requests_.push_back(std::move(set));
  return plane_requests_.back();
}

template <typename T>
void HaloExchange<T>::release() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    // Return codes are ignored: this runs in destructors and nothing can be done about a failure. An
    // exchange still in flight is completed first so MPI never writes into freed buffers.
    if (in_flight_ && !all_in_flight_.empty())
      MPI_Waitall(static_cast<int>(all_in_flight_.size()), all_in_flight_.data(), MPI_STATUSES_IGNORE);
    for (MPI_Request& request : requests_)
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    for (PlaneRequests& set : plane_requests_)
      for (MPI_Request& request : set.requests)
        if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
  requests_.clear();
  plane_requests_.clear();
  all_in_flight_.clear();
  planes_in_flight_ = nullptr;
  in_flight_ = false;
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace wave3d::mpi
