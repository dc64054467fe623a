// CaseData: allocation and random fills of one case's operands. Each
// operand draws its own seed from the case seed, so every run of the
// benchmark uses fresh values unless --seed pins them.
#include "case_data.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace epigemm::bench {
namespace {

bool needs(const BenchCase& c, EpilogueKind kind) {
  return std::find(c.epilogues.begin(), c.epilogues.end(), kind) != c.epilogues.end();
}

std::vector<std::int64_t> b_strides(const BenchCase& c) {
  // NOTE: fp8, tf32 and int8 wgmma and cuBLASLt's kernels for them need K-major B;
  // 16-bit rows ask for it to measure an nn.Linear weight (N, K) as it is stored.
  if (c.b_col_major()) return {1, c.shape.k};
  return {};
}

// int8 operands hold the integers -8..8 (the table never hits +-8.5, so each
// is equally likely): |accum| <= K * 64, exact in int32 and in f32 for K <= 2^18.
constexpr double kInt8Operand = 8.5;
// int8 C holds integers of the order of accum (standard deviation sqrt(K) * 24).
constexpr double kInt8C = 1000.5;

}  // namespace

CaseData::CaseData(const BenchCase& c, std::uint64_t seed)
    : spec(c),
      A(c.ab, {c.shape.m, c.shape.k}),
      B(c.ab, {c.shape.k, c.shape.n}, b_strides(c)),
      C(c.out_dtype(), {c.shape.m, c.shape.n}),
      row_bias(c.out_dtype(), {c.shape.n}),
      col_bias(c.out_dtype(), {c.shape.m, 1}),
      scale(DType::f32, {1}),
      ones(DType::f32, {1}),
      D(c.out_dtype(), {c.shape.m, c.shape.n}),
      F(c.out_dtype(), {needs(c, EpilogueKind::relu_aux) ? c.shape.m : 1, needs(c, EpilogueKind::relu_aux) ? c.shape.n : 1}),
      anchor_D(c.out_dtype(), {c.shape.m, c.shape.n}) {
  std::mt19937_64 rng(seed);
  const bool integer = is_integer(c.ab);
  if (integer) {
    // Small integers: alpha * accum + beta * C stays exact in the f32 epilogue
    // (under 2^24), and cuBLASLt's int32 compute takes them as they are.
    alpha = static_cast<double>(std::uniform_int_distribution<int>(2, 3)(rng));
    beta = static_cast<double>(std::uniform_int_distribution<int>(1, 3)(rng));
  } else {
    std::uniform_real_distribution<double> around_one(0.5, 1.5);
    alpha = around_one(rng);
    beta = around_one(rng);
  }
  const double a = integer ? kInt8Operand : std::sqrt(3.0 / std::sqrt(static_cast<double>(c.shape.k)));
  A.fill_uniform(rng(), -a, a);
  B.fill_uniform(rng(), -a, a);
  C.fill_uniform(rng(), integer ? -kInt8C : -1.0, integer ? kInt8C : 1.0);
  row_bias.fill_uniform(rng(), -1.0, 1.0);
  col_bias.fill_uniform(rng(), -1.0, 1.0);
  scale.fill_uniform(rng(), 2.0, 16.0);  // |accum| stays under ~6, so |D| stays inside e4m3's 448
  ones.fill_uniform(rng(), 1.0, 1.0);
  if (needs(c, EpilogueKind::scale_amax)) {
    D8.emplace(DType::e4m3, std::vector<std::int64_t>{c.shape.m, c.shape.n});
    amax.emplace(DType::f32, std::vector<std::int64_t>{1});
    if (is_fp8(c.ab)) {
      anchor_D8.emplace(DType::e4m3, std::vector<std::int64_t>{c.shape.m, c.shape.n});
      anchor_amax.emplace(DType::f32, std::vector<std::int64_t>{1});
    }
  }
  if (c.shape.skinny()) copy_target.emplace(B.bytes());
}

EpilogueInputs CaseData::inputs_at(std::int64_t m, std::int64_t n) const {
  EpilogueInputs in;
  in.alpha = alpha;
  in.beta = beta;
  in.scale = scale.value_at(0);
  in.c = C.value(m, n);
  in.row_bias = row_bias.value_at(n);
  in.col_bias = col_bias.value_at(m);
  return in;
}

}  // namespace epigemm::bench
