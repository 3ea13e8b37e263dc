// Must NOT compile: a Kokkos 3 of the Serial back-end alone, without GCC's atomics, makes
// Kokkos::atomic_* plain reads and writes, which team members on threads of their own would
// race on; the #error says what to add.
#include "lightning_kokkos/kokkos_adapter.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
}
