// What the code generator reads from a LIGHTNING_KERNEL functor's operator() text: how it
// spells the types of its team member and of its reduction's or scan's value, which GPU code
// must be able to name.
#pragma once

#include <string>
#include <vector>

namespace lightning::kernel {

/// The parameters' types of each `operator()` in `source`, in order, as spelt (without
/// `const`, `&` and the parameters' names).
std::vector<std::vector<std::string>> operator_parameter_types(const std::string& source);

/// The type of parameter `index` (from 0) of the first `operator()` in `source`, as spelt,
/// without `const`, `&` and the parameter's name: "member_type" for parameter 0 of
/// `void operator()(const member_type& team, double& sum) const`; empty if there is none.
std::string parameter_type(const std::string& source, int index);

/// The declaration GPU code needs before `source` so that its team member type names
/// lightning::TeamMember: `using member_type = lightning::TeamMember;` when the operators
/// spell the member (after the work tag `tag`, its qualified name, if not empty) as a name
/// the source does not declare itself, `using team_policy = Kokkos::TeamPolicy<>;` for
/// `team_policy::member_type`; empty when the spelling needs nothing (Kokkos' and
/// lightning's own names).
std::string team_member_declaration(const std::string& source, const std::string& tag = "");

/// The declaration GPU code needs before `source` so that the type of the value parameter
/// (`index`: after the indices) of its operator number `operator_index` names `value_type`:
/// `using T = double;` for `(const int i, T& update, const bool final)` written in a
/// template over T, whose parameter GPU code cannot see; empty when the spelling needs
/// nothing (a fundamental or <cstdint> type, a qualified name, a type the source declares
/// itself). For an array reduction `value_type` is `E[]`: `(const int i, value_type sums)`
/// gets `using value_type = E[];`, `(const int i, T* sums)` gets `using T = E;`.
std::string value_type_declaration(const std::string& source, int index,
                                   const std::string& value_type, int operator_index = 0);

/// What GPU code needs to call the operator of a functor's source for the work tag `tag`
/// (its qualified name; empty: the untagged operator): every work tag the operators take
/// first, declared as an empty class (an unqualified spelling inside the functor's struct, a
/// qualified one in namespaces of its qualifiers), and the expression of the launched tag's
/// value. In a team kernel (`team`) the operators without a tag take the member first,
/// which is no tag: the member is the parameter after the launched tag, or, untagged, a
/// first parameter that a tagged operator takes second.
struct WorkTagCode {
  std::string member_declarations;  ///< inside the generated functor struct
  std::string global_declarations;  ///< before it, at namespace scope
  std::string value;                ///< e.g. "lightning_generated::Functor::Init()"; empty: no
                                    ///< operator takes `tag`
  /// The operator taking `tag`, in source order; a team kernel's untagged launch: the first
  /// operator taking the member first; else -1.
  int operator_index = -1;
};
WorkTagCode work_tag_code(const std::string& source, const std::string& tag, bool team = false);

}  // namespace lightning::kernel
