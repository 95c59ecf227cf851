#pragma once
// Waiting without spinning. A blocking MPI collective polls the network at full speed: on the same
// node an idle rank would then take a core and memory bandwidth from the rank being measured.
#include <mpi.h>

namespace wave3d::mpi {

// Collective: broadcasts `value` from root; non-root ranks sleep in short intervals until it arrives.
int broadcast_int_quietly(MPI_Comm comm, int value, int root);

// Collective barrier in which every rank sleeps in short intervals instead of polling.
void barrier_quietly(MPI_Comm comm);

}  // namespace wave3d::mpi
