// Random epilogues for differential tests: a seeded generator writes an
// epilogue function (a few statements over accum, random inputs of every
// broadcast kind and a mix of ops), binds its inputs and outputs (tiles of
// random dtypes, row / column / whole reductions) and, alongside, a bound on
// each value's magnitude and on how far the GPU's evaluation may stray from
// cpu_reference's (approximate functions, roundings in the compute type and
// the casts, the errors its inputs carry). The tests add that bound to each output's
// tolerance, so a program whose error could grow past the dtype's own
// tolerance still fails only when the kernel is wrong, never by chance.
//
// Comparisons and sums take only values the GPU computes exactly (integer
// and dyadic inputs through +, -, *, max, min and the like, all within the
// compute type's significand), so a branch never flips on rounding and a
// reduction's order cannot matter.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nvrtc/epilogue_catalog.hpp"

namespace epigemm::testing {

/// The generated case, and each output's extra absolute tolerance (by
/// operand name).
struct RandomEpilogue {
  EpilogueCase c;
  std::vector<std::pair<std::string, double>> slack;
};

namespace random_epilogue_detail {

/// A value of the program: its name, a bound on |value|, a bound on the
/// GPU evaluation's distance from the reference, and whether it is computed
/// exactly (then `frac_bits` fractional bits hold it).
struct Value {
  std::string name;
  double bound = 0.0;
  double error = 0.0;
  bool exact = true;
  int frac_bits = 0;
  bool is_tile_varying = true;  ///< varies over (m, n); constants and scalars do not
};

constexpr double kApproxRel = 2e-5;  // the GPU's approximate f32 functions, with margin

class Generator {
 public:
  Generator(std::mt19937& rng, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t L, DType compute,
            bool more_ops)
      : rng_(rng), M_(M), N_(N), L_(L), K_(K), more_ops_(more_ops),
        bits_(compute == DType::f16 ? 11 : compute == DType::bf16 ? 8 : 24),
        unit_(std::ldexp(1.0, -bits_)),
        max_bound_(compute == DType::f16 ? 3e4 : 1e5) {}

  RandomEpilogue make(const std::string& name) {
    RandomEpilogue out;
    out.c.name = name;
    std::vector<std::string> params = {"accum"};
    // accum: integers in [-2, 2] multiplied and summed over K.
    values_.push_back({"accum", 4.0 * static_cast<double>(K_), 0.0, true, 0});
    if (!fits_exactly(values_[0].bound, 0)) {
      values_[0].exact = false;  // rounded into the compute type on both sides
      values_[0].error = rounding(values_[0].bound);
    }
    const int inputs = pick(0, 3);
    for (int i = 0; i < inputs; ++i) add_input(out.c, params);
    const int statements = pick(2, 6);
    std::string body;
    for (int s = 0; s < statements; ++s) {
      Value v = statement("t" + std::to_string(s));
      body += "    " + v.name + " = " + last_expr_ + "\n";
      values_.push_back(v);
    }
    // D: a late value that varies over the tile, stored as a random dtype.
    std::vector<std::string> returns;
    const Value& d_src = late_tile_value();
    body += "    D = " + d_src.name + "\n";
    const DType d_dtype = pick_of({DType::f32, DType::f16, DType::bf16, DType::f32, DType::e4m3, DType::i8});
    out.c.operands.push_back({"D", OperandShape::tile, d_dtype});
    out.slack.emplace_back("D", d_src.error);
    returns.push_back("D");
    // Other outputs: another tile, and reductions.
    if (pick(0, 1) == 1) {
      const Value& v = values_[static_cast<std::size_t>(pick(1, static_cast<int>(values_.size()) - 1))];
      if (v.is_tile_varying && v.name != d_src.name) {
        body += "    E = " + v.name + " * 1.0\n";
        out.c.operands.push_back({"E", OperandShape::tile, pick_of({DType::f32, DType::f16, DType::bf16})});
        out.slack.emplace_back("E", v.error + rounding(v.bound));
        returns.push_back("E");
      }
    }
    const int reductions = pick(0, 2);
    for (int r = 0; r < reductions; ++r) add_reduction(body, out, returns, "R" + std::to_string(r));
    std::string sig = "def epi(" + join(params) + "):\n";
    out.c.source = sig + body + "    return " + join(returns) + "\n";
    return out;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  template <class T>
  T pick_of(std::initializer_list<T> options) {
    std::vector<T> v(options);
    return v[static_cast<std::size_t>(pick(0, static_cast<int>(v.size()) - 1))];
  }
  static std::string join(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  void add_input(EpilogueCase& c, std::vector<std::string>& params) {
    const std::string name = "p" + std::to_string(params.size());
    params.push_back(name);
    const OperandShape shape = pick_of({OperandShape::scalar, OperandShape::scalar_tensor, OperandShape::row,
                                        OperandShape::row_batched, OperandShape::column,
                                        OperandShape::column_batched, OperandShape::tile,
                                        OperandShape::tile_shared});
    const DType dtype = pick_of({DType::f32, DType::f16, DType::bf16, DType::i8, DType::u8, DType::e4m3});
    if (shape == OperandShape::scalar) {
      // A dyadic number, exact in every float type.
      const double value = pick_of({0.5, -0.75, 1.5, 2.0, 0.25, -3.0});
      c.operands.push_back({name, shape, DType::f32, value});
      values_.push_back({name, std::fabs(value), 0.0, true, 2, false});
      return;
    }
    c.operands.push_back({name, shape, dtype});
    // Tensors hold integers in [-2, 2] ([0, 2] for u8: GpuProblem's fill).
    values_.push_back({name, 2.0, 0.0, true, 0, shape != OperandShape::scalar_tensor});
  }

  const Value& any_value() { return values_[static_cast<std::size_t>(pick(0, static_cast<int>(values_.size()) - 1))]; }
  /// An exact value, or nullptr when there is none (accum is not exact
  /// where the compute type cannot hold it).
  const Value* exact_value() {
    std::vector<const Value*> exact;
    for (const Value& v : values_) {
      if (v.exact) exact.push_back(&v);
    }
    if (exact.empty()) return nullptr;
    return exact[static_cast<std::size_t>(pick(0, static_cast<int>(exact.size()) - 1))];
  }
  const Value& late_tile_value() {
    for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
      if (it->is_tile_varying) return *it;
    }
    return values_.front();  // accum
  }

  /// One statement's value (its expression left in last_expr_); ops whose
  /// bounds would grow past what the tolerances can hold are redrawn.
  Value statement(const std::string& name) {
    for (int attempt = 0;; ++attempt) {
      Value v = try_statement(name);
      if (attempt > 20 || (v.bound < max_bound_ && v.error <= 0.02 * std::max(1.0, v.bound))) return v;
    }
  }

  Value try_statement(const std::string& name) {
    // Mostly chained on the latest value, so few statements are dead code.
    const Value& a = pick(0, 2) != 0 ? values_.back() : any_value();
    const Value& b = any_value();
    Value r;
    r.name = name;
    r.is_tile_varying = a.is_tile_varying || b.is_tile_varying;
    const auto exact_or_round = [&r, this](bool exact, int frac) {
      r.exact = exact && fits_exactly(r.bound, frac);
      r.frac_bits = frac;
      if (!r.exact) r.error += rounding(r.bound);
    };
    const auto approx = [&](const std::string& fn, double lipschitz, double bound) {
      last_expr_ = fn + "(" + a.name + ")";
      r.is_tile_varying = a.is_tile_varying;
      r.bound = bound;
      r.error = lipschitz * a.error + approximation(bound);
      r.exact = false;
    };
    const int kind = pick(0, more_ops_ ? 21 : 16);
    switch (kind) {
      case 0:
      case 1:
        last_expr_ = a.name + (kind == 0 ? " + " : " - ") + b.name;
        r.bound = a.bound + b.bound;
        r.error = a.error + b.error;
        exact_or_round(a.exact && b.exact, std::max(a.frac_bits, b.frac_bits));
        break;
      case 2:
        last_expr_ = a.name + " * " + b.name;
        r.bound = a.bound * b.bound;
        r.error = a.error * b.bound + b.error * a.bound + a.error * b.error;
        exact_or_round(a.exact && b.exact, a.frac_bits + b.frac_bits);
        break;
      case 3: {
        const double c = pick_of({0.5, 0.25, 2.0, -1.5, 0.125});
        last_expr_ = a.name + " * " + std::to_string(c);
        r.is_tile_varying = a.is_tile_varying;
        r.bound = a.bound * std::fabs(c);
        r.error = a.error * std::fabs(c);
        exact_or_round(a.exact, a.frac_bits + 3);
        break;
      }
      case 4:
      case 5: {
        const std::string fn = pick_of<std::string>({"maximum", "minimum"});
        last_expr_ = fn + "(" + a.name + ", " + b.name + ")";
        r.bound = std::max(a.bound, b.bound);
        r.error = std::max(a.error, b.error);
        r.exact = a.exact && b.exact;
        r.frac_bits = std::max(a.frac_bits, b.frac_bits);
        break;
      }
      case 6: {
        const std::string fn = pick_of<std::string>({"relu", "abs", "-"});
        last_expr_ = fn == "-" ? "-" + a.name : fn + "(" + a.name + ")";
        r.is_tile_varying = a.is_tile_varying;
        r.bound = a.bound;
        r.error = a.error;
        r.exact = a.exact;
        r.frac_bits = a.frac_bits;
        break;
      }
      case 7: {
        // A branch on exact values only, so both sides take the same one.
        const Value* xp = exact_value();
        const Value* yp = exact_value();
        if (xp == nullptr || yp == nullptr) return try_statement(name);
        const Value& x = *xp;
        const Value& y = *yp;
        const std::string cmp = pick_of<std::string>({"<", "<=", ">", ">=", "==", "!="});
        last_expr_ = "where(" + x.name + " " + cmp + " " + y.name + ", " + a.name + ", " + b.name + ")";
        r.is_tile_varying = r.is_tile_varying || x.is_tile_varying || y.is_tile_varying;
        r.bound = std::max(a.bound, b.bound);
        r.error = std::max(a.error, b.error);
        r.exact = a.exact && b.exact;
        r.frac_bits = std::max(a.frac_bits, b.frac_bits);
        break;
      }
      case 8:
        last_expr_ = "clamp(" + a.name + ", -3.0, 5.0)";
        r.is_tile_varying = a.is_tile_varying;
        r.bound = std::min(a.bound, 5.0);
        r.error = a.error;
        r.exact = a.exact;
        r.frac_bits = a.frac_bits;
        break;
      case 9: approx(pick_of<std::string>({"sigmoid", "tanh"}), 1.0, 1.0); break;
      case 10: approx(pick_of<std::string>({"gelu", "silu", "gelu_tanh"}), 1.2, a.bound + 0.2); break;
      case 11: approx(pick_of<std::string>({"elu", "softplus"}), 1.0, a.bound + 1.0); break;
      case 12: approx("erf", 1.2, 1.0); break;
      case 13: approx(pick_of<std::string>({"sin", "cos"}), 1.0, 1.0); break;
      case 14:
        // Arguments kept small: exp's error grows with its value.
        last_expr_ = "exp(clamp(" + a.name + ", -4.0, 2.0))";
        r.is_tile_varying = a.is_tile_varying;
        r.bound = std::exp(2.0);
        r.error = r.bound * a.error + approximation(r.bound);
        r.exact = false;
        break;
      case 15:
        last_expr_ = pick(0, 1) == 0 ? "sqrt(abs(" + a.name + "))" : "log(abs(" + a.name + ") + 1.0)";
        r.is_tile_varying = a.is_tile_varying;
        r.bound = std::sqrt(a.bound) + std::log(a.bound + 1.0);
        // sqrt's slope is unbounded at 0: the error of sqrt(x + e) is at most sqrt(e).
        r.error = std::sqrt(a.error) + a.error + approximation(r.bound);
        r.exact = false;
        break;
      case 16:
        last_expr_ = a.name + " / (abs(" + b.name + ") + 1.0)";
        r.bound = a.bound;
        r.error = a.error + a.bound * b.error + approximation(a.bound);
        r.exact = false;
        break;
      case 17:
      case 18: {
        // A cast to a narrower float: exact where the value fits it, else
        // one step of its rounding on top of the input's error.
        const std::string fn = kind == 17 ? pick_of<std::string>({"to_f16", "to_bf16"}) : "to_e4m3";
        const int bits = fn == "to_f16" ? 11 : fn == "to_bf16" ? 8 : 4;
        const double limit = fn == "to_f16" ? 6e4 : fn == "to_bf16" ? 1e30 : 448.0;
        if (a.bound > limit) return try_statement(name);
        last_expr_ = fn + "(" + a.name + ")";
        r.is_tile_varying = a.is_tile_varying;
        r.bound = a.bound;
        r.frac_bits = a.frac_bits;
        r.exact = a.exact && fits_in(a.bound, a.frac_bits, bits) && (fn != "to_e4m3" || a.frac_bits <= 6);
        r.error = r.exact ? 0.0 : a.error + 2.0 * std::ldexp(a.bound, -bits) + (fn == "to_e4m3" ? 0.004 : 0.0);
        break;
      }
      case 19:
        // Rounds to an integer and saturates: the same on both sides for the
        // same value; one step either way where the input is inexact.
        last_expr_ = "to_i8(" + a.name + ")";
        r.is_tile_varying = a.is_tile_varying;
        r.bound = std::min(a.bound + 0.5, 128.0);
        r.exact = a.exact;
        r.frac_bits = 0;
        r.error = a.exact ? 0.0 : a.error + 1.0;
        break;
      case 20:
        if (pick(0, 1) == 0) {
          last_expr_ = "leaky_relu(" + a.name + ", 0.2)";
          r.is_tile_varying = a.is_tile_varying;
          r.bound = a.bound;
          r.error = a.error + rounding(a.bound);
          r.exact = false;
        } else {
          approx("hardswish", 1.5, a.bound + 0.4);
        }
        break;
      default:
        if (pick(0, 1) == 0) {
          last_expr_ = "rsqrt(abs(" + a.name + ") + 1.0)";
          r.bound = 1.0;
          r.error = 0.5 * a.error + approximation(1.0);
        } else {
          last_expr_ = "tan(clamp(" + a.name + ", -1.0, 1.0))";
          r.bound = 1.56;
          r.error = 3.5 * a.error + approximation(1.56);
        }
        r.is_tile_varying = a.is_tile_varying;
        r.exact = false;
        break;
    }
    return r;
  }

  /// A row, column or whole reduction: max, min and amax of any value; sum
  /// only of an exact one whose total fits exactly.
  void add_reduction(std::string& body, RandomEpilogue& out, std::vector<std::string>& returns,
                     const std::string& name) {
    const OperandShape shape =
        pick_of({OperandShape::row_reduce, OperandShape::column_reduce, OperandShape::scalar_reduce});
    const double count = shape == OperandShape::row_reduce      ? static_cast<double>(N_)
                         : shape == OperandShape::column_reduce ? static_cast<double>(M_)
                                                                : static_cast<double>(M_ * N_ * L_);
    const Value& v = any_value();
    std::string op = pick_of<std::string>({"sum", "max", "min", "amax"});
    if (op == "sum" && !(v.exact && fits_exactly(v.bound * count, v.frac_bits))) op = "amax";
    body += "    " + name + " = " + op + "(" + v.name + ")\n";
    out.c.operands.push_back({name, shape, DType::f32});
    out.slack.emplace_back(name, v.error);
    returns.push_back(name);
  }

  /// Whether a value of that bound and fraction is exact in a float type
  /// of `bits` significand bits.
  static bool fits_in(double bound, int frac_bits, int bits) {
    return frac_bits <= 12 && std::ldexp(bound, frac_bits) < std::ldexp(1.0, bits - 1);
  }
  /// The same in the compute type.
  bool fits_exactly(double bound, int frac_bits) const { return fits_in(bound, frac_bits, bits_); }
  /// Rounding error of an inexact result of magnitude `bound`.
  double rounding(double bound) const { return unit_ * bound; }
  /// Error of an approximate function's result of magnitude `bound`: f32's
  /// approximations, or a few roundings where the compute type is narrower.
  double approximation(double bound) const { return (kApproxRel + 4.0 * unit_) * bound + 1e-7; }

  std::mt19937& rng_;
  std::int64_t M_, N_, L_, K_;
  bool more_ops_;     // casts, leaky_relu, hardswish, rsqrt and tan too
  int bits_;          // significand bits of the compute type
  double unit_;       // its unit roundoff
  double max_bound_;  // values stay well inside its range
  std::vector<Value> values_;
  std::string last_expr_;
};

}  // namespace random_epilogue_detail

/// A random epilogue for a problem of extents (L, M, N, K) whose A and B
/// (and every tensor input) hold integers in [-2, 2], computed in `compute`
/// (f32, f16 or bf16). `more_ops` adds casts (to_f16, to_bf16, to_e4m3,
/// to_i8), leaky_relu with a slope, hardswish, rsqrt and tan to the draw;
/// without it a seed gives the programs it always gave.
inline RandomEpilogue random_epilogue(std::mt19937& rng, const std::string& name, std::int64_t L, std::int64_t M,
                                      std::int64_t N, std::int64_t K, DType compute = DType::f32,
                                      bool more_ops = false) {
  return random_epilogue_detail::Generator(rng, M, N, K, L, compute, more_ops).make(name);
}

}  // namespace epigemm::testing
