#pragma once
// A counter backend with known behaviour, so the per-thread, per-region bookkeeping can be checked
// exactly on any machine. Events:
//   fake::steady-N   counted; every read adds (thread + 1) * N to it (N = 1..9)
//   fake::missing    rejected by probe() ("no such fake event")
// Options make the whole backend unavailable, make thread `fail_open_on_thread` fail to open, or
// make reads fail after `fail_read_after` reads.
#include <omp.h>

#include <optional>
#include <string>
#include <vector>

#include "counters/counter_backend.hpp"

namespace wave3d::counters::testing {

struct FakeOptions {
  std::optional<std::string> unavailable{};
  int fail_open_on_thread = -1;
  int fail_read_after = -1;
};

class FakeReader final : public EventReader {
 public:
  FakeReader(std::vector<long long> steps, int fail_read_after)
      : steps_(std::move(steps)), values_(steps_.size(), 0), fail_read_after_(fail_read_after) {}
  std::optional<std::string> read(std::span<long long> values) override {
    if (fail_read_after_ >= 0 && reads_ >= fail_read_after_) return "fake read failure";
    ++reads_;
    for (std::size_t i = 0; i < values_.size(); ++i) values[i] = values_[i] += steps_[i];
    return std::nullopt;
  }

 private:
  std::vector<long long> steps_, values_;
  int fail_read_after_;
  int reads_ = 0;
};

class FakeBackend final : public CounterBackend {
 public:
  explicit FakeBackend(FakeOptions options = {}) : options_(std::move(options)) {}
  std::string library() const override { return "fake 1.0"; }
  std::optional<std::string> unavailable_reason() const override { return options_.unavailable; }
  std::vector<EventProbe> probe(std::span<const std::string> names) override {
    std::vector<EventProbe> result;
    for (const std::string& n : names)
      result.push_back(n.starts_with("fake::steady-") ? EventProbe{std::nullopt, "user+kernel", {}}
                                                       : EventProbe{"no such fake event", {}, {}});
    return result;
  }
  OpenedEvents open_for_this_thread(std::span<const std::string> names) override {
    const int thread = omp_get_thread_num();
    if (thread == options_.fail_open_on_thread) return {nullptr, "fake open failure"};
    std::vector<long long> steps;
    for (const std::string& n : names) steps.push_back((thread + 1) * std::stoll(n.substr(13)));
    return {std::make_unique<FakeReader>(std::move(steps), options_.fail_read_after), {}};
  }
  OpenedDramEvents open_dram(std::span<const int>) override {
    OpenedDramEvents dram;
    dram.problem = "fake machine without uncore events";
    return dram;
  }

 private:
  FakeOptions options_;
};

}  // namespace wave3d::counters::testing
