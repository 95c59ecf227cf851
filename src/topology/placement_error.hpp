#pragma once
#include <stdexcept>

namespace wave3d {

// An impossible placement request. The message says why and what would fit instead, so it can be
// shown to the user as it is.
class PlacementError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wave3d
