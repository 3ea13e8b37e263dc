// What the code generator reads from a LIGHTNING_KERNEL functor's operator() text: how a team
// kernel spells its member type, which GPU code must be able to name.
#pragma once

#include <string>

namespace lightning::kernel {

/// The type of the first parameter of the first `operator()` in `source`, as spelt, without
/// `const`, `&` and the parameter's name: "member_type" for
/// `void operator()(const member_type& team, double& sum) const`; empty if there is none.
std::string first_parameter_type(const std::string& source);

/// The declaration GPU code needs before `source` so that its team member type names
/// lightning::TeamMember: `using member_type = lightning::TeamMember;` when the operator's
/// first parameter is a name the source does not declare itself,
/// `using team_policy = Kokkos::TeamPolicy<>;` for `team_policy::member_type`; empty when
/// the spelling needs nothing (Kokkos' and lightning's own names).
std::string team_member_declaration(const std::string& source);

}  // namespace lightning::kernel
