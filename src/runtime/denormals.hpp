#pragma once
// How the threads that compute treat subnormal floating-point values (stencil.denormals).
//
// A wave's front fades into values below the smallest normal float long before it reaches the far
// side of the grid. On Intel cores every operation with a subnormal input or result costs a microcode
// assist of about a hundred cycles, so a seed-cube run on 256^3 spent ~40 % of its time there (288
// against 479 MPoints/s on one thread of a Xeon with AVX-512). Flushing them to zero (the x86 MXCSR's
// FTZ and DAZ bits) is what Intel's compilers do by default and what ISO3DFD and YASK run with;
// "keep" gives strict IEEE arithmetic. Every kernel variant runs under the same mode, so the variants
// stay bitwise equal to the reference kernel in either.
#include <string>

namespace wave3d {

enum class Denormals {
  flush,  // subnormal inputs read as zero (DAZ) and subnormal results written as zero (FTZ)
  keep,   // IEEE gradual underflow
};

// Whether this CPU lets a program choose (x86-64: the MXCSR's FTZ and DAZ bits).
bool denormal_mode_supported();

// Sets `mode` on the calling thread and on every thread of an OpenMP team of omp_get_max_threads().
// Threads the runtime starts later copy the floating-point control word of the thread that starts
// them (the calling thread), so a larger team later computes under the same mode. Returns false, and
// changes nothing, where the CPU offers no choice (denormal_mode_supported()).
bool set_denormals(Denormals mode);

// The mode of the calling thread: flush only where both FTZ and DAZ are set.
Denormals denormals_on_this_thread();

// For summaries: the mode the threads ran under and, where it differs, why (the CPU offered no choice).
std::string describe_denormals(Denormals in_effect, Denormals requested);

}  // namespace wave3d
