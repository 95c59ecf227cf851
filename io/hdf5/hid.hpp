#pragma once
// Hid: one HDF5 identifier (file, dataset, dataspace, property list, type, attribute) together with
// the function that closes it, closed when the Hid goes out of scope. Move-only. Closing a file or a
// dataset opened through MPI-IO is collective, so every rank must hold and drop the same handles.
#include <hdf5.h>

#include <string>
#include <utility>

#include "io/hdf5/hdf5_error.hpp"

namespace wave3d::io {

class Hid {
 public:
  using Closer = herr_t (*)(hid_t);

  Hid() = default;
  // Takes ownership of id; throws Hdf5Error(what) when id is HDF5's failure value.
  Hid(hid_t id, Closer closer, const std::string& what) : id_(check_id(id, what)), close_(closer) {}
  ~Hid() { reset(); }
  Hid(Hid&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = other.close_;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;

  hid_t get() const { return id_; }

  // Forgets the identifier without closing it. For a file (and its datasets) whose write failed on
  // some rank: HDF5's collective close would then run different collective calls on different ranks
  // (a hang) or crash in HDF5's shutdown; the identifier stays with HDF5 until the process exits
  // (io/hdf5/hdf5_library.hpp). Every rank must abandon the same handles.
  void abandon() noexcept { id_ = H5I_INVALID_HID; }

  // Closes now and reports a failure (a file's close is where HDF5 writes its last metadata).
  void close(const std::string& what) {
    const hid_t id = std::exchange(id_, H5I_INVALID_HID);
    if (id >= 0) check_status(close_(id), what);
  }

 private:
  void reset() noexcept {
    if (id_ >= 0) close_(std::exchange(id_, H5I_INVALID_HID));
  }

  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

}  // namespace wave3d::io
