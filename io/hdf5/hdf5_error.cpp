#include "io/hdf5/hdf5_error.hpp"

namespace wave3d::io {
namespace {

herr_t keep_innermost(unsigned n, const H5E_error2_t* error, void* client_data) {
  // Walking upward, n = 0 is the most specific error: where HDF5 first noticed the problem.
  if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(client_data) = error->desc;
  return 0;
}

}  // namespace

void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string hdf5_error_detail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &detail);
  return detail;
}

void throw_hdf5_error(const std::string& what) {
  const std::string detail = hdf5_error_detail();
  H5Eclear2(H5E_DEFAULT);
  throw Hdf5Error(detail.empty() ? what : what + " (HDF5: " + detail + ")");
}

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) throw_hdf5_error(what);
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) throw_hdf5_error(what);
}

}  // namespace wave3d::io
