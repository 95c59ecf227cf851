#pragma once
// A counter library with the kernel's software events behind it. Every event goes to the library
// first; a software event (software_events.hpp) the library cannot count, because it is not built in,
// its perf_event component is disabled, or it refuses the event, is counted through perf_event_open
// instead, and says so (EventProbe::counted_by). Other events keep the library's answer. A thread's
// reader reads both and hands back one list in the order asked for.
#include <memory>

#include "counters/counter_backend.hpp"

namespace wave3d::counters {

std::unique_ptr<CounterBackend> with_software_event_fallback(std::unique_ptr<CounterBackend> library,
                                                             std::unique_ptr<CounterBackend> software);

}  // namespace wave3d::counters
