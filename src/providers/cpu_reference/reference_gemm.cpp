// The reference GEMM in double, split over threads by rows.
#include "providers/cpu_reference/reference_gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "ir/convert.hpp"

namespace epigemm::detail {
namespace {

// One operand decoded to double, as the tensor cores see it (tf32 inputs
// rounded to 10 mantissa bits).
std::vector<double> decode_matrix(const MatrixOperand& op, std::int64_t batch) {
  std::vector<double> out(static_cast<std::size_t>(op.rows * op.cols));
  const auto* base = static_cast<const char*>(op.tensor->data);
  const int size = size_bytes(op.dtype);
  for (std::int64_t r = 0; r < op.rows; ++r) {
    for (std::int64_t c = 0; c < op.cols; ++c) {
      const std::int64_t offset = batch * op.batch_stride + r * op.row_stride + c * op.col_stride;
      double v = ir::decode(op.dtype, base + offset * size);
      if (op.dtype == DType::tf32) v = ir::round_to(DType::tf32, v);
      out[static_cast<std::size_t>(r * op.cols + c)] = v;
    }
  }
  return out;
}

double round_accumulator(DType accumulator, double exact) {
  if (accumulator == DType::i32) {
    const auto wrapped = static_cast<std::uint32_t>(static_cast<std::int64_t>(exact));
    return static_cast<double>(static_cast<std::int32_t>(wrapped));
  }
  return ir::round_to(accumulator, exact);
}

}  // namespace

std::vector<double> reference_gemm(const Problem& p) {
  const std::int64_t M = p.M, N = p.N, K = p.K;
  std::vector<double> accum(static_cast<std::size_t>(p.L * M * N));
  for (std::int64_t l = 0; l < p.L; ++l) {
    const std::vector<double> a = decode_matrix(p.A, l);  // M x K
    const std::vector<double> b = decode_matrix(p.B, l);  // K x N
    double* c = accum.data() + l * M * N;
    auto rows = [&](std::int64_t m0, std::int64_t m1) {
      for (std::int64_t m = m0; m < m1; ++m) {
        double* row = c + m * N;
        for (std::int64_t k = 0; k < K; ++k) {
          const double av = a[static_cast<std::size_t>(m * K + k)];
          const double* brow = b.data() + k * N;
          for (std::int64_t n = 0; n < N; ++n) row[n] += av * brow[n];
        }
        for (std::int64_t n = 0; n < N; ++n) row[n] = round_accumulator(p.accumulator, row[n]);
      }
    };
    const std::int64_t threads =
        std::clamp<std::int64_t>(static_cast<std::int64_t>(std::thread::hardware_concurrency()), 1,
                                 std::max<std::int64_t>(1, M * N * K / (1 << 20)));
    std::vector<std::thread> pool;
    for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(rows, M * t / threads, M * (t + 1) / threads);
    rows(0, M / threads);
    for (auto& th : pool) th.join();
  }
  return accum;
}

}  // namespace epigemm::detail
