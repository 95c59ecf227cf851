#pragma once
// HDF5 failures in wave3d's words. HDF5 prints its whole error stack to stderr by default, on every
// rank; wave3d turns that off and reports one message that names the file and what failed, followed by
// HDF5's own description of the innermost error (e.g. "truncated file: eof = 1024, ...").
#include <hdf5.h>

#include <stdexcept>
#include <string>

namespace wave3d::io {

class Hdf5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Turns off HDF5's automatic printing of its error stack (for the calling thread; idempotent).
void silence_hdf5_errors();

// The innermost description on HDF5's current error stack, or "" when the stack is empty.
std::string hdf5_error_detail();

// Throws Hdf5Error("<what>: <innermost HDF5 description>") (just <what> when HDF5 recorded nothing).
[[noreturn]] void throw_hdf5_error(const std::string& what);

// HDF5 reports failure with negative identifiers and statuses: these return the value or throw.
hid_t check_id(hid_t id, const std::string& what);
void check_status(herr_t status, const std::string& what);

}  // namespace wave3d::io
