// NVRTC tests (no GPU needed): cubins for sm_80 and sm_90a, an sm_90-only
// instruction rejected for sm_80, template kernels through name expressions,
// virtual headers, the CUDA include paths, and compile errors carrying the
// whole log and the path of the dumped source.
#include <gtest/gtest.h>

#include "epigemm/error.hpp"
#include "runtime/nvrtc.hpp"
#include "support/env.hpp"
#include "support/file_io.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm::runtime {
namespace {

using test_util::ScopedEnv;
using test_util::TempDir;

// Reads the thread's cluster rank: an instruction sm_80 does not have.
constexpr char kClusterSource[] = R"(
extern "C" __global__ void cluster_rank(unsigned* out) {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  out[blockIdx.x] = rank;
}
)";

constexpr char kTemplateSource[] = R"(
namespace demo {
template <int Scale, typename T>
__global__ void scale(T* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * T(Scale);
}
}  // namespace demo
)";

bool is_elf(const std::string& image) { return image.size() > 4 && image.compare(0, 4, "\x7f" "ELF") == 0; }

TEST(Nvrtc, VersionAndArchNames) {
  const int v = nvrtc_version();
  EXPECT_GE(v, 12000);
  EXPECT_EQ(v % 10, 0);
  EXPECT_EQ(arch_name(90), "sm_90a");
  EXPECT_EQ(arch_name(90, false), "sm_90");
  EXPECT_EQ(arch_name(80), "sm_80");
  EXPECT_EQ(arch_name(86), "sm_86");
}

TEST(Nvrtc, FindsCudaHeaders) {
  const auto options = cuda_include_options();
  ASSERT_FALSE(options.empty());
  EXPECT_EQ(options.front().rfind("-I", 0), 0u);
  EXPECT_TRUE(std::filesystem::exists(options.front().substr(2) + "/cuda_fp16.h"));
}

TEST(Nvrtc, TemplateKernelForSm80AndSm90a) {
  for (const char* arch : {"sm_80", "sm_90a"}) {
    CompileRequest req;
    req.source = kTemplateSource;
    req.arch = arch;
    req.name_expressions = {"demo::scale<3, float>", "demo::scale<5, int>"};
    req.want_ptx = true;
    const CompileResult r = nvrtc_compile(req);
    EXPECT_TRUE(is_elf(r.cubin)) << arch;
    ASSERT_EQ(r.lowered_names.size(), 2u);
    EXPECT_NE(r.lowered_names[0], r.lowered_names[1]);
    for (const auto& name : r.lowered_names) {
      EXPECT_EQ(name.rfind("_Z", 0), 0u) << name;
      EXPECT_NE(r.cubin.find(name), std::string::npos) << "symbol " << name << " not in the cubin";
      EXPECT_NE(r.ptx.find(name), std::string::npos);
    }
    EXPECT_NE(r.ptx.find(std::string(".target ") + arch), std::string::npos) << arch;
    EXPECT_GT(r.seconds, 0.0);
  }
}

TEST(Nvrtc, Sm90OnlyFeatureCompilesForSm90aOnly) {
  TempDir dump;
  ScopedEnv env(env::kDumpDir, dump.path().string());
  CompileRequest req;
  req.source = kClusterSource;
  req.arch = "sm_90a";
  req.name_expressions = {"cluster_rank"};
  const CompileResult ok = nvrtc_compile(req);
  EXPECT_TRUE(is_elf(ok.cubin));
  EXPECT_EQ(ok.lowered_names.at(0), "cluster_rank");
  EXPECT_TRUE(ok.ptx.empty()) << "PTX was not asked for";

  req.arch = "sm_80";
  try {
    nvrtc_compile(req);
    FAIL() << "sm_80 accepted %cluster_ctarank";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Compile);
    EXPECT_NE(e.message().find("cluster_ctarank"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("sm_80"), std::string::npos);
  }
}

TEST(Nvrtc, PtxOnlyTarget) {
  CompileRequest req;
  req.source = kTemplateSource;
  req.arch = "compute_90a";
  req.name_expressions = {"demo::scale<2, float>"};
  const CompileResult r = nvrtc_compile(req);
  EXPECT_TRUE(r.cubin.empty());
  EXPECT_NE(r.ptx.find(".entry"), std::string::npos);
  EXPECT_NE(r.ptx.find(r.lowered_names.at(0)), std::string::npos);
}

TEST(Nvrtc, VirtualHeadersAndToolkitHeaders) {
  const std::string header = "#pragma once\nconstexpr int kMagic = " + std::to_string(test_util::rng()() % 1000) + ";\n";
  const HeaderFile headers[] = {{"epigemm_test_magic.cuh", header}};
  CompileRequest req;
  req.source = R"(
#include <cuda_fp16.h>
#include <cuda/std/type_traits>
#include "epigemm_test_magic.cuh"
extern "C" __global__ void k(__half* out) {
  static_assert(cuda::std::is_same_v<int, decltype(kMagic + 0)>);
  out[0] = __float2half(float(kMagic));
}
)";
  req.arch = "sm_80";
  req.name_expressions = {"k"};
  req.headers = headers;
  req.options = {"-std=c++17", "--no-cache"};
  EXPECT_NO_THROW(nvrtc_compile(req));
  req.headers = {};
  EXPECT_THROW(nvrtc_compile(req), Error) << "compiled without its header";
}

TEST(Nvrtc, SyntaxErrorCarriesLogAndDumpedSource) {
  TempDir dump;
  ScopedEnv env(env::kDumpDir, dump.path().string());
  const std::string source = "extern \"C\" __global__ void broken(int* p) { p[0] = ; }\n// tag " +
                             std::to_string(test_util::rng()()) + "\n";
  CompileRequest req;
  req.source = source;
  req.file_name = "broken_kernel.cu";
  req.arch = "sm_90a";
  try {
    nvrtc_compile(req);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Compile);
    const std::string& msg = e.message();
    EXPECT_NE(msg.find("broken_kernel.cu"), std::string::npos);
    EXPECT_NE(msg.find("expected an expression"), std::string::npos) << msg;
    const std::string marker = "source dumped to ";
    const auto at = msg.find(marker);
    ASSERT_NE(at, std::string::npos) << msg;
    const std::string path = msg.substr(at + marker.size(), msg.find('\n', at) - at - marker.size());
    EXPECT_EQ(std::filesystem::path(path).parent_path(), dump.path());
    EXPECT_EQ(read_file(path), source);
    const auto log_path = std::filesystem::path(path).replace_extension(".log");
    EXPECT_NE(read_file(log_path).find("expected an expression"), std::string::npos);
  }
}

TEST(Nvrtc, FailingSourceGoesToATempDirWithoutDumpDir) {
  ScopedEnv env(env::kDumpDir, std::nullopt);
  CompileRequest req;
  const std::string source = "__global__ void k() { undefined_name_" + std::to_string(test_util::rng()() % 1000) +
                             "(); }\n";
  req.source = source;
  req.arch = "sm_80";
  try {
    nvrtc_compile(req);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string marker = "source dumped to ";
    const auto at = e.message().find(marker);
    ASSERT_NE(at, std::string::npos) << e.message();
    const std::string path = e.message().substr(at + marker.size(), e.message().find('\n', at) - at - marker.size());
    EXPECT_EQ(read_file(path), source);
    const auto dir = std::filesystem::path(path).parent_path();
    if (dir.filename().string().rfind("epigemm-failed-", 0) == 0) std::filesystem::remove_all(dir);
  }
}

TEST(Nvrtc, UnknownNameExpressionIsACompileError) {
  CompileRequest req;
  req.source = kTemplateSource;
  req.arch = "sm_80";
  req.name_expressions = {"demo::no_such_kernel<1>"};
  EXPECT_THROW(nvrtc_compile(req), Error);
}

}  // namespace
}  // namespace epigemm::runtime
