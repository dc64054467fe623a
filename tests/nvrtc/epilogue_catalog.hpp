// A catalog of epilogues for the code-generator tests: every seed epilogue,
// and epilogues that together use every op, every load and store kind and
// every dtype. Each case names its operands' shapes (relative to L, M, N)
// and dtypes, so a test can bind host or device tensors of its own.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "epigemm/dtype.hpp"
#include "epigemm/tensor.hpp"

namespace epigemm::testing {

/// How an operand's shape relates to the problem's (L, M, N).
enum class OperandShape {
  scalar,          ///< a number passed by value
  scalar_tensor,   ///< (1,)
  row,             ///< (N,)
  row_batched,     ///< (L, 1, N)
  column,          ///< (M, 1)
  column_batched,  ///< (L, M, 1)
  tile,            ///< (L, M, N)
  tile_shared,     ///< (M, N): one tile for every batch
  row_reduce,      ///< output (L, M, 1): one value per row
  column_reduce,   ///< output (L, 1, N): one value per column
  scalar_reduce,   ///< output (1,): one value
};

struct CatalogOperand {
  std::string name;
  OperandShape shape = OperandShape::tile;
  DType dtype = DType::f32;
  double value = 1.0;  ///< for OperandShape::scalar
};

struct EpilogueCase {
  std::string name;    ///< a test-name-safe identifier
  std::string source;  ///< the epilogue function
  std::vector<CatalogOperand> operands;  ///< parameters and outputs, D included
  bool from_seed = false;
};

/// The shape of an operand for a problem of extents (L, M, N).
inline Dims operand_dims(OperandShape shape, std::int64_t L, std::int64_t M, std::int64_t N) {
  switch (shape) {
    case OperandShape::scalar: return {};
    case OperandShape::scalar_tensor: return {1};
    case OperandShape::row: return {N};
    case OperandShape::row_batched: return {L, 1, N};
    case OperandShape::column: return {M, 1};
    case OperandShape::column_batched: return {L, M, 1};
    case OperandShape::tile: return {L, M, N};
    case OperandShape::tile_shared: return {M, N};
    case OperandShape::row_reduce: return {L, M, 1};
    case OperandShape::column_reduce: return {L, 1, N};
    case OperandShape::scalar_reduce: return {1};
  }
  return {};
}

inline bool is_output_shape(OperandShape s) {
  return s == OperandShape::row_reduce || s == OperandShape::column_reduce || s == OperandShape::scalar_reduce;
}

/// The epilogues of the two seed documents (the notebook's and the custom
/// epilogue page's), with the bindings they show.
inline std::vector<EpilogueCase> seed_epilogues(DType c = DType::f16, DType d = DType::f16) {
  using S = OperandShape;
  return {
      {"my_epilogue",
       "def my_epilogue(accum, C, alpha, beta, extra_scalar):\n    Aux = (alpha * accum) + (beta * C)\n"
       "    D = extra_scalar * Aux\n    return D, Aux\n",
       {{"C", S::tile, c}, {"alpha", S::scalar, c, 1.0}, {"beta", S::scalar, c, 2.0},
        {"extra_scalar", S::scalar, c, 0.5}, {"D", S::tile, d}, {"Aux", S::tile, d}},
       true},
      {"relu_aux_store",
       "def relu_aux_store(accum, alpha, C):\n    F = (accum * alpha) + (C * 2.0)  # Constant beta\n"
       "    D = relu(F)\n    return D, F\n",
       {{"alpha", S::scalar, c, 3.0}, {"C", S::tile, c}, {"D", S::tile, d}, {"F", S::tile, d}},
       true},
      {"aux_normalize", "def aux_normalize(accum, aux):\n    D = accum / aux\n    return D\n",
       {{"aux", S::tile, c}, {"D", S::tile, d}}, true},
      {"bias_add", "def bias_add(accum, row_bias, col_bias):\n    D = accum + row_bias + col_bias\n    return D\n",
       {{"row_bias", S::row, c}, {"col_bias", S::column, c}, {"D", S::tile, d}}, true},
      {"relu_scale_return_acc",
       "def relu_scale_return_acc(accum, alpha, beta, C, scale):\n    F = relu((accum * alpha) + (C * beta))\n"
       "    D = F * scale\n    return D, F, accum\n",
       {{"alpha", S::scalar, c, 1.0}, {"beta", S::scalar, c, 2.0}, {"C", S::tile, c}, {"scale", S::scalar, c, 0.5},
        {"D", S::tile, d}, {"F", S::tile, d}, {"accum", S::tile, DType::f32}},
       true},
      {"string_form", "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F",
       {{"alpha", S::scalar, c, 1.0}, {"beta", S::scalar, c, 0.5}, {"C", S::tile, c}, {"D", S::tile, d},
        {"F", S::tile, d}},
       true},
      {"broadcast_epilogue",
       "def broadcast_epilogue(accum, row_bias, col_bias, alpha):\n    D = (accum * alpha) + row_bias + col_bias\n"
       "    return D\n",
       {{"row_bias", S::row, c}, {"col_bias", S::column, c}, {"alpha", S::scalar, c, 1.0}, {"D", S::tile, d}},
       true},
      {"custom_dense",
       "def epilogue_operation(accum, C, X, alpha, beta, x_factor):\n    Y = accum\n"
       "    D = accum * alpha + C * beta + X * x_factor\n    return D, Y\n",
       {{"C", S::tile, c}, {"X", S::tile, c}, {"alpha", S::scalar, c, 1.5}, {"beta", S::scalar, c, -0.5},
        {"x_factor", S::scalar, c, 0.25}, {"D", S::tile, d}, {"Y", S::tile, d}},
       true},
      {"epilogue_with_relu",
       "def epilogue_with_relu(accum, C, alpha, beta):\n    d = accum * alpha + C * beta\n"
       "    D = where(d > 0, d, 0.0)\n    return D\n",
       {{"C", S::tile, c}, {"alpha", S::scalar, c, 1.0}, {"beta", S::scalar, c, 1.0}, {"D", S::tile, d}},
       true},
      {"multi_output",
       "def epilogue_multi_output(accum, C):\n    D = accum + C\n    D_squared = D * D\n    return D, D_squared\n",
       {{"C", S::tile, c}, {"D", S::tile, d}, {"D_squared", S::tile, DType::f32}}, true},
      {"complex",
       "def epilogue_complex(accum, C, X, bias, scale):\n    r = (accum + bias) * scale\n    r2 = r + C\n"
       "    r3 = r2 + tanh(X)\n    D = gelu(r3)\n    return D\n",
       {{"C", S::tile, c}, {"X", S::tile, c}, {"bias", S::row, c}, {"scale", S::scalar, c, 0.125},
        {"D", S::tile, d}},
       true},
  };
}

/// Epilogues that together call every op of the op table, load every kind
/// and dtype, and store every kind and dtype.
inline std::vector<EpilogueCase> coverage_epilogues() {
  using S = OperandShape;
  return {
      {"arithmetic",
       "def epi(accum, a, b):\n    s = accum * 0.0625\n    t = (s + a) - b * 0.5\n    u = t / (abs(b) + 1.0)\n"
       "    v = -u + s ** 2.0 + pow(abs(a), 0.5)\n    c1 = where(v < a, 1.0, 0.0) + (v <= a) + (v > b) + (v >= b)\n"
       "    c2 = (a == b) + (a != b)\n    D = clamp(maximum(v, a) + minimum(v, b) + c1 - c2, -50.0, 50.0)\n"
       "    return D\n",
       {{"a", S::tile, DType::f16}, {"b", S::tile, DType::bf16}, {"D", S::tile, DType::f32}}},
      {"activations",
       "def epi(accum, x):\n    s = accum * 0.125 + x\n"
       "    D = relu(s) + leaky_relu(s) + leaky_relu(s, 0.2) + sigmoid(s) + tanh(s) + silu(s)\n"
       "    E = gelu(s) + gelu_tanh(s) + hardswish(s) + elu(s) + elu(s, 0.5) + softplus(s)\n"
       "    return D, E\n",
       {{"x", S::tile, DType::f32}, {"D", S::tile, DType::f32}, {"E", S::tile, DType::f32}}},
      {"elementary",
       "def epi(accum, x):\n    s = accum * 0.0625 + x\n    a = abs(s)\n"
       "    D = exp(s * 0.25) + log(a + 1.0) + sqrt(a) + rsqrt(a + 1.0)\n"
       "    E = sin(s) + cos(s) + tan(s * 0.25) + erf(s)\n    return D, E\n",
       {{"x", S::tile, DType::f32}, {"D", S::tile, DType::f32}, {"E", S::tile, DType::f32}}},
      {"casts",
       "def epi(accum, x):\n    s = accum * 0.5 + x\n"
       "    D = to_f16(s) + to_bf16(s) + to_f32(s) + to_e4m3(s) + to_e5m2(s)\n"
       "    E = to_i8(s) + to_u8(s) + to_i32(s * 1000.0)\n    return D, E\n",
       {{"x", S::tile, DType::f32}, {"D", S::tile, DType::f32}, {"E", S::tile, DType::f32}}},
      {"load_kinds",
       "def epi(accum, alpha, s, r, rb, c, cb, t, ts):\n"
       "    D = accum * alpha + s + r * 2.0 + rb + c * 3.0 + cb + t + ts\n    return D\n",
       {{"alpha", S::scalar, DType::f32, 0.75}, {"s", S::scalar_tensor, DType::f32}, {"r", S::row, DType::f16},
        {"rb", S::row_batched, DType::bf16}, {"c", S::column, DType::i8}, {"cb", S::column_batched, DType::u8},
        {"t", S::tile, DType::i32}, {"ts", S::tile_shared, DType::e4m3}, {"D", S::tile, DType::f32}}},
      {"load_dtypes",
       "def epi(accum, a, b, c, d, e, f, g, h, i, j):\n"
       "    D = accum + a + b + c + d + e + f + g + h + i + j\n    return D\n",
       {{"a", S::tile, DType::f32}, {"b", S::tile, DType::tf32}, {"c", S::tile, DType::f16},
        {"d", S::tile, DType::bf16}, {"e", S::tile, DType::e4m3}, {"f", S::tile, DType::e5m2},
        {"g", S::tile, DType::i8}, {"h", S::tile, DType::u8}, {"i", S::tile, DType::i32},
        {"j", S::row, DType::f64}, {"D", S::tile, DType::f32}}},
      {"store_dtypes",
       "def epi(accum, x):\n    D = accum * 0.25 + x\n    E = D\n    F = D * 2.0\n    G = D - 1.0\n"
       "    H = D * 8.0\n    I = D * 4.0\n    J = D * 16.0\n    K = D + 100.0\n"
       "    return D, E, F, G, H, I, J, K\n",
       {{"x", S::tile, DType::f32}, {"D", S::tile, DType::f16}, {"E", S::tile, DType::bf16},
        {"F", S::tile, DType::e4m3}, {"G", S::tile, DType::e5m2}, {"H", S::tile, DType::i8},
        {"I", S::tile, DType::u8}, {"J", S::tile, DType::i32}, {"K", S::tile, DType::f32}}},
      {"reductions",
       "def epi(accum, bias):\n    F = accum + bias\n    D = relu(F)\n    rs = sum(F)\n    cm = max(F)\n"
       "    am = amax(F)\n    rn = min(D)\n    cs = sum(accum)\n    return D, rs, cm, am, rn, cs\n",
       {{"bias", S::row, DType::f32}, {"D", S::tile, DType::f16}, {"rs", S::row_reduce, DType::f32},
        {"cm", S::column_reduce, DType::f32}, {"am", S::scalar_reduce, DType::f32},
        {"rn", S::row_reduce, DType::f32}, {"cs", S::column_reduce, DType::f32}}},
      {"return_accum_only", "def epi(accum):\n    D = accum\n    return D\n", {{"D", S::tile, DType::f32}}},
  };
}

/// The epilogue of `cases` named `name`; throws std::out_of_range when
/// there is none.
inline EpilogueCase epilogue_case(const std::vector<EpilogueCase>& cases, const std::string& name) {
  for (const EpilogueCase& c : cases) {
    if (c.name == name) return c;
  }
  throw std::out_of_range("no catalog epilogue named " + name);
}

/// The seed or coverage epilogue named `name` (default dtypes).
inline EpilogueCase epilogue_case(const std::string& name) {
  std::vector<EpilogueCase> all = seed_epilogues();
  for (EpilogueCase& c : coverage_epilogues()) all.push_back(std::move(c));
  return epilogue_case(all, name);
}

/// One A/B/accumulator/compute combination to instantiate kernels with.
struct DTypeCombo {
  std::string name;
  DType a = DType::f16;
  DType b = DType::f16;
  DType accumulator = DType::f32;
  DType compute = DType::f32;
};

/// Every operand/accumulator pairing analyze() accepts, and every compute type.
inline std::vector<DTypeCombo> dtype_combos() {
  return {
      {"f16_f32acc", DType::f16, DType::f16, DType::f32, DType::f32},
      {"f16_f16acc", DType::f16, DType::f16, DType::f16, DType::f32},
      {"bf16_f32acc", DType::bf16, DType::bf16, DType::f32, DType::f32},
      {"f32_f32acc", DType::f32, DType::f32, DType::f32, DType::f32},
      {"tf32_f32acc", DType::tf32, DType::tf32, DType::f32, DType::f32},
      {"e4m3_e5m2_f32acc", DType::e4m3, DType::e5m2, DType::f32, DType::f32},
      {"e5m2_f16acc", DType::e5m2, DType::e5m2, DType::f16, DType::f32},
      {"i8_i32acc", DType::i8, DType::i8, DType::i32, DType::f32},
      {"u8_i8_i32acc", DType::u8, DType::i8, DType::i32, DType::f32},
      {"f64_f64acc", DType::f64, DType::f64, DType::f64, DType::f64},
      {"f16_compute_f16", DType::f16, DType::f16, DType::f32, DType::f16},
      {"bf16_compute_bf16", DType::bf16, DType::bf16, DType::f32, DType::bf16},
      {"f32_compute_f64", DType::f32, DType::f32, DType::f32, DType::f64},
  };
}

}  // namespace epigemm::testing
