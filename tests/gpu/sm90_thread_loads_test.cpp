// The sm90 thread-loading tiles (the producer's threads copy A and B with
// cp.async instead of TMA) on operands whose rows, batches or base are 16-
// but not 128-byte aligned, in every layout, with rows, columns and K past
// the tile's edge; against cpu_reference with outputs poisoned, inputs
// checked unchanged. (The other sm90 GPU tests run these tiles too, on
// their cases: bits16_tile_configs() includes them.)

#include <cstring>
#include <vector>

#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

class Sm90ThreadLoads : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  static std::vector<detail::Sm90TileConfig> thread_load_configs() {
    std::vector<detail::Sm90TileConfig> out;
    for (const detail::Sm90TileConfig& c : detail::sm90_tile_configs()) {
      if (c.thread_loads) out.push_back(c);
    }
    return out;
  }

  /// F = accum * alpha + C; D = relu(F), D f16 and F f32 (L, M, N).
  static void epilogue(GpuProblem& p, std::int64_t L, std::int64_t M, std::int64_t N) {
    p.set_source("def epi(accum, alpha, C):\n    F = accum * alpha + C\n    D = relu(F)\n    return D, F\n");
    p.scalar("alpha", 0.75);
    p.add("C", DType::f16, {L, M, N}, padded_rows(DType::f16, {L, M, N}));
    p.add("D", DType::f16, {L, M, N}, padded_rows(DType::f16, {L, M, N}), true);
    p.add("F", DType::f32, {L, M, N}, {}, true);
  }

  static void expect_unchanged(GpuProblem& p, const std::string& name) {
    GpuProblem::Operand& op = p.operand(name);
    std::vector<unsigned char> bytes(op.bytes);
    op.device.download(bytes.data(), op.bytes, GpuProblem::device_offset(op));
    EXPECT_EQ(std::memcmp(bytes.data(), op.host->ref().data, op.bytes), 0) << name << " was written";
  }
};

TEST_F(Sm90ThreadLoads, RowsSixteenButNotOneHundredTwentyEightByteAlignedInEveryLayout) {
  EPIGEMM_REQUIRE_SM90(driver);
  struct Operand {
    Dims shape, strides;  ///< strides empty: contiguous
    std::size_t offset = 0;
  };
  struct Case {
    const char* what;
    std::int64_t L, M, N, K;
    Operand a, b;
    DType dtype = DType::bf16;
  };
  const Case cases[] = {
      {"A and B row-major, rows 400 and 520 bytes apart", 1, 300, 260, 200, {{300, 200}, {}}, {{200, 260}, {}}},
      {"A column-major, B column-major, M = 136, N = 264", 1, 136, 264, 200, {{136, 200}, {1, 136}},
       {{200, 264}, {1, 200}}, DType::f16},
      {"K = 5 in rows of 8 (a piece cut at K)", 1, 129, 130, 5, {{129, 5}, {8, 1}}, {{5, 130}, {136, 1}}},
      {"K = 61 in rows of 72, B column-major", 2, 70, 200, 61, {{2, 70, 61}, {70 * 72, 72, 1}},
       {{2, 61, 200}, {200 * 72, 1, 72}}},
      {"M = 200 column-major (a piece cut at M), N = 300 row-major", 1, 200, 300, 96, {{200, 96}, {1, 200}},
       {{96, 300}, {}}, DType::f16},
      {"bases 16 bytes past alignment", 1, 100, 136, 72, {{100, 72}, {}, 16}, {{72, 136}, {}, 48}},
      {"batch strides 16 bytes past a 128-byte multiple", 3, 64, 72, 136,
       {{3, 64, 136}, {64 * 136 + 8, 136, 1}}, {{3, 136, 72}, {136 * 72 + 8, 72, 1}}},
      {"one B for every batch", 3, 100, 72, 200, {{3, 100, 200}, {}}, {{3, 200, 72}, {0, 72, 1}}, DType::f16},
      {"A row-major and B column-major with K = 3000", 1, 150, 140, 3000, {{150, 3000}, {}},
       {{3000, 140}, {1, 3000}}},
  };
  for (const detail::Sm90TileConfig& config : thread_load_configs()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(config.shape_name() + ": " + c.what);
      GpuProblem p(*driver, rng);
      p.add("A", c.dtype, c.a.shape, c.a.strides, false, c.a.offset);
      p.add("B", c.dtype, c.b.shape, c.b.strides, false, c.b.offset);
      epilogue(p, c.L, c.M, c.N);
      EXPECT_EQ(run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config)),
                detail::sm90_metadata(config).name);
      expect_unchanged(p, "A");
      expect_unchanged(p, "B");
    }
  }
}

TEST_F(Sm90ThreadLoads, ManyTilesPerCtaAndTheHeuristicsPick) {
  // 2200 x 2200 x 520 (rows 1040 and 4400 bytes apart): more tiles than
  // CTAs on every thread-loading tile; and at 3000^3 the operator the
  // heuristic ranks first reads the unaligned rows with its threads.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{1, 2200, 2200, 520};
  for (const detail::Sm90TileConfig& config : thread_load_configs()) {
    SCOPED_TRACE(config.shape_name());
    GpuProblem p(*driver, rng);
    p.add("A", DType::bf16, {e.M, e.K});
    p.add("B", DType::bf16, {e.K, e.N});
    epilogue(p, e.L, e.M, e.N);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }
  GpuProblem p(*driver, rng);
  p.add("A", DType::bf16, {3000, 3000});
  p.add("B", DType::bf16, {3000, 3000});
  epilogue(p, 1, 3000, 3000);
  const auto candidates = explain_operators(p.args(true, DType::f32, DType::f32), sm90_query());
  ASSERT_FALSE(candidates.empty());
  EXPECT_NE(candidates.front().op.name().find("_cpasync"), std::string::npos) << candidates.front().op.name();
}

TEST_F(Sm90ThreadLoads, OperandsTheThreadsCannotReadAreRefusedWithTheReason) {
  // Rows 154 bytes apart (K = 77): not 16-byte pieces; the TMA tiles copy
  // such an operand first, the thread-loading ones say why they cannot.
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  p.add("A", DType::f16, {100, 77});
  p.add("B", DType::f16, {77, 64});
  epilogue(p, 1, 100, 64);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  for (const detail::Sm90TileConfig& config : thread_load_configs()) {
    const auto candidates = explain_operators(args, sm90_query(pin_config(config)));
    ASSERT_EQ(candidates.size(), 1u);
    ASSERT_FALSE(candidates.front().status);
    EXPECT_NE(candidates.front().status.reason().find("154 bytes apart"), std::string::npos)
        << candidates.front().status.reason();
  }
}

}  // namespace
}  // namespace epigemm::testing
