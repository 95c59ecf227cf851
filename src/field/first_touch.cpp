#include "field/first_touch.hpp"

#include <algorithm>

namespace wave3d {

template <typename T>
void first_touch(Field<T>& field, InitPolicy policy, const Blocking& blocking, const std::vector<Box>& sweeps) {
  T* base = field.data();
  if (policy == InitPolicy::serial) {
    std::fill(base, base + field.allocated_elements(), T(0));
    return;
  }
  for_each_touch_span(field, blocking, sweeps,
                      [base](std::int64_t begin, std::int64_t end) { std::fill(base + begin, base + end, T(0)); });
}

template void first_touch<float>(Field<float>&, InitPolicy, const Blocking&, const std::vector<Box>&);
template void first_touch<double>(Field<double>&, InitPolicy, const Blocking&, const std::vector<Box>&);

}  // namespace wave3d
