#pragma once
// WaveSolver<T>: the state of one subdomain (prev, next, vel) and the time step applied to it.
// It knows nothing of ranks: the caller hands in the halo update (a periodic copy on one rank, the
// MPI exchange on many) and combines per-rank results. The fields' pages are placed by the memory
// policy of the config (by default first-touched by the threads that compute them: the kernel's
// sweeps of the configured halo mode, in its block order, or the temporal tiles when
// blocking.steps > 1, which the caller sets only where temporal blocking applies).
//
// With the folded kernel (stencil.kernel = "folded") the time levels and the velocity live in the
// folded layout (stencil/folded_field.hpp), where the kernel computes; prev, next and vel in the plain
// layout then carry what the rest of the program reads and writes: the halo exchange (the owned cells
// it sends copied out before it starts, the halo it fills copied in after) and whole fields (snapshots,
// checkpoints, checks), copied out when asked for. Sweeps of several steps run on the folded levels
// too, their exchanges through the plain fields alike (sweep_halo_to_send, sweep_halo_received).
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "field/field.hpp"
#include "field/page_locations.hpp"
#include "solver/temporal_sweep.hpp"
#include "solver/update_regions.hpp"
#include "stencil/folded_field.hpp"
#include "stencil/kernel.hpp"
#include "verify/exact_mode.hpp"

namespace wave3d {

// The variant stencil.kernel asks for at `radius`; "auto" is the one measured fastest (see the .cpp).
KernelVariant kernel_variant(KernelChoice choice, int radius);
// The stencil.kernel setting that runs `variant`.
KernelChoice kernel_choice_for(KernelVariant variant);
// The halo a sweep of blocking.steps levels reads beyond faces with neighbours: steps radii deep
// with deep halos, one radius with split tiling (parallel.temporal_halo), and one for single steps.
int sweep_halo_width(const RunConfig& config);

template <typename T>
class WaveSolver {
 public:
  // Updates the halo of a field from its neighbours (or periodic images).
  using HaloUpdate = std::function<void(Field<T>&)>;

  // Allocates and initialises the fields of the subdomain `owned` (global indices). halo_in_flight:
  // the axes along which ghost cells may still be arriving while the interior is computed; the
  // interior (and the inside of an overlapped sweep) keeps away from those faces only. halo_faces:
  // the faces whose halo a neighbour fills, beyond which a sweep of several levels computes (see
  // sweep()); with blocking.steps = T > 1 and any such face, the halo is T radii deep. With the folded
  // kernel they are also the faces whose cells go to and come from the exchange (halo_field_to_send).
  WaveSolver(const RunConfig& config, const Box& owned, std::array<bool, 3> halo_in_flight = {true, true, true},
             const FaceFlags& halo_faces = {});

  // The points of the owned box this rank updates each step (owned minus any fixed boundary layer).
  const Box& update_region() const { return regions_.update; }
  // The updated points whose stencil reaches no halo cell (computable while the halo is in flight),
  // and the rest of the update region around them.
  const Box& interior_region() const { return regions_.interior; }
  const std::vector<Box>& shell_regions() const { return regions_.shells; }

  // One time level in parts, for callers that overlap the halo exchange with computing:
  // the field whose halo must be current before compute() reads near it,
  Field<T>& halo_field() { return prev_; }
  // the same for an exchange about to start: with folded levels, the owned cells it sends (a radius
  // deep along the faces with neighbours) are first copied into it from the current folded level,
  Field<T>& halo_field_to_send();
  // and, once the exchange has filled its halo along the axes in flight (in_flight true) or the others
  // (false: complete when the exchange starts), that halo copied into the current folded level
  // (nothing without folded levels),
  void halo_received(bool in_flight);
  // or instead of those three, with folded levels, the current folded level itself, for an exchange
  // of folded fields (mpi/folded_halo_exchange.hpp); null without folded levels,
  FoldedField<T>* folded_halo_field() { return folded_ ? &folded_->prev : nullptr; }
  bool has_folded_levels() const { return folded_.has_value(); }
  // the kernel on part of the update region (see Kernel::update for between_blocks),
  void compute(const Box& region, const std::function<void()>* between_blocks = nullptr);
  // and the end of the step once the whole update region is computed: source term, swap.
  void advance();

  // All of it at once: halo update of prev, kernel on the update region, advance().
  void step(const HaloUpdate& update_halo);

  // `steps` time steps in one temporally blocked sweep (solver/temporal_sweep.hpp), source term
  // included, bitwise equal to as many step() calls. Beyond the halo faces, the halo of the current
  // level must be current `steps` radii deep and that of the previous level steps - 1 radii deep
  // (the caller exchanges halo_field() and older_halo_field() before), and the velocity's halo as
  // deep as the fields'; level 1 is computed steps - 1 radii into that halo, each later level one
  // radius less.
  void sweep(int steps);
  // The same in two parts around a halo exchange in flight: first the points whose levels need no
  // halo cell still in flight (between_pieces: see sweep_tiles), then, once the halo is in, the
  // rest. Beyond faces whose halo is not in flight (copied before, as along a periodic axis of one
  // rank) the inside is what sweep() computes.
  void sweep_inside(int steps, const std::function<void()>* between_pieces = nullptr);
  void sweep_rest(int steps);
  // The same without computing anything beyond the owned points (split tiling across ranks): no
  // point is computed twice, at the price of one halo exchange of one level a radius deep between the
  // levels near the halo faces. split_sweep_inside computes, at level L, the update region less
  // L - 1 radii (halo_current: the current level's halo is in, a radius deep) or L radii (it may be
  // in flight) beyond every halo face; split_sweep_rest the rest, one level at a time. Each level
  // past the first reads the level before a radius deep into the halo: `exchange` brings it.
  struct LevelExchange {
    // Starts filling the halo of `field` (holding the level before) a radius deep with the
    // neighbours' same level. Until finish() returns, that halo is not read and nothing writes the
    // owned cells of `field`, so that they may travel straight from it.
    std::function<void(Field<T>& field)> start;
    // With folded levels, if set: the same on the folded level itself (mpi/folded_halo_exchange.hpp),
    // called instead of start, with no copies through the plain field.
    std::function<void(FoldedField<T>& level)> start_folded;
    std::function<void()> finish;  // returns once that halo is in
    // Called between the kernel's blocks while the exchange is in flight (polling it), or null.
    const std::function<void()>* between_blocks = nullptr;
  };
  // Between start and finish the rest computes its points a radius or more from the halo faces,
  // which read no halo cell; after finish, those nearer.
  void split_sweep_inside(int steps, bool halo_current, const std::function<void()>* between_pieces = nullptr);
  void split_sweep_rest(int steps, bool halo_current, const LevelExchange& exchange);
  // With folded levels, the halo exchanges before a sweep (of halo_field() and older_halo_field(), as
  // deep as the sweep reads them: steps and steps - 1 radii, or one radius of the current level with
  // split tiling) travel through the plain fields: sweep_halo_to_send copies the owned cells they send
  // out of the folded levels, sweep_halo_received the halo they filled in (along the axes in flight, or
  // the others, as halo_received). velocity_halo_received does the same for the velocity's halo once it
  // is exchanged. Nothing without folded levels.
  void sweep_halo_to_send(int steps);
  void sweep_halo_received(int steps, bool in_flight);
  void velocity_halo_received();
  // How deep from every face in flight sweep_inside(steps) leaves `field` (halo_field() or
  // older_halo_field()) unwritten: the exchange in flight may send those cells straight from it.
  int depth_unchanged_inside(int steps, const Field<T>& field) const;
  Field<T>& older_halo_field() { return next_; }
  Field<T>& velocity_halo_field() { return vel_; }
  int halo_width() const { return prev_.halo(); }

  // Continuing from a checkpoint: `load` overwrites (at least the owned points of) the current and
  // the previous time level, and the solver carries on from time level `steps_done`. The halo of the
  // current level is refreshed by the next step's halo update, as always.
  void restore(int steps_done, const std::function<void(Field<T>& current, Field<T>& previous)>& load);

  int steps_done() const { return steps_done_; }
  // u at time level steps_done() and steps_done() - 1, the owned points current (copied out of the
  // folded levels first where those are newer).
  const Field<T>& current();
  const Field<T>& previous();
  const Field<T>& velocity() const { return vel_; }
  // Whether every value of the current level in `box` (within the owned points) is finite, read where
  // the level lives (no copy).
  bool current_is_finite(const Box& box) const;
  const Kernel<T>& kernel() const { return kernel_; }
  // The kernel's time on each level of the sweeps so far, summed over the threads (sweep_level_times.hpp).
  const SweepLevelTimes& level_times() const { return level_times_; }
  void clear_level_times() { level_times_.clear(); }

  // Bytes allocated for the three fields, halos and padding included.
  std::size_t field_bytes() const;

  // Notices from placing the fields' memory (e.g. "memory binding not supported here"), to print.
  const std::vector<std::string>& placement_notices() const { return placement_notices_; }
  // Where the pages of prev, next and vel actually are (sampled), in that order.
  std::vector<PageHistogram> page_histograms() const;

 private:
  LevelBoxes swept_boxes(int steps) const;  // what sweep() computes at each level
  LevelBoxes inside_boxes(int steps) const;  // what sweep_inside(steps) computes
  LevelBoxes split_inside_boxes(bool halo_current) const;  // what split_sweep_inside computes
  bool split_tiling() const {
    return config_.parallel.temporal_halo == TemporalHalo::split && any_face(halo_faces_);
  }
  // The source term for the levels of a sweep on fields with velocity `vel` (plain or folded).
  template <typename F>
  AfterLevel<F> source_term(const F& vel) const;
  // body(current, previous, velocity) on the fields the kernel computes on: the folded levels (then
  // newer than the plain fields) or the plain fields.
  template <typename Body>
  void on_levels(Body&& body);

  // The folded levels' faces with neighbours: the owned slabs sent (ghost false) or the ghost slabs
  // filled (true; with their edges and corners beyond the other halo faces) along `axes`, `depth` deep.
  std::vector<Box> halo_slabs(const std::array<bool, 3>& axes, bool ghost, int depth) const;
  // The axes whose halo arrives after the exchange starts (in_flight) or is complete when it starts.
  std::array<bool, 3> axes_arriving(bool in_flight) const;
  // How deep a sweep of `steps` exchanges the current and the previous level.
  std::array<int, 2> sweep_halo_depths(int steps) const;
  void copy_out_of_folded();

  const RunConfig& config_;
  UpdateRegions regions_;
  FaceFlags halo_faces_;
  FaceFlags faces_in_flight_;  // the halo faces on the axes whose halo may be in flight
  Field<T> prev_, next_, vel_;
  Kernel<T> kernel_;
  struct FoldedLevels {
    FoldedField<T> prev, next, vel;
  };
  std::optional<FoldedLevels> folded_;  // with the folded kernel: the state (see the top)
  bool plain_behind_ = false;  // the folded levels are newer than the owned points of prev_ and next_
  int steps_done_ = 0;
  SweepLevelTimes level_times_;
  std::vector<std::string> placement_notices_;
};

extern template class WaveSolver<float>;
extern template class WaveSolver<double>;

}  // namespace wave3d
