// The cpu_reference provider on every broadcast kind, reductions, layouts,
// batches and dtypes, against math written out in the test.
#include <cmath>
#include <limits>

#include "common/gemm_fixture.hpp"

namespace epigemm::testing {
namespace {

class CpuReference : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  static constexpr std::int64_t L = 2, M = 6, N = 10, K = 5;
  HostGemm g{L, M, N, K, DType::f32, rng};
  HostTensor D{DType::f32, {L, M, N}};
  void SetUp() override { D.poison(); }

  // D = accum + x, where x is bound to `t`; expects value(l, m, n) of x.
  void check_broadcast(const HostTensor& t, const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& x) {
    EpilogueArguments epi("def e(accum, x):\n    D = accum + x\n    return D\n", {{"x", t}, {"D", D}});
    HostGemm::run({.A = g.A, .B = g.B, .out = D, .epilogue = epi});
    g.expect_tile(D, [&](auto l, auto m, auto n) { return g.accum(l, m, n) + x(l, m, n); });
  }
};

TEST_F(CpuReference, ScalarByValue) {
  EpilogueArguments epi("def e(accum, s):\n    D = accum * s\n    return D\n", {{"s", -3.0}, {"D", D}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .epilogue = epi});
  g.expect_tile(D, [&](auto l, auto m, auto n) { return -3.0 * g.accum(l, m, n); });
}

TEST_F(CpuReference, OneElementTensors) {
  for (Dims shape : {Dims{1}, Dims{1, 1}, Dims{1, 1, 1}}) {
    HostTensor s(DType::f16, shape);
    s.fill_int(rng, 1, 5);
    const double v = s.ref().rank() == 1 ? s.get({0}) : s.ref().rank() == 2 ? s.get({0, 0}) : s.get({0, 0, 0});
    check_broadcast(s, [&](auto, auto, auto) { return v; });
  }
}

TEST_F(CpuReference, PerBatchScalar) {
  HostTensor s(DType::f32, {L, 1, 1});
  s.fill_int(rng);
  check_broadcast(s, [&](auto l, auto, auto) { return s.get({l, 0, 0}); });
}

TEST_F(CpuReference, RowVectors) {
  HostTensor r1(DType::bf16, {N}), r2(DType::bf16, {1, N}), r3(DType::bf16, {L, 1, N});
  for (auto* t : {&r1, &r2, &r3}) t->fill_int(rng);
  check_broadcast(r1, [&](auto, auto, auto n) { return r1.get({n}); });
  check_broadcast(r2, [&](auto, auto, auto n) { return r2.get({0, n}); });
  check_broadcast(r3, [&](auto l, auto, auto n) { return r3.get({l, 0, n}); });
}

TEST_F(CpuReference, ColumnVectors) {
  HostTensor c2(DType::f16, {M, 1}), c3(DType::f16, {L, M, 1});
  c2.fill_int(rng);
  c3.fill_int(rng);
  check_broadcast(c2, [&](auto, auto m, auto) { return c2.get({m, 0}); });
  check_broadcast(c3, [&](auto l, auto m, auto) { return c3.get({l, m, 0}); });
}

TEST_F(CpuReference, TilesSharedAndBatchedAndStrided) {
  HostTensor shared(DType::f16, {M, N}), one(DType::f16, {1, M, N}), full(DType::i8, {L, M, N});
  HostTensor colmajor(DType::f32, {L, M, N}, {M * N, 1, M});
  for (auto* t : {&shared, &one, &full, &colmajor}) t->fill_int(rng);
  check_broadcast(shared, [&](auto, auto m, auto n) { return shared.get({m, n}); });
  check_broadcast(one, [&](auto, auto m, auto n) { return one.get({0, m, n}); });
  check_broadcast(full, [&](auto l, auto m, auto n) { return full.get({l, m, n}); });
  check_broadcast(colmajor, [&](auto l, auto m, auto n) { return colmajor.get({l, m, n}); });
}

TEST_F(CpuReference, ExpandedStrideZeroTensorIsARowVector) {
  HostTensor base(DType::f32, {N});
  base.fill_int(rng);
  // An (M, N) view whose M stride is 0, as torch's expand makes.
  TensorRef expanded = TensorRef::host(base.ref().data, DType::f32, {M, N}, {0, 1});
  EpilogueArguments epi("def e(accum, C):\n    D = accum + C\n    return D\n", {{"C", expanded}, {"D", D}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .epilogue = epi});
  g.expect_tile(D, [&](auto l, auto m, auto n) { return g.accum(l, m, n) + base.get({n}); });
}

TEST_F(CpuReference, Reductions) {
  HostTensor rowsum(DType::f32, {L, M, 1}), colmax(DType::f32, {N}), all(DType::f32, {1}), rowmin(DType::f32, {M, 1});
  for (auto* t : {&rowsum, &colmax, &all, &rowmin}) t->poison();
  EpilogueArguments epi(
      "def e(accum, s):\n    D = accum * s\n    rs = sum(D)\n    cm = max(D)\n    a = amax(D)\n    mn = min(accum)\n"
      "    return D, rs, cm, a, mn\n",
      {{"s", 0.5}, {"D", D}, {"rs", rowsum}, {"cm", colmax}, {"a", all}, {"mn", rowmin}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .epilogue = epi});
  double amax = 0;
  for (std::int64_t m = 0; m < M; ++m) {
    double mn = std::numeric_limits<double>::infinity();
    for (std::int64_t l = 0; l < L; ++l) {
      double s = 0;
      for (std::int64_t n = 0; n < N; ++n) {
        s += 0.5 * g.accum(l, m, n);
        amax = std::max(amax, std::abs(0.5 * g.accum(l, m, n)));
        mn = std::min(mn, g.accum(l, m, n));
      }
      EXPECT_EQ(rowsum.get({l, m, 0}), s);
    }
    EXPECT_EQ(rowmin.get({m, 0}), mn);
  }
  for (std::int64_t n = 0; n < N; ++n) {
    double mx = -std::numeric_limits<double>::infinity();
    for (std::int64_t l = 0; l < L; ++l)
      for (std::int64_t m = 0; m < M; ++m) mx = std::max(mx, 0.5 * g.accum(l, m, n));
    EXPECT_EQ(colmax.get({n}), mx);
  }
  EXPECT_EQ(all.get({0}), amax);
}

TEST_F(CpuReference, ColumnMajorOperandsAndSharedB) {
  HostTensor A(DType::f16, {L, M, K}, {M * K, 1, M});  // column-major per batch
  HostTensor B(DType::f16, {K, N}, {1, K});            // column-major, shared by the batch
  A.fill_int(rng);
  B.fill_int(rng);
  HostGemm::run({.A = A, .B = B, .out = D});
  g.expect_tile(D, [&](auto l, auto m, auto n) {
    double s = 0;
    for (std::int64_t k = 0; k < K; ++k) s += A.get({l, m, k}) * B.get({k, n});
    return s;
  });
}

TEST_F(CpuReference, Int8WithInt32AccumulatorAndSaturatingStores) {
  HostTensor A(DType::i8, {1, 4, 64}), B(DType::i8, {1, 64, 3}), D8(DType::i8, {1, 4, 3}), D32(DType::i32, {1, 4, 3});
  A.fill_int(rng, -128, 127);
  B.fill_int(rng, -128, 127);
  D8.poison();
  D32.poison();
  EpilogueArguments epi("def e(accum):\n    D = accum\n    Y = accum\n    return D, Y\n", {{"D", D8}, {"Y", D32}});
  HostGemm::run({.A = A, .B = B, .out = D8, .accumulator = DType::i32, .epilogue = epi});
  for (std::int64_t m = 0; m < 4; ++m) {
    for (std::int64_t n = 0; n < 3; ++n) {
      double s = 0;
      for (std::int64_t k = 0; k < 64; ++k) s += A.get({0, m, k}) * B.get({0, k, n});
      EXPECT_EQ(D32.get({0, m, n}), s);
      EXPECT_EQ(D8.get({0, m, n}), std::clamp(s, -128.0, 127.0));
    }
  }
}

TEST_F(CpuReference, Fp8OutputsSaturateAndNanIsPreserved) {
  HostTensor D8(DType::e4m3, {L, M, N}), Dn(DType::f32, {L, M, N});
  D8.poison();
  Dn.poison();
  EpilogueArguments epi("def e(accum, big, z):\n    D = accum * big\n    Nn = accum * z / z\n    return D, Nn\n",
                        {{"big", 1.0e6}, {"z", 0.0}, {"D", D8}, {"Nn", Dn}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D8, .epilogue = epi});
  for (std::int64_t m = 0; m < M; ++m) {
    const double acc = g.accum(0, m, 0);
    if (acc != 0) {
      EXPECT_EQ(D8.get({0, m, 0}), acc > 0 ? 448.0 : -448.0);
    }
    EXPECT_TRUE(std::isnan(Dn.get({0, m, 0})));
  }
}

TEST_F(CpuReference, F64ComputeKeepsPrecisionThatF32Loses) {
  HostTensor Df(DType::f64, {L, M, N});
  Df.poison();
  EpilogueArguments epi("def e(accum):\n    D = accum + 0.1\n    return D\n", {{"D", Df}});
  HostGemm::run({.A = g.A, .B = g.B, .out = Df, .epilogue = epi, .compute = DType::f64});
  EXPECT_EQ(Df.get({0, 0, 0}), g.accum(0, 0, 0) + 0.1);
}

}  // namespace
}  // namespace epigemm::testing
