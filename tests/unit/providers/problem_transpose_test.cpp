// transpose_problem: the cpu_reference provider run on a problem's
// transpose (D^T = B^T A^T, M and N swapped) writes what it writes on the
// problem itself: tiles, row and column vectors, scalars, every reduction
// kind, column- and row-major tiles, batches and a shared A.
#include <gtest/gtest.h>

#include <random>

#include "api/problem.hpp"
#include "common/host_tensor.hpp"
#include "epigemm/epigemm.hpp"
#include "providers/cpu_reference/cpu_reference_provider.hpp"

namespace epigemm::testing {
namespace {

constexpr const char* kEpilogue =
    "def epi(accum, C, E, bias, scale, s):\n"
    "    D = relu(accum * scale + C * s + bias) - E\n"
    "    r = sum(D)\n"
    "    c = max(D)\n"
    "    m = amax(D)\n"
    "    return D, r, c, m\n";

// The outputs of one run, poisoned.
struct Outputs {
  HostTensor D, r, c, m;
  Outputs(std::int64_t L, std::int64_t M, std::int64_t N)
      : D(DType::f32, {L, M, N}, {M * N, 1, M}),  // column-major
        r(DType::f32, {L, M, 1}),
        c(DType::f32, {L, 1, N}),
        m(DType::f32, {1}) {
    for (HostTensor* t : {&D, &r, &c, &m}) t->poison();
  }
};

void expect_same(const HostTensor& got, const HostTensor& want, const char* name) {
  SCOPED_TRACE(name);
  ASSERT_EQ(got.shape, want.shape);
  const Dims& shape = got.shape;
  int failures = 0;
  for (std::int64_t i = 0; i < shape[0]; ++i) {
    for (std::int64_t j = 0; j < (shape.size() > 1 ? shape[1] : 1); ++j) {
      for (std::int64_t k = 0; k < (shape.size() > 2 ? shape[2] : 1); ++k) {
        const double a = shape.size() == 3 ? got.get({i, j, k}) : got.get({i});
        const double b = shape.size() == 3 ? want.get({i, j, k}) : want.get({i});
        if (!(a == b) && failures++ < 5) ADD_FAILURE() << "at (" << i << ", " << j << ", " << k << "): " << a << " vs " << b;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(ProblemTranspose, TheReferenceWritesTheSameOutputs) {
  std::mt19937 rng{std::random_device{}()};
  const std::int64_t L = 3, M = 7, N = 12, K = 5;
  HostTensor A(DType::bf16, {M, K}), B(DType::bf16, {L, K, N}, {K * N, 1, K});  // A shared; B column-major
  HostTensor C(DType::f16, {L, M, N}), E(DType::f32, {M, N}, {1, M});         // row- and column-major tiles
  HostTensor bias(DType::f32, {N}), scale(DType::f16, {L, M, 1}), s(DType::f32, {L, 1, 1});
  for (HostTensor* t : {&A, &B, &C, &E, &bias, &scale, &s}) t->fill_int(rng);
  Outputs direct(L, M, N), through(L, M, N);
  const auto epilogue = [&](Outputs& o) {
    return EpilogueArguments(kEpilogue, {{"C", C}, {"E", E}, {"bias", bias}, {"scale", scale}, {"s", s},
                                         {"D", o.D}, {"r", o.r}, {"c", o.c}, {"m", o.m}});
  };
  const EpilogueArguments epi_direct = epilogue(direct), epi_through = epilogue(through);
  // (Problems point into their arguments, which outlive them.)
  const GemmArguments args_direct{.A = A, .B = B, .out = direct.D, .epilogue = epi_direct};
  const GemmArguments args_through{.A = A, .B = B, .out = through.D, .epilogue = epi_through};
  detail::Problem problem, original, transposed;
  detail::analyze(args_direct, problem);
  detail::analyze(args_through, original);
  ASSERT_TRUE(detail::transposes_to_row_major_d(original));
  detail::transpose_problem(original, transposed);
  EXPECT_EQ(transposed.M, N);
  EXPECT_EQ(transposed.N, M);
  EXPECT_EQ(transposed.D.col_stride, 1);
  EXPECT_FALSE(detail::transposes_to_row_major_d(transposed));
  // A row-major D maps the other way (the tiles that write D column-major).
  EXPECT_TRUE(detail::transposes_to_column_major_d(transposed));
  EXPECT_FALSE(detail::transposes_to_column_major_d(original));
  // The operands' kinds are the transposed DAG's.
  for (const ir::Node& n : transposed.dag->nodes) {
    if (n.kind == ir::NodeKind::Load) {
      EXPECT_EQ(transposed.inputs.at(n.slot).load_kind, n.load_kind) << n.name;
    }
    if (n.kind == ir::NodeKind::Store) {
      EXPECT_EQ(transposed.outputs.at(n.slot).store_kind, n.store_kind) << n.name;
    }
  }
  EXPECT_EQ(transposed.inputs.at(2).load_kind, ir::LoadKind::Column);  // bias
  EXPECT_EQ(transposed.outputs.at(1).store_kind, ir::StoreKind::ColumnReduce);  // r
  // The transposed DAG is built once.
  detail::Problem again;
  detail::transpose_problem(original, again);
  EXPECT_EQ(again.dag, transposed.dag);

  const auto op = detail::make_cpu_reference_provider()->operators(0).at(0);
  op->run(problem, nullptr);
  op->run(transposed, nullptr);
  expect_same(through.D, direct.D, "D");
  expect_same(through.r, direct.r, "r");
  expect_same(through.c, direct.c, "c");
  expect_same(through.m, direct.m, "m");
}

}  // namespace
}  // namespace epigemm::testing
