#!/usr/bin/env bash
# One command for everything a fresh Debian 12 machine needs:
#   scripts/setup.sh run    install what is missing, build (Release), run the default config
#   scripts/setup.sh test   install what is missing, build Release and sanitizer builds, run every test
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
if [[ $mode != run && $mode != test ]]; then
  echo "usage: scripts/setup.sh run|test" >&2
  exit 2
fi

scripts/install-deps.sh

# Open MPI refuses to start as root unless told it is deliberate (containers and CI run as root).
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
jobs=$(nproc)

build() {  # build <preset>
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j "$jobs"
}

if [[ $mode == run ]]; then
  build release
  # The default run is decomposed over 2 ranks (fewer when the machine has a single core).
  ranks=$(( $(nproc) >= 2 ? 2 : 1 ))
  threads=$(( $(nproc) / ranks ))
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$threads} OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
  exec mpiexec -n "$ranks" --bind-to none build/release/src/app/wave3d run
fi

# Tests run two at a time (every MPI test is oversubscribed with bounded timeouts anyway).
build release
ctest --preset release --parallel "$jobs"
build sanitize
# The sanitizers watch our C++: tests of Python logic alone (the study runner's expansion, the analysis
# and the report) have passed on the release build and gain nothing from a second pass.
ctest --preset sanitize --parallel "$jobs" --label-exclude '^(analysis|study|studyreport)$'

# The build without PAPI: the app and the counter tests, which check its "not built in" path.
cmake --preset no-papi >/dev/null
cmake --build --preset no-papi -j "$jobs" --target wave3d test_counters
ctest --preset no-papi -L counters --parallel "$jobs"
