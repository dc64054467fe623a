// The epilogues of both seed documents through the public API on the
// cpu_reference provider, checked against math written out in the test.
#include <cmath>

#include "common/gemm_fixture.hpp"

namespace epigemm::testing {
namespace {

double relu(double x) { return x > 0 ? x : 0; }

class SeedExamples : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
};

TEST_F(SeedExamples, AuxStoreWithScalars) {
  HostGemm g(1, 33, 40, 24, DType::f16, rng);
  HostTensor C(DType::f16, {1, 33, 40}), D(DType::f16, {1, 33, 40}), Aux(DType::f16, {1, 33, 40});
  C.fill_int(rng);
  D.poison();
  Aux.poison();
  EpilogueArguments epi(
      "def my_epilogue(accum, C, alpha, beta, extra_scalar):\n"
      "    Aux = (alpha * accum) + (beta * C)\n"
      "    D = extra_scalar * Aux\n"
      "    return D, Aux\n",
      {{"C", C}, {"alpha", 1.0}, {"beta", 2.0}, {"extra_scalar", 0.5}, {"D", D}, {"Aux", Aux}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  auto aux = [&](auto l, auto m, auto n) { return g.accum(l, m, n) + 2.0 * C.get({l, m, n}); };
  g.expect_tile(Aux, aux);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return 0.5 * aux(l, m, n); });
}

TEST_F(SeedExamples, ReluAuxStoreWithConstantBeta) {
  HostGemm g(1, 17, 19, 23, DType::f16, rng);
  HostTensor C(DType::f16, {1, 17, 19}), D(DType::f16, {1, 17, 19}), F(DType::f16, {1, 17, 19});
  C.fill_int(rng);
  D.poison();
  F.poison();
  EpilogueArguments epi(
      "def relu_aux_store(accum, alpha, C):\n"
      "    # Note that the function definition itself does not indicate the types\n"
      "    F = (accum * alpha) + (C * 2.0)  # Constant beta of 2.0\n"
      "    D = relu(F)\n"
      "    return D, F\n",
      {{"alpha", 3.0}, {"C", C}, {"D", D}, {"F", F}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  auto f = [&](auto l, auto m, auto n) { return g.accum(l, m, n) * 3.0 + C.get({l, m, n}) * 2.0; };
  g.expect_tile(F, f);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return relu(f(l, m, n)); });
}

TEST_F(SeedExamples, ReturnsAccumulator) {
  HostGemm g(1, 16, 24, 8, DType::f16, rng);
  HostTensor C(DType::f16, {1, 16, 24}), D(DType::f16, {1, 16, 24}), F(DType::f16, {1, 16, 24}),
      acc(DType::f32, {1, 16, 24});
  C.fill_int(rng);
  for (auto* t : {&D, &F, &acc}) t->poison();
  EpilogueArguments epi(
      "def relu_scale_return_acc(accum, alpha, beta, C, scale):\n"
      "    F = relu((accum * alpha) + (C * beta))\n"
      "    D = F * scale\n"
      "    return D, F, accum\n",
      {{"alpha", 1.0}, {"beta", 2.0}, {"C", C}, {"scale", 0.5}, {"D", D}, {"F", F}, {"accum", acc}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  auto f = [&](auto l, auto m, auto n) { return relu(g.accum(l, m, n) + 2.0 * C.get({l, m, n})); };
  g.expect_tile(F, f);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return 0.5 * f(l, m, n); });
  g.expect_tile(acc, [&](auto l, auto m, auto n) { return g.accum(l, m, n); });
}

TEST_F(SeedExamples, StringFormWithSemicolons) {
  HostGemm g(1, 12, 20, 16, DType::f16, rng);
  HostTensor C(DType::f16, {1, 12, 20}), D(DType::f16, {1, 12, 20}), F(DType::f16, {1, 12, 20});
  C.fill_int(rng);
  D.poison();
  F.poison();
  EpilogueArguments epi(
      "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F",
      {{"alpha", 1.0}, {"beta", 0.5}, {"C", C}, {"D", D}, {"F", F}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  auto f = [&](auto l, auto m, auto n) { return g.accum(l, m, n) + 0.5 * C.get({l, m, n}); };
  g.expect_tile(F, f);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return relu(f(l, m, n)); });
}

TEST_F(SeedExamples, RowAndColumnBroadcasts) {
  const std::int64_t M = 24, N = 40;
  HostGemm g(1, M, N, 32, DType::f16, rng);
  HostTensor row(DType::f16, {N}), col(DType::f16, {M, 1}), D(DType::f16, {1, M, N});
  row.fill_normal(rng);
  col.fill_normal(rng);
  D.poison();
  EpilogueArguments epi(
      "def broadcast_epilogue(accum, row_bias, col_bias, alpha):\n"
      "    D = (accum * alpha) + row_bias + col_bias\n"
      "    return D\n",
      {{"row_bias", row}, {"col_bias", col}, {"alpha", 1.0}, {"D", D}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  g.expect_tile(D, [&](auto l, auto m, auto n) {
    const float v = static_cast<float>(static_cast<float>(g.accum(l, m, n)) + static_cast<float>(row.get({n})));
    return static_cast<double>(v + static_cast<float>(col.get({m, 0})));
  });
}

TEST_F(SeedExamples, AlphaBetaPlusScaledAuxAndStoredAccumulator) {
  // The second seed: Y = accum; D = accum * alpha + C * beta + X * x_factor.
  HostGemm g(2, 20, 28, 16, DType::f16, rng);
  HostTensor C(DType::f16, {2, 20, 28}), X(DType::f16, {2, 20, 28}), D(DType::f16, {2, 20, 28}),
      Y(DType::f16, {2, 20, 28});
  C.fill_int(rng);
  X.fill_int(rng);
  D.poison();
  Y.poison();
  EpilogueArguments epi(
      "def epilogue_operation(accum, C, X, alpha, beta, x_factor):\n"
      "    Y = accum\n"
      "    D = accum * alpha + C * beta + X * x_factor\n"
      "    return D, Y\n",
      {{"C", C}, {"X", X}, {"alpha", 2.0}, {"beta", 1.0}, {"x_factor", 3.0}, {"D", D}, {"Y", Y}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  g.expect_tile(Y, [&](auto l, auto m, auto n) { return g.accum(l, m, n); });
  g.expect_tile(D, [&](auto l, auto m, auto n) {
    return 2.0 * g.accum(l, m, n) + C.get({l, m, n}) + 3.0 * X.get({l, m, n});
  });
}

TEST_F(SeedExamples, AuxNormalizeAndMultiOutputSquares) {
  HostGemm g(1, 9, 13, 7, DType::f32, rng);
  HostTensor aux(DType::f32, {1, 9, 13}), D(DType::f32, {1, 9, 13}), D2(DType::f32, {1, 9, 13});
  aux.fill_int(rng, 1, 4);
  D.poison();
  D2.poison();
  EpilogueArguments epi("def aux_normalize(accum, aux):\n    D = accum / aux\n    D2 = D * D\n    return D, D2\n",
                        {{"aux", aux}, {"D", D}, {"D2", D2}});
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32, .epilogue = epi});
  auto d = [&](auto l, auto m, auto n) {
    return static_cast<double>(static_cast<float>(g.accum(l, m, n)) / static_cast<float>(aux.get({l, m, n})));
  };
  g.expect_tile(D, d);
  g.expect_tile(D2, [&](auto l, auto m, auto n) { return static_cast<double>(static_cast<float>(d(l, m, n) * d(l, m, n))); });
}

TEST_F(SeedExamples, NoEpilogueMeansDEqualsAccum) {
  HostGemm g(3, 7, 5, 11, DType::bf16, rng);
  HostTensor D(DType::f32, {3, 7, 5});
  D.poison();
  HostGemm::run({.A = g.A, .B = g.B, .out = D, .accumulator = DType::f32});
  g.expect_tile(D, [&](auto l, auto m, auto n) { return g.accum(l, m, n); });
}

}  // namespace
}  // namespace epigemm::testing
