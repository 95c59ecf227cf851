#pragma once
// Placing the pages of a field: who writes each page first decides the NUMA node it lives on.
#include "field/field.hpp"
#include "stencil/blocking.hpp"

namespace wave3d {

enum class InitPolicy {
  first_touch,  // the threads write the blocks they will compute, in the kernel's static block order
  serial,       // one thread writes everything (all pages on its node: the slow case of the studies)
};

// Writes zero into every allocated element of `field` (halo and padding included) under `policy`.
template <typename T>
void first_touch(Field<T>& field, InitPolicy policy, const Blocking& blocking);

}  // namespace wave3d
