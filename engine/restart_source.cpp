#include "engine/restart_source.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/restart_match.hpp"
#include "io/hdf5/file_commit.hpp"
#include "mpi/collective.hpp"
#include "mpi/environment.hpp"

namespace wave3d::engine {
namespace {

// The checkpoint restart.from names: the file itself, or in a directory the checkpoint_<step>.h5 with
// the highest step (a ".tmp" left by a killed writer is never taken).
std::filesystem::path resolve_restart_path(const std::string& from) {
  const std::filesystem::path path(from);
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw std::runtime_error("no such file or directory");
  // Whether an unpublished file is whole cannot be known: its writer may have been killed before it
  // closed the file, or just after. Refused whatever it holds, so that a restart never depends on when
  // the kill came.
  if (!std::filesystem::is_directory(status) && io::is_temporary_path(path))
    throw std::runtime_error(
        "a temporary file of a checkpoint write that was never published (the job was probably stopped while "
        "writing it); restart from a published checkpoint_<step>.h5, or from its directory");
  if (!std::filesystem::is_directory(status)) return path;
  static const std::regex name_pattern(R"(checkpoint_([0-9]+)\.h5)");
  std::optional<std::pair<long long, std::filesystem::path>> newest;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, name_pattern)) continue;
    const long long step = std::stoll(match[1].str());
    if (!newest || step > newest->first) newest = {step, entry.path()};
  }
  if (!newest) throw std::runtime_error("the directory holds no checkpoint_<step>.h5 file");
  return newest->second;
}

}  // namespace

RestartSource open_restart_source(const RunConfig& config, MPI_Comm comm) {
  const std::string& from = config.restart.from;
  const std::string setting = fmt::format("restart.from = '{}'", from);
  std::string path;
  mpi::collectively(comm, [&] {
    if (mpi::rank_in(comm) != 0) return;
    try {
      path = resolve_restart_path(from).string();
    } catch (const std::exception& e) {
      throw std::runtime_error(setting + ": " + e.what());
    }
  });
  path = mpi::broadcast_string(comm, path, 0);

  RestartSource source;
  source.path = path;
  source.setting = path == from ? setting : fmt::format("{} ({})", setting, path);
  mpi::collectively(comm, [&] {
    try {
      source.reader.emplace(comm, path);
    } catch (const std::exception& e) {
      throw std::runtime_error(source.setting + ": " + e.what());
    }
  });
  // Every rank read the same header, so every rank reaches the same verdict.
  const std::vector<std::string> mismatches =
      checkpoint_mismatches(source.reader->header(), source.reader->shape(), config);
  if (!mismatches.empty())
    throw mpi::CollectiveError(fmt::format("{}: {}", source.setting, fmt::join(mismatches, "; ")), 0);
  return source;
}

}  // namespace wave3d::engine
