#pragma once
// A progress thread: while the OpenMP threads compute, it keeps calling a poll function (in wave3d,
// HaloExchange::test, i.e. MPI_Testall) so messages advance without waiting for the next MPI call
// of the main thread. It lives for the whole run and is handed one job per step, so no thread is
// created in the time loop. Calling MPI from it needs MPI_THREAD_MULTIPLE: the caller checks that.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace wave3d::mpi {

// Throws std::invalid_argument naming parallel.progress_core unless cpu is -1 (unbound) or a CPU this
// machine has. Whether this process may run there is for the kernel to say when the thread binds.
void check_progress_core(int cpu);

class ProgressThread {
 public:
  // cpu: the OS CPU index to bind the thread to, or -1 to leave it where it starts (it inherits the
  // creating thread's affinity). The thread binds itself before the constructor returns. Throws
  // std::invalid_argument naming parallel.progress_core if the process may not run on that CPU.
  explicit ProgressThread(int cpu);
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  // Starts calling poll() on the progress thread until it returns true or stop() is called.
  void start(std::function<bool()> poll);
  // Returns once the thread has stopped calling poll; the seconds from start() until poll() first
  // returned true, or nullopt if it had not by the time stop() was called.
  std::optional<double> stop();

  int cpu() const { return cpu_; }
  // The CPU the thread was running on once it had bound itself (sched_getcpu); nullopt if unknown.
  std::optional<int> started_cpu() const { return started_cpu_ < 0 ? std::nullopt : std::optional<int>(started_cpu_); }
  // The CPUs the thread may run on now (its affinity mask), ascending; empty if it cannot be read.
  std::vector<int> allowed_cpus();
  // The CPU the thread last started a job on (sched_getcpu), to check the binding; nullopt before any job.
  std::optional<int> observed_cpu() const {
    const int c = observed_cpu_.load(std::memory_order_relaxed);
    return c < 0 ? std::nullopt : std::optional<int>(c);
  }

 private:
  void bind_and_run(int cpu, std::promise<int> bound);
  void run();
  void shutdown();  // ends and joins the thread; safe to call twice

  int cpu_;
  int started_cpu_ = -1;  // written by the thread before it reports back, read after
  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<bool()> poll_;  // the current job; empty when idle
  bool busy_ = false;           // a job was handed over and is not finished
  std::atomic<bool> stop_requested_{false};
  std::atomic<int> observed_cpu_{-1};  // read by the polling loop without the lock
  bool quit_ = false;
  std::optional<double> completed_after_;
  std::thread thread_;  // last: starts after everything above is initialised
};

}  // namespace wave3d::mpi
