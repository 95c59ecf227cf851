#include "field/first_touch.hpp"

#include <omp.h>

#include <algorithm>

namespace wave3d {
namespace {

// What first touch writes into each span: zeros.
template <typename T>
auto zero_span(T* base) {
  return [base](std::int64_t begin, std::int64_t end) { std::fill(base + begin, base + end, T(0)); };
}

}  // namespace

template <typename T>
void first_touch(Field<T>& field, InitPolicy policy, const Blocking& blocking, const std::vector<Box>& sweeps) {
  T* base = field.data();
  if (policy == InitPolicy::serial) {
    std::fill(base, base + field.allocated_elements(), T(0));
    return;
  }
  for_each_touch_span(field, blocking, sweeps, zero_span(base));
}

template <typename T>
void first_touch_rows(Field<T>& field, const Box& region,
                      const std::function<std::vector<std::int64_t>(int threads)>& thread_rows) {
  const auto visit_slabs = [&](const Box& sweep, const auto& body) {
    std::vector<std::int64_t> starts;
#pragma omp parallel
    {
      // One thread asks for the team's rows; the implicit barrier of single publishes them.
#pragma omp single
      starts = thread_rows(omp_get_num_threads());
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      Box slab = sweep;
      slab.lo[1] = std::clamp(starts.at(t), sweep.lo[1], sweep.hi[1]);
      slab.hi[1] = std::clamp(starts.at(t + 1), sweep.lo[1], sweep.hi[1]);
      if (!slab.empty()) body(slab);
    }
  };
  for_each_touch_span_of(field, {region}, visit_slabs, zero_span(field.data()));
}

template void first_touch<float>(Field<float>&, InitPolicy, const Blocking&, const std::vector<Box>&);
template void first_touch<double>(Field<double>&, InitPolicy, const Blocking&, const std::vector<Box>&);
template void first_touch_rows<float>(Field<float>&, const Box&, const std::function<std::vector<std::int64_t>(int)>&);
template void first_touch_rows<double>(Field<double>&, const Box&, const std::function<std::vector<std::int64_t>(int)>&);

}  // namespace wave3d
