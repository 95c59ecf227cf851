#include "mpi/deep_halo_exchange.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <stdexcept>
#include <string>

#include "mpi/environment.hpp"
#include "mpi/halo_boxes.hpp"

namespace wave3d::mpi {
namespace {

constexpr int kTagBase = 100;  // above HaloExchange's 0..5

using halo::datatype_of;
using halo::ghost_box;
using halo::seconds_since;
using halo::send_box;

int travel_tag(const Dims3& d) { return kTagBase + (d[0] + 1) + 3 * (d[1] + 1) + 9 * (d[2] + 1); }
// Whole planes: one message per part of a slab, told apart by the slab's place in the exchange and
// the part (0 near the face, 1 beyond).
int travel_tag(const Dims3& d, std::size_t slab, int part) {
  return travel_tag(d) + 27 * static_cast<int>(2 * slab + static_cast<std::size_t>(part) + 1);
}

Dims3 opposite(const Dims3& d) { return {-d[0], -d[1], -d[2]}; }

// A box of rows to copy within a field, or between a field and a buffer.
template <typename T>
struct RowCopy {
  Field<T>* field = nullptr;
  Box box;               // rows of the field (the source of a pack, the target of an unpack)
  T* values = nullptr;   // the buffer, rows of box z-major; null for a copy within the field
  Index3 shift{0, 0, 0};  // copy within the field: box + shift receives box
};

// Runs every copy, rows shared out over the OpenMP threads; the copies touch disjoint memory.
template <typename T>
void run_copies(const std::vector<RowCopy<T>>& copies, bool into_field) {
  if (copies.empty()) return;  // no parallel region for nothing
#pragma omp parallel
  for (const RowCopy<T>& c : copies) {
    const std::int64_t nx = c.box.extent(0), ny = c.box.extent(1);
    const std::int64_t rows = ny * c.box.extent(2);
    // A copy within the field writes box + shift.
    const Box shifted{{c.box.lo[0] + c.shift[0], c.box.lo[1] + c.shift[1], c.box.lo[2] + c.shift[2]},
                      {c.box.hi[0] + c.shift[0], c.box.hi[1] + c.shift[1], c.box.hi[2] + c.shift[2]}};
    const bool box_is_target = c.values != nullptr && into_field;
#pragma omp for schedule(static) nowait
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t y = c.box.lo[1] + r % ny, z = c.box.lo[2] + r / ny;
      T* row = c.field->data() + c.field->offset(c.box.lo[0], y, z);
      if (box_is_target) halo::prefetch_short_row_ahead<true>(*c.field, c.box, r);
      else halo::prefetch_short_row_ahead<false>(*c.field, c.box, r);
      if (c.values == nullptr) {
        halo::prefetch_short_row_ahead<true>(*c.field, shifted, r);
        std::copy_n(row, nx, c.field->data() + c.field->offset(shifted.lo[0], shifted.lo[1] + r % ny, shifted.lo[2] + r / ny));
      } else if (into_field) {
        std::copy_n(c.values + r * nx, nx, row);
      } else {
        std::copy_n(row, nx, c.values + r * nx);
      }
    }
  }
}

// The copies between the slabs' boxes (box_of(slab)) and a message buffer that holds them one after
// the other, appended to `copies`.
template <typename T, typename Slabs, typename BoxOf>
void add_buffer_copies(std::vector<RowCopy<T>>& copies, const Slabs& slabs, T* buffer, const BoxOf& box_of) {
  std::size_t at = 0;
  for (const auto& s : slabs) {
    const Box box = box_of(s);
    copies.push_back({s.field, box, buffer + at, {}});
    at += static_cast<std::size_t>(box.volume());
  }
}

// Along a periodic axis of one rank: this rank's own slab on the far side, one period away, copied
// into the ghost at `offset`.
template <typename T>
RowCopy<T> self_copy(Field<T>* field, const Box& owned, const Dims3& offset, int width) {
  const Box from = send_box(owned, opposite(offset), width);
  const Box to = ghost_box(owned, offset, width);
  return {field, from, nullptr, {to.lo[0] - from.lo[0], to.lo[1] - from.lo[1], to.lo[2] - from.lo[2]}};
}

// A run of memory to copy (a packed slab of whole planes).
template <typename T>
struct SpanCopy {
  const T* from = nullptr;
  T* to = nullptr;
  std::size_t count = 0;
};

// Runs every copy, each cut into chunks shared out over the OpenMP threads.
template <typename T>
void run_span_copies(const std::vector<SpanCopy<T>>& copies) {
  if (copies.empty()) return;
  constexpr std::size_t kChunk = std::size_t{1} << 16;
#pragma omp parallel
  for (const SpanCopy<T>& c : copies) {
    const auto chunks = static_cast<std::int64_t>((c.count + kChunk - 1) / kChunk);
#pragma omp for schedule(static) nowait
    for (std::int64_t k = 0; k < chunks; ++k) {
      const std::size_t first = static_cast<std::size_t>(k) * kChunk;
      std::copy_n(c.from + first, std::min(kChunk, c.count - first), c.to + first);
    }
  }
}

// A run of whole planes along z: the first plane and how many.
struct PlaneRun {
  std::int64_t first = 0;
  int planes = 0;
};

// The two parts of a slab of whole planes `width` deep at offset d (d along z only) that travel as
// messages of their own: [0] the planes within `near` of the face, [1] the rest, beyond them. ghost:
// the halo planes received from the neighbour at d, else the owned planes sent to it. A part of the
// sender's send box and the same part of the receiver's ghost box hold the same global planes.
std::array<PlaneRun, 2> slab_parts(const Box& owned, const Dims3& d, int width, int near, bool ghost) {
  near = std::clamp(near, 0, width);
  const Box whole = ghost ? ghost_box(owned, d, width) : send_box(owned, d, width);
  const Box close = ghost ? ghost_box(owned, d, near) : send_box(owned, d, near);
  // The part beyond starts where the near part ends, or the slab does, whichever side of the slab
  // the face is on.
  const std::int64_t beyond = whole.lo[2] == close.lo[2] && near < width ? close.hi[2] : whole.lo[2];
  return {PlaneRun{close.lo[2], near}, PlaneRun{beyond, width - near}};
}

// The first of `planes` whole planes of f from plane z on, and how many values they hold.
template <typename T>
std::pair<T*, std::size_t> whole_planes(Field<T>& f, std::int64_t z, int planes) {
  return {f.data() + f.row_begin_offset(f.owned().lo[1] - f.halo(), z),
          static_cast<std::size_t>(planes) * static_cast<std::size_t>(f.plane_stride())};
}

}  // namespace

template <typename T>
DeepHaloExchange<T>::DeepHaloExchange(const CartesianComm& comm, const Box& owned, int max_width,
                                      std::array<bool, 3> completed_in_start)
    : owned_(owned), max_width_(max_width), rank_(comm.rank()), comm_(comm.comm()), completed_in_start_(completed_in_start) {
  if (comm.comm() == MPI_COMM_NULL) throw std::invalid_argument("DeepHaloExchange: the CartesianComm was moved from");
  if (completed_in_start[2])
    throw std::invalid_argument("DeepHaloExchange: z faces cannot complete in start() (whole planes travel along z)");
  if (max_width < 0) throw std::invalid_argument("DeepHaloExchange: width must be >= 0, got " + std::to_string(max_width));
  if (owned != comm.owned())
    throw std::invalid_argument("DeepHaloExchange: the box given is not rank " + std::to_string(comm.rank()) +
                                "'s box in the decomposition");
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int peer = comm.neighbour(axis, side == 0 ? -1 : 1);
      if (peer == MPI_PROC_NULL) continue;
      faces_[static_cast<std::size_t>(axis)][static_cast<std::size_t>(side)] = true;
      if (peer != comm.rank() && !completed_in_start[static_cast<std::size_t>(axis)])
        remote_axes_[static_cast<std::size_t>(axis)] = true;
      if (owned.extent(axis) < max_width)
        throw std::invalid_argument("DeepHaloExchange: rank " + std::to_string(comm.rank()) + " owns " +
                                    std::to_string(owned.extent(axis)) + " points along " + "xyz"[axis] +
                                    ", fewer than the halo width " + std::to_string(max_width) +
                                    "; halos come from the immediate neighbours only");
    }
  const std::array<bool, 3> cut = axes_of(faces_);
  whole_planes_ = !cut[0] && !cut[1];
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const Dims3 d{dx, dy, dz};
        if (d == Dims3{0, 0, 0}) continue;
        const int peer = comm.neighbour_at(d);
        if (peer != MPI_PROC_NULL) neighbours_.push_back({d, peer, {}, {}});
      }
}

template <typename T>
DeepHaloExchange<T>::~DeepHaloExchange() {
  release();
}

template <typename T>
std::size_t DeepHaloExchange<T>::bytes_for(const std::vector<int>& widths) const {
  std::size_t values = 0;
  for (const Neighbour& n : neighbours_)
    if (n.peer != rank_)
      for (int w : widths) values += static_cast<std::size_t>(send_box(owned_, n.offset, w).volume());
  return values * sizeof(T);
}

template <typename T>
void DeepHaloExchange<T>::begin(const std::vector<Slab>& slabs, bool send_from_fields) {
  if (in_flight_) throw std::logic_error("DeepHaloExchange::start: the previous exchange has not been finished");
  for (const Slab& s : slabs) {
    if (s.field == nullptr || s.field->owned() != owned_)
      throw std::logic_error("DeepHaloExchange::start: a field of another subdomain");
    if (s.width < 0 || s.width > s.field->halo() || s.width > max_width_)
      throw std::logic_error("DeepHaloExchange::start: width " + std::to_string(s.width) + " beyond the field's halo " +
                             std::to_string(s.field->halo()) + " or the exchange's maximum " +
                             std::to_string(max_width_));
  }
  if (whole_planes_) {
    post_whole_planes(slabs, send_from_fields);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<RowCopy<T>> packs;
  for (Neighbour& n : neighbours_) {
    if (n.peer == rank_) {
      for (const Slab& s : slabs) packs.push_back(self_copy(s.field, owned_, n.offset, s.width));
      continue;
    }
    std::size_t send_values = 0, recv_values = 0;
    for (const Slab& s : slabs) {
      send_values += static_cast<std::size_t>(send_box(owned_, n.offset, s.width).volume());
      recv_values += static_cast<std::size_t>(ghost_box(owned_, n.offset, s.width).volume());
    }
    if (send_values > INT_MAX || recv_values > INT_MAX)
      throw std::invalid_argument("DeepHaloExchange: a message of more values than MPI's int count");
    n.send.resize(send_values);
    n.recv.resize(recv_values);
    add_buffer_copies(packs, slabs, n.send.data(), [&](const Slab& s) { return send_box(owned_, n.offset, s.width); });
  }
  run_copies(packs, false);
  times_ = HaloTimes{seconds_since(t0), 0.0, 0.0};
  last_bytes_packed_ = 0;
  for (const Neighbour& n : neighbours_) last_bytes_packed_ += n.send.size() * sizeof(T);

  requests_.clear();
  requests_first_.clear();
  last_bytes_ = 0;
  for (Neighbour& n : neighbours_) {
    if (n.peer == rank_ || n.recv.empty()) continue;
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Irecv(n.recv.data(), static_cast<int>(n.recv.size()), datatype_of<T>(), n.peer,
                    travel_tag(opposite(n.offset)), comm_, &r),
          "MPI_Irecv");
    (completes_in_start(n.offset) ? requests_first_ : requests_).push_back(r);
  }
  for (Neighbour& n : neighbours_) {
    if (n.peer == rank_ || n.send.empty()) continue;
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Isend(n.send.data(), static_cast<int>(n.send.size()), datatype_of<T>(), n.peer, travel_tag(n.offset),
                    comm_, &r),
          "MPI_Isend");
    (completes_in_start(n.offset) ? requests_first_ : requests_).push_back(r);
    last_bytes_ += n.send.size() * sizeof(T);
  }
  slabs_in_flight_ = slabs;
  in_flight_ = true;
  if (requests_first_.empty()) return;
  const auto t1 = std::chrono::steady_clock::now();
  check(MPI_Waitall(static_cast<int>(requests_first_.size()), requests_first_.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall (messages completed in start)");
  times_.wait = seconds_since(t1);
  const auto t2 = std::chrono::steady_clock::now();
  unpack(true);
  times_.unpack = seconds_since(t2);
}

template <typename T>
bool DeepHaloExchange<T>::completes_in_start(const Dims3& offset) const {
  for (std::size_t a = 0; a < 3; ++a)
    if (offset[a] != 0 && completed_in_start_[a]) return true;
  return false;
}

template <typename T>
void DeepHaloExchange<T>::unpack(bool completed_in_start) {
  std::vector<RowCopy<T>> unpacks;
  for (Neighbour& n : neighbours_) {
    if (n.peer == rank_ || completes_in_start(n.offset) != completed_in_start) continue;
    add_buffer_copies(unpacks, slabs_in_flight_, n.recv.data(),
                      [&](const Slab& s) { return ghost_box(owned_, n.offset, s.width); });
  }
  run_copies(unpacks, true);
}

template <typename T>
void DeepHaloExchange<T>::post_whole_planes(const std::vector<Slab>& slabs, bool send_from_fields) {
  const auto t0 = std::chrono::steady_clock::now();
  // Each slab goes in two messages: the planes near the face, which the caller leaves unchanged
  // until finish() and which so travel straight from the field, and the planes beyond, copied here
  // unless the whole exchange is sent at once.
  const auto parts = [&](const Slab& s, const Dims3& d, bool ghost) {
    return slab_parts(owned_, d, s.width, send_from_fields ? s.width : s.unchanged, ghost);
  };
  std::vector<RowCopy<T>> self_copies;  // along a periodic z of one rank
  std::vector<SpanCopy<T>> packs;
  last_bytes_packed_ = 0;
  for (Neighbour& n : neighbours_) {
    std::size_t packed_values = 0;
    for (const Slab& s : slabs) {
      if (n.peer == rank_) {
        self_copies.push_back(self_copy(s.field, owned_, n.offset, s.width));
        continue;
      }
      const std::size_t values = static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.field->plane_stride());
      if (values > INT_MAX) throw std::invalid_argument("DeepHaloExchange: a message of more values than MPI's int count");
      packed_values += static_cast<std::size_t>(parts(s, n.offset, false)[1].planes) *
                       static_cast<std::size_t>(s.field->plane_stride());
    }
    if (n.peer == rank_) continue;
    n.send.resize(packed_values);
    std::size_t at = 0;
    for (const Slab& s : slabs) {
      const PlaneRun beyond = parts(s, n.offset, false)[1];
      const auto [from, count] = whole_planes(*s.field, beyond.first, beyond.planes);
      if (count > 0) packs.push_back({from, n.send.data() + at, count});
      at += count;
    }
    last_bytes_packed_ += packed_values * sizeof(T);
  }
  run_copies(self_copies, false);
  run_span_copies(packs);
  times_ = HaloTimes{seconds_since(t0), 0.0, 0.0};

  requests_.clear();
  last_bytes_ = 0;
  const auto post = [&](bool receive) {
    for (Neighbour& n : neighbours_) {
      if (n.peer == rank_) continue;
      std::size_t packed_at = 0;
      for (std::size_t i = 0; i < slabs.size(); ++i) {
        Field<T>& f = *slabs[i].field;
        const std::array<PlaneRun, 2> runs = parts(slabs[i], n.offset, receive);
        for (int part = 0; part < 2; ++part) {
          auto [values, count] = whole_planes(f, runs[static_cast<std::size_t>(part)].first,
                                              runs[static_cast<std::size_t>(part)].planes);
          if (count == 0) continue;
          MPI_Request r = MPI_REQUEST_NULL;
          if (receive) {
            check(MPI_Irecv(values, static_cast<int>(count), datatype_of<T>(), n.peer,
                            travel_tag(opposite(n.offset), i, part), comm_, &r),
                  "MPI_Irecv");
          } else {
            const bool copied = part == 1 && !send_from_fields;
            const T* from = copied ? n.send.data() + packed_at : values;
            if (copied) packed_at += count;
            check(MPI_Isend(from, static_cast<int>(count), datatype_of<T>(), n.peer, travel_tag(n.offset, i, part),
                            comm_, &r),
                  "MPI_Isend");
            last_bytes_ += count * sizeof(T);
          }
          requests_.push_back(r);
        }
      }
    }
  };
  post(true);
  post(false);
  slabs_in_flight_.clear();  // nothing to unpack
  in_flight_ = true;
}

template <typename T>
bool DeepHaloExchange<T>::test() {
  if (!in_flight_ || requests_.empty()) return true;
  int done = 0;
  check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
  return done != 0;
}

template <typename T>
void DeepHaloExchange<T>::finish() {
  if (!in_flight_) throw std::logic_error("DeepHaloExchange::finish: no exchange was started");
  const auto t0 = std::chrono::steady_clock::now();
  if (!requests_.empty())
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  in_flight_ = false;
  times_.wait += seconds_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  unpack(false);
  slabs_in_flight_.clear();
  times_.unpack += seconds_since(t1);
}

template <typename T>
void DeepHaloExchange<T>::release() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // An exchange still in flight is completed first so MPI never writes into freed buffers; return
  // codes are ignored, since nothing can be done about them in a destructor.
  if (!finalized && in_flight_ && !requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  requests_first_.clear();
  in_flight_ = false;
}

template class DeepHaloExchange<float>;
template class DeepHaloExchange<double>;

}  // namespace wave3d::mpi
