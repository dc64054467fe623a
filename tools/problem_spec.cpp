// Reads the problem flags into a ProblemSpec: extents, dtypes and layouts,
// the epilogue (parsed here to learn its parameters and outputs), and one
// binding per parameter and output, defaulted where no flag names it.
#include "problem_spec.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "epigemm/error.hpp"
#include "flag_values.hpp"
#include "frontend/parser.hpp"
#include "text_table.hpp"

namespace epigemm::cli {
namespace {

constexpr const char kIdentityEpilogue[] = "def epi(accum):\n    D = accum\n    return D\n";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--epilogue-file: cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError("--epilogue-file: cannot read '" + path + "'");
  return text.str();
}

DType default_accumulator(DType ab) {
  if (ab == DType::i8 || ab == DType::u8) return DType::i32;
  if (ab == DType::f64) return DType::f64;
  return DType::f32;
}

// tf32 is an operand type only; its tensors are stored as f32.
DType storable(DType dtype) { return dtype == DType::tf32 ? DType::f32 : dtype; }

OperandKind parse_kind(std::string_view flag, std::string_view text) {
  const std::string kind = parse_choice(flag, text, {"tile", "row", "col", "scalar"});
  if (kind == "tile") return OperandKind::tile;
  if (kind == "row") return OperandKind::row;
  if (kind == "col") return OperandKind::col;
  return OperandKind::scalar;
}

Dims shape_of(OperandKind kind, const ProblemSpec& spec) {
  switch (kind) {
    case OperandKind::tile: return {spec.L, spec.M, spec.N};
    case OperandKind::row: return {spec.N};
    case OperandKind::col: return {spec.M, 1};
    case OperandKind::scalar: return {1};
    case OperandKind::number: break;
  }
  return {};
}

// "NAME=KIND[:DTYPE]" from --tensor or --output.
OperandSpec parse_tensor_flag(std::string_view flag, std::string_view text, DType fallback, bool output) {
  auto [name, value] = parse_assignment(flag, text, "NAME=KIND[:DTYPE] with KIND tile|row|col|scalar");
  OperandSpec op;
  op.name = name;
  op.output = output;
  op.origin = "--" + std::string(flag);
  const std::size_t colon = value.find(':');
  op.kind = parse_kind(flag, std::string_view(value).substr(0, colon));
  op.dtype = colon == std::string::npos ? fallback : parse_dtype_value(flag, std::string_view(value).substr(colon + 1));
  return op;
}

// Every explicit binding from --scalar, --tensor and --output, by name.
std::map<std::string, OperandSpec> explicit_bindings(const FlagSet& flags, const ProblemSpec& spec) {
  std::map<std::string, OperandSpec> given;
  auto add = [&](OperandSpec op) {
    auto [it, inserted] = given.emplace(op.name, op);
    if (!inserted) {
      throw UsageError("'" + op.name + "' is bound twice (by " + it->second.origin + " and " + op.origin + ")");
    }
  };
  for (const auto& text : flags.values("scalar")) {
    auto [name, value] = parse_assignment("scalar", text, "NAME=NUMBER (e.g. alpha=2.0)");
    OperandSpec op;
    op.name = name;
    op.kind = OperandKind::number;
    op.number = parse_number("scalar", value);
    op.origin = "--scalar";
    add(op);
  }
  for (const auto& text : flags.values("tensor")) add(parse_tensor_flag("tensor", text, spec.c, false));
  for (const auto& text : flags.values("output")) add(parse_tensor_flag("output", text, spec.d, true));
  return given;
}

// One binding per parameter, then per output not also a parameter. Names
// given by flags but unknown to the epilogue are kept (after the others) so
// the library reports them as unexpected arguments.
void bind_operands(ProblemSpec& spec, const ir::Dag& raw, std::map<std::string, OperandSpec> given) {
  auto contains = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const auto& [name, op] : given) {
    const bool is_param = contains(raw.params, name);
    const bool is_output = contains(raw.outputs, name);
    if (op.output && is_param && !is_output) {
      throw UsageError("--output " + name + ": '" + name +
                       "' is a parameter of the epilogue; bind it with --tensor or --scalar");
    }
    if (!op.output && is_output && !is_param) {
      throw UsageError(op.origin + " " + name + ": '" + name + "' is an output of the epilogue; bind it with --output");
    }
    if (op.output && name == "D" && op.kind != OperandKind::tile) {
      throw UsageError("--output D: D is the GEMM's output and must be a tile (L, M, N)");
    }
  }
  auto take = [&](const std::string& name, bool output) {
    OperandSpec op;
    if (auto it = given.find(name); it != given.end()) {
      op = it->second;
      given.erase(it);
    } else {
      op.name = name;
      op.output = output;
      op.kind = OperandKind::tile;
      op.dtype = output ? spec.d : spec.c;
    }
    op.shape = shape_of(op.kind, spec);
    spec.operands.push_back(op);
  };
  for (const auto& name : raw.params) take(name, false);
  for (const auto& name : raw.outputs) {
    if (!contains(raw.params, name)) take(name, true);
  }
  for (auto& [name, op] : given) {
    op.shape = shape_of(op.kind, spec);
    spec.operands.push_back(op);
  }
}

std::string format_number(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

}  // namespace

std::string_view to_string(OperandKind kind) noexcept {
  switch (kind) {
    case OperandKind::number: return "number";
    case OperandKind::tile: return "tile";
    case OperandKind::row: return "row";
    case OperandKind::col: return "col";
    case OperandKind::scalar: return "scalar";
  }
  return "?";
}

const OperandSpec& ProblemSpec::d_operand() const {
  for (const auto& op : operands) {
    if (op.name == "D" && op.output) return op;
  }
  throw Error(ErrorKind::Output, "Output node D is not found in the epilogue function.");
}

Dims ProblemSpec::a_strides() const {
  return a_col_major ? Dims{M * K, 1, M} : Dims{M * K, K, 1};
}

Dims ProblemSpec::b_strides() const {
  return b_col_major ? Dims{K * N, 1, K} : Dims{K * N, N, 1};
}

Dims ProblemSpec::strides_of(const OperandSpec& op) const {
  if (!d_col_major || op.kind != OperandKind::tile) return {};
  return Dims{M * N, 1, M};
}

double ProblemSpec::flops() const noexcept {
  return 2.0 * static_cast<double>(L) * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
}

void add_problem_flags(FlagSet& flags) {
  flags.add_section("problem");
  flags.add_value("mnkl", "M,N,K,L", "512,512,512,1", "GEMM extents: A is (L, M, K), B (L, K, N), D (L, M, N)");
  flags.add_value("ab-dtype", "DTYPE", "f16", "dtype of A and B (" + dtype_names() + ")");
  flags.add_value("c-dtype", "DTYPE", "the ab dtype", "dtype of epilogue input tensors not given a dtype");
  flags.add_value("d-dtype", "DTYPE", "the ab dtype", "dtype of D and of outputs not given a dtype");
  flags.add_value("acc-dtype", "DTYPE", "f32; i32 for i8/u8", "accumulator dtype");
  flags.add_value("compute-dtype", "DTYPE", "f32", "dtype the epilogue computes in");
  flags.add_value("a-layout", "row|col", "row", "memory order of A");
  flags.add_value("b-layout", "row|col", "row", "memory order of B");
  flags.add_value("d-layout", "row|col", "row", "memory order of D and of the epilogue's other tiles");
  flags.add_section("epilogue");
  flags.add_value("epilogue", "SOURCE", "none: D = accum",
                  "the epilogue function, e.g. \"def epi(accum, alpha): D = accum * alpha; return D\"");
  flags.add_value("epilogue-file", "PATH", "", "read the epilogue function from a file");
  flags.add_repeated("scalar", "NAME=NUMBER", "bind a parameter to a number passed by value, e.g. alpha=2.0");
  flags.add_repeated("tensor", "NAME=KIND[:DTYPE]",
                     "bind a parameter to a tensor: KIND tile (L, M, N), row (N,), col (M, 1) or scalar (1,); "
                     "DTYPE defaults to the c dtype. Unbound parameters are tiles of the c dtype");
  flags.add_repeated("output", "NAME=KIND[:DTYPE]",
                     "bind an output: tile (L, M, N); row (N,) reduces each column, col (M, 1) each row, scalar (1,) "
                     "everything; DTYPE defaults to the d dtype. Unbound outputs are tiles of the d dtype");
}

EpilogueSource read_epilogue_source(const FlagSet& flags, bool required) {
  if (flags.has("epilogue") && flags.has("epilogue-file")) {
    throw UsageError("give either --epilogue or --epilogue-file, not both");
  }
  EpilogueSource source;
  if (auto v = flags.value("epilogue")) {
    source = {*v, "--epilogue"};
  } else if (auto path = flags.value("epilogue-file")) {
    source = {read_file(*path), *path};
  }
  const bool given = flags.has("epilogue") || flags.has("epilogue-file");
  if (given && source.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw UsageError(source.origin + ": the epilogue is empty");
  }
  if (!given && required) source = {kIdentityEpilogue, "the default epilogue"};
  return source;
}

ProblemSpec read_problem_spec(const FlagSet& flags, bool epilogue_required) {
  ProblemSpec spec;
  if (auto v = flags.value("mnkl")) {
    const Mnkl x = parse_mnkl("mnkl", *v);
    spec.M = x.M, spec.N = x.N, spec.K = x.K, spec.L = x.L;
  }
  if (auto v = flags.value("ab-dtype")) spec.ab = parse_dtype_value("ab-dtype", *v);
  spec.c = flags.value("c-dtype") ? parse_dtype_value("c-dtype", *flags.value("c-dtype")) : storable(spec.ab);
  spec.d = flags.value("d-dtype") ? parse_dtype_value("d-dtype", *flags.value("d-dtype")) : storable(spec.ab);
  spec.acc = flags.value("acc-dtype") ? parse_dtype_value("acc-dtype", *flags.value("acc-dtype"))
                                      : default_accumulator(spec.ab);
  if (auto v = flags.value("compute-dtype")) spec.compute = parse_dtype_value("compute-dtype", *v);
  if (auto v = flags.value("a-layout")) spec.a_col_major = parse_choice("a-layout", *v, {"row", "col"}) == "col";
  if (auto v = flags.value("b-layout")) spec.b_col_major = parse_choice("b-layout", *v, {"row", "col"}) == "col";
  if (auto v = flags.value("d-layout")) spec.d_col_major = parse_choice("d-layout", *v, {"row", "col"}) == "col";

  const EpilogueSource source = read_epilogue_source(flags, epilogue_required);
  spec.source = source.text;
  spec.source_origin = source.origin;

  auto given = explicit_bindings(flags, spec);
  if (!spec.has_epilogue()) {
    if (!given.empty()) {
      throw UsageError(given.begin()->second.origin + " " + given.begin()->first +
                       ": there is no epilogue to bind it to (give --epilogue or --epilogue-file)");
    }
    OperandSpec d;
    d.name = "D";
    d.output = true;
    d.dtype = spec.d;
    d.shape = shape_of(OperandKind::tile, spec);
    spec.operands.push_back(d);
    return spec;
  }
  const ir::Dag raw = frontend::parse_epilogue(spec.source);
  bind_operands(spec, raw, std::move(given));
  return spec;
}

std::string describe_problem(const ProblemSpec& spec) {
  std::ostringstream s;
  s << "L=" << spec.L << " M=" << spec.M << " N=" << spec.N << " K=" << spec.K << ", A " << to_string(spec.ab)
    << (spec.a_col_major ? " col-major" : " row-major") << ", B " << to_string(spec.ab)
    << (spec.b_col_major ? " col-major" : " row-major") << (spec.d_col_major ? ", tiles col-major" : "")
    << ", accumulator " << to_string(spec.acc) << ", compute "
    << to_string(spec.compute);
  return s.str();
}

std::string describe_bindings(const ProblemSpec& spec) {
  TextTable table({"name", "role", "kind", "shape", "dtype", "from"});
  table.add_row({"A", "operand", "matrix", Dims{spec.L, spec.M, spec.K}.to_string(), std::string(to_string(spec.ab)),
                 spec.a_col_major ? "--a-layout col" : "row-major"});
  table.add_row({"B", "operand", "matrix", Dims{spec.L, spec.K, spec.N}.to_string(), std::string(to_string(spec.ab)),
                 spec.b_col_major ? "--b-layout col" : "row-major"});
  for (const auto& op : spec.operands) {
    if (op.kind == OperandKind::number) {
      table.add_row({op.name, "input", "number", "-", format_number(op.number), op.origin});
    } else {
      const bool col_major = !spec.strides_of(op).empty();
      table.add_row({op.name, op.output ? "output" : "input", std::string(to_string(op.kind)), op.shape.to_string(),
                     std::string(to_string(op.dtype)), op.origin + (col_major ? ", --d-layout col" : "")});
    }
  }
  return table.render("  ");
}

}  // namespace epigemm::cli
