#include "io/hdf5/hdf5_library.hpp"

#include <hdf5.h>

namespace wave3d::io {

Hdf5Library::Hdf5Library() {
  H5dont_atexit();
  H5open();
}

bool Hdf5Library::end() noexcept {
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE) > 0) return false;
  return H5close() >= 0;
}

}  // namespace wave3d::io
