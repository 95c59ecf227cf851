#pragma once
// The files of a run on disk: the per-run directory, whole-file atomic writes (a reader, or a crash,
// never sees a half-written run.json), and steps.csv with every rank's per-step phase times.
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/step_times.hpp"

namespace wave3d {

inline constexpr std::string_view kRunJsonName = "run.json";
inline constexpr std::string_view kStepsCsvName = "steps.csv";

// "<UTC YYYYmmdd-HHMMSS>-<host>-<pid>"; characters of `host` outside [A-Za-z0-9._-] become '_'.
std::string default_run_name(std::chrono::system_clock::time_point started, std::string_view host, long pid);

// Creates parent/name (and missing parents) and returns its path. An empty name means
// default_run_name(started, short_hostname(), getpid()). Throws std::invalid_argument for a name
// that is not a single path component, and std::runtime_error when the directory cannot be
// created or already holds a run.json (an earlier run's results are never overwritten).
std::filesystem::path create_run_directory(const std::filesystem::path& parent, std::string_view name,
                                           std::chrono::system_clock::time_point started);

// Throws std::runtime_error starting "<setting> = '<dir>'" when `dir` could not be created and written
// in: a part of the path that exists is not a directory, or the nearest existing directory refuses
// writes. Creates nothing; what create_run_directory and the checkpoint writer will meet, told before
// a job spends its allocation.
void check_directory_can_be_created(const std::filesystem::path& dir, std::string_view setting);

// Throws what create_run_directory(parent, name, ...) would: a bad name, a path that cannot become a
// directory (output.directory), a name whose directory already holds a run.json. Creates nothing.
void check_run_directory_can_be_created(const std::filesystem::path& parent, std::string_view name);

// Removes a run directory that holds nothing (a run refused before it wrote anything); leaves any
// other directory alone. Never throws.
void remove_if_empty(const std::filesystem::path& dir) noexcept;

// Writes `contents` to "<path>.tmp.<pid>" in the same directory, fsyncs it, renames it over `path`
// and fsyncs the directory, so `path` holds either the old or the complete new contents. On failure
// removes the temporary and throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// write_file_atomically of the document, pretty-printed with 2-space indentation and a final
// newline. Invalid UTF-8 in strings (e.g. from the environment) is replaced, not fatal.
void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& document);

// steps.csv: header "rank,step,<phase>..." then, rank by rank, one row per step with the seconds of
// each phase ("%.9g"; empty where a phase was not recorded). per_rank[r] holds rank r's times; all
// must have the same phases (std::invalid_argument otherwise). Steps are numbered as the snapshots
// and checkpoints are: step n takes the field from time level n-1 to n, so the row of step n is the
// step after which wavefield_<n>.h5 is written. A run continued from the checkpoint of step k
// numbers its first step first_step = k + 1.
std::string format_steps_csv(const std::vector<StepTimes>& per_rank, int first_step = 1);
void write_steps_csv(const std::filesystem::path& path, const std::vector<StepTimes>& per_rank, int first_step = 1);

}  // namespace wave3d
