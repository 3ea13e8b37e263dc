// A stand-in for a Kokkos Tools library the program loaded before the lightning runtime
// started: it counts dispatches and keeps the last label (kokkos_main.cpp installs it).
#pragma once

#include <string>

namespace lk_test {

/// Installs the tool's begin_parallel_for callback.
void install_test_tool();
/// parallel_for dispatches the tool saw.
int tool_dispatches();
/// The label of the last one.
std::string tool_last_label();

}  // namespace lk_test
