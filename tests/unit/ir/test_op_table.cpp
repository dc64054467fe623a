// Tests of the op table: order and uniqueness, names, symbols, arities and
// defaults, every op's reference math against values computed by hand (or
// from the functions' definitions elsewhere), function lookup and suggestions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "ir/op_table.hpp"

namespace epigemm::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ref(OpCode code, double a, double b = 0.0, double c = 0.0) { return op_info(code).reference(a, b, c); }

/// Equal within a few units in the last place (library math may differ by an ulp).
void expect_close(OpCode code, double got, double want) {
  EXPECT_NEAR(got, want, 4e-16 * std::max(1.0, std::fabs(want))) << op_info(code).name;
}

TEST(OpTable, RowsFollowOpCodeOrderAndNamesAreUnique) {
  const auto ops = all_ops();
  ASSERT_EQ(ops.size(), static_cast<std::size_t>(OpCode::amax) + 1);
  std::set<std::string_view> names, functions;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(ops[i].code), i);
    EXPECT_EQ(&op_info(ops[i].code), &ops[i]);
    EXPECT_TRUE(names.insert(ops[i].name).second) << "duplicate name " << ops[i].name;
    EXPECT_TRUE(functions.insert(ops[i].cuda_function).second) << "duplicate " << ops[i].cuda_function;
    EXPECT_EQ(std::string(ops[i].cuda_function), "epg_" + std::string(ops[i].name));
    EXPECT_LE(ops[i].min_arity, ops[i].max_arity);
    EXPECT_GE(ops[i].min_arity, 1);
    EXPECT_LE(ops[i].max_arity, 3);
    EXPECT_NE(ops[i].reference, nullptr);
    EXPECT_EQ(ops[i].cast_to.has_value(), ops[i].op_class == OpClass::cast) << ops[i].name;
  }
  EXPECT_EQ(op_info(OpCode::add).name, "add");
  EXPECT_EQ(op_info(OpCode::gelu_tanh).name, "gelu_tanh");
  EXPECT_EQ(op_info(OpCode::to_e4m3).name, "to_e4m3");
  EXPECT_EQ(op_info(OpCode::amax).name, "amax");
  EXPECT_EQ(op_info(OpCode::relu).cuda_function, "epg_relu");
  EXPECT_EQ(op_info(OpCode::to_f16).cuda_function, "epg_to_f16");
}

TEST(OpTable, Symbols) {
  const std::pair<OpCode, std::string_view> symbols[] = {
      {OpCode::add, "+"}, {OpCode::sub, "-"},  {OpCode::mul, "*"},  {OpCode::div, "/"},  {OpCode::neg, "-"},
      {OpCode::pow, "**"}, {OpCode::lt, "<"},  {OpCode::le, "<="}, {OpCode::gt, ">"},  {OpCode::ge, ">="},
      {OpCode::eq, "=="}, {OpCode::ne, "!="}};
  int with_symbol = 0;
  for (const auto& [code, symbol] : symbols) EXPECT_EQ(op_info(code).symbol, symbol) << op_info(code).name;
  for (const OpInfo& info : all_ops()) with_symbol += !info.symbol.empty();
  EXPECT_EQ(with_symbol, 12);
  EXPECT_EQ(op_info(OpCode::neg).name, "neg");
  EXPECT_EQ(op_info(OpCode::neg).max_arity, 1);
}

TEST(OpTable, AritiesAndDefaults) {
  EXPECT_EQ(op_info(OpCode::leaky_relu).min_arity, 1);
  EXPECT_EQ(op_info(OpCode::leaky_relu).max_arity, 2);
  EXPECT_EQ(op_info(OpCode::leaky_relu).defaults[1], 0.01);
  EXPECT_EQ(op_info(OpCode::elu).min_arity, 1);
  EXPECT_EQ(op_info(OpCode::elu).max_arity, 2);
  EXPECT_EQ(op_info(OpCode::elu).defaults[1], 1.0);
  EXPECT_EQ(op_info(OpCode::softplus).max_arity, 1);
  EXPECT_EQ(op_info(OpCode::clamp).min_arity, 3);
  EXPECT_EQ(op_info(OpCode::where).min_arity, 3);
  EXPECT_EQ(op_info(OpCode::pow).min_arity, 2);
  EXPECT_EQ(op_info(OpCode::maximum).min_arity, 2);
  EXPECT_EQ(op_info(OpCode::sum).max_arity, 1);
  EXPECT_EQ(op_info(OpCode::amax).max_arity, 1);
  EXPECT_EQ(op_info(OpCode::relu).max_arity, 1);
}

TEST(OpTable, ArithmeticAndComparisons) {
  EXPECT_EQ(ref(OpCode::add, 1.25, 2.5), 3.75);
  EXPECT_EQ(ref(OpCode::sub, 1.25, 2.5), -1.25);
  EXPECT_EQ(ref(OpCode::mul, 1.5, -4.0), -6.0);
  EXPECT_EQ(ref(OpCode::div, 3.0, 4.0), 0.75);
  EXPECT_EQ(ref(OpCode::neg, 2.5), -2.5);
  EXPECT_EQ(ref(OpCode::pow, 1.5, 3.0), 3.375);
  expect_close(OpCode::pow, ref(OpCode::pow, 2.0, 0.5), 1.4142135623730951);
  EXPECT_EQ(ref(OpCode::lt, 1, 2), 1.0);
  EXPECT_EQ(ref(OpCode::lt, 2, 2), 0.0);
  EXPECT_EQ(ref(OpCode::le, 2, 2), 1.0);
  EXPECT_EQ(ref(OpCode::le, 3, 2), 0.0);
  EXPECT_EQ(ref(OpCode::gt, 3, 2), 1.0);
  EXPECT_EQ(ref(OpCode::gt, 2, 2), 0.0);
  EXPECT_EQ(ref(OpCode::ge, 2, 2), 1.0);
  EXPECT_EQ(ref(OpCode::ge, 1, 2), 0.0);
  EXPECT_EQ(ref(OpCode::eq, 2, 2), 1.0);
  EXPECT_EQ(ref(OpCode::eq, 2, 3), 0.0);
  EXPECT_EQ(ref(OpCode::ne, 2, 3), 1.0);
  EXPECT_EQ(ref(OpCode::ne, 2, 2), 0.0);
  // NaN compares false, except !=.
  EXPECT_EQ(ref(OpCode::lt, kNaN, 1), 0.0);
  EXPECT_EQ(ref(OpCode::eq, kNaN, kNaN), 0.0);
  EXPECT_EQ(ref(OpCode::ne, kNaN, kNaN), 1.0);
}

TEST(OpTable, Activations) {
  EXPECT_EQ(ref(OpCode::relu, 2.5), 2.5);
  EXPECT_EQ(ref(OpCode::relu, -2.5), 0.0);
  EXPECT_TRUE(std::isnan(ref(OpCode::relu, kNaN)));
  EXPECT_EQ(ref(OpCode::leaky_relu, -2.0, 0.01), -0.02);
  EXPECT_EQ(ref(OpCode::leaky_relu, -2.0, 0.25), -0.5);
  EXPECT_EQ(ref(OpCode::leaky_relu, 3.0, 0.25), 3.0);
  EXPECT_EQ(ref(OpCode::sigmoid, 0.0), 0.5);
  expect_close(OpCode::sigmoid, ref(OpCode::sigmoid, 2.0), 0.8807970779778823);
  expect_close(OpCode::sigmoid, ref(OpCode::sigmoid, -3.0), 0.04742587317756678);
  EXPECT_EQ(ref(OpCode::sigmoid, -1000.0), 0.0);
  EXPECT_EQ(ref(OpCode::sigmoid, 1000.0), 1.0);
  expect_close(OpCode::tanh, ref(OpCode::tanh, 0.5), 0.46211715726000974);
  expect_close(OpCode::silu, ref(OpCode::silu, 1.5), 1.2263617142904655);
  expect_close(OpCode::silu, ref(OpCode::silu, -2.0), -0.2384058440442351);
  expect_close(OpCode::gelu, ref(OpCode::gelu, 1.0), 0.8413447460685429);
  expect_close(OpCode::gelu, ref(OpCode::gelu, -0.5), -0.15426876936299344);
  expect_close(OpCode::gelu_tanh, ref(OpCode::gelu_tanh, 1.0), 0.8411919906082768);
  expect_close(OpCode::gelu_tanh, ref(OpCode::gelu_tanh, -2.0), -0.04540230591222494);
  EXPECT_EQ(ref(OpCode::hardswish, 4.0), 4.0);
  EXPECT_EQ(ref(OpCode::hardswish, -4.0), 0.0);
  expect_close(OpCode::hardswish, ref(OpCode::hardswish, 1.0), 2.0 / 3.0);
  expect_close(OpCode::hardswish, ref(OpCode::hardswish, -1.0), -1.0 / 3.0);
  EXPECT_EQ(ref(OpCode::elu, 2.0, 1.0), 2.0);
  expect_close(OpCode::elu, ref(OpCode::elu, -1.0, 1.0), -0.6321205588285577);
  expect_close(OpCode::elu, ref(OpCode::elu, -2.0, 0.5), -0.43233235838169365);
  expect_close(OpCode::softplus, ref(OpCode::softplus, 1.0), 1.3132616875182228);
  expect_close(OpCode::softplus, ref(OpCode::softplus, -3.0), 0.04858735157374206);
  expect_close(OpCode::softplus, ref(OpCode::softplus, 20.0), 20.000000002061153);  // at the threshold: not linear
  EXPECT_EQ(ref(OpCode::softplus, 20.5), 20.5);  // beyond the threshold: x itself
}

TEST(OpTable, MathFunctions) {
  expect_close(OpCode::exp, ref(OpCode::exp, 1.5), 4.4816890703380645);
  expect_close(OpCode::log, ref(OpCode::log, 3.0), 1.0986122886681098);
  EXPECT_EQ(ref(OpCode::sqrt, 2.25), 1.5);
  EXPECT_EQ(ref(OpCode::rsqrt, 4.0), 0.5);
  expect_close(OpCode::rsqrt, ref(OpCode::rsqrt, 2.0), 0.7071067811865475);
  EXPECT_EQ(ref(OpCode::abs, -3.5), 3.5);
  EXPECT_EQ(ref(OpCode::abs, 3.5), 3.5);
  expect_close(OpCode::sin, ref(OpCode::sin, 1.0), 0.8414709848078965);
  expect_close(OpCode::cos, ref(OpCode::cos, 1.0), 0.5403023058681398);
  expect_close(OpCode::tan, ref(OpCode::tan, 1.0), 1.5574077246549023);
  expect_close(OpCode::erf, ref(OpCode::erf, 0.5), 0.5204998778130465);
  EXPECT_TRUE(std::isnan(ref(OpCode::log, -1.0)));
  EXPECT_EQ(ref(OpCode::log, 0.0), -kInf);
}

TEST(OpTable, SelectionFunctions) {
  EXPECT_EQ(ref(OpCode::maximum, 2.0, -3.0), 2.0);
  EXPECT_EQ(ref(OpCode::maximum, -2.0, 3.0), 3.0);
  EXPECT_EQ(ref(OpCode::minimum, 2.0, -3.0), -3.0);
  EXPECT_EQ(ref(OpCode::minimum, -2.0, 3.0), -2.0);
  EXPECT_TRUE(std::isnan(ref(OpCode::maximum, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(ref(OpCode::maximum, 1.0, kNaN)));
  EXPECT_TRUE(std::isnan(ref(OpCode::minimum, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(ref(OpCode::minimum, 1.0, kNaN)));
  EXPECT_EQ(ref(OpCode::clamp, 5.0, -1.0, 2.0), 2.0);
  EXPECT_EQ(ref(OpCode::clamp, -5.0, -1.0, 2.0), -1.0);
  EXPECT_EQ(ref(OpCode::clamp, 0.5, -1.0, 2.0), 0.5);
  EXPECT_TRUE(std::isnan(ref(OpCode::clamp, kNaN, -1.0, 2.0)));
  EXPECT_EQ(ref(OpCode::where, 1.0, 7.0, 8.0), 7.0);
  EXPECT_EQ(ref(OpCode::where, 0.0, 7.0, 8.0), 8.0);
  EXPECT_EQ(ref(OpCode::where, -0.5, 7.0, 8.0), 7.0);
}

TEST(OpTable, Casts) {
  EXPECT_EQ(op_info(OpCode::to_f16).cast_to, DType::f16);
  EXPECT_EQ(op_info(OpCode::to_bf16).cast_to, DType::bf16);
  EXPECT_EQ(op_info(OpCode::to_f32).cast_to, DType::f32);
  EXPECT_EQ(op_info(OpCode::to_e4m3).cast_to, DType::e4m3);
  EXPECT_EQ(op_info(OpCode::to_e5m2).cast_to, DType::e5m2);
  EXPECT_EQ(op_info(OpCode::to_i8).cast_to, DType::i8);
  EXPECT_EQ(op_info(OpCode::to_u8).cast_to, DType::u8);
  EXPECT_EQ(op_info(OpCode::to_i32).cast_to, DType::i32);
  EXPECT_EQ(ref(OpCode::to_f16, 0.1), 0.0999755859375);   // 1638 * 2^-14
  EXPECT_EQ(ref(OpCode::to_bf16, 0.1), 0.10009765625);    // 205 * 2^-11
  EXPECT_EQ(ref(OpCode::to_f32, 0.1), 0.100000001490116119384765625);
  EXPECT_EQ(ref(OpCode::to_e4m3, 0.3), 0.3125);           // 10 * 2^-5
  EXPECT_EQ(ref(OpCode::to_e4m3, 1000.0), 448.0);
  EXPECT_EQ(ref(OpCode::to_e5m2, 0.3), 0.3125);           // 5 * 2^-4
  EXPECT_EQ(ref(OpCode::to_e5m2, -1e6), -57344.0);
  EXPECT_EQ(ref(OpCode::to_i8, 2.5), 2.0);
  EXPECT_EQ(ref(OpCode::to_i8, -1000.0), -128.0);
  EXPECT_EQ(ref(OpCode::to_u8, -3.0), 0.0);
  EXPECT_EQ(ref(OpCode::to_u8, 3.5), 4.0);
  EXPECT_EQ(ref(OpCode::to_i32, -7.5), -8.0);
}

TEST(OpTable, Reductions) {
  EXPECT_EQ(op_info(OpCode::sum).reduction_identity, 0.0);
  EXPECT_EQ(op_info(OpCode::max).reduction_identity, -kInf);
  EXPECT_EQ(op_info(OpCode::min).reduction_identity, kInf);
  EXPECT_EQ(op_info(OpCode::amax).reduction_identity, 0.0);
  for (OpCode code : {OpCode::sum, OpCode::max, OpCode::min, OpCode::amax}) {
    EXPECT_EQ(op_info(code).op_class, OpClass::reduction);
  }
  // Fold a short list with each combine step, starting from the identity.
  const double values[] = {1.5, -4.0, 2.25, -0.5};
  auto fold = [&](OpCode code) {
    double running = op_info(code).reduction_identity;
    for (double v : values) running = ref(code, running, v);
    return running;
  };
  EXPECT_EQ(fold(OpCode::sum), -0.75);
  EXPECT_EQ(fold(OpCode::max), 2.25);
  EXPECT_EQ(fold(OpCode::min), -4.0);
  EXPECT_EQ(fold(OpCode::amax), 4.0);
  EXPECT_TRUE(std::isnan(ref(OpCode::max, 1.0, kNaN)));
  EXPECT_TRUE(std::isnan(ref(OpCode::max, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(ref(OpCode::min, 1.0, kNaN)));
  EXPECT_TRUE(std::isnan(ref(OpCode::amax, 1.0, kNaN)));
  EXPECT_TRUE(std::isnan(ref(OpCode::amax, kNaN, 1.0)));
  int reductions = 0, casts = 0;
  for (const OpInfo& info : all_ops()) {
    reductions += info.op_class == OpClass::reduction;
    casts += info.op_class == OpClass::cast;
  }
  EXPECT_EQ(reductions, 4);
  EXPECT_EQ(casts, 8);
}

TEST(OpTable, TranscendentalFunctionsAreMarked) {
  // Exactly the operations whose device code calls exp, log, erf, tanh,
  // sin, cos, tan or pow (kernels inline long epilogues fewer times).
  const std::set<OpCode> expected = {OpCode::pow,      OpCode::sigmoid, OpCode::tanh, OpCode::silu, OpCode::gelu,
                                     OpCode::gelu_tanh, OpCode::elu,     OpCode::softplus, OpCode::exp, OpCode::log,
                                     OpCode::sin,      OpCode::cos,     OpCode::tan,  OpCode::erf};
  for (const OpInfo& info : all_ops()) {
    EXPECT_EQ(info.transcendental, expected.count(info.code) == 1) << info.name;
  }
}

TEST(OpTable, FindFunction) {
  const char* callable[] = {"relu", "leaky_relu", "sigmoid", "tanh", "silu", "gelu", "gelu_tanh", "hardswish",
                            "elu", "softplus", "exp", "log", "sqrt", "rsqrt", "abs", "sin", "cos", "tan", "erf",
                            "pow", "maximum", "minimum", "clamp", "where", "to_f16", "to_bf16", "to_f32",
                            "to_e4m3", "to_e5m2", "to_i8", "to_u8", "to_i32", "sum", "max", "min", "amax"};
  for (const char* name : callable) {
    const OpInfo* info = find_function(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->name, name);
  }
  EXPECT_EQ(find_function("pow")->code, OpCode::pow);
  for (const char* name : {"add", "sub", "mul", "div", "neg", "lt", "le", "gt", "ge", "eq", "ne", "", "Relu",
                           "relu6", "gelu_erf", "+", "**"}) {
    EXPECT_EQ(find_function(name), nullptr) << name;
  }
}

TEST(OpTable, CloseFunctionNames) {
  auto first = [](std::string_view name) {
    const auto names = close_function_names(name);
    return names.empty() ? std::string() : names.front();
  };
  EXPECT_EQ(first("relu6"), "relu");
  EXPECT_EQ(first("Relu"), "relu");
  EXPECT_EQ(first("sigmod"), "sigmoid");
  EXPECT_EQ(first("gleu"), "gelu");          // swapped letters
  EXPECT_EQ(first("softpuls"), "softplus");
  EXPECT_EQ(first("gelu_t"), "gelu_tanh");   // prefix beats a shorter edit
  EXPECT_EQ(first("hardswis"), "hardswish");
  EXPECT_EQ(first("maxium"), "maximum");
  EXPECT_TRUE(close_function_names("completely_unrelated").empty());
  EXPECT_TRUE(close_function_names("add").empty() || close_function_names("add").front() != "add");
  EXPECT_LE(close_function_names("exq", 2).size(), 2u);
  const auto several = close_function_names("tan", 10);
  EXPECT_EQ(several.front(), "tan");
  EXPECT_NE(std::find(several.begin(), several.end(), "tanh"), several.end());
}

}  // namespace
}  // namespace epigemm::ir
