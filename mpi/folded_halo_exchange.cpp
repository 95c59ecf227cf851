#include "mpi/folded_halo_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <stdexcept>
#include <string>

#include "mpi/environment.hpp"
#include "mpi/halo_boxes.hpp"

namespace wave3d::mpi {

bool folds_line_up(const Index3& global_n, const Dims3& parts, int fold_y, int fold_z) {
  const std::array<std::pair<std::size_t, int>, 2> folded_axes{{{1, fold_y}, {2, fold_z}}};
  for (const auto& [axis, fold] : folded_axes) {
    if (global_n[axis] % fold != 0) return false;
    for (int part = 1; part < parts[axis]; ++part)
      if (split_range(global_n[axis], parts[axis], part).lo % fold != 0) return false;
  }
  return true;
}

namespace {

using halo::datatype_of;
using halo::box_text;
using halo::seconds_since;
using halo::travel_tag;

// The fold rows (y fold, z fold) of `box` in f, each one run of the box's x range, y folds fastest.
struct FoldRows {
  std::int64_t x = 0, first_y = 0, first_z = 0, ny = 0, nz = 0;
  std::int64_t count() const { return ny * nz; }
  // The first vector of run r of `f`.
  template <typename T>
  T* run(FoldedField<T>& f, std::int64_t r) const {
    return f.vector(x, first_y + r % ny, first_z + r / ny);
  }
};
template <typename T>
FoldRows fold_rows(const FoldedField<T>& f, const Box& box) {
  const auto y = f.folds_y_of(box), z = f.folds_z_of(box);
  return {box.lo[0], y.first, z.first, y.end - y.first, z.end - z.first};
}

template <typename T>
std::size_t values_of_folds(const FoldedField<T>& f, const Box& box) {
  return static_cast<std::size_t>(fold_rows(f, box).count() * box.extent(0) * FoldedField<T>::kLanes);
}

}  // namespace

template <typename T>
FoldedHaloExchange<T>::FoldedHaloExchange(const CartesianComm& comm, const Index3& global_n, const FoldedField<T>& like,
                                          std::array<bool, 3> completed_in_start)
    : owned_(comm.owned()),
      halo_(like.halo()),
      plane_values_(like.fold_plane_stride()),
      completed_in_start_(completed_in_start),
      comm_(comm.comm()) {
  if (comm.comm() == MPI_COMM_NULL) throw std::invalid_argument("FoldedHaloExchange: the CartesianComm was moved from");
  if (like.owned() != owned_)
    throw std::invalid_argument("FoldedHaloExchange: the field owns " + box_text(like.owned()) + ", not rank " +
                                std::to_string(comm.rank()) + "'s box " + box_text(owned_));
  if (!fits(global_n, comm.dims()))
    throw std::invalid_argument("FoldedHaloExchange: the cuts of the grid along y and z are not all on folds");
  if (halo_ == 0) return;

  for (int axis = 0; axis < 3; ++axis) {
    for (int direction : {-1, 1}) {
      const int peer = comm.neighbour(axis, direction);
      if (peer == MPI_PROC_NULL) continue;
      faces_[static_cast<std::size_t>(axis)][direction < 0 ? 0 : 1] = true;
      if (owned_.extent(axis) < halo_)
        throw std::invalid_argument("FoldedHaloExchange: rank " + std::to_string(comm.rank()) + " owns " +
                                    std::to_string(owned_.extent(axis)) + " points along " + kAxisNames[axis] +
                                    ", fewer than the halo width " + std::to_string(halo_));
      const Box send = halo::send_box(owned_, halo::face_offset(axis, direction), halo_);
      const Box ghost = halo::ghost_box(owned_, halo::face_offset(axis, direction), halo_);
      if (peer == comm.rank()) {
        // Travelling `direction` from this rank to itself: lands in the ghost on the other side.
        local_copies_.push_back({send, halo::ghost_box(owned_, halo::face_offset(axis, -direction), halo_)});
        continue;
      }
      remote_axes_[static_cast<std::size_t>(axis)] = !completed_in_start[static_cast<std::size_t>(axis)];
      if (axis == 2) {
        // Whole z folds, from the owned ones straight into the neighbour's ghost ones (see the top).
        const auto sent = like.folds_z_of(send), filled = like.folds_z_of(ghost);
        const std::int64_t values = (sent.end - sent.first) * plane_values_;
        if (values > INT_MAX)
          throw std::invalid_argument("FoldedHaloExchange: a z face of " + std::to_string(values) +
                                      " values exceeds MPI's int count");
        plane_faces_.push_back({peer, travel_tag(axis, direction), travel_tag(axis, -direction), sent.first,
                                filled.first, static_cast<int>(values)});
        bytes_ += static_cast<std::size_t>(values) * sizeof(T);
        continue;
      }
      Face out{send, std::vector<T>(values_of_folds(like, send)), peer, travel_tag(axis, direction), axis};
      Face in{ghost, std::vector<T>(values_of_folds(like, ghost)), peer, travel_tag(axis, -direction), axis};
      if (out.buffer.size() > INT_MAX)
        throw std::invalid_argument("FoldedHaloExchange: a face of " + std::to_string(out.buffer.size()) +
                                    " values exceeds MPI's int count");
      bytes_ += out.buffer.size() * sizeof(T);
      sends_.push_back(std::move(out));
      recvs_.push_back(std::move(in));
    }
  }
  // A persistent request per face, receives first (the order start() relies on).
  const auto persistent = [&](Face& face, auto init, const char* what) {
    MPI_Request request = MPI_REQUEST_NULL;
    check(init(face.buffer.data(), static_cast<int>(face.buffer.size()), datatype_of<T>(), face.peer, face.tag, comm_,
               &request),
          what);
    face_requests_.push_back(request);
  };
  try {
    for (Face& face : recvs_) persistent(face, MPI_Recv_init, "MPI_Recv_init");
    for (Face& face : sends_) persistent(face, MPI_Send_init, "MPI_Send_init");
  } catch (...) {
    release();
    throw;
  }
}

template <typename T>
FoldedHaloExchange<T>::~FoldedHaloExchange() {
  release();
}

template <typename T>
void FoldedHaloExchange<T>::check_layout(const FoldedField<T>& f, const char* caller) const {
  if (f.owned() == owned_ && f.halo() == halo_ && f.fold_plane_stride() == plane_values_) return;
  throw std::logic_error(std::string("FoldedHaloExchange::") + caller + ": the field owns " + box_text(f.owned()) +
                         " with halo " + std::to_string(f.halo()) + " and " + std::to_string(f.fold_plane_stride()) +
                         " values per z fold but the exchange was built for " + box_text(owned_) + " with halo " +
                         std::to_string(halo_) + " and " + std::to_string(plane_values_));
}

template <typename T>
void FoldedHaloExchange<T>::start(FoldedField<T>& f) {
  check_layout(f, "start");
  if (in_flight_) throw std::logic_error("FoldedHaloExchange::start: the previous exchange has not been finished");
  const auto t0 = std::chrono::steady_clock::now();
  constexpr std::int64_t lanes = FoldedField<T>::kLanes;
#pragma omp parallel
  {
    for (const LocalCopy& copy : local_copies_) {
      const FoldRows from = fold_rows(f, copy.from), to = fold_rows(f, copy.to);
      const std::int64_t run = copy.from.extent(0) * lanes;
#pragma omp for schedule(static) nowait
      for (std::int64_t r = 0; r < from.count(); ++r) std::copy_n(from.run(f, r), run, to.run(f, r));
    }
    for (Face& face : sends_) {
      const FoldRows rows = fold_rows(f, face.box);
      const std::int64_t run = face.box.extent(0) * lanes;
#pragma omp for schedule(static) nowait
      for (std::int64_t r = 0; r < rows.count(); ++r) std::copy_n(rows.run(f, r), run, face.buffer.data() + r * run);
    }
  }
  times_ = HaloTimes{seconds_since(t0), 0.0, 0.0};

  // Receives first, so that a message finds its buffer posted: the z folds', then the faces'.
  flying_.clear();
  flying_axes_.clear();
  const auto plane_start = [&f](std::int64_t k) { return f.vector(f.held().lo[0], 0, k); };
  for (const PlaneFace& face : plane_faces_) {
    MPI_Request& r = flying_.emplace_back(MPI_REQUEST_NULL);
    flying_axes_.push_back(2);
    check(MPI_Irecv(plane_start(face.recv_fold), face.values, datatype_of<T>(), face.peer, face.recv_tag, comm_, &r),
          "MPI_Irecv");
  }
  const int n_recv = static_cast<int>(recvs_.size()), n_send = static_cast<int>(sends_.size());
  if (n_recv > 0) check(MPI_Startall(n_recv, face_requests_.data()), "MPI_Startall (receives)");
  for (const PlaneFace& face : plane_faces_) {
    MPI_Request& r = flying_.emplace_back(MPI_REQUEST_NULL);
    flying_axes_.push_back(2);
    check(MPI_Isend(plane_start(face.send_fold), face.values, datatype_of<T>(), face.peer, face.send_tag, comm_, &r),
          "MPI_Isend");
  }
  if (n_send > 0) check(MPI_Startall(n_send, face_requests_.data() + n_recv), "MPI_Startall (sends)");
  // The persistent requests are handles of their own: waiting on them here leaves them inactive, and
  // the ones in face_requests_ stay valid for the next start.
  for (std::size_t i = 0; i < face_requests_.size(); ++i) {
    flying_.push_back(face_requests_[i]);
    flying_axes_.push_back(i < recvs_.size() ? recvs_[i].axis : sends_[i - recvs_.size()].axis);
  }
  in_flight_ = true;

  // The faces completed in start: wait for their messages (both ways) and unpack them now.
  bool any_now = false;
  const auto t1 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < flying_.size(); ++i) {
    if (!completed_in_start_[static_cast<std::size_t>(flying_axes_[i])]) continue;
    check(MPI_Wait(&flying_[i], MPI_STATUS_IGNORE), "MPI_Wait (faces completed in start)");
    any_now = true;
  }
  if (!any_now) return;
  times_.wait = seconds_since(t1);
  const auto t2 = std::chrono::steady_clock::now();
  unpack(f, true);
  times_.unpack = seconds_since(t2);
}

template <typename T>
void FoldedHaloExchange<T>::unpack(FoldedField<T>& f, bool completed_in_start) {
  constexpr std::int64_t lanes = FoldedField<T>::kLanes;
#pragma omp parallel
  for (const Face& face : recvs_) {
    if (completed_in_start_[static_cast<std::size_t>(face.axis)] != completed_in_start) continue;
    const FoldRows rows = fold_rows(f, face.box);
    const std::int64_t run = face.box.extent(0) * lanes;
#pragma omp for schedule(static) nowait
    for (std::int64_t r = 0; r < rows.count(); ++r) std::copy_n(face.buffer.data() + r * run, run, rows.run(f, r));
  }
}

template <typename T>
bool FoldedHaloExchange<T>::test() {
  if (!in_flight_ || flying_.empty()) return true;
  int done = 0;
  // Completed requests turn null (or inactive, persistent ones): repeated calls keep returning true.
  check(MPI_Testall(static_cast<int>(flying_.size()), flying_.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
  return done != 0;
}

template <typename T>
void FoldedHaloExchange<T>::finish(FoldedField<T>& f) {
  check_layout(f, "finish");
  if (!in_flight_) throw std::logic_error("FoldedHaloExchange::finish: no exchange was started");
  const auto t0 = std::chrono::steady_clock::now();
  if (!flying_.empty())
    check(MPI_Waitall(static_cast<int>(flying_.size()), flying_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  in_flight_ = false;
  times_.wait += seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  unpack(f, false);
  times_.unpack += seconds_since(t1);
}

template <typename T>
void FoldedHaloExchange<T>::release() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    // An exchange still in flight is completed first so that MPI never writes into freed buffers.
    if (in_flight_ && !flying_.empty())
      MPI_Waitall(static_cast<int>(flying_.size()), flying_.data(), MPI_STATUSES_IGNORE);
    for (MPI_Request& request : face_requests_)
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  }
  face_requests_.clear();
  flying_.clear();
  in_flight_ = false;
}

template class FoldedHaloExchange<float>;
template class FoldedHaloExchange<double>;

}  // namespace wave3d::mpi
