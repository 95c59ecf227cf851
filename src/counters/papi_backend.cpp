// The counter backend of builds with WAVE3D_WITH_PAPI=ON: PAPI's low-level API. This is the only file
// that includes papi.h.
//
// PAPI event sets belong to the thread that created them (PAPI_thread_init with pthread_self, as the
// PAPI documentation recommends over omp_get_thread_num). Events of different PAPI components cannot
// share an event set, so a thread's events are split into one set per component. Uncore DRAM events
// are counted system-wide on one CPU of each package (PAPI_CPU_ATTACH, PAPI_GRN_SYS, PAPI_DOM_ALL).
#include <papi.h>
#include <pthread.h>

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <utility>

#include "counters/counter_backend.hpp"

namespace wave3d::counters {
namespace {

constexpr std::pair<int, const char*> kErrorNames[] = {
    {PAPI_EINVAL, "PAPI_EINVAL"},   {PAPI_ENOMEM, "PAPI_ENOMEM"},       {PAPI_ESYS, "PAPI_ESYS"},
    {PAPI_ECMP, "PAPI_ECMP"},       {PAPI_ECLOST, "PAPI_ECLOST"},       {PAPI_EBUG, "PAPI_EBUG"},
    {PAPI_ENOEVNT, "PAPI_ENOEVNT"}, {PAPI_ECNFLCT, "PAPI_ECNFLCT"},     {PAPI_ENOTRUN, "PAPI_ENOTRUN"},
    {PAPI_EISRUN, "PAPI_EISRUN"},   {PAPI_ENOEVST, "PAPI_ENOEVST"},     {PAPI_ENOTPRESET, "PAPI_ENOTPRESET"},
    {PAPI_ENOCNTR, "PAPI_ENOCNTR"}, {PAPI_EMISC, "PAPI_EMISC"},         {PAPI_EPERM, "PAPI_EPERM"},
    {PAPI_ENOINIT, "PAPI_ENOINIT"}, {PAPI_ENOCMP, "PAPI_ENOCMP"},       {PAPI_ENOSUPP, "PAPI_ENOSUPP"},
    {PAPI_ENOIMPL, "PAPI_ENOIMPL"}, {PAPI_EBUF, "PAPI_EBUF"},           {PAPI_EINVAL_DOM, "PAPI_EINVAL_DOM"},
    {PAPI_EATTR, "PAPI_EATTR"},     {PAPI_ECOUNT, "PAPI_ECOUNT"},       {PAPI_ECOMBO, "PAPI_ECOMBO"},
    {PAPI_ECMP_DISABLED, "PAPI_ECMP_DISABLED"}, {PAPI_EMULPASS, "PAPI_EMULPASS"},
};

// "Event does not exist (PAPI_ENOEVNT)".
std::string papi_error(int code) {
  const char* text = PAPI_strerror(code);
  for (const auto& [value, name] : kErrorNames)
    if (value == code) return fmt::format("{} ({})", text != nullptr ? text : "error", name);
  return fmt::format("{} (PAPI error {})", text != nullptr ? text : "error", code);
}

std::string failed(const char* call, int code) { return fmt::format("{} failed: {}", call, papi_error(code)); }

unsigned long this_thread_id() { return static_cast<unsigned long>(pthread_self()); }

std::optional<std::string> start_papi() {
  if (PAPI_is_initialized() == PAPI_NOT_INITED) {
    const int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version < 0) return failed("PAPI_library_init", version);
    if (version != PAPI_VER_CURRENT)
      return fmt::format("PAPI_library_init: the PAPI library is version {}.{}, wave3d was built against {}.{}",
                         PAPI_VERSION_MAJOR(version), PAPI_VERSION_MINOR(version),
                         PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
  }
  if ((PAPI_is_initialized() & PAPI_THREAD_LEVEL_INITED) == 0) {
    const int rc = PAPI_thread_init(this_thread_id);
    if (rc != PAPI_OK) return failed("PAPI_thread_init", rc);
  }
  return std::nullopt;
}

// Why hardware events are missing, when the cause is likely the machine rather than the name.
std::string machine_hint(int code) {
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  if (hw == nullptr || !hw->virtualized) return {};
  if (code != PAPI_ENOEVNT && code != PAPI_ENOCNTR && code != PAPI_ECNFLCT && code != PAPI_ESYS) return {};
  return fmt::format("; this is a virtual machine ({}), which usually exposes no hardware counters",
                     hw->virtual_vendor_string[0] != '\0' ? hw->virtual_vendor_string : "hypervisor");
}

// Why PAPI does not know `name` at all, with the state of the CPU component when it is disabled.
// Presets are missing when the machine lacks the hardware events behind them; other names may
// simply be misspelt, so only presets get the hint about the machine.
std::string unknown_event(const std::string& name, int code) {
  std::string why = failed("PAPI_query_named_event", code);
  const int cpu_component = PAPI_get_component_index("perf_event");
  if (cpu_component >= 0) {
    const PAPI_component_info_t* info = PAPI_get_component_info(cpu_component);
    if (info != nullptr && info->disabled)
      why += fmt::format("; PAPI's perf_event component is disabled: {}", info->disabled_reason);
  }
  return name.starts_with("PAPI_") ? why + machine_hint(code) : why;
}

void destroy_event_set(int& set) {
  if (set == PAPI_NULL) return;
  (void)PAPI_cleanup_eventset(set);
  (void)PAPI_destroy_eventset(&set);
  set = PAPI_NULL;
}

// An event set of one component and the positions its values take in the caller's list.
struct ComponentSet {
  int handle = PAPI_NULL;
  std::vector<std::size_t> positions;
  std::vector<long long> buffer;
};

class PapiReader final : public EventReader {
 public:
  explicit PapiReader(std::vector<ComponentSet> sets) : sets_(std::move(sets)) {}
  PapiReader(const PapiReader&) = delete;
  PapiReader& operator=(const PapiReader&) = delete;
  ~PapiReader() override {
    for (ComponentSet& s : sets_) {
      (void)PAPI_stop(s.handle, s.buffer.data());
      destroy_event_set(s.handle);
    }
  }

  std::optional<std::string> read(std::span<long long> values) override {
    for (ComponentSet& s : sets_) {
      const int rc = PAPI_read(s.handle, s.buffer.data());
      if (rc != PAPI_OK) return failed("PAPI_read", rc);
      for (std::size_t j = 0; j < s.positions.size(); ++j) values[s.positions[j]] = s.buffer[j];
    }
    return std::nullopt;
  }

 private:
  std::vector<ComponentSet> sets_;
};

// Where a thread's events count. User and kernel mode where permitted, since context switches and
// migrations happen in the kernel (counted in user mode only they always read 0); otherwise PAPI's
// default (user mode). Native events take the modes as libpfm4 masks in their name (":u=1:k=1"),
// which PAPI lets override the event set's domain; presets take PAPI_DOMAIN on their event set.
// PAPI tests PAPI_DOMAIN with a hardware event, so on a machine without a PMU only the masks work.
enum class Modes { user_and_kernel, papi_default };

bool has_mode_masks(const std::string& name) {
  return name.find(":u=") != std::string::npos || name.find(":k=") != std::string::npos;
}

bool is_native(const std::string& name) { return name.find("::") != std::string::npos; }

// How an event is added in `modes`: the name, with the masks where they apply.
std::string spelling_of(const std::string& name, Modes modes) {
  if (modes == Modes::user_and_kernel && is_native(name) && !has_mode_masks(name)) return name + ":u=1:k=1";
  return name;
}

std::string modes_text(const std::string& name, Modes modes, int component) {
  if (has_mode_masks(name)) return "as the name's masks say";
  if (modes == Modes::user_and_kernel) return "user+kernel";
  const PAPI_component_info_t* info = PAPI_get_component_info(component);
  if (info != nullptr && info->default_domain == PAPI_DOM_USER) return "user";
  return "PAPI's default domain";
}

// An empty event set of `component`, or why not.
std::optional<std::string> create_set(int component, int& handle) {
  handle = PAPI_NULL;
  if (const int rc = PAPI_create_eventset(&handle); rc != PAPI_OK) {
    handle = PAPI_NULL;
    return failed("PAPI_create_eventset", rc);
  }
  if (const int rc = PAPI_assign_eventset_component(handle, component); rc != PAPI_OK) {
    destroy_event_set(handle);
    return failed("PAPI_assign_eventset_component", rc);
  }
  return std::nullopt;
}

// Adds one event to a stopped set in `modes`; on failure the set is as before.
std::optional<std::string> add_event(int handle, int component, const std::string& spelling, Modes modes) {
  if (const int rc = PAPI_add_named_event(handle, spelling.c_str()); rc != PAPI_OK)
    return failed("PAPI_add_named_event", rc) + machine_hint(rc);
  if (modes == Modes::user_and_kernel && !has_mode_masks(spelling)) {
    PAPI_option_t option{};
    option.domain.def_cidx = component;
    option.domain.eventset = handle;
    option.domain.domain = PAPI_DOM_USER | PAPI_DOM_KERNEL;
    if (const int rc = PAPI_set_opt(PAPI_DOMAIN, &option); rc != PAPI_OK) {
      (void)PAPI_remove_named_event(handle, spelling.c_str());
      return failed("PAPI_set_opt(PAPI_DOMAIN, user and kernel)", rc);
    }
  }
  return std::nullopt;
}

class PapiBackend final : public CounterBackend {
 public:
  PapiBackend() : problem_(start_papi()) {}

  std::string library() const override {
    return fmt::format("PAPI {}.{}.{}.{}", PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION),
                       PAPI_VERSION_REVISION(PAPI_VERSION), PAPI_VERSION_INCREMENT(PAPI_VERSION));
  }
  std::optional<std::string> unavailable_reason() const override { return problem_; }

  std::vector<EventProbe> probe(std::span<const std::string> names) override {
    std::vector<EventProbe> result(names.size());
    if (problem_) {
      for (auto& r : result) r.problem = *problem_;
      return result;
    }
    chosen_.clear();
    std::map<SetKey, ProbeSet> sets;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& name = names[i];
      if (const int rc = PAPI_query_named_event(name.c_str()); rc != PAPI_OK) {
        result[i].problem = unknown_event(name, rc);
        continue;
      }
      int code = 0;
      if (const int rc = PAPI_event_name_to_code(name.c_str(), &code); rc != PAPI_OK) {
        result[i].problem = failed("PAPI_event_name_to_code", rc);
        continue;
      }
      const int component = PAPI_get_event_component(code);
      for (const Modes modes : {Modes::user_and_kernel, Modes::papi_default}) {
        const std::string spelling = spelling_of(name, modes);
        result[i].problem = try_with(sets[{component, modes}], component, modes, spelling);
        if (!result[i].problem) {
          result[i].modes = modes_text(name, modes, component);
          result[i].counted_by = "PAPI";
          chosen_[name] = Choice{component, modes, spelling};
          break;
        }
      }
    }
    for (auto& [key, set] : sets) destroy_event_set(set.handle);
    return result;
  }

  OpenedEvents open_for_this_thread(std::span<const std::string> names) override {
    if (problem_) return {nullptr, *problem_};
    // Opening happens once per thread, so serialising it costs nothing; PAPI's name lookup is not
    // safe to run from several threads at once, and a thread must be known to PAPI before it looks up.
    const std::lock_guard<std::mutex> lock(opening_);
    if (const int rc = PAPI_register_thread(); rc != PAPI_OK) return {nullptr, failed("PAPI_register_thread", rc)};
    std::map<SetKey, ComponentSet> by_key;
    const auto give_up = [&](std::string why) {
      for (auto& [key, set] : by_key) destroy_event_set(set.handle);
      return OpenedEvents{nullptr, std::move(why)};
    };
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto found = chosen_.find(names[i]);
      if (found == chosen_.end()) return give_up(fmt::format("{} was not probed", names[i]));
      const Choice& choice = found->second;
      ComponentSet& set = by_key[{choice.component, choice.modes}];
      if (set.handle == PAPI_NULL)
        if (auto why = create_set(choice.component, set.handle)) return give_up(*why);
      if (auto why = add_event(set.handle, choice.component, choice.spelling, choice.modes))
        return give_up(fmt::format("{}: {}", names[i], *why));
      set.positions.push_back(i);
    }
    std::vector<ComponentSet> sets;
    for (auto& [key, set] : by_key) {
      set.buffer.assign(set.positions.size(), 0);
      sets.push_back(std::move(set));
    }
    by_key.clear();
    for (std::size_t k = 0; k < sets.size(); ++k) {
      if (const int rc = PAPI_start(sets[k].handle); rc != PAPI_OK) {
        for (std::size_t j = 0; j < sets.size(); ++j) {
          if (j < k) (void)PAPI_stop(sets[j].handle, sets[j].buffer.data());
          destroy_event_set(sets[j].handle);
        }
        return {nullptr, failed("PAPI_start", rc)};
      }
    }
    return {std::make_unique<PapiReader>(std::move(sets)), {}};
  }

  OpenedDramEvents open_dram(std::span<const int> package_cpus) override {
    OpenedDramEvents dram;
    if (problem_) {
      dram.problem = *problem_;
      return dram;
    }
    const int component = PAPI_get_component_index("perf_event_uncore");
    if (component < 0) {
      dram.problem = "this PAPI has no perf_event_uncore component";
      return dram;
    }
    const PAPI_component_info_t* info = PAPI_get_component_info(component);
    if (info == nullptr || info->disabled) {
      dram.problem = fmt::format("PAPI's perf_event_uncore component is disabled: {}",
                                 info != nullptr ? info->disabled_reason : "no component information");
      return dram;
    }
    const std::vector<std::string> bases = memory_controller_cas_events(component);
    if (bases.empty()) {
      dram.problem = "PAPI's uncore component lists no memory-controller CAS events (Intel IMC UNC_M_CAS_COUNT) "
                     "on this machine";
      return dram;
    }
    std::vector<ComponentSet> sets;
    std::string first_problem;
    for (const int cpu : package_cpus) {
      for (const std::string& base : bases) {
        for (const char* umask : {":RD", ":WR"}) {
          const std::string name = base + umask;
          ComponentSet s;
          if (auto why = open_uncore(component, cpu, name, s.handle)) {
            if (first_problem.empty()) first_problem = fmt::format("{} on CPU {}: {}", name, cpu, *why);
            continue;
          }
          s.positions.push_back(dram.events.size());
          s.buffer.assign(1, 0);
          dram.events.push_back(fmt::format("{} (CPU {})", name, cpu));
          sets.push_back(std::move(s));
        }
      }
    }
    if (sets.empty()) {
      dram.events.clear();
      dram.problem = "the memory-controller CAS events could not be started: " + first_problem;
      return dram;
    }
    dram.bytes_per_count = 64;  // one CAS command moves one 64-byte cache line
    dram.reader = std::make_unique<PapiReader>(std::move(sets));
    return dram;
  }

 private:
  // Base names ("skx_unc_imc0::UNC_M_CAS_COUNT") of the memory-controller CAS count events of every
  // IMC channel the uncore component lists.
  static std::vector<std::string> memory_controller_cas_events(int component) {
    std::vector<std::string> bases;
    int code = PAPI_NATIVE_MASK;
    if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, component) != PAPI_OK) return bases;
    do {
      char name[PAPI_MAX_STR_LEN] = {};
      if (PAPI_event_code_to_name(code, name) != PAPI_OK) continue;
      const std::string text(name);
      if (text.find("_unc_imc") != std::string::npos && text.ends_with("::UNC_M_CAS_COUNT")) bases.push_back(text);
    } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, component) == PAPI_OK);
    return bases;
  }

  // A started system-wide event set of one uncore event on `cpu`, or why not.
  static std::optional<std::string> open_uncore(int component, int cpu, const std::string& name, int& handle) {
    handle = PAPI_NULL;
    if (const int rc = PAPI_create_eventset(&handle); rc != PAPI_OK) {
      handle = PAPI_NULL;
      return failed("PAPI_create_eventset", rc);
    }
    const auto fail = [&](const char* call, int rc) {
      destroy_event_set(handle);
      return std::optional<std::string>(failed(call, rc));
    };
    if (const int rc = PAPI_assign_eventset_component(handle, component); rc != PAPI_OK)
      return fail("PAPI_assign_eventset_component", rc);
    // System-wide granularity first: setting it picks the calling CPU, which the attach then replaces.
    PAPI_option_t option{};
    option.granularity.def_cidx = component;
    option.granularity.eventset = handle;
    option.granularity.granularity = PAPI_GRN_SYS;
    if (const int rc = PAPI_set_opt(PAPI_GRANUL, &option); rc != PAPI_OK) return fail("PAPI_set_opt(PAPI_GRANUL)", rc);
    option = PAPI_option_t{};
    option.cpu.eventset = handle;
    option.cpu.cpu_num = static_cast<unsigned int>(cpu);
    if (const int rc = PAPI_set_opt(PAPI_CPU_ATTACH, &option); rc != PAPI_OK) return fail("PAPI_set_opt(PAPI_CPU_ATTACH)", rc);
    option = PAPI_option_t{};
    option.domain.def_cidx = component;
    option.domain.eventset = handle;
    option.domain.domain = PAPI_DOM_ALL;
    if (const int rc = PAPI_set_opt(PAPI_DOMAIN, &option); rc != PAPI_OK) return fail("PAPI_set_opt(PAPI_DOMAIN)", rc);
    if (const int rc = PAPI_add_named_event(handle, name.c_str()); rc != PAPI_OK) return fail("PAPI_add_named_event", rc);
    if (const int rc = PAPI_start(handle); rc != PAPI_OK) return fail("PAPI_start", rc);
    return std::nullopt;
  }

  using SetKey = std::pair<int, Modes>;  // component, modes
  struct Choice {
    int component = 0;
    Modes modes = Modes::papi_default;
    std::string spelling;  // the name as added
  };
  // A probe's event set for one component and modes, with the events kept in it so far.
  struct ProbeSet {
    int handle = PAPI_NULL;
    std::vector<std::string> kept;
  };

  // Adds the event to the probe set and starts it with the events kept before; keeps it on success.
  static std::optional<std::string> try_with(ProbeSet& set, int component, Modes modes, const std::string& spelling) {
    if (set.handle == PAPI_NULL)
      if (auto why = create_set(component, set.handle)) return why;
    if (auto why = add_event(set.handle, component, spelling, modes)) return why;
    std::vector<long long> values(set.kept.size() + 1);
    if (const int rc = PAPI_start(set.handle); rc != PAPI_OK) {
      (void)PAPI_remove_named_event(set.handle, spelling.c_str());
      return set.kept.empty() ? failed("PAPI_start", rc) + machine_hint(rc)
                              : fmt::format("cannot be counted together with {}: {}", fmt::join(set.kept, ", "),
                                            failed("PAPI_start", rc));
    }
    (void)PAPI_stop(set.handle, values.data());
    set.kept.push_back(spelling);
    return std::nullopt;
  }

  std::optional<std::string> problem_;
  std::map<std::string, Choice> chosen_;  // by probe(): how each kept event is counted
  std::mutex opening_;
};

}  // namespace

std::unique_ptr<CounterBackend> make_library_backend() { return std::make_unique<PapiBackend>(); }

}  // namespace wave3d::counters
