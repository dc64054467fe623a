// SpotCheck: double-precision dot products at sampled points, comparison with
// per-dtype tolerances, a full non-finite scan, and the amax bounds.
#include "spot_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace epigemm::bench {
namespace {

std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0) {
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, fmt, a, b, c);
  return buffer;
}

}  // namespace

double tolerance(DType dtype, double want) {
  const double a = std::fabs(want);
  switch (dtype) {
    case DType::f32: return 1e-4 * a + 1e-4;
    case DType::f16: return 3e-3 * a + 3e-3;
    case DType::bf16: return 1.2e-2 * a + 1.2e-2;
    case DType::e4m3: return 0.07 * a + 0.02;
    case DType::e5m2: return 0.14 * a + 0.04;
    case DType::i8: case DType::u8: case DType::i32: return 0.0;  // integer results are exact
    default: return 1e-2 * a + 1e-2;
  }
}

double accumulation_error(DType ab, std::int64_t k, bool fast_fp8) {
  // wgmma and cuBLASLt's FAST_TF32 keep 10 of f32's 23 mantissa bits
  // (rounded or truncated: relative error under 2^-10 per operand), so a
  // product is off by under 2^-9 of |a*b|. The tf32 fills hold tf32 values
  // already, which these reads keep as they are.
  if (ab == DType::tf32) return 0x1p-9;
  // fp8 fast accumulation keeps the running sum to about 13 fraction bits,
  // truncated, inside the tensor cores (both epigemm's and cuBLASLt's):
  // measured up to 0.14 of sum |a*b| at K = 8192 on positive data. Allow
  // K * 2^-15 of it (0.25 at K = 8192).
  if (fast_fp8) return static_cast<double>(k) * 0x1p-15;
  return 0.0;
}

SpotCheck::SpotCheck(const BenchTensor& A, const BenchTensor& B, const Shape& shape, int samples,
                     std::uint64_t seed, bool fast_fp8_accumulation) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> pick_m(0, shape.m - 1), pick_n(0, shape.n - 1);
  points_ = {{0, 0}, {0, shape.n - 1}, {shape.m - 1, 0}, {shape.m - 1, shape.n - 1}};
  while (static_cast<int>(points_.size()) < samples) points_.emplace_back(pick_m(rng), pick_n(rng));
  accum_.reserve(points_.size());
  accum_error_.reserve(points_.size());
  const double relative_error = accumulation_error(A.dtype(), shape.k, fast_fp8_accumulation);
  for (const auto& [m, n] : points_) {
    double sum = 0.0, abs_sum = 0.0;
    for (std::int64_t k = 0; k < shape.k; ++k) {
      const double product = A.value(m, k) * B.value(k, n);
      sum += product;
      abs_sum += std::fabs(product);
    }
    accum_.push_back(sum);
    accum_error_.push_back(relative_error * abs_sum);
  }
}

void SpotCheck::reset() {
  notes_.clear();
  failures_.clear();
  worst_rel_ = 0.0;
}

void SpotCheck::expect(const std::string& name, const BenchTensor& got, const Expected& want) {
  double diff2 = 0.0, ref2 = 0.0;
  int bad = 0;
  std::string first_bad;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const auto [m, n] = points_[i];
    const double w = want(accum_[i], m, n);
    const double g = got.value(m, n);
    if (std::isfinite(g)) diff2 += (g - w) * (g - w);
    ref2 += w * w;
    double allowed = tolerance(got.dtype(), w);
    if (const double e = accum_error_[i]; e > 0.0) {
      allowed += std::max(std::fabs(want(accum_[i] + e, m, n) - w), std::fabs(want(accum_[i] - e, m, n) - w));
    }
    if (!(std::fabs(g - w) <= allowed)) {
      if (bad++ == 0) {
        first_bad = name + "[" + std::to_string(m) + "," + std::to_string(n) + "] " + format("got %.6g want %.6g", g, w);
      }
    }
  }
  const double rel = std::sqrt(diff2 / std::max(ref2, 1e-300));
  worst_rel_ = std::max(worst_rel_, rel);
  const std::int64_t non_finite = got.count_non_finite();
  notes_.push_back(name + format(" rel %.2e", rel));
  if (bad > 0) failures_.push_back(std::to_string(bad) + "/" + std::to_string(points_.size()) + " off, " + first_bad);
  if (non_finite > 0) {
    const char* what = is_integer(got.dtype()) ? " still poisoned of " : " NaN/inf of ";
    failures_.push_back(name + ": " + std::to_string(non_finite) + what + std::to_string(got.elements()) +
                        " (unwritten or overflow)");
  }
}

void SpotCheck::expect_amax(const std::string& name, const BenchTensor& amax, const BenchTensor& d,
                            const Expected& want_d) {
  double stored_max = 0.0;
  for (std::int64_t e = 0; e < d.elements(); ++e) stored_max = std::max(stored_max, std::fabs(d.value_at(e)));
  double sampled_max = 0.0;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    sampled_max = std::max(sampled_max, std::fabs(want_d(accum_[i], points_[i].first, points_[i].second)));
  }
  const double got = amax.value_at(0);
  // Each stored D is |value| rounded to e4m3 (relative step 2^-3, so within
  // 1/16 either way), hence max|stored D| within 1/16 of the true amax.
  const bool near_stored = std::fabs(got - stored_max) <= 0.0625 * std::max(got, stored_max) + 1e-6;
  const bool above_samples = got >= sampled_max * (1.0 - 1e-3) - 1e-6;
  notes_.push_back(name + format(" %.5g (max|D| %.5g)", got, stored_max));
  if (!std::isfinite(got) || !near_stored || !above_samples) {
    failures_.push_back(name + format(" got %.6g; max|stored D| %.6g, sampled max %.6g", got, stored_max, sampled_max));
  }
}

std::string SpotCheck::summary() const {
  std::string text = passed() ? "PASS" : "FAIL";
  for (const std::string& f : failures_) text += "; " + f;
  for (const std::string& n : notes_) text += "; " + n;
  return text;
}

}  // namespace epigemm::bench
