#include "backend/cuda/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace lightning::cuda {
namespace {

bool is_elf(const std::vector<char>& image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' &&
         image[3] == 'F';
}

TEST(NvrtcCompiler, CompilesToCubinForSm90) {
  const NvrtcSource source{"Scale", "Scale.cu",
                           "#include <cstdint>\n"
                           "#include \"lightning_kokkos/device/array_handle.hpp\"\n"
                           "extern \"C\" __global__ void scale(lightning::ArrayHandle<float, 1> a,"
                           " int64_t n) {\n"
                           "  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "  if (i < n) a(i) *= 2;\n"
                           "}\n"};
  const NvrtcOutput out = compile_to_cubin(source, nvrtc_options(9, 0));
  EXPECT_TRUE(is_elf(out.cubin)) << "a cubin is an ELF image";
}

TEST(NvrtcCompiler, OptionsNameTheRealArchitecture) {
  const auto options = nvrtc_options(9, 0);
  ASSERT_FALSE(options.empty());
  EXPECT_EQ(options[0], "--gpu-architecture=sm_90");
  EXPECT_THROW(nvrtc_options(0, 0), Error);
}

TEST(NvrtcCompiler, VersionIsMajorDotMinor) {
  const std::string v = nvrtc_version();
  EXPECT_NE(v.find('.'), std::string::npos) << v;
  EXPECT_GE(std::stoi(v), 11);
}

TEST(NvrtcCompiler, ErrorNamesKernelShowsLogAndSourceLines) {
  const NvrtcSource source{"my_ns::Broken<float>", "Broken.cu",
                           "// line 1\n"
                           "// line 2\n"
                           "extern \"C\" __global__ void broken(float* p) {\n"
                           "  p[0] = undefined_thing;\n"
                           "}\n"};
  try {
    compile_to_cubin(source, nvrtc_options(9, 0));
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCuda);
    const std::string what = e.what();
    EXPECT_NE(what.find("my_ns::Broken<float>"), std::string::npos) << what;
    EXPECT_NE(what.find("Broken.cu(4): error"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined_thing"), std::string::npos) << what;
    EXPECT_NE(what.find("> 4 |   p[0] = undefined_thing;"), std::string::npos) << what;
    EXPECT_NE(what.find("  3 | extern"), std::string::npos) << what;
  }
}

TEST(NvrtcCompiler, SourceExcerptMergesNearbyErrorsAndSkipsOtherFiles) {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += "line" + std::to_string(i) + "\n";
  const std::string log =
      "k.cu(5): error: a\nk.cu(6): error: b\nk.cu(18): error: c\nother.h(2): error: d\n"
      "k.cu(10): warning: w\n";
  const std::string excerpt = source_excerpt(text, "k.cu", log, 1);
  EXPECT_EQ(excerpt,
            "   4 | line4\n"
            ">  5 | line5\n"
            ">  6 | line6\n"
            "   7 | line7\n"
            "   ...\n"
            "  17 | line17\n"
            "> 18 | line18\n"
            "  19 | line19\n");
  EXPECT_EQ(source_excerpt(text, "k.cu", "no lines here"), "");
}

}  // namespace
}  // namespace lightning::cuda
