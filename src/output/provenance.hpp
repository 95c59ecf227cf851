#pragma once
// Provenance of a run: which code, built how, ran where, when, with what command line and
// environment; the part of run.json that lets someone reproduce or question a result. The node
// library does not call MPI, so the MPI facts come in as plain values from the caller.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wave3d {

struct MpiFacts {
  std::string library_version;  // MPI_Get_library_version, first line
  std::string thread_level;     // provided level, e.g. "MPI_THREAD_FUNNELED"
  int world_size = 1;
};

// Everything below in one object: wave3d_version, git, build, openmp, mpi, hostname, machine,
// started_utc, command_line, environment and batch_job. Loads the hwloc topology (see collect_machine_info).
nlohmann::json collect_provenance(const MpiFacts& mpi, const std::vector<std::string>& command_line,
                                  std::chrono::system_clock::time_point started);

// The configure-time facts: wave3d_version, git {commit, describe, dirty}, build {type, compiler,
// cxx_flags, native, sanitize}.
nlohmann::json build_provenance();

// {"macro": _OPENMP, "spec": "4.5", "max_threads": omp_get_max_threads()}.
nlohmann::json openmp_provenance();
// The OpenMP specification a value of the _OPENMP macro stands for: 201511 -> "4.5"; "unknown"
// for values no specification uses.
std::string openmp_spec_version(long openmp_macro);

// Whether the environment variable `name` belongs in the record: OMP_*, GOMP_*, KMP_* (the OpenMP
// runtimes), OMPI_* (Open MPI), WAVE3D_*, and the job identity and shape of Slurm and PBS. Per-rank
// values (ranks, vpids) and transport keys are left out, so the record is the same from any rank.
bool is_recorded_environment_variable(std::string_view name);
// The recorded subset of `entries` ("NAME=value" strings, like environ) as a name -> value object.
nlohmann::json filter_environment(const std::vector<std::string>& entries);
// filter_environment applied to this process's environment.
nlohmann::json collect_environment();

// The batch job a run belongs to, from a recorded environment (see filter_environment):
// {"scheduler": "slurm", "job_id": SLURM_JOB_ID}, else {"scheduler": "pbs", "job_id": PBS_JOBID}, else
// null (not run under a batch scheduler).
nlohmann::json batch_job_provenance(const nlohmann::json& environment);

}  // namespace wave3d
