// The table of every epilogue operation, in OpCode order: names, arities,
// defaults, reference math in double (as PyTorch defines each function), the
// CUDA device function names, and lookup of functions by name.
#include "ir/op_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "ir/convert.hpp"

namespace epigemm::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSqrtHalf = 0.70710678118654752440;   // 1/sqrt(2)
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // sqrt(2/pi)
constexpr double kGeluTanhCubic = 0.044715;
constexpr double kSoftplusBeta = 1.0;
constexpr double kSoftplusThreshold = 20.0;

double nan_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  return a < b ? b : a;
}

double nan_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  return b < a ? b : a;
}

double truth(bool value) { return value ? 1.0 : 0.0; }

// Every reference function takes three operands; unused ones are ignored.
double op_add(double a, double b, double) { return a + b; }
double op_sub(double a, double b, double) { return a - b; }
double op_mul(double a, double b, double) { return a * b; }
double op_div(double a, double b, double) { return a / b; }
double op_neg(double a, double, double) { return -a; }
double op_pow(double a, double b, double) { return std::pow(a, b); }
double op_lt(double a, double b, double) { return truth(a < b); }
double op_le(double a, double b, double) { return truth(a <= b); }
double op_gt(double a, double b, double) { return truth(a > b); }
double op_ge(double a, double b, double) { return truth(a >= b); }
double op_eq(double a, double b, double) { return truth(a == b); }
double op_ne(double a, double b, double) { return truth(a != b); }

double op_relu(double a, double, double) { return std::isnan(a) || a > 0.0 ? a : 0.0; }
double op_leaky_relu(double a, double slope, double) { return a > 0.0 ? a : a * slope; }
double op_sigmoid(double a, double, double) { return 1.0 / (1.0 + std::exp(-a)); }
double op_tanh(double a, double, double) { return std::tanh(a); }
double op_silu(double a, double, double) { return a / (1.0 + std::exp(-a)); }
double op_gelu(double a, double, double) { return 0.5 * a * (1.0 + std::erf(a * kSqrtHalf)); }
double op_gelu_tanh(double a, double, double) {
  return 0.5 * a * (1.0 + std::tanh(kSqrtTwoOverPi * (a + kGeluTanhCubic * a * a * a)));
}
double op_hardswish(double a, double, double) { return a * nan_min(nan_max(a + 3.0, 0.0), 6.0) / 6.0; }
double op_elu(double a, double alpha, double) { return a > 0.0 ? a : alpha * std::expm1(a); }
double op_softplus(double a, double, double) {
  if (a * kSoftplusBeta > kSoftplusThreshold) return a;
  return std::log1p(std::exp(kSoftplusBeta * a)) / kSoftplusBeta;
}
double op_exp(double a, double, double) { return std::exp(a); }
double op_log(double a, double, double) { return std::log(a); }
double op_sqrt(double a, double, double) { return std::sqrt(a); }
double op_rsqrt(double a, double, double) { return 1.0 / std::sqrt(a); }
double op_abs(double a, double, double) { return std::fabs(a); }
double op_sin(double a, double, double) { return std::sin(a); }
double op_cos(double a, double, double) { return std::cos(a); }
double op_tan(double a, double, double) { return std::tan(a); }
double op_erf(double a, double, double) { return std::erf(a); }
double op_maximum(double a, double b, double) { return nan_max(a, b); }
double op_minimum(double a, double b, double) { return nan_min(a, b); }
double op_clamp(double a, double lo, double hi) { return nan_min(nan_max(a, lo), hi); }
double op_where(double c, double a, double b) { return c != 0.0 ? a : b; }

double op_to_f16(double a, double, double) { return round_to(DType::f16, a); }
double op_to_bf16(double a, double, double) { return round_to(DType::bf16, a); }
double op_to_f32(double a, double, double) { return round_to(DType::f32, a); }
double op_to_e4m3(double a, double, double) { return round_to(DType::e4m3, a); }
double op_to_e5m2(double a, double, double) { return round_to(DType::e5m2, a); }
double op_to_i8(double a, double, double) { return round_to(DType::i8, a); }
double op_to_u8(double a, double, double) { return round_to(DType::u8, a); }
double op_to_i32(double a, double, double) { return round_to(DType::i32, a); }

// Reductions: the combine step (running value, next element) -> running value.
double op_sum(double running, double x, double) { return running + x; }
double op_max(double running, double x, double) { return nan_max(running, x); }
double op_min(double running, double x, double) { return nan_min(running, x); }
double op_amax(double running, double x, double) { return nan_max(running, std::fabs(x)); }

using OC = OpCode;
using Cls = OpClass;
constexpr std::optional<DType> kNoCast;

// clang-format off
constexpr OpInfo kOps[] = {
  // code           name          symbol min max defaults        class            cast_to      reference      cuda_function     identity, transcendental
  {OC::add,        "add",        "+",  2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_add,        "epg_add",        0},
  {OC::sub,        "sub",        "-",  2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_sub,        "epg_sub",        0},
  {OC::mul,        "mul",        "*",  2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_mul,        "epg_mul",        0},
  {OC::div,        "div",        "/",  2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_div,        "epg_div",        0},
  {OC::neg,        "neg",        "-",  1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_neg,        "epg_neg",        0},
  {OC::pow,        "pow",        "**", 2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_pow,        "epg_pow",        0, true},
  {OC::lt,         "lt",         "<",  2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_lt,         "epg_lt",         0},
  {OC::le,         "le",         "<=", 2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_le,         "epg_le",         0},
  {OC::gt,         "gt",         ">",  2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_gt,         "epg_gt",         0},
  {OC::ge,         "ge",         ">=", 2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_ge,         "epg_ge",         0},
  {OC::eq,         "eq",         "==", 2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_eq,         "epg_eq",         0},
  {OC::ne,         "ne",         "!=", 2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_ne,         "epg_ne",         0},
  {OC::relu,       "relu",       "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_relu,       "epg_relu",       0},
  {OC::leaky_relu, "leaky_relu", "",   1, 2, {0, 0.01, 0}, Cls::elementwise, kNoCast,     op_leaky_relu, "epg_leaky_relu", 0},
  {OC::sigmoid,    "sigmoid",    "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_sigmoid,    "epg_sigmoid",    0, true},
  {OC::tanh,       "tanh",       "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_tanh,       "epg_tanh",       0, true},
  {OC::silu,       "silu",       "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_silu,       "epg_silu",       0, true},
  {OC::gelu,       "gelu",       "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_gelu,       "epg_gelu",       0, true},
  {OC::gelu_tanh,  "gelu_tanh",  "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_gelu_tanh,  "epg_gelu_tanh",  0, true},
  {OC::hardswish,  "hardswish",  "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_hardswish,  "epg_hardswish",  0},
  {OC::elu,        "elu",        "",   1, 2, {0, 1.0, 0},  Cls::elementwise, kNoCast,     op_elu,        "epg_elu",        0, true},
  {OC::softplus,   "softplus",   "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_softplus,   "epg_softplus",   0, true},
  {OC::exp,        "exp",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_exp,        "epg_exp",        0, true},
  {OC::log,        "log",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_log,        "epg_log",        0, true},
  {OC::sqrt,       "sqrt",       "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_sqrt,       "epg_sqrt",       0},
  {OC::rsqrt,      "rsqrt",      "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_rsqrt,      "epg_rsqrt",      0},
  {OC::abs,        "abs",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_abs,        "epg_abs",        0},
  {OC::sin,        "sin",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_sin,        "epg_sin",        0, true},
  {OC::cos,        "cos",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_cos,        "epg_cos",        0, true},
  {OC::tan,        "tan",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_tan,        "epg_tan",        0, true},
  {OC::erf,        "erf",        "",   1, 1, {0, 0, 0},    Cls::elementwise, kNoCast,     op_erf,        "epg_erf",        0, true},
  {OC::maximum,    "maximum",    "",   2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_maximum,    "epg_maximum",    0},
  {OC::minimum,    "minimum",    "",   2, 2, {0, 0, 0},    Cls::elementwise, kNoCast,     op_minimum,    "epg_minimum",    0},
  {OC::clamp,      "clamp",      "",   3, 3, {0, 0, 0},    Cls::elementwise, kNoCast,     op_clamp,      "epg_clamp",      0},
  {OC::where,      "where",      "",   3, 3, {0, 0, 0},    Cls::elementwise, kNoCast,     op_where,      "epg_where",      0},
  {OC::to_f16,     "to_f16",     "",   1, 1, {0, 0, 0},    Cls::cast,        DType::f16,  op_to_f16,     "epg_to_f16",     0},
  {OC::to_bf16,    "to_bf16",    "",   1, 1, {0, 0, 0},    Cls::cast,        DType::bf16, op_to_bf16,    "epg_to_bf16",    0},
  {OC::to_f32,     "to_f32",     "",   1, 1, {0, 0, 0},    Cls::cast,        DType::f32,  op_to_f32,     "epg_to_f32",     0},
  {OC::to_e4m3,    "to_e4m3",    "",   1, 1, {0, 0, 0},    Cls::cast,        DType::e4m3, op_to_e4m3,    "epg_to_e4m3",    0},
  {OC::to_e5m2,    "to_e5m2",    "",   1, 1, {0, 0, 0},    Cls::cast,        DType::e5m2, op_to_e5m2,    "epg_to_e5m2",    0},
  {OC::to_i8,      "to_i8",      "",   1, 1, {0, 0, 0},    Cls::cast,        DType::i8,   op_to_i8,      "epg_to_i8",      0},
  {OC::to_u8,      "to_u8",      "",   1, 1, {0, 0, 0},    Cls::cast,        DType::u8,   op_to_u8,      "epg_to_u8",      0},
  {OC::to_i32,     "to_i32",     "",   1, 1, {0, 0, 0},    Cls::cast,        DType::i32,  op_to_i32,     "epg_to_i32",     0},
  {OC::sum,        "sum",        "",   1, 1, {0, 0, 0},    Cls::reduction,   kNoCast,     op_sum,        "epg_sum",        0},
  {OC::max,        "max",        "",   1, 1, {0, 0, 0},    Cls::reduction,   kNoCast,     op_max,        "epg_max",        -kInf},
  {OC::min,        "min",        "",   1, 1, {0, 0, 0},    Cls::reduction,   kNoCast,     op_min,        "epg_min",        kInf},
  {OC::amax,       "amax",       "",   1, 1, {0, 0, 0},    Cls::reduction,   kNoCast,     op_amax,       "epg_amax",       0},
};
// clang-format on

constexpr std::size_t kOpCount = sizeof(kOps) / sizeof(kOps[0]);
static_assert(kOpCount == static_cast<std::size_t>(OpCode::amax) + 1, "one table row per OpCode");

constexpr bool table_in_opcode_order() {
  for (std::size_t i = 0; i < kOpCount; ++i) {
    if (static_cast<std::size_t>(kOps[i].code) != i) return false;
  }
  return true;
}
static_assert(table_in_opcode_order(), "table rows must follow OpCode order");

/// Whether the language lets users call the operation by its name: every
/// function, and `pow`, which is also spelled `**`; not `add`, `neg`, `lt`...
bool callable(const OpInfo& info) { return info.symbol.empty() || info.code == OpCode::pow; }

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

/// Edit distance counting insertions, deletions, substitutions and swaps of
/// two adjacent characters (optimal string alignment), case-insensitive.
int edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<int> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> int& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      int best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        best = std::min(best, at(i - 2, j - 2) + 1);
      }
      at(i, j) = best;
    }
  }
  return at(n, m);
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower(text[i]) != lower(prefix[i])) return false;
  }
  return true;
}

}  // namespace

std::span<const OpInfo> all_ops() noexcept { return {kOps, kOpCount}; }

const OpInfo& op_info(OpCode code) noexcept {
  const auto index = static_cast<std::size_t>(code);
  return kOps[index < kOpCount ? index : 0];
}

const OpInfo* find_function(std::string_view name) noexcept {
  for (const OpInfo& info : kOps) {
    if (info.name == name && callable(info)) return &info;
  }
  return nullptr;
}

std::vector<std::string> close_function_names(std::string_view name, int max_results) {
  // Short names allow one edit, longer ones two; a name of three or more
  // characters that begins a function name counts as one edit away.
  constexpr std::size_t kShortName = 3;
  const int max_distance = name.size() <= kShortName ? 1 : 2;
  struct Candidate {
    int score;
    std::size_t index;
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < kOpCount; ++i) {
    if (!callable(kOps[i])) continue;
    int score = edit_distance(name, kOps[i].name);
    if (name.size() >= kShortName && starts_with_ignoring_case(kOps[i].name, name)) score = std::min(score, 1);
    if (score <= max_distance) candidates.push_back({score, i});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  std::vector<std::string> result;
  for (const Candidate& c : candidates) {
    if (static_cast<int>(result.size()) >= max_results) break;
    result.emplace_back(kOps[c.index].name);
  }
  return result;
}

}  // namespace epigemm::ir
