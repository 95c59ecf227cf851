#include "counters/software_event_fallback.hpp"

#include <fmt/format.h>

#include <set>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

#include "counters/software_events.hpp"

namespace wave3d::counters {
namespace {

// The events of one backend and where their values go in the caller's list.
struct Part {
  std::unique_ptr<EventReader> reader;
  std::vector<std::size_t> positions;
  std::vector<long long> buffer;
};

class CombinedReader final : public EventReader {
 public:
  explicit CombinedReader(std::vector<Part> parts) : parts_(std::move(parts)) {}
  std::optional<std::string> read(std::span<long long> values) override {
    for (Part& p : parts_) {
      if (auto why = p.reader->read(p.buffer)) return why;
      for (std::size_t j = 0; j < p.positions.size(); ++j) values[p.positions[j]] = p.buffer[j];
    }
    return std::nullopt;
  }

 private:
  std::vector<Part> parts_;
};

class SoftwareEventFallback final : public CounterBackend {
 public:
  SoftwareEventFallback(std::unique_ptr<CounterBackend> library, std::unique_ptr<CounterBackend> software)
      : library_(std::move(library)), software_(std::move(software)) {}

  std::string library() const override {
    if (library_->unavailable_reason()) return software_->library();
    return software_->unavailable_reason() ? library_->library()
                                           : fmt::format("{}, {}", library_->library(), software_->library());
  }

  std::optional<std::string> unavailable_reason() const override {
    const auto library_problem = library_->unavailable_reason();
    const auto software_problem = software_->unavailable_reason();
    if (!library_problem || !software_problem) return std::nullopt;
    return fmt::format("{}; software events: {}", *library_problem, *software_problem);
  }

  std::vector<EventProbe> probe(std::span<const std::string> names) override {
    std::vector<EventProbe> result;
    if (const auto why = library_->unavailable_reason())
      result.assign(names.size(), EventProbe{*why, {}, {}});
    else
      result = library_->probe(names);
    for (EventProbe& p : result)
      if (!p.problem && p.counted_by.empty()) p.counted_by = library_->library();

    std::vector<std::size_t> retried;
    std::vector<std::string> retried_names;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (result[i].problem && is_software_event(names[i])) {
        retried.push_back(i);
        retried_names.push_back(names[i]);
      }
    }
    via_software_.clear();
    if (retried.empty()) return result;
    const std::vector<EventProbe> software = software_->probe(retried_names);
    for (std::size_t k = 0; k < retried.size(); ++k) {
      EventProbe& p = result[retried[k]];
      if (software[k].problem) {
        p.problem = fmt::format("{}; perf_event_open: {}", *p.problem, *software[k].problem);
      } else {
        p = software[k];
        via_software_.insert(retried_names[k]);
      }
    }
    return result;
  }

  OpenedEvents open_for_this_thread(std::span<const std::string> names) override {
    std::vector<std::string> by_library, by_software;
    Part library_part, software_part;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const bool software = via_software_.contains(names[i]);
      (software ? by_software : by_library).push_back(names[i]);
      (software ? software_part : library_part).positions.push_back(i);
    }
    std::vector<Part> parts;
    for (auto [backend, list, part] : {std::tuple{library_.get(), &by_library, &library_part},
                                       std::tuple{software_.get(), &by_software, &software_part}}) {
      if (list->empty()) continue;
      OpenedEvents opened = backend->open_for_this_thread(*list);
      if (!opened.reader) return {nullptr, opened.problem};
      part->reader = std::move(opened.reader);
      part->buffer.assign(list->size(), 0);
      parts.push_back(std::move(*part));
    }
    return {std::make_unique<CombinedReader>(std::move(parts)), {}};
  }

  OpenedDramEvents open_dram(std::span<const int> package_cpus) override {
    if (const auto why = library_->unavailable_reason()) {
      OpenedDramEvents dram;
      dram.problem = *why;
      return dram;
    }
    return library_->open_dram(package_cpus);
  }

 private:
  std::unique_ptr<CounterBackend> library_, software_;
  std::set<std::string> via_software_;  // by probe(): the events perf_event_open counts
};

}  // namespace

std::unique_ptr<CounterBackend> with_software_event_fallback(std::unique_ptr<CounterBackend> library,
                                                             std::unique_ptr<CounterBackend> software) {
  return std::make_unique<SoftwareEventFallback>(std::move(library), std::move(software));
}

std::unique_ptr<CounterBackend> make_counter_backend() {
  return with_software_event_fallback(make_library_backend(), make_software_event_backend());
}

}  // namespace wave3d::counters
