#pragma once
// The kernel's software events, counted straight through perf_event_open(2): task and CPU clock,
// context switches, CPU migrations and page faults. The kernel counts these on any Linux machine that
// allows a process to watch itself (perf_event_paranoid <= 2, or root), virtual machines without a
// PMU included, where a counter library may count nothing (PAPI with its perf_event component
// disabled, or a build without PAPI). They take the names libpfm4 gives them, so the same
// counters.events works either way: perf::TASK-CLOCK, perf::CPU-CLOCK, perf::CONTEXT-SWITCHES (perf::CS),
// perf::CPU-MIGRATIONS (perf::MIGRATIONS), perf::PAGE-FAULTS (perf::FAULTS), perf::MINOR-FAULTS,
// perf::MAJOR-FAULTS, also spelt perf::PERF_COUNT_SW_TASK_CLOCK and so on; libpfm4's :u and :k masks
// (":u=1:k=0") choose the modes, else user and kernel mode where permitted, else user mode.
#include <memory>
#include <string_view>

#include "counters/counter_backend.hpp"

namespace wave3d::counters {

inline constexpr const char* kSoftwareEventsLibrary = "perf_event_open";

// True when `name` (masks included) is one of the software events above.
bool is_software_event(std::string_view name);

// A backend counting only the software events; every other name is refused with the reason.
std::unique_ptr<CounterBackend> make_software_event_backend();

}  // namespace wave3d::counters
