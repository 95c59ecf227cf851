#include "runtime/denormals.hpp"

#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define WAVE3D_HAS_MXCSR 1
#else
#define WAVE3D_HAS_MXCSR 0
#endif

namespace wave3d {

namespace {

#if WAVE3D_HAS_MXCSR
constexpr unsigned kFlushToZero = 0x8000;       // MXCSR bit 15: subnormal results become zero
constexpr unsigned kDenormalsAreZero = 0x0040;  // MXCSR bit 6: subnormal inputs read as zero
constexpr unsigned kBothBits = kFlushToZero | kDenormalsAreZero;

void set_on_this_thread(Denormals mode) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(mode == Denormals::flush ? (csr | kBothBits) : (csr & ~kBothBits));
}
#endif

}  // namespace

bool denormal_mode_supported() { return WAVE3D_HAS_MXCSR != 0; }

bool set_denormals([[maybe_unused]] Denormals mode) {
#if WAVE3D_HAS_MXCSR
  set_on_this_thread(mode);
#pragma omp parallel num_threads(omp_get_max_threads())
  set_on_this_thread(mode);
  return true;
#else
  return false;
#endif
}

Denormals denormals_on_this_thread() {
#if WAVE3D_HAS_MXCSR
  return (_mm_getcsr() & kBothBits) == kBothBits ? Denormals::flush : Denormals::keep;
#else
  return Denormals::keep;
#endif
}

std::string describe_denormals(Denormals in_effect, Denormals requested) {
  if (in_effect == Denormals::flush) return "subnormal values flushed to zero (FTZ and DAZ on every thread)";
  if (requested == Denormals::flush) return "subnormal values kept (IEEE): this CPU offers no flush-to-zero control";
  return "subnormal values kept (IEEE gradual underflow)";
}

}  // namespace wave3d
