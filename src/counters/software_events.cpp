#include "counters/software_events.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace wave3d::counters {
namespace {

struct SoftwareEvent {
  std::string_view name;  // libpfm4's name, after "perf::"
  std::string_view alias;
  std::uint64_t config;
};

constexpr std::array<SoftwareEvent, 7> kEvents{{
    {"TASK-CLOCK", "PERF_COUNT_SW_TASK_CLOCK", PERF_COUNT_SW_TASK_CLOCK},
    {"CPU-CLOCK", "PERF_COUNT_SW_CPU_CLOCK", PERF_COUNT_SW_CPU_CLOCK},
    {"CONTEXT-SWITCHES", "CS", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"CPU-MIGRATIONS", "MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"PAGE-FAULTS", "FAULTS", PERF_COUNT_SW_PAGE_FAULTS},
    {"MINOR-FAULTS", "PERF_COUNT_SW_PAGE_FAULTS_MIN", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"MAJOR-FAULTS", "PERF_COUNT_SW_PAGE_FAULTS_MAJ", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
}};

// libpfm4 also spells every event PERF_COUNT_SW_<name with _ for ->.
bool names_event(std::string_view base, const SoftwareEvent& e) {
  if (base == e.name || base == e.alias) return true;
  constexpr std::string_view kPrefix = "PERF_COUNT_SW_";
  if (!base.starts_with(kPrefix) || base.size() - kPrefix.size() != e.name.size()) return false;
  for (std::size_t i = 0; i < e.name.size(); ++i) {
    const char want = e.name[i] == '-' ? '_' : e.name[i];
    if (base[kPrefix.size() + i] != want) return false;
  }
  return true;
}

// The modes a name asks for with libpfm4's masks (":u=0", ":k=1"); nullopt fields when not given.
struct Masks {
  std::optional<bool> user, kernel;
  bool valid = true;
};

struct ParsedName {
  const SoftwareEvent* event = nullptr;
  Masks masks;
};

ParsedName parse(std::string_view name) {
  ParsedName parsed;
  constexpr std::string_view kPmu = "perf::";
  if (!name.starts_with(kPmu)) return parsed;
  name.remove_prefix(kPmu.size());
  const std::size_t colon = name.find(':');
  const std::string_view base = name.substr(0, colon);
  for (const SoftwareEvent& e : kEvents)
    if (names_event(base, e)) parsed.event = &e;
  std::string_view rest = colon == std::string_view::npos ? std::string_view{} : name.substr(colon + 1);
  while (parsed.event != nullptr && !rest.empty()) {
    const std::size_t next = rest.find(':');
    const std::string_view mask = rest.substr(0, next);
    rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
    if (mask == "u=1" || mask == "u") parsed.masks.user = true;
    else if (mask == "u=0") parsed.masks.user = false;
    else if (mask == "k=1" || mask == "k") parsed.masks.kernel = true;
    else if (mask == "k=0") parsed.masks.kernel = false;
    else parsed.masks.valid = false;
  }
  return parsed;
}

// A counter of the calling thread (pid 0, any CPU), started at once, or the errno that refused it.
int open_counter(const SoftwareEvent& event, bool user, bool kernel, int& error) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = event.config;
  attr.exclude_user = user ? 0 : 1;
  attr.exclude_kernel = kernel ? 0 : 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  error = fd < 0 ? errno : 0;
  return static_cast<int>(fd);
}

std::string refusal(int error) {
  std::string why = fmt::format("perf_event_open failed: {}", std::generic_category().message(error));
  if (error == EACCES || error == EPERM)
    why += " (the kernel does not let this process watch itself: /proc/sys/kernel/perf_event_paranoid)";
  if (error == ENOSYS || error == ENOENT) why += " (this kernel has no perf events)";
  return why;
}

// How one event is opened: its modes, decided by the probe.
struct Choice {
  const SoftwareEvent* event = nullptr;
  bool user = true, kernel = true;
};

class SoftwareEventReader final : public EventReader {
 public:
  explicit SoftwareEventReader(std::vector<int> fds) : fds_(std::move(fds)) {}
  SoftwareEventReader(const SoftwareEventReader&) = delete;
  SoftwareEventReader& operator=(const SoftwareEventReader&) = delete;
  ~SoftwareEventReader() override {
    for (int fd : fds_) ::close(fd);
  }
  std::optional<std::string> read(std::span<long long> values) override {
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      std::uint64_t count = 0;
      if (::read(fds_[i], &count, sizeof(count)) != static_cast<ssize_t>(sizeof(count)))
        return fmt::format("reading a perf_event_open counter failed: {}", std::generic_category().message(errno));
      values[i] = static_cast<long long>(count);
    }
    return std::nullopt;
  }

 private:
  std::vector<int> fds_;
};

class SoftwareEventBackend final : public CounterBackend {
 public:
  SoftwareEventBackend() {
    // Whether this process may count at all: the task clock in user mode is the least it asks.
    int error = 0;
    const int fd = open_counter(kEvents[0], true, false, error);
    if (fd < 0)
      problem_ = refusal(error);
    else
      ::close(fd);
  }

  std::string library() const override { return kSoftwareEventsLibrary; }
  std::optional<std::string> unavailable_reason() const override { return problem_; }

  std::vector<EventProbe> probe(std::span<const std::string> names) override {
    std::vector<EventProbe> result(names.size());
    chosen_.clear();
    for (std::size_t i = 0; i < names.size(); ++i) {
      EventProbe& p = result[i];
      const ParsedName parsed = parse(names[i]);
      if (parsed.event == nullptr) {
        p.problem = "not one of the kernel's software events perf_event_open counts";
        continue;
      }
      if (!parsed.masks.valid) {
        p.problem = "perf_event_open takes only the masks :u=0/1 and :k=0/1 on a software event";
        continue;
      }
      if (problem_) {
        p.problem = *problem_;
        continue;
      }
      // Masks given: exactly those modes. Else user and kernel, falling back to user mode.
      std::vector<Choice> tries;
      if (parsed.masks.user || parsed.masks.kernel)
        tries.push_back({parsed.event, parsed.masks.user.value_or(true), parsed.masks.kernel.value_or(true)});
      else
        tries = {{parsed.event, true, true}, {parsed.event, true, false}};
      for (const Choice& c : tries) {
        int error = 0;
        const int fd = open_counter(*c.event, c.user, c.kernel, error);
        if (fd < 0) {
          p.problem = refusal(error);
          continue;
        }
        ::close(fd);
        p.problem.reset();
        p.modes = parsed.masks.user || parsed.masks.kernel ? "as the name's masks say"
                  : c.kernel                                ? "user+kernel"
                                                            : "user";
        p.counted_by = kSoftwareEventsLibrary;
        chosen_[names[i]] = c;
        break;
      }
    }
    return result;
  }

  OpenedEvents open_for_this_thread(std::span<const std::string> names) override {
    std::vector<int> fds;
    const auto give_up = [&](std::string why) {
      for (int fd : fds) ::close(fd);
      return OpenedEvents{nullptr, std::move(why)};
    };
    for (const std::string& name : names) {
      const auto found = chosen_.find(name);
      if (found == chosen_.end()) return give_up(fmt::format("{} was not probed", name));
      int error = 0;
      const int fd = open_counter(*found->second.event, found->second.user, found->second.kernel, error);
      if (fd < 0) return give_up(fmt::format("{}: {}", name, refusal(error)));
      fds.push_back(fd);
    }
    return {std::make_unique<SoftwareEventReader>(std::move(fds)), {}};
  }

  OpenedDramEvents open_dram(std::span<const int>) override {
    OpenedDramEvents dram;
    dram.problem = "the kernel's software events include no DRAM traffic";
    return dram;
  }

 private:
  std::optional<std::string> problem_;
  std::map<std::string, Choice> chosen_;  // by probe(): how each kept event is opened
};

}  // namespace

bool is_software_event(std::string_view name) { return parse(name).event != nullptr; }

std::unique_ptr<CounterBackend> make_software_event_backend() { return std::make_unique<SoftwareEventBackend>(); }

}  // namespace wave3d::counters
