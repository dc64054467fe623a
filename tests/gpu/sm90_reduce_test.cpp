// Reductions of the sm90 provider against cpu_reference, outputs poisoned:
// whole-output sums, maxima, minima and amax over many tiles per CTA (one
// atomic per CTA, or pingpong consumer, and batch) on every tile
// configuration, the identity fill overlapped by the GEMM (programmatic
// dependent launch) or, for few output elements, written by the GEMM itself,
// and two GEMMs back to back on one stream, the second reading the first's D.
#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

class Sm90Reduce : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
};

/// D = accum with a column sum, a row maximum and an amax of it, on bf16 A and B.
void add_column_sum_row_max_amax(GpuProblem& p, std::int64_t M, std::int64_t N, std::int64_t K) {
  add_padded_ab(p, DType::bf16, DType::bf16, 1, M, N, K);
  p.set_source(
      "def epi(accum):\n    D = accum\n    cs = sum(accum * accum + 1.0)\n    rm = max(accum)\n"
      "    am = amax(accum)\n    return D, cs, rm, am\n");
  p.add("D", DType::bf16, {1, M, N}, padded_rows(DType::bf16, {1, M, N}), true);
  p.add("cs", DType::f32, {N}, {}, true);
  p.add("rm", DType::f32, {M, 1}, {}, true);
  p.add("am", DType::f32, {1}, {}, true);
}

TEST_F(Sm90Reduce, WholeOutputReductionsOverManyTilesPerCtaOnEveryTile) {
  // D = accum + c with c normal (so maxima are unique); sums of positive
  // values, per batch ((L, 1, 1)) and over every batch ((1,)), so a lost or
  // repeated partial of any warp, consumer, CTA or batch moves them by more
  // than the tolerance; element counts, which must come out exact.
  EPIGEMM_REQUIRE_SM90(driver);
  struct Shape {
    std::int64_t L, M, N, K;
  };
  for (const Shape s : {Shape{3, 2048, 2048, 256}, Shape{1, 1000, 1000, 64}}) {
    SCOPED_TRACE("L M N K " + std::to_string(s.L) + " " + std::to_string(s.M) + " " + std::to_string(s.N) + " " +
                 std::to_string(s.K));
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::bf16, DType::bf16, s.L, s.M, s.N, s.K);
    p.set_source(
        "def epi(accum, c):\n    D = accum + c\n    sq = sum(D * D + 1.0)\n    ab = sum(abs(D) + 0.5)\n"
        "    mx = max(D)\n    mn = min(D)\n    am = amax(D)\n    nb = sum(accum * 0.0 + 1.0)\n"
        "    n = sum(accum * 0.0 + 1.0)\n    return D, sq, ab, mx, mn, am, nb, n\n");
    const Dims tile{s.L, s.M, s.N};
    p.add("c", DType::bf16, tile, padded_rows(DType::bf16, tile));
    p.fill_normal("c", 3.0);
    p.add("D", DType::bf16, tile, padded_rows(DType::bf16, tile), true);
    p.add("sq", DType::f32, {s.L, 1, 1}, {}, true);
    p.add("ab", DType::f32, {1}, {}, true);
    p.add("mx", DType::f32, {s.L, 1, 1}, {}, true);
    p.add("mn", DType::f32, {1}, {}, true);
    p.add("am", DType::f32, {s.L, 1, 1}, {}, true);
    p.add("nb", DType::f32, {s.L, 1, 1}, {}, true);
    p.add("n", DType::f32, {1}, {}, true);
    for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
      SCOPED_TRACE("tile " + config.shape_name());
      run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      // Counts below 2^24 are exact in f32 whatever the order of the adds.
      EXPECT_EQ(got_value(p, "n"), static_cast<double>(s.L * s.M * s.N));
      for (std::int64_t l = 0; l < s.L; ++l) EXPECT_EQ(got_value(p, "nb", l), static_cast<double>(s.M * s.N)) << l;
    }
  }
}

TEST_F(Sm90Reduce, IdentityFillLandsBeforeTheOverlappingGemmAdds) {
  // 2^18 columns: the fill writes a column sum for each (and a row maximum
  // and an amax) while the GEMM, launched as its programmatic dependent, runs
  // its first tiles (K = 16: one k-block). Outputs start as NaN (poison
  // 0xFF) or 0x5A5A5A5A, so an add that comes before its identity shows.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t M = 64, N = std::int64_t{1} << 18, K = 16;
  GpuProblem p(*driver, rng);
  add_column_sum_row_max_amax(p, M, N, K);
  run_sm90_and_compare(p);
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    SCOPED_TRACE("tile " + config.shape_name());
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }
}

TEST_F(Sm90Reduce, IdentityWrittenByTheGemmLandsBeforeItsFirstAdds) {
  // Few reduce-output elements (1536 column sums, 64 row maxima and an amax:
  // under the host's bound) have the GEMM's first CTA write their identity,
  // with no fill kernel. K = 16: every CTA reduces right after its first
  // k-block. Outputs start as NaN (poison 0xFF) or 0x5A5A5A5A.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t M = 64, N = 1536, K = 16;
  GpuProblem p(*driver, rng);
  add_column_sum_row_max_amax(p, M, N, K);
  for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
    SCOPED_TRACE("tile " + config.shape_name());
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }

  // Three launches each of two problems, one on each of two streams, with
  // no synchronisation between them: each launch must start from the
  // identity its own first CTA wrote (one that added to the previous
  // launch's sums, or took another stream's counter, would show or hang).
  GpuProblem q(*driver, rng);
  const std::int64_t L = 2, M2 = 300, N2 = 200, K2 = 72;
  add_padded_ab(q, DType::bf16, DType::bf16, L, M2, N2, K2);
  q.set_source("def epi(accum):\n    D = accum\n    rs = sum(accum)\n    s = sum(accum * accum)\n    return D, rs, s\n");
  q.add("D", DType::f32, {L, M2, N2}, {}, true);
  q.add("rs", DType::f32, {L, M2, 1}, {}, true);
  q.add("s", DType::f32, {L, 1, 1}, {}, true);
  const GemmArguments args_p = p.args(true, DType::f32, DType::f32);
  const GemmArguments args_q = q.args(true, DType::f32, DType::f32);
  Operator op_p = get_operators(args_p, sm90_query()).at(0);
  Operator op_q = get_operators(args_q, sm90_query()).at(0);
  CUstream streams[2] = {nullptr, nullptr};
  for (CUstream& s : streams) driver->check(driver->stream_create(&s, CU_STREAM_NON_BLOCKING), "creating a stream");
  for (unsigned char poison : {0xFF, 0x5A}) {
    p.poison_outputs(poison, streams[0]);
    q.poison_outputs(poison, streams[1]);
    for (int round = 0; round < 3; ++round) {
      op_p.run(args_p, streams[0]);
      op_q.run(args_q, streams[1]);
    }
    for (CUstream s : streams) driver->check(driver->stream_synchronize(s), "running the launches");
    q.run_reference_once(DType::f32, DType::f32);
    const std::string context = "poison byte " + std::to_string(poison);
    p.compare_outputs(op_p.name() + ", three launches, " + context);
    q.compare_outputs(op_q.name() + ", three launches, " + context);
  }
  for (CUstream s : streams) driver->check(driver->stream_destroy(s), "destroying a stream");
}

TEST_F(Sm90Reduce, TwoGemmsBackToBackOnOneStream) {
  // GEMM 1 (no reduction) writes D1; GEMM 2 reads D1 as its A and reduces.
  // Both run on one stream without a synchronisation between them; D1 is
  // poisoned before each pair, so GEMM 2 (which may start beside its own
  // identity fill) must still see all of GEMM 1's D1. Integer data keeps D1
  // exact in bf16 (|accum| <= K1 = 256), so the host copy of the reference
  // D1 is GEMM 2's A for the reference.
  EPIGEMM_REQUIRE_SM90(driver);
  const std::int64_t M = 2048, N1 = 1024, K1 = 256, N2 = 512;
  GpuProblem first(*driver, rng), second(*driver, rng);
  first.add("A", DType::bf16, {1, M, K1}, padded_rows(DType::bf16, {1, M, K1}), false, 0, -1, 1);
  first.add("B", DType::bf16, {1, K1, N1}, padded_rows(DType::bf16, {1, K1, N1}), false, 0, -1, 1);
  first.set_source("def epi(accum):\n    D = accum\n    return D\n");
  first.add("D", DType::bf16, {1, M, N1}, padded_rows(DType::bf16, {1, M, N1}), true);
  first.run_reference_once(DType::f32, DType::f32);

  second.add("A", DType::bf16, {1, M, N1}, padded_rows(DType::bf16, {1, M, N1}));
  second.add("B", DType::bf16, {1, N1, N2}, padded_rows(DType::bf16, {1, N1, N2}));
  GpuProblem::Operand& a2 = second.operand("A");
  std::memcpy(a2.host->ref().data, first.operand("D").host->ref().data, a2.bytes);
  a2.device_ref = first.operand("D").device_ref;
  second.set_source(
      "def epi(accum):\n    D = accum\n    sq = sum(accum * accum)\n    am = amax(accum)\n    rs = sum(accum)\n"
      "    return D, sq, am, rs\n");
  second.add("D", DType::f32, {1, M, N2}, {}, true);
  second.add("sq", DType::f32, {1}, {}, true);
  second.add("am", DType::f32, {1}, {}, true);
  second.add("rs", DType::f32, {M, 1}, {}, true);

  const GemmArguments args1 = first.args(true, DType::f32, DType::f32);
  const GemmArguments args2 = second.args(true, DType::f32, DType::f32);
  const auto candidates1 = explain_operators(args1, sm90_query());
  const auto candidates2 = explain_operators(args2, sm90_query());
  ASSERT_FALSE(candidates1.empty());
  ASSERT_FALSE(candidates2.empty());
  ASSERT_TRUE(candidates1.front().status) << candidates1.front().status.reason();
  ASSERT_TRUE(candidates2.front().status) << candidates2.front().status.reason();
  Operator op1 = candidates1.front().op, op2 = candidates2.front().op;
  CUstream stream = nullptr;
  driver->check(driver->stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  for (unsigned char poison : {0xFF, 0x5A}) {
    first.poison_outputs(poison, stream);
    second.poison_outputs(poison, stream);
    op1.run(args1, stream);
    op2.run(args2, stream);
    driver->check(driver->stream_synchronize(stream), "running the two GEMMs");
    const std::string context = "poison byte " + std::to_string(poison);
    first.compare_outputs("GEMM 1, " + context);
    second.run_reference_once(DType::f32, DType::f32);
    second.compare_outputs("GEMM 2 (" + op2.name() + "), " + context);
  }
  driver->check(driver->stream_destroy(stream), "destroying the stream");
}

}  // namespace
}  // namespace epigemm::testing
