// wave3d-noise: a periodic "OS noise" generator, modelled on the memory-monitoring daemon of the Lattice
// QCD surplus-core study. Every --period it wakes, does --duration of work of one --kind (memscan: read
// and write a --mib buffer, competing for memory bandwidth; spin: a busy loop), then sleeps until the next
// period. Deadlines are absolute (start + k * period), so bursts do not drift. It runs until SIGTERM or
// SIGINT, or for --run-for. With --log FILE each burst is one line "start_ns\tduration_ns" (start relative
// to the program start, like LogGOPSim noise traces; the summary line gives that start on CLOCK_MONOTONIC). No MPI, no threads, no child processes.
//
//   wave3d-noise --period 10ms --duration 1ms --kind memscan --mib 64 --cpus 0-3,8 --log noise.tsv
#include "noise_parse.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::nanoseconds;

// The one piece of global mutable state. It has to be a global: a signal handler receives only the
// signal number, so the flag it sets cannot be passed to it. It is a lock-free atomic, which is
// async-signal-safe to store to (std::sig_atomic_t would also do).
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the stop flag must be lock-free to be set from a signal handler");

extern "C" void on_stop_signal(int sig) { g_stop_signal.store(sig, std::memory_order_relaxed); }

bool stop_requested() { return g_stop_signal.load(std::memory_order_relaxed) != 0; }

// Exit code 2 for bad arguments, with one message naming the option, the value and what is allowed.
struct UsageError {
  std::string message;
};

[[noreturn]] void usage_error(const std::string& option, const std::string& value, const std::string& allowed) {
  throw UsageError{fmt::format("{} '{}': {}", option, value, allowed)};
}

enum class Kind { memscan, spin };

struct Options {
  nanoseconds period{};
  nanoseconds duration{};
  Kind kind = Kind::memscan;
  std::size_t mib = 64;
  std::optional<nanoseconds> run_for;
  std::optional<std::vector<int>> cpus;
  std::string log_path;
};

nanoseconds duration_option(const std::string& option, const std::string& value) {
  auto parsed = wave3d::noise::parse_duration(value);
  if (!parsed) {
    usage_error(option, value, "expected a positive duration: a number and a unit ns, us, ms or s (e.g. 250us, 10ms, 2s)");
  }
  return *parsed;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) {
        cpus.push_back(cpu);
      }
    }
  }
  return cpus;
}

// Pins the process to `cpus`, all of which must be in the current affinity mask.
void pin_to(const std::string& text, const std::vector<int>& cpus) {
  const std::vector<int> allowed = allowed_cpus();
  const std::string allowed_text = wave3d::noise::format_cpu_list(allowed);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (!std::binary_search(allowed.begin(), allowed.end(), cpu)) {
      usage_error("--cpus", text, fmt::format("CPU {} is not available to this process; allowed CPUs: {}", cpu, allowed_text));
    }
    CPU_SET(cpu, &set);
  }
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    usage_error("--cpus", text, fmt::format("sched_setaffinity failed ({}); allowed CPUs: {}", std::strerror(errno), allowed_text));
  }
}

// Sleeps until `deadline` or until SIGTERM/SIGINT arrives, whichever is first. The stop signals are
// blocked around "check the flag, then sleep" and ppoll unblocks them atomically for the sleep itself,
// so a signal that lands just before the sleep still wakes it at once (no lost wake-up).
void sleep_until(Clock::time_point deadline) {
  sigset_t stop_set;
  sigset_t old_set;
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGTERM);
  sigaddset(&stop_set, SIGINT);
  sigprocmask(SIG_BLOCK, &stop_set, &old_set);
  sigset_t wait_set = old_set;
  sigdelset(&wait_set, SIGTERM);
  sigdelset(&wait_set, SIGINT);
  while (!stop_requested()) {
    const auto left = deadline - Clock::now();
    if (left <= nanoseconds::zero()) {
      break;
    }
    const auto ns = std::chrono::duration_cast<nanoseconds>(left).count();
    timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    ppoll(nullptr, 0, &timeout, &wait_set);  // returns 0 at the timeout, -1/EINTR on a signal
  }
  sigprocmask(SIG_SETMASK, &old_set, nullptr);
}

// Work for one burst. Both kinds run until `end` (or a stop signal) and then return.
class Worker {
 public:
  Worker(Kind kind, std::size_t mib) : kind_(kind) {
    if (kind_ == Kind::memscan) {
      words_ = mib * (std::size_t{1} << 20) / sizeof(std::uint64_t);
      buffer_ = std::make_unique<std::uint64_t[]>(words_);  // value-initialised: touches every page once
      for (std::size_t i = 0; i < words_; ++i) {
        buffer_[i] = i;
      }
    }
  }

  void run_until(Clock::time_point end) {
    if (kind_ == Kind::spin) {
      while (Clock::now() < end && !stop_requested()) {
      }
      return;
    }
    // Read-modify-write in 256 KiB chunks, checking the clock between chunks; the position carries over
    // from burst to burst so the whole buffer is swept.
    constexpr std::size_t chunk = (256 * 1024) / sizeof(std::uint64_t);
    std::uint64_t sum = 0;
    do {
      const std::size_t stop = std::min(pos_ + chunk, words_);
      for (std::size_t i = pos_; i < stop; ++i) {
        sum += buffer_[i];
        buffer_[i] += 1;
      }
      pos_ = stop == words_ ? 0 : stop;
    } while (Clock::now() < end && !stop_requested());
    sink_ = sink_ + sum;  // volatile: the reads cannot be optimised away
  }

 private:
  Kind kind_;
  std::size_t words_ = 0;
  std::size_t pos_ = 0;
  std::unique_ptr<std::uint64_t[]> buffer_;
  volatile std::uint64_t sink_ = 0;
};

Options parse_options(int argc, char** argv, int& exit_code) {
  CLI::App app{"wave3d-noise: periodic OS-noise bursts (memory scan or busy spin), optionally pinned and logged"};
  app.set_version_flag("--version", "wave3d-noise " WAVE3D_NOISE_VERSION);
  std::string period = "10ms";
  std::string duration = "1ms";
  std::string kind = "memscan";
  std::string run_for;
  std::string cpus;
  Options opt;
  app.add_option("--period", period, "time between burst starts, e.g. 250us, 10ms, 1s")->capture_default_str();
  app.add_option("--duration", duration, "work per burst, at most --period")->capture_default_str();
  app.add_option("--kind", kind, "memscan (read+write --mib MiB) or spin (busy loop)")
      ->capture_default_str()
      ->check(CLI::IsMember({"memscan", "spin"}));
  app.add_option("--mib", opt.mib, "memscan buffer size in MiB")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  app.add_option("--run-for", run_for, "stop after this long (default: until SIGTERM/SIGINT)");
  app.add_option("--cpus", cpus, "pin to these CPUs, e.g. 0-3,8 (default: float)");
  app.add_option("--log", opt.log_path, "write one line per burst: start_ns<TAB>duration_ns");
  bool check_only = false;
  app.add_flag("--check", check_only, "only check the arguments (as a study does before its first run): exit 0 or 2");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e);
    return opt;
  } catch (const CLI::CallForVersion& e) {
    exit_code = app.exit(e);
    return opt;
  } catch (const CLI::ParseError& e) {
    throw UsageError{fmt::format("{} (see --help)", e.what())};
  }
  opt.period = duration_option("--period", period);
  opt.duration = duration_option("--duration", duration);
  if (opt.duration > opt.period) {
    usage_error("--duration", duration, fmt::format("must not exceed --period ({})", period));
  }
  opt.kind = kind == "spin" ? Kind::spin : Kind::memscan;
  if (!run_for.empty()) {
    opt.run_for = duration_option("--run-for", run_for);
  }
  if (!cpus.empty()) {
    opt.cpus = wave3d::noise::parse_cpu_list(cpus);
    if (!opt.cpus) {
      usage_error("--cpus", cpus, "expected a CPU list like 0-3,8");
    }
    pin_to(cpus, *opt.cpus);
  }
  if (check_only) {
    std::printf("wave3d-noise: arguments accepted\n");
    exit_code = 0;
    return opt;
  }
  exit_code = -1;
  return opt;
}

int run(const Options& opt) {
  std::ofstream log;
  if (!opt.log_path.empty()) {
    log.open(opt.log_path, std::ios::out | std::ios::trunc);
    if (!log) {
      throw UsageError{fmt::format("--log '{}': cannot open for writing ({})", opt.log_path, std::strerror(errno))};
    }
  }

  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR so the loop re-checks the flag
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  const auto program_start = Clock::now();
  Worker worker(opt.kind, opt.mib);
  // Without --run-for, a deadline that never comes.
  const Clock::time_point end_of_run = opt.run_for ? program_start + *opt.run_for : Clock::time_point::max();

  std::uint64_t bursts = 0;
  nanoseconds total_work{};
  nanoseconds first_start{};
  nanoseconds last_start{};
  // Burst k is due at first_due + k * period; when one is missed (overload), skip to the next one.
  const auto first_due = Clock::now();
  std::int64_t k = 0;
  while (!stop_requested()) {
    auto due = first_due + k * opt.period;
    if (due >= end_of_run) {
      break;
    }
    sleep_until(due);
    if (stop_requested()) {
      break;
    }
    const auto start = Clock::now();
    worker.run_until(start + opt.duration);
    const auto finish = Clock::now();
    const auto start_ns = std::chrono::duration_cast<nanoseconds>(start - program_start);
    const auto work_ns = std::chrono::duration_cast<nanoseconds>(finish - start);
    if (bursts == 0) {
      first_start = start_ns;
    }
    last_start = start_ns;
    ++bursts;
    total_work += work_ns;
    if (log.is_open()) {
      log << start_ns.count() << '\t' << work_ns.count() << '\n';
    }
    // The next due time strictly after now: absolute deadlines, so a late burst does not shift the rest.
    const auto since_first = Clock::now() - first_due;
    k = std::max<std::int64_t>(k + 1, since_first / opt.period + 1);
  }

  int code = 0;
  if (log.is_open()) {
    log.flush();
    log.close();
    if (!log) {
      std::fprintf(stderr, "wave3d-noise: error: --log '%s': write failed\n", opt.log_path.c_str());
      code = 1;
    }
  }
  const int sig = g_stop_signal.load();
  const double mean_ms = bursts ? static_cast<double>(total_work.count()) / static_cast<double>(bursts) / 1e6 : 0.0;
  const double period_ms =
      bursts > 1 ? static_cast<double>((last_start - first_start).count()) / static_cast<double>(bursts - 1) / 1e6 : 0.0;
  fmt::print("wave3d-noise: {} bursts ({}{}), mean duration {:.3f} ms, achieved period {:.3f} ms (requested: period {:.3f} ms, "
             "duration {:.3f} ms), stopped by {}; log times count from CLOCK_MONOTONIC {} ns\n",
             bursts, opt.kind == Kind::spin ? "spin" : "memscan",
             opt.kind == Kind::memscan ? fmt::format(" {} MiB", opt.mib) : std::string(), mean_ms, period_ms,
             static_cast<double>(opt.period.count()) / 1e6, static_cast<double>(opt.duration.count()) / 1e6,
             sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "--run-for",
             // steady_clock is CLOCK_MONOTONIC on Linux: the origin lines the log up with other traces
             // (wave3d noise --json records its own origin the same way).
             std::chrono::duration_cast<nanoseconds>(program_start.time_since_epoch()).count());
  std::fflush(stdout);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int exit_code = -1;
    const Options opt = parse_options(argc, argv, exit_code);
    if (exit_code >= 0) {
      return exit_code;
    }
    return run(opt);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "wave3d-noise: error: %s\n", e.message.c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "wave3d-noise: error: cannot allocate the --mib buffer\n");
    return 1;
  }
}
