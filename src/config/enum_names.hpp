#pragma once
// The TOML spelling of every enumerated setting, indexed by the enumerator's value. These arrays are
// the only place the words are written: the schema takes its allowed values from them and the JSON
// and help text print them, so parsing and printing cannot disagree.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/run_config.hpp"

namespace wave3d {

template <typename E>
struct EnumNames;  // specialised below: static constexpr std::array<std::string_view, N> names

template <>
struct EnumNames<Boundary> {
  static constexpr std::array<std::string_view, 2> names{"zero", "periodic"};
};
template <>
struct EnumNames<Precision> {
  static constexpr std::array<std::string_view, 2> names{"single", "double"};
};
template <>
struct EnumNames<KernelChoice> {
  static constexpr std::array<std::string_view, 6> names{"auto", "reference", "blocked", "jammed", "columns", "folded"};
};
template <>
struct EnumNames<Denormals> {
  static constexpr std::array<std::string_view, 2> names{"flush", "keep"};
};
template <>
struct EnumNames<MemoryPolicy> {
  static constexpr std::array<std::string_view, 4> names{"first-touch", "serial", "interleave", "node"};
};
template <>
struct EnumNames<InitialKind> {
  static constexpr std::array<std::string_view, 3> names{"seed-cube", "mode", "ricker"};
};
template <>
struct EnumNames<ProgressMode> {
  static constexpr std::array<std::string_view, 4> names{"auto", "live", "plain", "off"};
};
template <>
struct EnumNames<VerifyMethod> {
  static constexpr std::array<std::string_view, 3> names{"auto", "exact", "none"};
};

template <>
struct EnumNames<HaloMode> {
  static constexpr std::array<std::string_view, 2> names{"bulk", "overlap"};
};
template <>
struct EnumNames<TemporalHalo> {
  static constexpr std::array<std::string_view, 3> names{"auto", "deep", "split"};
};
template <>
struct EnumNames<ProgressEngine> {
  static constexpr std::array<std::string_view, 3> names{"none", "thread", "poll"};
};

template <>
struct EnumNames<PlacementLayout> {
  static constexpr std::array<std::string_view, 5> names{"none", "rank-per-node", "rank-per-socket", "rank-per-numa",
                                                         "rank-per-core"};
};

template <>
struct EnumNames<SnapshotWriterKind> {
  static constexpr std::array<std::string_view, 2> names{"collective", "io-threads"};
};

// Indexing by enumerator value relies on each list following the enum's declaration order. These tie
// each list's length to the enum's last enumerator, so a removed or renamed enumerator fails to
// compile; one appended at the end must be added to its list and named here.
static_assert(static_cast<std::size_t>(Boundary::periodic) + 1 == EnumNames<Boundary>::names.size());
static_assert(static_cast<std::size_t>(Precision::double_) + 1 == EnumNames<Precision>::names.size());
static_assert(static_cast<std::size_t>(KernelChoice::folded) + 1 == EnumNames<KernelChoice>::names.size());
static_assert(static_cast<std::size_t>(Denormals::keep) + 1 == EnumNames<Denormals>::names.size());
static_assert(static_cast<std::size_t>(MemoryPolicy::node) + 1 == EnumNames<MemoryPolicy>::names.size());
static_assert(static_cast<std::size_t>(InitialKind::ricker) + 1 == EnumNames<InitialKind>::names.size());
static_assert(static_cast<std::size_t>(ProgressMode::off) + 1 == EnumNames<ProgressMode>::names.size());
static_assert(static_cast<std::size_t>(VerifyMethod::none) + 1 == EnumNames<VerifyMethod>::names.size());
static_assert(static_cast<std::size_t>(HaloMode::overlap) + 1 == EnumNames<HaloMode>::names.size());
static_assert(static_cast<std::size_t>(TemporalHalo::split) + 1 == EnumNames<TemporalHalo>::names.size());
static_assert(static_cast<std::size_t>(ProgressEngine::poll) + 1 == EnumNames<ProgressEngine>::names.size());
static_assert(static_cast<std::size_t>(PlacementLayout::rank_per_core) + 1 == EnumNames<PlacementLayout>::names.size());
static_assert(static_cast<std::size_t>(SnapshotWriterKind::io_threads) + 1 ==
              EnumNames<SnapshotWriterKind>::names.size());

template <typename E>
constexpr std::string_view enum_name(E value) {
  return EnumNames<E>::names[static_cast<std::size_t>(value)];
}

// Every word of E in declaration order, e.g. the allowed values of a command-line option.
template <typename E>
std::vector<std::string> enum_words() {
  return {EnumNames<E>::names.begin(), EnumNames<E>::names.end()};
}

template <typename E>
constexpr std::optional<E> enum_from_name(std::string_view name) {
  const auto& names = EnumNames<E>::names;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace wave3d
