#include "output/json_document.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "output/result_files.hpp"

namespace wave3d {

nlohmann::json json_header(JsonFormat format, std::string_view command, nlohmann::json provenance) {
  return {{"format", format.name},
          {"format_version", format.version},
          {"command", command},
          {"provenance", std::move(provenance)}};
}

void write_json_document(const std::filesystem::path& path, JsonFormat format, std::string_view command,
                         nlohmann::json provenance, nlohmann::json body) {
  body.update(json_header(format, command, std::move(provenance)));
  write_json_atomically(path, body);
}

void check_output_file(const std::filesystem::path& path, std::string_view option) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw std::runtime_error(fmt::format("{} {}: cannot create its directory: {}", option, path.string(), ec.message()));
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(fmt::format("{} {}: is a directory, not a file", option, path.string()));
  std::filesystem::path probe = path;
  probe += fmt::format(".probe.{}", static_cast<long>(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    throw std::runtime_error(fmt::format("{} {}: cannot write there: {}", option, path.string(), std::strerror(error)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace wave3d
