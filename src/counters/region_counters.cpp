#include "counters/region_counters.hpp"

#include <omp.h>

#include <fmt/format.h>

#include <span>
#include <stdexcept>

namespace wave3d::counters {

RegionCounters::RegionCounters(CounterBackend& backend, std::vector<std::string> events, int threads)
    : library_(backend.library()),
      unavailable_(backend.unavailable_reason()),
      names_(std::move(events)),
      probes_(names_.size()),
      threads_(threads),
      slots_(static_cast<std::size_t>(threads > 0 ? threads : 0)) {
  if (threads < 1) throw std::invalid_argument("RegionCounters: a team needs at least one thread");
  if (names_.size() > kMaxEvents)
    throw std::invalid_argument(fmt::format("RegionCounters: at most {} events, {} given", kMaxEvents, names_.size()));
  if (unavailable_) {
    for (auto& p : probes_) p.problem = *unavailable_;
    return;
  }
  probes_ = backend.probe(names_);
  if (probes_.size() != names_.size()) throw std::logic_error("RegionCounters: the backend probed the wrong events");
  std::vector<std::string> kept_names;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (!probes_[i].problem) {
      kept_.push_back(i);
      kept_names.push_back(names_[i]);
    }
  }
  if (kept_.empty()) return;

#pragma omp parallel num_threads(threads_)
  {
    ThreadSlot& slot = slots_[static_cast<std::size_t>(omp_get_thread_num())];
    slot.owner = std::this_thread::get_id();
    OpenedEvents opened = backend.open_for_this_thread(kept_names);
    if (opened.reader)
      slot.reader = std::move(opened.reader);
    else
      slot.problem = opened.problem;
    if (omp_get_thread_num() == 0 && omp_get_num_threads() != threads_)
      team_problem_ = fmt::format("the OpenMP team had {} threads, not {}", omp_get_num_threads(), threads_);
  }
  // The counts of an event are only worth reporting from every thread, so a thread that could not
  // open its counters makes the kept events unavailable for the whole rank.
  if (const auto why = thread_problem()) {
    for (const std::size_t i : kept_) probes_[i].problem = *why;
    kept_.clear();
    close_readers();
    return;
  }
  counting_ = true;
}

RegionCounters::~RegionCounters() { close_readers(); }

void RegionCounters::close_readers() {
  bool any = false;
  for (const ThreadSlot& slot : slots_) any = any || slot.reader != nullptr;
  if (!any) return;
  // Each set is closed by the thread that opened it; any left over (a smaller team) are closed here.
#pragma omp parallel num_threads(threads_)
  {
    ThreadSlot& slot = slots_[static_cast<std::size_t>(omp_get_thread_num())];
    if (slot.owner == std::this_thread::get_id()) slot.reader.reset();
  }
  for (ThreadSlot& slot : slots_) slot.reader.reset();
}

bool RegionCounters::read_own(ThreadSlot& slot) const {
  if (slot.problem || !slot.reader) return false;
  if (slot.owner != std::this_thread::get_id()) {
    slot.problem = "the OpenMP thread ran on a different system thread from the one that opened its counters";
    return false;
  }
  if (auto why = slot.reader->read(std::span<long long>(slot.now.data(), kept_.size()))) {
    slot.problem = *why;
    return false;
  }
  return true;
}

void RegionCounters::at_boundary(Boundary boundary, Region region) {
  if (!counting_) return;
  const std::size_t n = kept_.size();
  const auto r = static_cast<std::size_t>(region);
#pragma omp parallel num_threads(threads_)
  {
    if (omp_get_thread_num() == 0 && omp_get_num_threads() != threads_ && !team_problem_)
      team_problem_ = fmt::format("a region boundary ran with {} OpenMP threads, not {}", omp_get_num_threads(),
                                  threads_);
    ThreadSlot& slot = slots_[static_cast<std::size_t>(omp_get_thread_num())];
    if (read_own(slot)) {
      switch (boundary) {
        case Boundary::begin_step:
          for (std::size_t e = 0; e < n; ++e) slot.step_start[e] = slot.last[e] = slot.now[e];
          break;
        case Boundary::end_region:
          for (std::size_t e = 0; e < n; ++e) {
            slot.totals[e][r] += slot.now[e] - slot.last[e];
            slot.last[e] = slot.now[e];
          }
          break;
        case Boundary::end_step:
          for (std::size_t e = 0; e < n; ++e) {
            slot.totals[e][static_cast<std::size_t>(Region::step)] += slot.now[e] - slot.step_start[e];
            slot.last[e] = slot.now[e];
          }
          break;
      }
    }
  }
}

void RegionCounters::begin_step() { at_boundary(Boundary::begin_step, Region::step); }

void RegionCounters::end_of(Region region) {
  if (region == Region::step) throw std::logic_error("RegionCounters::end_of: the step region ends with end_step()");
  at_boundary(Boundary::end_region, region);
}

void RegionCounters::end_step() { at_boundary(Boundary::end_step, Region::step); }

std::optional<std::string> RegionCounters::thread_problem() const {
  if (team_problem_) return *team_problem_;
  for (std::size_t t = 0; t < slots_.size(); ++t)
    if (slots_[t].problem) return fmt::format("thread {}: {}", t, *slots_[t].problem);
  return std::nullopt;
}

RankCounts RegionCounters::counts() const {
  RankCounts counts;
  counts.library = library_;
  counts.unavailable = unavailable_;
  counts.threads = threads_;
  const std::optional<std::string> failed_thread = counting_ ? thread_problem() : std::nullopt;
  for (std::size_t i = 0; i < names_.size(); ++i)
    counts.events.push_back({names_[i], probes_[i].problem, {}, probes_[i].problem ? "" : probes_[i].modes,
                             probes_[i].problem ? "" : probes_[i].counted_by});
  for (std::size_t k = 0; k < kept_.size(); ++k) {
    EventCounts& event = counts.events[kept_[k]];
    if (failed_thread) {
      event.problem = *failed_thread;
      event.modes.clear();
      event.counted_by.clear();
      continue;
    }
    for (const ThreadSlot& slot : slots_) event.per_thread.push_back(slot.totals[k]);
  }
  return counts;
}

}  // namespace wave3d::counters
