// A small GEMM problem on the host (A, B and a naive accumulator computed
// independently of the library) for API and provider tests.
#pragma once

#include <functional>
#include <gtest/gtest.h>

#include "common/host_tensor.hpp"
#include "epigemm/epigemm.hpp"

namespace epigemm::testing {

struct HostGemm {
  std::int64_t L, M, N, K;
  HostTensor A, B;

  HostGemm(std::int64_t l, std::int64_t m, std::int64_t n, std::int64_t k, DType ab, std::mt19937& rng)
      : L(l), M(m), N(n), K(k), A(ab, {l, m, k}), B(ab, {l, k, n}) {
    A.fill_int(rng);
    B.fill_int(rng);
  }

  /// A @ B at (l, m, n), summed in double.
  double accum(std::int64_t l, std::int64_t m, std::int64_t n) const {
    double s = 0;
    for (std::int64_t k = 0; k < K; ++k) s += A.get({l, m, k}) * B.get({l, k, n});
    return s;
  }

  /// Runs `args` on the cpu_reference provider.
  static void run(const GemmArguments& args) {
    auto ops = get_operators(args, {.providers = {"cpu_reference"}});
    ASSERT_EQ(ops.size(), 1u);
    ops[0].run(args);
  }

  /// Checks every element of a (L, M, N) output against `expected(l, m, n)`
  /// rounded to the output's dtype.
  void expect_tile(const HostTensor& out, const std::function<double(std::int64_t, std::int64_t, std::int64_t)>& expected,
                   double tolerance = 0.0) const {
    int failures = 0;
    for (std::int64_t l = 0; l < L; ++l) {
      for (std::int64_t m = 0; m < M; ++m) {
        for (std::int64_t n = 0; n < N; ++n) {
          const double want = ir::round_to(out.dtype, expected(l, m, n));
          const double got = out.get({l, m, n});
          if (!(std::abs(got - want) <= tolerance) && failures++ < 5) {
            ADD_FAILURE() << "at (" << l << ", " << m << ", " << n << "): got " << got << ", want " << want;
          }
        }
      }
    }
    EXPECT_EQ(failures, 0);
  }
};

}  // namespace epigemm::testing
