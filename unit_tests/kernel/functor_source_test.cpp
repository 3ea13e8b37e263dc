#include "kernel/functor_source.hpp"

#include <gtest/gtest.h>

#include <string>

namespace lightning::kernel {
namespace {

TEST(FunctorSource, ParameterTypesAsSpelt) {
  EXPECT_EQ(parameter_type("void operator()(const member_type& team, double& s) const {}", 0),
            "member_type");
  EXPECT_EQ(parameter_type("KOKKOS_INLINE_FUNCTION void operator()(const typename "
                           "Kokkos::TeamPolicy<lightning::Distributed>::member_type &t) "
                           "const {}",
                           0),
            "Kokkos::TeamPolicy<lightning::Distributed>::member_type");
  EXPECT_EQ(parameter_type("void operator() ( team_policy :: member_type const & m ) const", 0),
            "team_policy::member_type");
  EXPECT_EQ(parameter_type("void operator()(Member<A, B> m) const {}", 0), "Member<A,B>");
  EXPECT_EQ(parameter_type("void operator()(const int i) const {}", 0), "int");
  EXPECT_EQ(parameter_type("int x = 0;", 0), "");
  // Later parameters, past template arguments with commas and parenthesised defaults.
  const char* scan = "void operator()(const int64_t i, Pair<A, B>& update, const bool final) const";
  EXPECT_EQ(parameter_type(scan, 1), "Pair<A,B>");
  EXPECT_EQ(parameter_type(scan, 2), "bool");
  EXPECT_EQ(parameter_type(scan, 3), "");
  EXPECT_EQ(parameter_type("auto operator()(int i, int j, T &sum) const", 2), "T");
}

TEST(FunctorSource, DeclaresTheValueTypeOfATemplateGpuCodeWouldNotKnow) {
  // A lambda written in a template over T: GPU code sees T only through this declaration.
  EXPECT_EQ(value_type_declaration("auto operator()(const int i, T& update, const bool final) "
                                   "const { update += x(i); }",
                                   1, "int64_t"),
            "using T = int64_t;");
  EXPECT_EQ(value_type_declaration("void operator()(int i, int j, Scalar& s) const {}", 2, "float"),
            "using Scalar = float;");
  // Fundamental and <cstdint> types, qualified names and the source's own types need nothing.
  for (const char* known : {"double", "unsigned", "uint8_t", "int64_t", "long"})
    EXPECT_EQ(value_type_declaration(
                  std::string("void operator()(int i, ") + known + "& v) const {}", 1, "double"),
              "")
        << known;
  EXPECT_EQ(value_type_declaration("void operator()(int i, Kokkos::MinLoc<double, int>::"
                                   "value_type& v) const {}",
                                   1, "double"),
            "");
  EXPECT_EQ(value_type_declaration("using value_type = double; void operator()(int i, "
                                   "value_type& v) const {}",
                                   1, "double"),
            "");
  EXPECT_EQ(value_type_declaration("void operator()(int i) const {}", 1, "double"), "");
}

TEST(FunctorSource, DeclaresAnArrayReductionsValueTypeOrElement) {
  // Kokkos' `value_type sums` (value_type = T[] outside the source), a template's `T* sums`.
  EXPECT_EQ(
      value_type_declaration("void operator()(int i, value_type sums) const {}", 1, "double[]"),
      "using value_type = double[];");
  EXPECT_EQ(
      value_type_declaration("void operator()(int i, int j, T* sums) const {}", 2, "int32_t[]"),
      "using T = int32_t;");
  EXPECT_EQ(value_type_declaration("void operator()(int i, double* sums) const {}", 1, "double[]"),
            "");
  EXPECT_EQ(value_type_declaration("using value_type = float[]; void operator()(int i, "
                                   "value_type v) const {}",
                                   1, "float[]"),
            "");
  // A pointer is an array's element only for an array reduction.
  EXPECT_EQ(value_type_declaration("void operator()(int i, T* sums) const {}", 1, "double"), "");
}

TEST(FunctorSource, DeclaresTheWorkTagsAndPassesTheLaunchedOne) {
  const std::string source =
      "void operator()(const Fill, const int i) const { x(i) = 1; }\n"
      "void operator()(const app::phase::Smooth& tag, const int i) const {}\n"
      "void operator()(Sum, const int i, T& s) const { s += x(i); }\n"
      "void operator()(const int i) const { y(i) = x(i); }";
  const WorkTagCode fill = work_tag_code(source, "app::Fill");
  EXPECT_EQ(fill.member_declarations,
            "  struct Fill {};  // a work tag\n  struct Sum {};  // a work tag\n");
  EXPECT_EQ(fill.global_declarations, "namespace app { namespace phase { struct Smooth {}; } }\n");
  EXPECT_EQ(fill.value, "lightning_generated::Functor::Fill()");
  EXPECT_EQ(fill.operator_index, 0);
  const WorkTagCode smooth = work_tag_code(source, "app::phase::Smooth");
  EXPECT_EQ(smooth.value, "::app::phase::Smooth()");
  EXPECT_EQ(smooth.operator_index, 1);
  // A tag in an anonymous namespace, spelt by its own name; the value type after the tag.
  const WorkTagCode sum = work_tag_code(source, "(anonymous namespace)::Sum");
  EXPECT_EQ(sum.operator_index, 2);
  EXPECT_EQ(value_type_declaration(source, 2, "double", sum.operator_index), "using T = double;");
  // The untagged operator: the tags declared, none passed; a tag no operator takes: none.
  EXPECT_EQ(work_tag_code(source, "").value, "");
  EXPECT_EQ(work_tag_code(source, "").member_declarations, fill.member_declarations);
  EXPECT_EQ(work_tag_code(source, "app::Other").value, "");
  EXPECT_EQ(work_tag_code(source, "app::Fill").operator_index, 0);
  // Index types are not tags.
  EXPECT_EQ(work_tag_code("void operator()(const int64_t i) const {}\n"
                          "void operator()(unsigned long i, const Kokkos::Foo j) const {}",
                          "")
                .member_declarations,
            "");
}

TEST(FunctorSource, TeamOperatorsTakeTheMemberAfterTheirTag) {
  const std::string source =
      "void operator()(Fill, const member_type& team) const {}\n"
      "void operator()(const app::Sum& tag, const member_type& team, T& s) const {}\n"
      "void operator()(const member_type& team) const {}";
  const WorkTagCode fill = work_tag_code(source, "app::Fill", true);
  EXPECT_EQ(fill.member_declarations, "  struct Fill {};  // a work tag\n");
  EXPECT_EQ(fill.global_declarations, "namespace app { struct Sum {}; }\n");
  EXPECT_EQ(fill.value, "lightning_generated::Functor::Fill()");
  EXPECT_EQ(fill.operator_index, 0);
  const WorkTagCode sum = work_tag_code(source, "app::Sum", true);
  EXPECT_EQ(sum.value, "::app::Sum()");
  EXPECT_EQ(sum.operator_index, 1);
  EXPECT_EQ(value_type_declaration(source, 2, "double", sum.operator_index), "using T = double;");
  // The untagged operator takes the member first: no tag, the same declarations.
  const WorkTagCode untagged = work_tag_code(source, "", true);
  EXPECT_EQ(untagged.value, "");
  EXPECT_EQ(untagged.operator_index, 2);
  EXPECT_EQ(untagged.member_declarations, fill.member_declarations);
  EXPECT_EQ(untagged.global_declarations, fill.global_declarations);
  // Read as a range kernel's, the member would be taken for a tag.
  EXPECT_NE(work_tag_code(source, "", false).member_declarations, fill.member_declarations);
  EXPECT_EQ(team_member_declaration(source, "app::Sum"),
            "using member_type = lightning::TeamMember;");
  EXPECT_EQ(team_member_declaration(source), "using member_type = lightning::TeamMember;");
  // A member spelt through its policy, and a functor whose operators take no tag.
  const std::string qualified =
      "void operator()(Fill, const team_policy::member_type& t) const {}\n"
      "void operator()(const team_policy::member_type& t) const {}";
  EXPECT_EQ(work_tag_code(qualified, "", true).global_declarations, "");
  EXPECT_EQ(work_tag_code(qualified, "Fill", true).member_declarations,
            "  struct Fill {};  // a work tag\n");
  EXPECT_EQ(team_member_declaration(qualified, "Fill"),
            "using team_policy = Kokkos::TeamPolicy<>;");
  const WorkTagCode plain =
      work_tag_code("void operator()(const member_type& team, double& s) const {}", "", true);
  EXPECT_EQ(plain.member_declarations + plain.global_declarations, "");
  EXPECT_EQ(plain.operator_index, 0);
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
