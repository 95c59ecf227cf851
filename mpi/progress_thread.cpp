#include "mpi/progress_thread.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace wave3d::mpi {
namespace {

// Whether the CPU exists at all. Whether this process may use it (cgroup, cpuset) is for the kernel
// to say when the thread is bound: the calling thread's own mask may already be narrower, because
// OpenMP threads, the caller among them, are bound to their cores before the progress thread starts.
bool cpu_exists(int cpu) {
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  return cpu >= 0 && cpu < CPU_SETSIZE && (configured <= 0 || cpu < configured);
}

}  // namespace

void check_progress_core(int cpu) {
  if (cpu >= 0 && !cpu_exists(cpu))
    throw std::invalid_argument("parallel.progress_core = " + std::to_string(cpu) +
                                " is not a CPU of this machine; allowed: -1 (unbound) or a CPU this process may "
                                "run on (see the binding report)");
}

ProgressThread::ProgressThread(int cpu) : cpu_(cpu) {
  check_progress_core(cpu);
  // The thread binds itself and reports before it serves any job, so that its first poll already runs
  // where it belongs and the binding report can ask where it is.
  std::promise<int> bound;
  std::future<int> result = bound.get_future();
  thread_ = std::thread([this, cpu, p = std::move(bound)]() mutable { bind_and_run(cpu, std::move(p)); });
  if (result.get() != 0) {
    thread_.join();  // the thread ended without serving: a joinable thread must not outlive a failed constructor
    throw std::invalid_argument("parallel.progress_core = " + std::to_string(cpu) +
                                ": the progress thread cannot be bound there (not a CPU this process may run "
                                "on); allowed: -1 (unbound) or a CPU of the binding report");
  }
}

void ProgressThread::bind_and_run(int cpu, std::promise<int> bound) {
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (const int error = pthread_setaffinity_np(pthread_self(), sizeof one, &one); error != 0) {
      bound.set_value(error);
      return;
    }
  }
  started_cpu_ = sched_getcpu();
  bound.set_value(0);
  run();
}

std::vector<int> ProgressThread::allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (!thread_.joinable() || pthread_getaffinity_np(thread_.native_handle(), sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

ProgressThread::~ProgressThread() { shutdown(); }

void ProgressThread::shutdown() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  stop_requested_ = true;
  wake_.notify_all();
  thread_.join();
}

void ProgressThread::start(std::function<bool()> poll) {
  {
    std::lock_guard lock(mutex_);
    poll_ = std::move(poll);
    busy_ = true;
    completed_after_.reset();
    stop_requested_ = false;
  }
  wake_.notify_all();
}

std::optional<double> ProgressThread::stop() {
  stop_requested_ = true;
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return !busy_; });
  return completed_after_;
}

void ProgressThread::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return quit_ || busy_; });
    if (quit_) return;
    const std::function<bool()> poll = poll_;
    lock.unlock();
    // Busy polling is the point: the thread has a core of its own when placement reserves one.
    const auto started = std::chrono::steady_clock::now();
    observed_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
    bool done = false;
    while (!done && !stop_requested_.load(std::memory_order_relaxed)) done = poll();
    const double after = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    lock.lock();
    if (done) completed_after_ = after;
    busy_ = false;
    poll_ = nullptr;
    wake_.notify_all();
  }
}

}  // namespace wave3d::mpi
