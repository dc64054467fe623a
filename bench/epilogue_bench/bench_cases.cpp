// The benchmark's case lists, epilogue sources and their reference math.
// The sources are the six epilogues and the tanh-form GELU, written
// as a user would write them; the reference math mirrors each in double
// precision.
#include "bench_cases.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "cuda_check.hpp"

namespace epigemm::bench {

std::string Shape::label() const {
  if (m == n && n == k) return std::to_string(m) + "^3";
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string_view epilogue_label(EpilogueKind kind) {
  switch (kind) {
    case EpilogueKind::none: return "none";
    case EpilogueKind::alpha_beta: return "alpha*acc+beta*C";
    case EpilogueKind::relu_aux: return "relu(acc*a+2C)+F";
    case EpilogueKind::gelu_bias: return "gelu(acc+bias)";
    case EpilogueKind::row_col_bias: return "a*acc+rowb+colb";
    case EpilogueKind::scale_amax: return "acc*s->e4m3+amax";
    case EpilogueKind::gelu_tanh_bias: return "gelu_tanh(acc+bias)";
  }
  return "?";
}

std::string_view epilogue_source(EpilogueKind kind) {
  switch (kind) {
    case EpilogueKind::none: return "";
    case EpilogueKind::alpha_beta:
      return "def epi(accum, alpha, beta, C):\n"
             "    D = alpha * accum + beta * C\n"
             "    return D\n";
    case EpilogueKind::relu_aux:
      return "def epi(accum, alpha, C):\n"
             "    F = accum * alpha + C * 2.0\n"
             "    D = relu(F)\n"
             "    return D, F\n";
    case EpilogueKind::gelu_bias:
      return "def epi(accum, bias):\n"
             "    D = gelu(accum + bias)\n"
             "    return D\n";
    case EpilogueKind::row_col_bias:
      return "def epi(accum, alpha, row_bias, col_bias):\n"
             "    D = accum * alpha + row_bias + col_bias\n"
             "    return D\n";
    case EpilogueKind::scale_amax:
      return "def epi(accum, scale):\n"
             "    D = accum * scale\n"
             "    amax = amax(D)\n"
             "    return D, amax\n";
    case EpilogueKind::gelu_tanh_bias:
      return "def epi(accum, bias):\n"
             "    D = gelu_tanh(accum + bias)\n"
             "    return D\n";
  }
  return "";
}

DType d_dtype(EpilogueKind kind, DType out) { return kind == EpilogueKind::scale_amax ? DType::e4m3 : out; }

EpilogueValues reference_epilogue(EpilogueKind kind, double accum, const EpilogueInputs& in) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (kind) {
    case EpilogueKind::none: return {accum, nan};
    case EpilogueKind::alpha_beta: return {in.alpha * accum + in.beta * in.c, nan};
    case EpilogueKind::relu_aux: {
      const double f = accum * in.alpha + in.c * 2.0;
      return {f > 0.0 ? f : 0.0, f};
    }
    case EpilogueKind::gelu_bias: {
      const double x = accum + in.row_bias;
      return {0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))), nan};
    }
    case EpilogueKind::row_col_bias: return {accum * in.alpha + in.row_bias + in.col_bias, nan};
    case EpilogueKind::scale_amax: return {accum * in.scale, nan};
    case EpilogueKind::gelu_tanh_bias: {
      const double x = accum + in.row_bias;
      const double u = std::sqrt(2.0 / std::acos(-1.0)) * (x + 0.044715 * x * x * x);
      return {0.5 * x * (1.0 + std::tanh(u)), nan};
    }
  }
  return {nan, nan};
}

std::string BenchCase::dtype_label() const {
  const std::string accumulation = fp8_accumulation_name();
  std::string text = std::string(to_string(ab)) + (accumulation.empty() ? "" : " " + accumulation + "-acc");
  if (b_layout == BLayout::col_major) text += " " + std::string(kColMajorBMarker);
  return text;
}

bool BenchCase::b_col_major() const noexcept { return b_layout == BLayout::col_major || k_major_b(ab); }

std::string BenchCase::label() const { return dtype_label() + " " + shape.label(); }

std::string BenchCase::fp8_accumulation_name() const {
  if (!is_fp8(ab)) return "";
  return fp8_accumulation == Fp8Accumulation::fast ? "fast" : "precise";
}

std::vector<BenchCase> full_suite() {
  const Shape shapes[] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {4096, 14336, 4096},
                          {1024, 1024, 1024}, {16, 8192, 8192},   {128, 8192, 8192}};
  const std::vector<EpilogueKind> all(std::begin(kAllEpilogues), std::end(kAllEpilogues));
  // bf16 also times the tanh-form GELU, the one cuBLASLt's GELU_BIAS computes.
  std::vector<EpilogueKind> all_and_gelu_tanh = all;
  all_and_gelu_tanh.push_back(EpilogueKind::gelu_tanh_bias);
  std::vector<BenchCase> cases;
  for (DType ab : {DType::bf16, DType::f16}) {
    for (const Shape& s : shapes) cases.push_back({ab, s, ab == DType::bf16 ? all_and_gelu_tanh : all});
    if (ab != DType::bf16) continue;
    // The skinny shapes again with B = W^T of an nn.Linear weight W (N, K).
    for (const Shape& s : {shapes[4], shapes[5]}) {
      cases.push_back({.ab = ab, .shape = s, .epilogues = all, .b_layout = BLayout::col_major});
    }
  }
  const std::vector<EpilogueKind> fp8{EpilogueKind::none, EpilogueKind::scale_amax};
  cases.push_back({DType::e4m3, {8192, 8192, 8192}, fp8, Fp8Accumulation::fast});
  cases.push_back({DType::e4m3, {8192, 8192, 8192}, fp8, Fp8Accumulation::precise});
  // Informational: fp8 at M = 16 (weights streamed), tf32 and int8.
  cases.push_back({DType::e4m3, shapes[4], fp8, Fp8Accumulation::fast});
  const std::vector<EpilogueKind> none_alpha_beta{EpilogueKind::none, EpilogueKind::alpha_beta};
  for (DType ab : {DType::tf32, DType::i8}) {
    for (const Shape& s : {shapes[0], shapes[1], shapes[4]}) cases.push_back({ab, s, none_alpha_beta});
  }
  return cases;
}

std::vector<BenchCase> custom_suite(const std::vector<Shape>& shapes) {
  const std::vector<EpilogueKind> all(std::begin(kAllEpilogues), std::end(kAllEpilogues));
  std::vector<BenchCase> cases;
  for (const Shape& s : shapes) {
    cases.push_back({DType::bf16, s, all});
    cases.push_back({DType::f16, s, all});
    cases.push_back({.ab = DType::bf16, .shape = s, .epilogues = all, .b_layout = BLayout::col_major});
    for (Fp8Accumulation a : {Fp8Accumulation::fast, Fp8Accumulation::precise})
      cases.push_back({DType::e4m3, s, {EpilogueKind::none, EpilogueKind::scale_amax}, a});
    for (DType ab : {DType::tf32, DType::i8}) cases.push_back({ab, s, {EpilogueKind::none, EpilogueKind::alpha_beta}});
  }
  return cases;
}

std::vector<BenchCase> sweep_suite() {
  const Shape shapes[] = {
      // Square, between the suite's sizes; 1000 and 3000 have rows that are
      // 16-byte but not 128-byte multiples, 4095 not even 16-byte ones.
      {512, 512, 512}, {768, 768, 768}, {1536, 1536, 1536}, {2048, 2048, 2048}, {3072, 3072, 3072},
      {6144, 6144, 6144}, {1000, 1000, 1000}, {3000, 3000, 3000}, {4095, 4095, 4095},
      // LLM projections (tokens x out x in) and a long M.
      {256, 8192, 8192}, {512, 8192, 8192}, {512, 4096, 4096}, {2048, 4096, 4096}, {1024, 14336, 4096},
      {1024, 4096, 14336}, {2048, 11008, 4096}, {16384, 4096, 4096},
      // Short K, and a skinny N.
      {8192, 8192, 1024}, {4096, 4096, 512}, {8192, 1024, 8192}, {8192, 128, 8192},
      // Skinny M; K = 8191 has A's rows 16382 bytes apart (copied first).
      {64, 4096, 4096}, {32, 8192, 8192}, {8, 4096, 4096}, {16, 8192, 8191}};
  const std::vector<EpilogueKind> all(std::begin(kAllEpilogues), std::end(kAllEpilogues));
  std::vector<BenchCase> cases;
  for (const Shape& s : shapes) cases.push_back({DType::bf16, s, all});
  return cases;
}

Shape parse_shape(const std::string& text) {
  // Sizes separated by 'x' (three of them), or one size followed by "^3".
  std::vector<std::int64_t> sizes;
  const char* at = text.data();
  const char* end = text.data() + text.size();
  while (true) {
    std::int64_t v = 0;
    const auto [next, ec] = std::from_chars(at, end, v);
    if (ec != std::errc() || v <= 0) break;
    sizes.push_back(v);
    at = next;
    if (at == end || *at != 'x') break;
    ++at;
  }
  if (sizes.size() == 1 && std::string_view(at, end) == "^3") return {sizes[0], sizes[0], sizes[0]};
  if (sizes.size() == 3 && at == end) return {sizes[0], sizes[1], sizes[2]};
  throw BenchError("--shape wants MxNxK or S^3 with positive sizes, not \"" + text + "\"");
}

std::vector<BenchCase> quick_suite() {
  const std::vector<EpilogueKind> all(std::begin(kAllEpilogues), std::end(kAllEpilogues));
  return {{DType::bf16, {4096, 4096, 4096}, all},
          {DType::bf16, {16, 8192, 8192}, all},
          {DType::e4m3, {4096, 4096, 4096}, {EpilogueKind::none, EpilogueKind::scale_amax}, Fp8Accumulation::fast},
          {DType::e4m3, {4096, 4096, 4096}, {EpilogueKind::none}, Fp8Accumulation::precise}};
}

}  // namespace epigemm::bench
