#include "field/first_touch.hpp"

#include <omp.h>

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

template <typename T>
void first_touch_rows(Field<T>& field, const Box& region,
                      const std::function<std::vector<std::int64_t>(int threads)>& thread_rows) {
  T* base = field.data();
  const auto visit_slabs = [&](const Box& sweep, const auto& body) {
#pragma omp parallel
    {
      const std::vector<std::int64_t> starts = thread_rows(omp_get_num_threads());
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      Box slab = sweep;
      slab.lo[1] = std::clamp(starts.at(t), sweep.lo[1], sweep.hi[1]);
      slab.hi[1] = std::clamp(starts.at(t + 1), sweep.lo[1], sweep.hi[1]);
      if (!slab.empty()) body(slab);
    }
  };
  for_each_touch_span_of(field, {region}, visit_slabs,
                         [base](std::int64_t begin, std::int64_t end) { std::fill(base + begin, base + end, T(0)); });
}

template void first_touch<float>(Field<float>&, InitPolicy, const Blocking&, const std::vector<Box>&);
template void first_touch<double>(Field<double>&, InitPolicy, const Blocking&, const std::vector<Box>&);
template void first_touch_rows<float>(Field<float>&, const Box&, const std::function<std::vector<std::int64_t>(int)>&);
template void first_touch_rows<double>(Field<double>&, const Box&, const std::function<std::vector<std::int64_t>(int)>&);

}  // namespace wave3d
