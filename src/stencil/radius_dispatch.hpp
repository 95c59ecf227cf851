#pragma once
// Calls f.template operator()<R>() for a run-time radius among kSupportedRadii: the kernels take R as
// a compile-time constant so that their loops over the 2R neighbours unroll.
#include <stdexcept>
#include <string>

namespace wave3d {

template <typename F>
void dispatch_radius(int radius, F&& f) {
  switch (radius) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 4: f.template operator()<4>(); break;
    case 8: f.template operator()<8>(); break;
    default: throw std::logic_error("kernel: unsupported radius " + std::to_string(radius));
  }
}

}  // namespace wave3d
