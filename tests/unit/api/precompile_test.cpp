// Operator::precompile without a GPU: an sm90 operator (and one that copies
// an unaligned A first, two kernels), a simt operator and cpu_reference
// store what they compile into the disk cache, where a second call finds
// it; clear errors for a disabled cache, a negative SM count and an
// operator that cannot take the problem.
#include <gtest/gtest.h>

#include <random>

#include "epigemm/epigemm.hpp"
#include "runtime/kernel_cache.hpp"
#include "support/env.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm::testing {
namespace {

using test_util::ScopedEnv;
using test_util::TempDir;

/// A bf16 problem on CUDA views of addresses nothing reads (aligned as
/// cudaMalloc's are, or A's rows `k` elements apart), with an epilogue whose
/// constant is new on every run of the test, so that no cache holds its
/// kernels yet.
struct DescribedProblem {
  std::int64_t m = 320, n = 256, k = 192;
  double constant = 1.0 + std::random_device{}() % 1000000 * 1e-7;
  TensorRef A = TensorRef::cuda(reinterpret_cast<const void*>(0x1000000), DType::bf16, {m, k});
  TensorRef B = TensorRef::cuda(reinterpret_cast<const void*>(0x2000000), DType::bf16, {k, n});
  TensorRef D = TensorRef::cuda(reinterpret_cast<const void*>(0x3000000), DType::bf16, {m, n});

  GemmArguments args() const {
    const std::string source =
        "def epi(accum): D = relu(accum * " + std::to_string(constant) + "); return D";
    return {.A = A, .B = B, .out = D, .epilogue = EpilogueArguments(source, {{"D", D}})};
  }
};

/// The first operator of `provider` for sm_90 that takes the problem (judged without devices).
Operator first_of(const GemmArguments& args, const std::string& provider) {
  for (const OperatorCandidate& c : explain_operators(args, {.target_sm = 90, .providers = {provider},
                                                             .ignore_devices = true})) {
    if (c.status) return c.op;
  }
  throw Error(ErrorKind::Unsupported, "no " + provider + " operator for the test problem");
}

std::size_t cached_kernels() { return runtime::KernelLoader::instance().disk_cache().list().size(); }

class Precompile : public ::testing::Test {
 protected:
  TempDir dir;
  ScopedEnv cache_dir{env::kCacheDir, dir.path().string()};
  ScopedEnv enabled{env::kDisableDiskCache, std::nullopt};
};

TEST_F(Precompile, Sm90KernelsGoIntoTheDiskCacheOnce) {
  DescribedProblem p;
  const GemmArguments args = p.args();
  const Operator op = first_of(args, "sm90");
  const PrecompileResult first = op.precompile(args);
  EXPECT_EQ(first.kernels, 1);
  EXPECT_EQ(first.compiled, 1);
  EXPECT_EQ(cached_kernels(), 1u);
  const PrecompileResult again = op.precompile(args);
  EXPECT_EQ(again.kernels, 1);
  EXPECT_EQ(again.compiled, 0);
  EXPECT_EQ(cached_kernels(), 1u);

  // A's rows 2 bytes short of a 16-byte multiple: A is copied first, whose
  // kernel is stored too.
  DescribedProblem unaligned;
  unaligned.A = TensorRef::cuda(p.A.data, DType::bf16, {p.m, p.k - 1});
  unaligned.B = TensorRef::cuda(p.B.data, DType::bf16, {p.k - 1, p.n});
  unaligned.k = p.k - 1;
  const GemmArguments copied = unaligned.args();
  const PrecompileResult both = first_of(copied, "sm90").precompile(copied);
  EXPECT_EQ(both.kernels, 2);
  EXPECT_GE(both.compiled, 1);
  EXPECT_EQ(cached_kernels(), 1u + static_cast<std::size_t>(both.compiled));
}

TEST_F(Precompile, SimtStoresItsKernelAndHostOperatorsNone) {
  DescribedProblem p;
  const GemmArguments args = p.args();
  const PrecompileResult simt = first_of(args, "simt").precompile(args);
  EXPECT_EQ(simt.kernels, 1);
  EXPECT_EQ(simt.compiled, 1);
  EXPECT_EQ(cached_kernels(), 1u);

  std::uint16_t a = 0x3F80, b = 0x4000;  // bf16 1 and 2
  float d = 0;
  const GemmArguments host{.A = TensorRef::host(&a, DType::bf16, {1, 1}),
                           .B = TensorRef::host(&b, DType::bf16, {1, 1}),
                           .out = TensorRef::host(&d, DType::f32, {1, 1})};
  const PrecompileResult none = get_operators(host, {.providers = {"cpu_reference"}}).at(0).precompile(host);
  EXPECT_EQ(none.kernels, 0);
  EXPECT_EQ(none.compiled, 0);
}

TEST_F(Precompile, SaysWhyItCannot) {
  DescribedProblem p;
  const GemmArguments args = p.args();
  const Operator op = first_of(args, "sm90");
  const auto kind_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return std::optional<ErrorKind>(e.kind());
    }
    return std::optional<ErrorKind>();
  };
  EXPECT_EQ(kind_of([&] { op.precompile(args, -1); }), ErrorKind::Value);
  {
    ScopedEnv disabled(env::kDisableDiskCache, "1");
    try {
      op.precompile(args);
      FAIL() << "precompiled with the disk cache disabled";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value);
      EXPECT_NE(std::string(e.what()).find("disk kernel cache"), std::string::npos) << e.what();
    }
  }
  // An f32 A/B problem: no sm90 kernel takes it, and precompile says why.
  TensorRef A = TensorRef::cuda(p.A.data, DType::f32, {p.m, p.k}), B = TensorRef::cuda(p.B.data, DType::f32, {p.k, p.n});
  const GemmArguments f32{.A = A, .B = B, .out = p.D};
  try {
    op.precompile(f32);
    FAIL() << "precompiled a problem the operator cannot run";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find(op.name()), std::string::npos) << e.what();
  }
  EXPECT_EQ(cached_kernels(), 0u);
}

}  // namespace
}  // namespace epigemm::testing
