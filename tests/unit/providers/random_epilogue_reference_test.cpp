// The random epilogues the GPU and NVRTC tests draw from
// (tests/common/random_epilogue.hpp), over many seeds and every compute
// type, with and without the casts and other ops `more_ops` adds: each must
// parse, analyse and run on cpu_reference with every output element written
// and finite. Guards the generator itself, and runs the
// front end and the reference on programs no one wrote by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/random_epilogue.hpp"
#include "nvrtc/catalog_problem.hpp"

namespace epigemm::testing {
namespace {

TEST(RandomEpiloguesOnTheReference, EveryProgramRunsWithFiniteOutputs) {
  constexpr int kCases = 400;
  for (int i = 0; i < kCases; ++i) {
    std::mt19937 rng(static_cast<std::uint32_t>(31000 + i));
    const auto in = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    // Extents as large as the GPU test's only matter for the bounds; the
    // reference runs small ones, and the generator sees the large ones on
    // every third case.
    const std::int64_t L = in(1, 2), M = in(1, 24), N = in(1, 24), K = in(1, 32);
    const bool large = i % 3 == 0;
    const DType compute = i % 4 == 0 ? DType::f16 : i % 4 == 1 ? DType::bf16 : DType::f32;
    const RandomEpilogue r = random_epilogue(rng, "random" + std::to_string(i), L, large ? 400 : M,
                                             large ? 400 : N, large ? 96 : K, compute, /*more_ops=*/i % 2 == 1);
    SCOPED_TRACE("case " + std::to_string(i) + "\n" + r.c.source);
    const DTypeCombo combo{"f16", DType::f16, DType::f16, DType::f32, compute};
    HostCatalogProblem hp(r.c, combo, L, M, N, K, rng);
    const auto is_output = [](const CatalogOperand& op) {
      return op.name == "D" || op.name == "E" || is_output_shape(op.shape);
    };
    for (const CatalogOperand& op : r.c.operands) {
      if (is_output(op)) hp.tensors.at(op.name)->poison();
    }
    const auto ops = get_operators(hp.args, {.providers = {"cpu_reference"}});
    ASSERT_EQ(ops.size(), 1u);
    Operator op = ops[0];
    ASSERT_NO_THROW(op.run(hp.args));
    for (const CatalogOperand& out : r.c.operands) {
      if (!is_output(out)) continue;
      int bad = 0;
      hp.tensors.at(out.name)->for_each_value([&](std::int64_t e, double v) {
        if (!std::isfinite(v) && bad++ < 3) ADD_FAILURE() << out.name << " element " << e << " is " << v;
      });
      ASSERT_EQ(bad, 0) << out.name << " has elements that are not finite";
    }
  }
}

}  // namespace
}  // namespace epigemm::testing
