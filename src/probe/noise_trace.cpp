#include "probe/noise_trace.hpp"

#include <fmt/format.h>

#include <iterator>

#include "output/result_files.hpp"

namespace wave3d {

std::string detour_trace_name(std::string_view host, int cpu) {
  std::string safe(host);
  for (char& c : safe) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    if (!keep) c = '_';
  }
  return fmt::format("detours-{}-cpu{}.tsv", safe, cpu);
}

std::string format_detour_trace(std::span<const Detour> detours) {
  std::string out;
  out.reserve(detours.size() * 20);
  for (const Detour& d : detours) fmt::format_to(std::back_inserter(out), "{}\t{}\n", d.start_ns, d.duration_ns);
  return out;
}

void write_detour_trace(const std::filesystem::path& path, std::span<const Detour> detours) {
  write_file_atomically(path, format_detour_trace(detours));
}

}  // namespace wave3d
