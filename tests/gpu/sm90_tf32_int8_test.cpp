// The sm90 kernel with tf32 and int8 (s8/u8) operands against cpu_reference
// on fresh random data, outputs poisoned: every tile configuration of both
// classes, the four s8/u8 pairings, integer results exact (also past 2^24,
// where a detour through float would round them), i8/u8/i32 D, ragged
// extents, batches, skinny shapes; tf32 within tf32 accuracy.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpu/sm90_problem.hpp"

namespace epigemm::testing {
namespace {

struct Pairing {
  DType a, b;
};
constexpr Pairing kPairings[] = {{DType::i8, DType::i8}, {DType::i8, DType::u8}, {DType::u8, DType::i8},
                                 {DType::u8, DType::u8}};

/// Ragged M, N (N % 16 != 0) and K with a batch, whole tiles, a tiny problem.
constexpr Extents kInt8Shapes[] = {{2, 197, 133, 97}, {1, 256, 512, 128}, {1, 5, 20, 33}};

std::string describe(const Pairing& p) { return std::string(to_string(p.a)) + " x " + std::string(to_string(p.b)); }

/// The class's tile configurations but the grouped-k ones, which need whole
/// k-blocks (sm90_grouped_k_test.cpp runs those).
std::vector<detail::Sm90TileConfig> configs_of(detail::Sm90OperandClass operands) {
  std::vector<detail::Sm90TileConfig> out;
  for (const detail::Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.operands == operands && c.k_group == 1) out.push_back(c);
  }
  return out;
}

/// Every element of output `name` equals the reference's exactly (the
/// comparison of run_sm90_and_compare allows one step for integers).
/// Returns the largest magnitude of the reference values.
double expect_exact(GpuProblem& p, const std::string& name) {
  GpuProblem::Operand& op = p.operand(name);
  const TensorRef& want = op.host->ref();
  const TensorRef& got = op.got->ref();
  int failures = 0;
  double largest = 0.0;
  op.host->for_each_offset([&](std::int64_t e, std::size_t at) {
    const double w = ir::decode(want.dtype, static_cast<const char*>(want.data) + at);
    const double g = ir::decode(got.dtype, static_cast<const char*>(got.data) + at);
    largest = std::max(largest, std::fabs(w));
    if (g != w && failures++ < 5) ADD_FAILURE() << name << " element " << e << ": got " << g << ", want " << w;
  });
  EXPECT_EQ(failures, 0) << name << " differs from the reference";
  return largest;
}

class Sm90Tf32Int8 : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// New uniform integers in [lo, hi] in input `name` (host and device).
  void fill(GpuProblem& p, const std::string& name, int lo, int hi) {
    p.operand(name).host->fill_int(rng, lo, hi);
    p.upload(name);
  }

  /// K-major A and B of `pairing` for extents `e`, over their types' whole ranges.
  void add_full_range_ab(GpuProblem& p, const Pairing& pairing, const Extents& e) {
    add_padded_ab(p, pairing.a, pairing.b, e.L, e.M, e.N, e.K, true, true);
    fill(p, "A", pairing.a == DType::i8 ? -128 : 0, pairing.a == DType::i8 ? 127 : 255);
    fill(p, "B", pairing.b == DType::i8 ? -128 : 0, pairing.b == DType::i8 ? 127 : 255);
  }

  /// Normal f32 values with all 23 mantissa bits in input `name` (a tf32
  /// tensor: its storage is f32, and wgmma reads only the top 19 bits).
  void fill_full_f32(GpuProblem& p, const std::string& name, double scale) {
    std::normal_distribution<float> dist(0.0f, static_cast<float>(scale));
    const HostTensor& t = *p.operand(name).host;
    t.for_each_offset([&](std::int64_t, std::size_t at) {
      float v = dist(rng);
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      bits |= 0x1001u;  // low bits that tf32 drops
      std::memcpy(static_cast<char*>(t.data) + at, &bits, 4);
    });
    p.upload(name);
  }
};

TEST_F(Sm90Tf32Int8, Tf32OnEveryTileConfiguration) {
  // tf32 values (exact products in f32), K-major A and B, ragged M, N and K
  // (K = 71: two full 32-deep k-blocks and a partial one), a batch, D of
  // each float type next to an f32 F.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents shapes[] = {{2, 197, 133, 71}, {1, 1, 1, 1}, {1, 128, 256, 64}, {3, 67, 301, 300}};
  const DType ds[] = {DType::f32, DType::bf16, DType::f16};
  std::size_t i = 0;
  for (const detail::Sm90TileConfig& config : configs_of(detail::Sm90OperandClass::tf32)) {
    for (const Extents& e : shapes) {
      const DType d = ds[i++ % 3];
      SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(e) + ", D " + std::string(to_string(d)));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::tf32, DType::tf32, e.L, e.M, e.N, e.K, true, true);
      p.fill_normal("A");
      p.fill_normal("B", 0.25);
      p.set_source("def epi(accum, alpha, bias):\n    F = accum * alpha + bias\n    D = relu(F)\n    return D, F\n");
      p.scalar("alpha", 1.5);
      p.add("bias", DType::f32, {e.N});
      p.add("D", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), true);
      p.add("F", DType::f32, {e.L, e.M, e.N}, {}, true);
      const std::string name = run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      EXPECT_NE(name.find("_tf32"), std::string::npos) << name;
    }
  }
}

TEST_F(Sm90Tf32Int8, Tf32OfFullPrecisionF32DataIsWithinTf32Accuracy) {
  // f32 data with low mantissa bits set: the tensor cores use 10 of its 23
  // mantissa bits (the reference rounds each operand to tf32), so each
  // product may be off by ~3 * 2^-11 of its size: D = A @ B must be within
  // 4e-3 * sum_k |a_mk b_kn| of the reference, and far closer than that in
  // general (an element computed from wrong data is not).
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 150, 170, 200};
  for (const detail::Sm90TileConfig& config : configs_of(detail::Sm90OperandClass::tf32)) {
    SCOPED_TRACE("tile " + config.shape_name());
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::tf32, DType::tf32, e.L, e.M, e.N, e.K, true, true);
    fill_full_f32(p, "A", 1.0);
    fill_full_f32(p, "B", 1.0);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::f32, {e.L, e.M, e.N}, padded_rows(DType::f32, {e.L, e.M, e.N}), true);
    const GemmArguments args = p.args(true, DType::f32, DType::f32);
    const auto candidates = explain_operators(args, sm90_query(pin_config(config)));
    ASSERT_EQ(candidates.size(), 1u);
    ASSERT_TRUE(candidates[0].status) << candidates[0].status.reason();
    Operator op = candidates[0].op;
    p.poison_outputs(0xFF);
    op.run(args);
    driver->check(driver->ctx_synchronize(), "waiting for the sm90 kernel");
    p.run_reference_once(DType::f32, DType::f32);
    p.download_outputs();
    const HostTensor& a = *p.operand("A").host;
    const HostTensor& b = *p.operand("B").host;
    const HostTensor& want = *p.operand("D").host;
    const HostTensor& got = *p.operand("D").got;
    int failures = 0;
    double worst = 0.0;
    for (std::int64_t l = 0; l < e.L; ++l) {
      for (std::int64_t m = 0; m < e.M; ++m) {
        for (std::int64_t n = 0; n < e.N; ++n) {
          double magnitude = 0.0;
          for (std::int64_t k = 0; k < e.K; ++k) magnitude += std::fabs(a.get({l, m, k}) * b.get({l, k, n}));
          const double w = want.get({l, m, n}), g = got.get({l, m, n});
          const double error = std::fabs(g - w);
          worst = std::max(worst, error / magnitude);
          if (!(error <= 4e-3 * magnitude + 1e-5) && failures++ < 5) {
            ADD_FAILURE() << "D(" << l << ", " << m << ", " << n << "): got " << g << ", want " << w
                          << " (sum |a b| = " << magnitude << ")";
          }
        }
      }
    }
    EXPECT_EQ(failures, 0);
    EXPECT_LT(worst, 4e-3);
  }
}

TEST_F(Sm90Tf32Int8, Int8SumsPast2To24AreExactOnEveryTileConfiguration) {
  // D = accum into i32, with operands near the ends of their ranges so that
  // the sums lie between 2^24 and 2^28 in magnitude, most past 2^25 (s8 A
  // negative): a float anywhere on the way would round most of them. F = accum into f32
  // (a second output, rounded once from the exact sum). Ragged K.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 131, 140, 3001};
  std::size_t i = 0;
  for (const detail::Sm90TileConfig& config : configs_of(detail::Sm90OperandClass::int8)) {
    const Pairing& pairing = kPairings[i++ % 4];
    SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(pairing));
    GpuProblem p(*driver, rng);
    add_padded_ab(p, pairing.a, pairing.b, e.L, e.M, e.N, e.K, true, true);
    if (pairing.a == DType::i8) fill(p, "A", -128, -100); else fill(p, "A", 200, 255);
    if (pairing.b == DType::i8) fill(p, "B", 100, 127); else fill(p, "B", 200, 255);
    p.set_source("def epi(accum):\n    D = accum\n    F = accum\n    return D, F\n");
    p.add("D", DType::i32, {e.L, e.M, e.N}, padded_rows(DType::i32, {e.L, e.M, e.N}), true);
    p.add("F", DType::f32, {e.L, e.M, e.N}, {}, true);
    const std::string name = run_sm90_and_compare(p, DType::i32, DType::f32, pin_config(config));
    EXPECT_NE(name.find("_int8"), std::string::npos) << name;
    EXPECT_GT(expect_exact(p, "D"), 33554432.0) << "the sums did not pass 2^25";
    expect_exact(p, "F");
  }
}

TEST_F(Sm90Tf32Int8, Int8ToI8AndU8DRoundAndSaturateOnEveryTileConfiguration) {
  // D = accum * 2^-7 + bias (exact in f32, so ties land on .5 and round to
  // even) stored as i8 or u8: most values saturate, the rest round; the
  // accumulator itself goes to an i32 output. Full-range operands, ragged
  // M, N (N % 16 != 0: the edge chunk leaves by thread stores) and K, a
  // batch. The 32-column warpgroups of 64x64 cannot stage one-byte D: there
  // D is i32.
  EPIGEMM_REQUIRE_SM90(driver);
  std::size_t i = 0;
  for (const detail::Sm90TileConfig& config : configs_of(detail::Sm90OperandClass::int8)) {
    for (const Extents& e : kInt8Shapes) {
      const Pairing& pairing = kPairings[i % 4];
      const DType d = config.warpgroup_n() < 64 ? DType::i32 : (i % 2 == 0 ? DType::i8 : DType::u8);
      ++i;
      SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(pairing) + ", " + describe(e) + ", D " +
                   std::string(to_string(d)));
      GpuProblem p(*driver, rng);
      add_full_range_ab(p, pairing, e);
      p.set_source("def epi(accum, bias):\n    D = accum * 0.0078125 + bias\n    T = accum\n    return D, T\n");
      p.add("bias", DType::f32, {e.N}, {}, false, 0, -40, 40);
      p.add("D", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), true);
      p.add("T", DType::i32, {e.L, e.M, e.N}, {}, true);
      run_sm90_and_compare(p, DType::i32, DType::f32, pin_config(config));
      expect_exact(p, "D");
      expect_exact(p, "T");
    }
  }
}

TEST_F(Sm90Tf32Int8, Int8IntegerInputsOfDsTypeOnEveryTileConfiguration) {
  // D = accum - 3 C (i32: exact in f32, the sums stay below 2^24) and D =
  // accum * 2^-14 + C (i8 and u8, rounded and saturated), C of D's dtype:
  // the tiles whose slots hold a whole row block read C from them (staged
  // by TMA; its rows padded to 16 bytes), the others by the threads.
  // Ragged extents with edge tiles past M and N, whole tiles, a batch. The
  // 32-column warpgroups of 64x64 cannot stage one-byte D: there D is i32.
  EPIGEMM_REQUIRE_SM90(driver);
  std::size_t i = 0;
  for (const detail::Sm90TileConfig& config : configs_of(detail::Sm90OperandClass::int8)) {
    for (const Extents& e : kInt8Shapes) {
      const Pairing& pairing = kPairings[i % 4];
      const std::size_t kind = (i + i / std::size(kInt8Shapes)) % 3;  // each shape takes each kind in turn
      const DType d = config.warpgroup_n() < 64 || kind == 0 ? DType::i32 : (kind == 1 ? DType::i8 : DType::u8);
      ++i;
      SCOPED_TRACE("tile " + config.shape_name() + ", " + describe(pairing) + ", " + describe(e) + ", C and D " +
                   std::string(to_string(d)));
      GpuProblem p(*driver, rng);
      add_full_range_ab(p, pairing, e);
      if (d == DType::i32) {
        p.set_source("def epi(accum, C):\n    D = accum - C * 3.0\n    return D\n");
        p.add("C", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), false, 0, -1000000, 1000000);
      } else {
        p.set_source("def epi(accum, C):\n    D = accum * 0.00006103515625 + C\n    return D\n");
        p.add("C", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), false, 0, d == DType::i8 ? -128 : 0,
              d == DType::i8 ? 127 : 255);
      }
      p.add("D", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), true);
      run_sm90_and_compare(p, DType::i32, DType::f32, pin_config(config));
      expect_exact(p, "D");
    }
  }
}

TEST_F(Sm90Tf32Int8, Int8OddExtentsSkinnyShapesAndSharedOperands) {
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents odd[] = {{1, 1, 1, 1},   {1, 1, 67, 5},   {1, 67, 1, 5},    {2, 13, 7, 1},
                         {1, 127, 129, 17}, {3, 129, 257, 129}, {1, 257, 3, 2}, {2, 3, 251, 37}};
  for (const auto& [bm, bn, cm] : {std::tuple{128, 256, 2}, {64, 64, 1}}) {
    for (const Extents& e : odd) {
      SCOPED_TRACE("tile " + std::to_string(bm) + "x" + std::to_string(bn) + " c" + std::to_string(cm) + ", " +
                   describe(e));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::i8, DType::u8, e.L, e.M, e.N, e.K, true, true);
      fill(p, "A", -128, 127);
      fill(p, "B", 0, 255);
      p.set_source("def epi(accum, C):\n    D = accum - C\n    return D\n");
      p.add("C", DType::i32, {e.L, e.M, e.N}, {}, false, 0, -1000, 1000);
      p.add("D", DType::i32, {e.L, e.M, e.N}, padded_rows(DType::i32, {e.L, e.M, e.N}), true);
      run_sm90_and_compare(p, DType::i32, DType::f32, pin_tile(bm, bn, cm));
      expect_exact(p, "D");
    }
  }
  // Skinny M against a weight matrix on the skinny tiles (N not a multiple
  // of the tile), the heuristic's own pick, and a batch sharing A (stride 0).
  for (const auto& [bm, bn] : {std::pair{64, 64}, std::pair{128, 64}, std::pair{0, 0}}) {
    SCOPED_TRACE("tile " + std::to_string(bm) + "x" + std::to_string(bn));
    const Extents e{1, 16, 1000, 1024};
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::u8, DType::u8, e.L, e.M, e.N, e.K, true, true);
    fill(p, "A", 0, 255);
    fill(p, "B", 0, 255);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::i32, {e.M, e.N}, {}, true);
    run_sm90_and_compare(p, DType::i32, DType::f32, bm > 0 ? pin_tile(bm, bn, 1) : nullptr);
    expect_exact(p, "D");
  }
  {
    SCOPED_TRACE("A (M, K) shared by a batch of 3");
    const std::int64_t L = 3, M = 133, N = 48, K = 75;
    GpuProblem p(*driver, rng);
    p.add("A", DType::i8, {M, K}, padded_rows(DType::i8, {M, K}));
    p.add("B", DType::i8, {L, K, N}, padded_columns(DType::i8, {L, K, N}));
    fill(p, "A", -128, 127);
    fill(p, "B", -128, 127);
    p.set_source("def epi(accum):\n    D = accum\n    return D\n");
    p.add("D", DType::i32, {L, M, N}, {}, true);
    run_sm90_and_compare(p, DType::i32, DType::f32);
    expect_exact(p, "D");
  }
}

TEST_F(Sm90Tf32Int8, Int8WithReductionsAndF16Compute) {
  // Row, column and whole reductions of an int8 GEMM (in f32), D as i8, and
  // an epilogue computed in f16.
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 140, 270, 100};
  for (const auto& [bm, bn, cm] : {std::tuple{128, 256, 2}, {128, 128, 1}, {64, 128, 1}}) {
    SCOPED_TRACE("tile " + std::to_string(bm) + "x" + std::to_string(bn) + " c" + std::to_string(cm));
    GpuProblem p(*driver, rng);
    add_padded_ab(p, DType::u8, DType::i8, e.L, e.M, e.N, e.K, true, true);
    p.set_source("def epi(accum, bias):\n    F = accum + bias\n    D = F * 0.25\n    rs = sum(F)\n"
                 "    cm = max(F)\n    am = amax(F)\n    return D, rs, cm, am\n");
    p.add("bias", DType::f32, {e.N});
    p.add("D", DType::i8, {e.L, e.M, e.N}, padded_rows(DType::i8, {e.L, e.M, e.N}), true);
    p.add("rs", DType::f32, {e.L, e.M, 1}, {}, true);
    p.add("cm", DType::f32, {e.L, 1, e.N}, {}, true);
    p.add("am", DType::f32, {1}, {}, true);
    run_sm90_and_compare(p, DType::i32, DType::f32, pin_tile(bm, bn, cm));
  }
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::i8, DType::i8, e.L, e.M, e.N, e.K, true, true);
  p.set_source("def epi(accum, alpha):\n    D = accum * alpha\n    return D\n");
  p.scalar("alpha", 0.5);
  p.add("D", DType::f16, {e.L, e.M, e.N}, padded_rows(DType::f16, {e.L, e.M, e.N}), true);
  run_sm90_and_compare(p, DType::i32, DType::f16);
}

TEST_F(Sm90Tf32Int8, IntegerDFromFloatOperands) {
  // i8, u8 and i32 D rounded from f32 accumulators (f16 and e4m3 operands).
  EPIGEMM_REQUIRE_SM90(driver);
  const Extents e{2, 197, 133, 45};
  for (const DType d : {DType::i8, DType::u8, DType::i32}) {
    for (const DType ab : {DType::f16, DType::e4m3}) {
      SCOPED_TRACE("A/B " + std::string(to_string(ab)) + ", D " + std::string(to_string(d)));
      GpuProblem p(*driver, rng);
      add_padded_ab(p, ab, ab, e.L, e.M, e.N, e.K, true, is_fp8(ab));
      p.set_source("def epi(accum, bias):\n    D = accum * 4.0 + bias\n    return D\n");
      p.add("bias", DType::f32, {e.N});
      p.add("D", d, {e.L, e.M, e.N}, padded_rows(d, {e.L, e.M, e.N}), true);
      run_sm90_and_compare(p);
      expect_exact(p, "D");  // small integers: nothing to round
    }
  }
}

}  // namespace
}  // namespace epigemm::testing
