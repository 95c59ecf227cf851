// The counter library backend of builds with WAVE3D_WITH_PAPI=OFF: it counts nothing, and every answer
// says why; the kernel's software events are still counted, through perf_event_open.
#include "counters/counter_backend.hpp"

namespace wave3d::counters {
namespace {

constexpr const char* kNotBuiltIn = "not built in: this wave3d was built with WAVE3D_WITH_PAPI=OFF";

class NoPapiBackend final : public CounterBackend {
 public:
  std::string library() const override { return "none"; }
  std::optional<std::string> unavailable_reason() const override { return kNotBuiltIn; }
  std::vector<EventProbe> probe(std::span<const std::string> names) override {
    return std::vector<EventProbe>(names.size(), EventProbe{kNotBuiltIn, {}, {}});
  }
  OpenedEvents open_for_this_thread(std::span<const std::string>) override { return {nullptr, kNotBuiltIn}; }
  OpenedDramEvents open_dram(std::span<const int>) override {
    OpenedDramEvents dram;
    dram.problem = kNotBuiltIn;
    return dram;
  }
};

}  // namespace

std::unique_ptr<CounterBackend> make_library_backend() { return std::make_unique<NoPapiBackend>(); }

}  // namespace wave3d::counters
