// Overloaded{lambdas...}: one visitor for std::visit from several lambdas.
#pragma once

namespace lightning {

/// Inherits the call operators of every lambda it is built from.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace lightning
