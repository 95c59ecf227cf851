#include "topology/placement_request.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace wave3d {
namespace {

constexpr std::string_view reserve_forms = "none, per-socket:N, per-node:N or list:I,J,...";

int parse_count(std::string_view digits, std::string_view whole) {
  int value = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size() || value < 0)
    throw std::invalid_argument(
        fmt::format("bad reserved cores \"{}\": \"{}\" is not a core count or index; use {}", whole, digits,
                    reserve_forms));
  return value;
}

}  // namespace

std::string_view to_string(Layout layout) {
  switch (layout) {
    case Layout::rank_per_node: return "rank-per-node";
    case Layout::rank_per_socket: return "rank-per-socket";
    case Layout::rank_per_numa: return "rank-per-numa";
    case Layout::rank_per_core: return "rank-per-core";
  }
  return "?";
}

std::optional<Layout> parse_layout(std::string_view text) {
  for (Layout l : all_layouts)
    if (to_string(l) == text) return l;
  return std::nullopt;
}

ReservedCores ReservedCores::parse(std::string_view text) {
  if (text == "none" || text.empty()) return none();
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  if (colon == std::string_view::npos || rest.empty() ||
      (kind != "per-socket" && kind != "per-node" && kind != "list"))
    throw std::invalid_argument(fmt::format("bad reserved cores \"{}\"; use {}", text, reserve_forms));
  if (kind == "per-socket") return per_socket(parse_count(rest, text));
  if (kind == "per-node") return per_node(parse_count(rest, text));
  std::vector<int> ids;
  for (std::size_t pos = 0; pos <= rest.size();) {
    const auto comma = std::min(rest.find(',', pos), rest.size());
    ids.push_back(parse_count(rest.substr(pos, comma - pos), text));
    pos = comma + 1;
  }
  return list(std::move(ids));
}

std::string ReservedCores::to_string() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::per_socket: return fmt::format("per-socket:{}", count);
    case Kind::per_node: return fmt::format("per-node:{}", count);
    case Kind::list: return fmt::format("list:{}", fmt::join(cores, ","));
  }
  return "?";
}

}  // namespace wave3d
