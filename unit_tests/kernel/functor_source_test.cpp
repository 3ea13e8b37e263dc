#include "kernel/functor_source.hpp"

#include <gtest/gtest.h>

namespace lightning::kernel {
namespace {

TEST(FunctorSource, FirstParameterTypeAsSpelt) {
  EXPECT_EQ(first_parameter_type("void operator()(const member_type& team, double& s) const {}"),
            "member_type");
  EXPECT_EQ(first_parameter_type("KOKKOS_INLINE_FUNCTION void operator()(const typename "
                                 "Kokkos::TeamPolicy<lightning::Distributed>::member_type &t) "
                                 "const {}"),
            "Kokkos::TeamPolicy<lightning::Distributed>::member_type");
  EXPECT_EQ(first_parameter_type("void operator() ( team_policy :: member_type const & m ) const"),
            "team_policy::member_type");
  EXPECT_EQ(first_parameter_type("void operator()(Member<A, B> m) const {}"), "Member<A,B>");
  EXPECT_EQ(first_parameter_type("void operator()(const int i) const {}"), "int");
  EXPECT_EQ(first_parameter_type("int x = 0;"), "");
}

TEST(FunctorSource, DeclaresTheMemberTypeGpuCodeWouldNotKnow) {
  EXPECT_EQ(team_member_declaration("void operator()(const member_type& team) const {}"),
            "using member_type = lightning::TeamMember;");
  EXPECT_EQ(team_member_declaration("void operator()(const team_policy::member_type& t) const"),
            "using team_policy = Kokkos::TeamPolicy<>;");
  // Kokkos' and lightning's names, and names the source declares itself, need nothing.
  EXPECT_EQ(team_member_declaration(
                "void operator()(const Kokkos::TeamPolicy<lightning::Distributed>::member_type& "
                "t) const {}"),
            "");
  EXPECT_EQ(team_member_declaration("void operator()(const lightning::TeamMember& t) const {}"),
            "");
  EXPECT_EQ(team_member_declaration("using member = lightning::TeamMember; void "
                                    "operator()(const member& t) const {}"),
            "");
  EXPECT_EQ(team_member_declaration("typedef lightning::TeamMember member; void "
                                    "operator()(const member& t) const {}"),
            "");
  EXPECT_EQ(team_member_declaration("int no_operator;"), "");
}

}  // namespace
}  // namespace lightning::kernel
