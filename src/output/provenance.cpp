#include "output/provenance.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <utility>

#include "output/build_info.hpp"
#include "output/runtime_json.hpp"
#include "output/timestamps.hpp"
#include "runtime/hostname.hpp"
#include "runtime/machine_info.hpp"

namespace wave3d {
namespace {

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
}

// Batch-system variables that identify the job and its shape, the same on every rank.
constexpr std::array<std::string_view, 19> kJobVariables = {
    "SLURM_JOB_ID",       "SLURM_JOB_NAME",       "SLURM_JOB_NUM_NODES", "SLURM_JOB_NODELIST",
    "SLURM_JOB_PARTITION", "SLURM_CLUSTER_NAME",  "SLURM_NTASKS",        "SLURM_NTASKS_PER_NODE",
    "SLURM_CPUS_PER_TASK", "SLURM_CPU_BIND",      "SLURM_ARRAY_JOB_ID",  "SLURM_ARRAY_TASK_ID",
    "PBS_JOBID",          "PBS_JOBNAME",          "PBS_QUEUE",           "PBS_NUM_NODES",
    "PBS_NUM_PPN",        "PBS_NP",               "PBS_ARRAY_INDEX"};

// Open MPI's per-process variables: OMPI_COMM_WORLD_RANK, ..._LOCAL_RANK, ..._NODE_RANK,
// OMPI_FIRST_RANKS, OMPI_MCA_orte_ess_vpid.
bool is_rank_specific_ompi(std::string_view name) {
  return name.find("RANK") != std::string_view::npos || name.ends_with("_vpid");
}

}  // namespace

bool is_recorded_environment_variable(std::string_view name) {
  if (std::find(kJobVariables.begin(), kJobVariables.end(), name) != kJobVariables.end()) return true;
  if (!starts_with_any(name, {"OMP_", "GOMP_", "KMP_", "OMPI_", "WAVE3D_"})) return false;
  if (!name.starts_with("OMPI_")) return true;
  // precondition_transports is a per-job key the network transports use; not something to publish.
  return !is_rank_specific_ompi(name) && name.find("precondition_transports") == std::string_view::npos;
}

nlohmann::json filter_environment(const std::vector<std::string>& entries) {
  nlohmann::json recorded = nlohmann::json::object();
  for (const std::string& entry : entries) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = entry.substr(0, eq);
    if (is_recorded_environment_variable(name)) recorded[name] = entry.substr(eq + 1);
  }
  return recorded;
}

nlohmann::json collect_environment() {
  std::vector<std::string> entries;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) entries.emplace_back(*e);
  return filter_environment(entries);
}

nlohmann::json batch_job_provenance(const nlohmann::json& environment) {
  // Slurm first: with its PBS compatibility (spank_pbs) a Slurm job carries PBS_JOBID too, and the Slurm
  // id is the one squeue, sacct and the job's output file name know.
  for (const auto& [scheduler, variable] : {std::pair{"slurm", "SLURM_JOB_ID"}, std::pair{"pbs", "PBS_JOBID"}}) {
    const auto it = environment.find(variable);
    if (it != environment.end() && it->is_string() && !it->get<std::string>().empty())
      return {{"scheduler", scheduler}, {"job_id", *it}};
  }
  return nullptr;
}

std::string openmp_spec_version(long openmp_macro) {
  static constexpr std::array<std::pair<long, const char*>, 11> kSpecs = {{{199810, "1.0"},
                                                                           {200203, "2.0"},
                                                                           {200505, "2.5"},
                                                                           {200805, "3.0"},
                                                                           {201107, "3.1"},
                                                                           {201307, "4.0"},
                                                                           {201511, "4.5"},
                                                                           {201811, "5.0"},
                                                                           {202011, "5.1"},
                                                                           {202111, "5.2"},
                                                                           {202411, "6.0"}}};
  for (const auto& [value, spec] : kSpecs)
    if (value == openmp_macro) return spec;
  return "unknown";
}

nlohmann::json openmp_provenance() {
  return {{"macro", static_cast<long>(_OPENMP)},
          {"spec", openmp_spec_version(_OPENMP)},
          {"max_threads", omp_get_max_threads()}};
}

nlohmann::json build_provenance() {
  const std::string_view dirty = build_info::git_dirty;
  nlohmann::json dirty_json = nullptr;  // unknown outside a git checkout
  if (dirty == "true") dirty_json = true;
  if (dirty == "false") dirty_json = false;
  return {{"wave3d_version", build_info::version},
          {"git", {{"commit", build_info::git_commit}, {"describe", build_info::git_describe}, {"dirty", dirty_json}}},
          {"build",
           {{"type", build_info::build_type},
            {"compiler", {{"id", build_info::compiler_id}, {"version", build_info::compiler_version}}},
            {"cxx_flags", build_info::cxx_flags},
            {"native", build_info::native},
            {"sanitize", build_info::sanitize}}}};
}

nlohmann::json collect_provenance(const MpiFacts& mpi, const std::vector<std::string>& command_line,
                                  std::chrono::system_clock::time_point started) {
  nlohmann::json p = build_provenance();
  p["openmp"] = openmp_provenance();
  p["mpi"] = {{"library_version", mpi.library_version},
              {"thread_level", mpi.thread_level},
              {"world_size", mpi.world_size}};
  p["hostname"] = hostname();
  p["machine"] = collect_machine_info();
  p["started_utc"] = iso8601_utc(started);
  p["command_line"] = command_line;
  p["environment"] = collect_environment();
  p["batch_job"] = batch_job_provenance(p["environment"]);
  return p;
}

}  // namespace wave3d
