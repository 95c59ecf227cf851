#include "engine/run_counters.hpp"

#include <omp.h>

#include <cstdio>

#include "counters/counters_text.hpp"
#include "counters/event_list.hpp"
#include "counters/rank_report.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"

namespace wave3d::engine {
namespace {

// Every rank's report, combined on rank 0 (elsewhere: an empty job).
counters::JobCounters combine_on_root(MPI_Comm comm, const counters::RankReport& mine, int steps, double seconds) {
  const std::vector<std::string> texts = mpi::gather_strings(comm, counters::rank_report_to_json(mine).dump(), 0);
  std::vector<counters::RankReport> reports;
  for (const std::string& text : texts) reports.push_back(counters::rank_report_from_json(nlohmann::json::parse(text)));
  return mpi::rank_in(comm) == 0 ? counters::combine_rank_reports(reports, steps, seconds) : counters::JobCounters{};
}

}  // namespace

RunCounters::RunCounters(const CounterSettings& settings, MPI_Comm comm) : enabled_(settings.enabled) {
  if (!enabled_) return;
  const bool measures_node = mpi::rank_on_node(comm).rank == 0;
  mpi::collectively(comm, [&] {
    backend_ = counters::make_counter_backend();
    regions_ = std::make_unique<counters::RegionCounters>(*backend_, counters::parse_event_list(settings.events),
                                                          omp_get_max_threads());
    if (measures_node) dram_ = std::make_unique<counters::DramCounter>(*backend_);
  });
  const counters::JobCounters setup = combine_on_root(comm, report(), 0, 0.0);
  if (mpi::rank_in(comm) != 0) return;
  for (const std::string& line : counters::unavailability_notices(setup)) std::fprintf(stderr, "wave3d: %s\n", line.c_str());
  std::fflush(stderr);
}

RunCounters::~RunCounters() = default;

void RunCounters::begin_step() {
  if (regions_) regions_->begin_step();
}

void RunCounters::end_step() {
  if (regions_) regions_->end_step();
}

void RunCounters::start_loop() {
  if (dram_) dram_->start();
}

void RunCounters::stop_loop() {
  if (dram_) dram_->stop();
}

counters::RankReport RunCounters::report() const {
  counters::RankReport r;
  if (regions_) r.regions = regions_->counts();
  if (dram_) r.dram = dram_->counts();
  return r;
}

counters::JobCounters RunCounters::gather(MPI_Comm comm, int steps, double seconds) const {
  if (!enabled_) return counters::disabled_counters();
  return combine_on_root(comm, report(), steps, seconds);
}

}  // namespace wave3d::engine
