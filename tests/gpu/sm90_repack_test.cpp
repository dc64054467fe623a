// The sm90 kernel on A and B that TMA cannot read as they lie (rows not 16
// bytes apart, a misaligned base or batch stride, no unit stride, MN-major
// fp8/tf32/int8): copied into 128-byte rows first (kernels/operand_repack.cuh),
// then multiplied. Against cpu_reference with outputs poisoned; the inputs
// must come back unchanged; the copies also run under graph capture.
#include "gpu/graph_replay.hpp"
#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

class Sm90Repack : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// D = accum * alpha + C with C and D contiguous f16 (L, M, N).
  static void epilogue(GpuProblem& p, std::int64_t L, std::int64_t M, std::int64_t N, DType d = DType::f16) {
    p.set_source("def epi(accum, alpha, C):\n    D = accum * alpha + C\n    return D\n");
    p.scalar("alpha", 0.5);
    p.add("C", DType::f16, {L, M, N});
    p.add("D", d, {L, M, N}, padded_rows(d, {L, M, N}), true);
  }

  /// Runs on sm90 (every candidate must accept) and checks the result and
  /// that the inputs are unchanged (run_sm90_and_compare checks both).
  static std::string run_and_check(GpuProblem& p, DType accumulator = DType::f32,
                                   std::function<bool(const OperatorMetadata&)> filter = nullptr) {
    return run_sm90_and_compare(p, accumulator, DType::f32, std::move(filter));
  }
};

TEST_F(Sm90Repack, SixteenBitOperandsInEveryLayoutTmaCannotRead) {
  EPIGEMM_REQUIRE_SM90(driver);
  struct Operand {
    Dims shape, strides;  ///< strides empty: contiguous
    std::size_t offset = 0;
  };
  struct Case {
    const char* what;
    std::int64_t L, M, N, K;
    Operand a, b;
    DType dtype = DType::f16;
  };
  const Case cases[] = {
      {"A's rows 154 bytes apart (K = 77)", 2, 100, 72, 77, {{2, 100, 77}, {}}, {{2, 77, 72}, {}}},
      {"both odd: K = 77, N = 45", 1, 130, 45, 77, {{130, 77}, {}}, {{77, 45}, {}}, DType::bf16},
      {"A column-major, M = 37", 1, 37, 64, 40, {{37, 40}, {1, 37}}, {{40, 64}, {}}},
      {"B column-major, N = 9, K = 33", 1, 64, 9, 33, {{64, 33}, {40, 1}}, {{33, 9}, {1, 33}}, DType::bf16},
      {"A's pointer 2 bytes past alignment", 1, 70, 64, 64, {{70, 64}, {}, 2}, {{64, 64}, {}}},
      {"B's batch stride 5128 bytes", 3, 50, 40, 64, {{3, 50, 64}, {}}, {{3, 64, 40}, {2564, 40, 1}}},
      {"one B for the batch, N = 45", 3, 50, 45, 64, {{3, 50, 64}, {}}, {{3, 64, 45}, {0, 45, 1}}, DType::bf16},
      {"A with no unit stride", 2, 90, 64, 48, {{2, 90, 48}, {90 * 96, 96, 2}}, {{2, 48, 64}, {}}},
      {"B with no unit stride", 1, 64, 70, 40, {{64, 40}, {}}, {{40, 70}, {210, 3}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    GpuProblem p(*driver, rng);
    p.add("A", c.dtype, c.a.shape, c.a.strides, false, c.a.offset);
    p.add("B", c.dtype, c.b.shape, c.b.strides, false, c.b.offset);
    epilogue(p, c.L, c.M, c.N);
    run_and_check(p);
  }
}

TEST_F(Sm90Repack, EveryTileConfigurationTakesRepackedOperands) {
  // K = 99 (A's rows 198 bytes apart) and N = 140 (B's 280): both repacked,
  // on every 16-bit configuration; the grouped-k ones with K = 512 and A
  // 2 bytes past alignment, and with K = 1001.
  EPIGEMM_REQUIRE_SM90(driver);
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    SCOPED_TRACE(config.shape_name());
    GpuProblem p(*driver, rng);
    p.add("A", DType::bf16, {2, 200, 99});
    p.add("B", DType::bf16, {2, 99, 140});
    epilogue(p, 2, 200, 140);
    EXPECT_EQ(run_and_check(p, DType::f32, pin_config(config)), detail::sm90_metadata(config).name);
  }
  for (const detail::Sm90TileConfig& config : grouped_k_tile_configs()) {
    SCOPED_TRACE(config.shape_name());
    GpuProblem p(*driver, rng);
    p.add("A", DType::f16, {16, 512}, {}, false, 2);
    p.add("B", DType::f16, {512, 300}, {1, 512});
    epilogue(p, 1, 16, 300);
    EXPECT_EQ(run_and_check(p, DType::f32, pin_config(config)), detail::sm90_metadata(config).name);
    // K = 1001, not whole k-blocks: A's copy is padded with zeros to 1024;
    // B read as it lies (row-major, TMA's zeros past K) or copied too.
    for (const bool b_row_major : {true, false}) {
      SCOPED_TRACE(b_row_major ? "K = 1001, B row-major" : "K = 1001, B column-major");
      GpuProblem q(*driver, rng);
      q.add("A", DType::bf16, {16, 1001});
      q.add("B", DType::bf16, {1001, 296}, b_row_major ? Dims{} : Dims{1, 1001});
      epilogue(q, 1, 16, 296);
      EXPECT_EQ(run_and_check(q, DType::f32, pin_config(config)), detail::sm90_metadata(config).name);
    }
  }
}

TEST_F(Sm90Repack, Fp8Tf32AndInt8OperandsAreMadeKMajor) {
  EPIGEMM_REQUIRE_SM90(driver);
  {
    SCOPED_TRACE("e4m3 x e5m2, B row-major");
    GpuProblem p(*driver, rng);
    p.add("A", DType::e4m3, {2, 70, 64});
    p.add("B", DType::e5m2, {2, 64, 90});
    epilogue(p, 2, 70, 90);
    run_and_check(p);
  }
  {
    SCOPED_TRACE("e4m3, K = 33: rows 33 bytes apart");
    GpuProblem p(*driver, rng);
    p.add("A", DType::e4m3, {60, 33});
    p.add("B", DType::e4m3, {33, 50}, {1, 33});
    epilogue(p, 1, 60, 50);
    run_and_check(p);
  }
  {
    SCOPED_TRACE("tf32 A column-major, B row-major, K = 20");
    GpuProblem p(*driver, rng);
    p.add("A", DType::tf32, {80, 20}, {1, 80});
    p.add("B", DType::tf32, {20, 72});
    epilogue(p, 1, 80, 72, DType::f32);
    run_and_check(p);
  }
  {
    SCOPED_TRACE("i8 A, K = 30 (rows 30 bytes apart), u8 B row-major");
    GpuProblem p(*driver, rng);
    p.add("A", DType::i8, {2, 65, 30});
    p.add("B", DType::u8, {2, 30, 48});
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::i32, {2, 65, 48}, {}, true);
    run_and_check(p, DType::i32);
  }
}

TEST_F(Sm90Repack, CapturedRepackReplaysWithNewData) {
  // Under capture the copies go to memory the graph owns; a run outside
  // capture first uses the stream's own workspace.
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  p.add("A", DType::bf16, {2, 150, 77});
  p.add("B", DType::bf16, {2, 77, 45});
  epilogue(p, 2, 150, 45);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  Operator op = get_operators(args, sm90_query()).at(0);
  for (const bool stream_first : {false, true}) {
    SCOPED_TRACE(stream_first ? "first run on the captured stream" : "first run on the default stream");
    expect_graph_replays_match_reference(*driver, p, op, args, stream_first);
  }
  p.expect_inputs_unchanged("after the graph replays");
}

TEST_F(Sm90Repack, AWorkspaceGrowsForALargerProblem) {
  // Two problems on one operator and stream: the second needs more
  // workspace than the first left; both must be right.
  EPIGEMM_REQUIRE_SM90(driver);
  for (const std::int64_t M : {40, 700}) {
    SCOPED_TRACE("M = " + std::to_string(M));
    GpuProblem p(*driver, rng);
    p.add("A", DType::f16, {M, 333});
    p.add("B", DType::f16, {333, 96});
    epilogue(p, 1, M, 96);
    run_and_check(p, DType::f32, pin_config(bits16_tile_configs().front()));
  }
}

}  // namespace
}  // namespace epigemm::testing
