// The reference check of `epigemm run`: tolerances, comparisons, and the
// cpu_reference run on host copies. Exactness is decided by bounding every
// DAG value: integer-valued inputs stay exact in f32 as long as each value
// is a dyadic number below 2^24 in magnitude.
#include "output_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "epigemm/error.hpp"
#include "epigemm/operator.hpp"
#include "text_table.hpp"

namespace epigemm::cli {
namespace {

// A bound on |value| and the number of fractional bits of a dyadic value.
struct Bound {
  double magnitude = 0.0;
  int fraction_bits = 0;
  bool exact = true;
};

constexpr double kExactLimit = 16777216.0;  // 2^24: f32 holds every integer below it
constexpr int kMaxFractionBits = 24;

// The fractional bits of `v` if it is dyadic with at most kMaxFractionBits, else -1.
int fraction_bits(double v) {
  if (!std::isfinite(v)) return -1;
  for (int bits = 0; bits <= kMaxFractionBits; ++bits) {
    const double scaled = std::ldexp(v, bits);
    if (scaled == std::floor(scaled)) return bits;
  }
  return -1;
}

Bound constant_bound(double v) {
  const int bits = fraction_bits(v);
  return {std::fabs(v), std::max(bits, 0), bits >= 0};
}

Bound combine(const Bound& a, const Bound& b, double magnitude, int fraction) {
  return {magnitude, fraction, a.exact && b.exact};
}

// The bound of one Compute node from its inputs' bounds.
Bound compute_bound(const ir::Node& n, const std::vector<Bound>& in, const ir::Dag& dag) {
  using ir::OpCode;
  const Bound& a = in.at(0);
  switch (n.op) {
    case OpCode::add:
    case OpCode::sub:
      return combine(a, in[1], a.magnitude + in[1].magnitude, std::max(a.fraction_bits, in[1].fraction_bits));
    case OpCode::mul: return combine(a, in[1], a.magnitude * in[1].magnitude, a.fraction_bits + in[1].fraction_bits);
    case OpCode::div: {
      // Exact only for a power-of-two constant divisor.
      const ir::Node& divisor = dag.node(n.inputs[1]);
      if (divisor.kind != ir::NodeKind::Constant || divisor.value == 0.0) return {0, 0, false};
      int e = 0;
      const double mantissa = std::frexp(std::fabs(divisor.value), &e);
      if (mantissa != 0.5) return {0, 0, false};
      return {a.magnitude / std::fabs(divisor.value), std::max(0, a.fraction_bits + e - 1), a.exact};
    }
    case OpCode::neg:
    case OpCode::abs:
    case OpCode::relu:
    case OpCode::to_f16:
    case OpCode::to_bf16:
    case OpCode::to_f32:
    case OpCode::to_e4m3:
    case OpCode::to_e5m2:
    case OpCode::to_i8:
    case OpCode::to_u8:
    case OpCode::to_i32:
      return a;
    case OpCode::lt: case OpCode::le: case OpCode::gt: case OpCode::ge: case OpCode::eq: case OpCode::ne:
      return combine(a, in[1], 1.0, 0);
    case OpCode::maximum:
    case OpCode::minimum:
      return combine(a, in[1], std::max(a.magnitude, in[1].magnitude), std::max(a.fraction_bits, in[1].fraction_bits));
    case OpCode::clamp:
    case OpCode::where: {
      Bound b = combine(in[1], in[2], std::max(in[1].magnitude, in[2].magnitude),
                        std::max(in[1].fraction_bits, in[2].fraction_bits));
      b.exact = b.exact && a.exact;
      if (n.op == OpCode::clamp) {
        b.magnitude = std::max(b.magnitude, a.magnitude);
        b.fraction_bits = std::max(b.fraction_bits, a.fraction_bits);
      }
      return b;
    }
    default: return {0, 0, false};
  }
}

bool within_limit(const Bound& b) {
  return b.exact && b.fraction_bits <= kMaxFractionBits && std::ldexp(b.magnitude, b.fraction_bits) < kExactLimit;
}

double relative_tolerance(DType dtype) {
  switch (dtype) {
    case DType::f64: return 1e-12;
    case DType::f32: return 1e-5;
    case DType::tf32: return 2e-3;
    case DType::f16: return 1e-3;
    case DType::bf16: return 1e-2;
    case DType::e4m3: return 0.125;
    case DType::e5m2: return 0.25;
    default: return 0.0;
  }
}

// One ulp of an fp8 format at magnitude `x`.
double fp8_ulp(DType dtype, double x) {
  const int mantissa_bits = dtype == DType::e4m3 ? 3 : 2;
  const int min_exponent = dtype == DType::e4m3 ? -6 : -14;
  int e = min_exponent;
  if (x > 0 && std::isfinite(x)) e = std::max(min_exponent, static_cast<int>(std::floor(std::log2(x))));
  return std::ldexp(1.0, e - mantissa_bits);
}

std::string format_error(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", v);
  return buffer;
}

std::string format_value(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.9g", v);
  return buffer;
}

// "(l, m, n)" of storage element `i` of a dense tensor of `shape` and
// `strides` (row- or column-major): the axes taken from the largest stride
// down.
std::string index_text(const Dims& shape, const Dims& strides, std::int64_t i) {
  std::vector<int> axes(static_cast<std::size_t>(shape.size()));
  for (int d = 0; d < shape.size(); ++d) axes[static_cast<std::size_t>(d)] = d;
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) { return strides[a] > strides[b]; });
  std::vector<std::int64_t> index(axes.size(), 0);
  for (int d : axes) {
    if (strides[d] <= 0 || shape[d] == 1) continue;
    index[static_cast<std::size_t>(d)] = i / strides[d];
    i %= strides[d];
  }
  return Dims(index).to_string();
}

}  // namespace

std::string Tolerance::describe() const {
  std::ostringstream s;
  switch (mode) {
    case Mode::exact: return "exact";
    case Mode::relative: s << "rtol " << rtol; return s.str();
    case Mode::fp8_ulp: return "1 ulp of " + std::string(to_string(dtype));
    case Mode::integer: return "+-1";
  }
  return "?";
}

bool results_are_exact(const ProblemSpec& spec, const ir::Dag* dag, InitKind init) {
  if (init != InitKind::integer) return false;
  if (spec.acc != DType::f32 && spec.acc != DType::i32 && spec.acc != DType::f64) return false;
  if (spec.compute != DType::f32 && spec.compute != DType::f64) return false;
  const Bound accum{4.0 * static_cast<double>(spec.K), 0, true};
  if (!within_limit(accum)) return false;
  if (!dag) return true;
  std::vector<Bound> bounds(dag->nodes.size());
  for (std::size_t i = 0; i < dag->nodes.size(); ++i) {
    const ir::Node& n = dag->nodes[i];
    std::vector<Bound> in;
    for (ir::NodeId id : n.inputs) in.push_back(bounds.at(static_cast<std::size_t>(id)));
    Bound b;
    switch (n.kind) {
      case ir::NodeKind::AccFetch: b = accum; break;
      case ir::NodeKind::Constant: b = constant_bound(n.value); break;
      case ir::NodeKind::Load: {
        b = {2.0, 0, true};  // integer data in [-2, 2]
        for (const auto& op : spec.operands) {
          if (op.name == n.name && op.kind == OperandKind::number) b = constant_bound(op.number);
        }
        break;
      }
      case ir::NodeKind::Compute: b = compute_bound(n, in, *dag); break;
      case ir::NodeKind::Store: {
        b = in.empty() ? Bound{0, 0, false} : in[0];
        if (n.store_kind != ir::StoreKind::Tile && n.op == ir::OpCode::sum) {
          b.magnitude *= static_cast<double>(spec.L) * static_cast<double>(spec.M) * static_cast<double>(spec.N);
        }
        break;
      }
    }
    if (!within_limit(b)) return false;
    bounds[i] = b;
  }
  return true;
}

Tolerance tolerance_for(DType out, const ProblemSpec& spec, bool exact) {
  Tolerance t;
  t.dtype = out;
  if (exact) {
    t.mode = Tolerance::Mode::exact;
    return t;
  }
  if (is_fp8(out)) {
    t.mode = Tolerance::Mode::fp8_ulp;
    return t;
  }
  if (is_integer(out)) {
    t.mode = Tolerance::Mode::integer;
    return t;
  }
  t.mode = Tolerance::Mode::relative;
  t.rtol = std::max({relative_tolerance(out), relative_tolerance(spec.compute),
                     spec.ab == DType::tf32 ? relative_tolerance(DType::tf32) : 0.0});
  if (spec.acc == DType::f16) t.rtol = std::max(t.rtol, 1e-3 * std::sqrt(static_cast<double>(spec.K)));
  return t;
}

Comparison compare(const HostTensor& out, const HostTensor& ref, const Tolerance& tolerance) {
  Comparison c;
  c.elements = ref.storage_elements();
  double ref_sq = 0.0, diff_sq = 0.0;
  std::int64_t finite = 0;
  for (std::int64_t i = 0; i < c.elements; ++i) {
    const double r = ref.at(i);
    if (std::isfinite(r)) {
      ref_sq += r * r;
      ++finite;
    }
  }
  const double rms = finite ? std::sqrt(ref_sq / static_cast<double>(finite)) : 0.0;
  const double floor = std::max(rms, static_cast<double>(std::numeric_limits<float>::min()));
  for (std::int64_t i = 0; i < c.elements; ++i) {
    const double o = out.at(i), r = ref.at(i);
    bool ok = false;
    if (std::isnan(o) || std::isnan(r)) {
      ok = std::isnan(o) && std::isnan(r);
    } else if (std::isinf(o) || std::isinf(r)) {
      ok = o == r;
    } else {
      const double err = std::fabs(o - r);
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (r != 0.0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(r));
      diff_sq += err * err;
      switch (tolerance.mode) {
        case Tolerance::Mode::exact: ok = err == 0.0; break;
        case Tolerance::Mode::relative: ok = err <= tolerance.rtol * std::max(std::fabs(r), floor); break;
        // The spacing below a power of two is half the one above it, so the
        // ulp is taken at the smaller magnitude: adjacent values always pass.
        case Tolerance::Mode::fp8_ulp:
          ok = err <= fp8_ulp(tolerance.dtype, std::min(std::fabs(r), std::fabs(o)));
          break;
        case Tolerance::Mode::integer: ok = err <= 1.0; break;
      }
    }
    if (!ok) {
      if (c.mismatches == 0) {
        c.first_mismatch = i;
        c.first_out = o;
        c.first_ref = r;
      }
      ++c.mismatches;
    }
  }
  c.rel_l2_error = ref_sq > 0.0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  return c;
}

bool check_against_reference(const ProblemSpec& spec, const HostProblem& host, const ir::Dag* dag, InitKind init,
                             std::ostream& out) {
  // Fresh outputs for the reference; inputs shared with the operator's run.
  std::vector<HostTensor> reference(spec.operands.size());
  ProblemViews views = host_views(host);
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    if (!spec.operands[i].output) continue;
    reference[i] = HostTensor(spec.operands[i].dtype, spec.operands[i].shape, spec.strides_of(spec.operands[i]));
    reference[i].poison();
    views.operands[i] = reference[i].ref();
  }
  GemmArguments args = make_arguments(spec, views);
  OperatorQuery query;
  query.providers = {"cpu_reference"};
  std::vector<Operator> ops = get_operators(args, query);
  if (ops.empty()) throw Error(ErrorKind::Internal, "the cpu_reference provider does not support this problem");
  ops.front().run(args);

  const bool exact = results_are_exact(spec, dag, init);
  TextTable table({"output", "dtype", "tolerance", "max abs err", "max rel err", "rel l2 err", "result"});
  bool all_passed = true;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec& op = spec.operands[i];
    if (!op.output) continue;
    const Tolerance tolerance = tolerance_for(op.dtype, spec, exact);
    const Comparison c = compare(host.operands[i], reference[i], tolerance);
    std::string result = "ok";
    if (!c.passed()) {
      all_passed = false;
      result = "FAILED: " + std::to_string(c.mismatches) + " of " + std::to_string(c.elements) +
               " elements differ; first at " + index_text(op.shape, reference[i].strides(), c.first_mismatch) + ": " +
               format_value(c.first_out) + " vs reference " + format_value(c.first_ref);
    }
    table.add_row({op.name, std::string(to_string(op.dtype)), tolerance.describe(), format_error(c.max_abs_error),
                   format_error(c.max_rel_error), format_error(c.rel_l2_error), result});
  }
  out << "check against cpu_reference:\n" << table.render("  ");
  out << (all_passed ? "check: passed\n" : "check: FAILED\n");
  return all_passed;
}

}  // namespace epigemm::cli
