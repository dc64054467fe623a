// lower(): checks the language rules on an ast::Function and builds the raw
// ir::Dag (AccFetch, a Load per parameter, Constants, Computes, a Store per
// output). Rules are checked in source order after the accum check; the
// check for an output named D comes after the whole body.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "epigemm/error.hpp"
#include "frontend/call_checks.hpp"
#include "frontend/parser.hpp"

namespace epigemm::frontend {
namespace {

constexpr std::string_view kAccum = "accum";
constexpr std::string_view kRequiredOutput = "D";

ir::SourceLoc to_ir(ast::Loc loc) { return {loc.line, loc.column}; }

ir::OpCode opcode_of(ast::BinaryOp op) {
  switch (op) {
    case ast::BinaryOp::add: return ir::OpCode::add;
    case ast::BinaryOp::sub: return ir::OpCode::sub;
    case ast::BinaryOp::mul: return ir::OpCode::mul;
    case ast::BinaryOp::div: return ir::OpCode::div;
    case ast::BinaryOp::pow: return ir::OpCode::pow;
    case ast::BinaryOp::lt: return ir::OpCode::lt;
    case ast::BinaryOp::le: return ir::OpCode::le;
    case ast::BinaryOp::gt: return ir::OpCode::gt;
    case ast::BinaryOp::ge: return ir::OpCode::ge;
    case ast::BinaryOp::eq: return ir::OpCode::eq;
    case ast::BinaryOp::ne: return ir::OpCode::ne;
  }
  return ir::OpCode::add;
}

bool mentions(const ast::Expr& e, std::string_view name) {
  if (e.kind == ast::ExprKind::name) return e.text == name;
  for (const ast::ExprPtr& operand : e.operands)
    if (mentions(*operand, name)) return true;
  for (const ast::KeywordArg& k : e.keywords)
    if (mentions(*k.value, name)) return true;
  return false;
}

class Lowerer {
 public:
  explicit Lowerer(const ast::Function& function) : f_(function) {}
  ir::Dag run();

 private:
  void check_accum() const;
  void add_inputs();
  void lower_assign(const ast::Stmt& s);
  void lower_return(const ast::Stmt& s);
  ir::NodeId lower_expr(const ast::Expr& e);
  ir::NodeId lower_call(const ast::Expr& e);
  ir::NodeId lookup(const std::string& name, ast::Loc loc) const;
  ir::NodeId add_constant(double value, ast::Loc loc);
  ir::NodeId add_compute(ir::OpCode op, std::vector<ir::NodeId> inputs, ast::Loc loc);
  bool is_param(const std::string& name) const;
  [[noreturn]] static void fail(const std::string& message, ast::Loc loc, ErrorKind kind = ErrorKind::Syntax) {
    throw Error(kind, message, loc.line, loc.column);
  }

  struct Output {
    std::string name;
    ast::Loc loc;
    ir::NodeId value;
  };

  const ast::Function& f_;
  ir::Dag dag_;
  std::map<std::string, ir::NodeId, std::less<>> values_;  ///< every name defined so far
  std::vector<Output> outputs_;
};

ir::Dag Lowerer::run() {
  check_accum();
  dag_.function_name = f_.name;
  add_inputs();
  const ast::Stmt* ret = nullptr;
  for (const ast::Stmt& s : f_.body) {
    if (ret != nullptr)
      fail("statements after return are not allowed: 'return' must be the last statement of '" + f_.name + "'",
           s.loc);
    if (s.kind == ast::StmtKind::assign) {
      lower_assign(s);
    } else {
      lower_return(s);
      ret = &s;
    }
  }
  if (ret == nullptr)
    fail("function '" + f_.name + "' has no return statement; end it with 'return D' (and any other outputs)", f_.loc);
  bool has_d = false;
  for (const Output& o : outputs_) has_d = has_d || o.name == kRequiredOutput;
  if (!has_d) fail("Output node D is not found in the epilogue function.", ret->loc, ErrorKind::Output);
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    ir::Node store;
    store.kind = ir::NodeKind::Store;
    store.inputs = {outputs_[i].value};
    store.name = outputs_[i].name;
    store.slot = static_cast<int>(i);
    store.loc = to_ir(outputs_[i].loc);
    dag_.add(std::move(store));
    dag_.outputs.push_back(outputs_[i].name);
  }
  return std::move(dag_);
}

// accum must be a parameter, and the first one.
void Lowerer::check_accum() const {
  for (std::size_t i = 0; i < f_.params.size(); ++i) {
    if (f_.params[i].name != kAccum) continue;
    if (i == 0) return;
    fail("accum must be the first parameter of the epilogue function, but it is parameter " + std::to_string(i + 1) +
             " of '" + f_.name + "'",
         f_.params[i].loc);
  }
  fail("accum must be an input to the epilogue function", f_.loc);
}

// The AccFetch (when accum is used or returned), then one Load per parameter.
void Lowerer::add_inputs() {
  bool uses_accum = false;
  for (const ast::Stmt& s : f_.body) {
    if (s.kind == ast::StmtKind::assign) uses_accum = uses_accum || mentions(*s.value, kAccum);
    for (const ast::ExprPtr& r : s.results) uses_accum = uses_accum || mentions(*r, kAccum);
  }
  if (uses_accum) {
    ir::Node acc;
    acc.kind = ir::NodeKind::AccFetch;
    acc.loc = to_ir(f_.params.front().loc);
    values_.emplace(kAccum, dag_.add(std::move(acc)));
  }
  for (std::size_t i = 1; i < f_.params.size(); ++i) {
    ir::Node load;
    load.kind = ir::NodeKind::Load;
    load.name = f_.params[i].name;
    load.slot = static_cast<int>(i - 1);
    load.loc = to_ir(f_.params[i].loc);
    values_.emplace(f_.params[i].name, dag_.add(std::move(load)));
    dag_.params.push_back(f_.params[i].name);
  }
}

bool Lowerer::is_param(const std::string& name) const {
  for (const ast::Param& p : f_.params)
    if (p.name == name) return true;
  return false;
}

// NAME '=' expression: NAME is new (SSA), the expression's names are defined.
void Lowerer::lower_assign(const ast::Stmt& s) {
  const std::string redefined = "Variable '" + s.target + "' cannot be defined twice.";
  if (is_param(s.target))
    fail(redefined + " '" + s.target + "' is a parameter of '" + f_.name + "'; assign the value to a new name.",
         s.loc);
  if (values_.count(s.target) != 0) fail(redefined, s.loc);
  ir::NodeId id = lower_expr(*s.value);
  ir::Node& node = dag_.nodes[static_cast<std::size_t>(id)];
  if (node.kind == ir::NodeKind::Compute && node.name.empty()) node.name = s.target;
  values_.emplace(s.target, id);
}

// 'return' NAME {',' NAME}: defined names, each once, no input but accum.
void Lowerer::lower_return(const ast::Stmt& s) {
  if (s.results.empty()) fail("return must list the names of the outputs, e.g. 'return D' or 'return D, F'", s.loc);
  for (const ast::ExprPtr& r : s.results) {
    if (r->kind != ast::ExprKind::name)
      fail("return must list names of outputs, not expressions or numbers: assign the value to a name and return "
           "the name, as in 'D = ...; return D'",
           r->loc);
    ir::NodeId id = lookup(r->text, r->loc);
    if (r->text != kAccum && is_param(r->text))
      fail("Input '" + r->text + "' cannot also be an output; assign it to a new name (e.g. '" + r->text + "_out = " +
               r->text + "') and return that name",
           r->loc);
    for (const Output& o : outputs_)
      if (o.name == r->text) fail("Output '" + r->text + "' is returned twice", r->loc);
    outputs_.push_back({r->text, r->loc, id});
  }
}

ir::NodeId Lowerer::lower_expr(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::number: return add_constant(e.number, e.loc);
    case ast::ExprKind::name: return lookup(e.text, e.loc);
    case ast::ExprKind::unary: {
      const ast::Expr& operand = *e.operands.at(0);
      if (e.unary_op == ast::UnaryOp::plus) return lower_expr(operand);
      if (operand.kind == ast::ExprKind::number) return add_constant(-operand.number, e.loc);
      return add_compute(ir::OpCode::neg, {lower_expr(operand)}, e.loc);
    }
    case ast::ExprKind::binary: {
      ir::NodeId left = lower_expr(*e.operands.at(0));
      ir::NodeId right = lower_expr(*e.operands.at(1));
      return add_compute(opcode_of(e.binary_op), {left, right}, e.loc);
    }
    case ast::ExprKind::call: return lower_call(e);
    case ast::ExprKind::tuple: break;
  }
  fail("unexpected tuple: a parenthesised list of values is only allowed after 'return'", e.loc);
}

// A call: a known function, positional arguments, then keywords that name
// arguments; missing optional arguments take the op table's defaults.
ir::NodeId Lowerer::lower_call(const ast::Expr& e) {
  const ir::OpInfo* info = ir::find_function(e.callee);
  if (info == nullptr) fail(unknown_function_message(e.callee), e.loc);
  const int given = static_cast<int>(e.operands.size() + e.keywords.size());
  std::vector<std::optional<ir::NodeId>> args(static_cast<std::size_t>(std::max(info->max_arity, 0)));
  for (std::size_t i = 0; i < e.operands.size(); ++i) {
    ir::NodeId id = lower_expr(*e.operands[i]);
    if (i < args.size()) args[i] = id;
  }
  if (static_cast<int>(e.operands.size()) > info->max_arity) fail(arity_message(*info, given), e.loc);
  for (const ast::KeywordArg& k : e.keywords) {
    const int index = keyword_argument_index(*info, k.name);
    if (index < 0) {
      const std::string accepted = accepted_keywords(*info);
      fail(std::string(info->name) + " has no keyword argument '" + k.name + "'" +
               (accepted.empty() ? "; pass its arguments by position" : "; it accepts " + accepted),
           k.loc);
    }
    if (args[static_cast<std::size_t>(index)].has_value())
      fail(std::string(info->name) + " got two values for argument " + std::to_string(index + 1) + " ('" + k.name +
               "')",
           k.loc);
    args[static_cast<std::size_t>(index)] = lower_expr(*k.value);
  }
  std::vector<ir::NodeId> inputs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].has_value()) {
      inputs.push_back(*args[i]);
    } else if (static_cast<int>(i) < info->min_arity) {
      fail(arity_message(*info, given), e.loc);
    } else {
      inputs.push_back(add_constant(info->defaults[i < 3 ? i : 2], e.loc));
    }
  }
  return add_compute(info->code, std::move(inputs), e.loc);
}

ir::NodeId Lowerer::lookup(const std::string& name, ast::Loc loc) const {
  auto it = values_.find(name);
  if (it == values_.end()) fail("Name '" + name + "' is not defined", loc);
  return it->second;
}

ir::NodeId Lowerer::add_constant(double value, ast::Loc loc) {
  ir::Node n;
  n.kind = ir::NodeKind::Constant;
  n.value = value;
  n.loc = to_ir(loc);
  return dag_.add(std::move(n));
}

ir::NodeId Lowerer::add_compute(ir::OpCode op, std::vector<ir::NodeId> inputs, ast::Loc loc) {
  ir::Node n;
  n.kind = ir::NodeKind::Compute;
  n.op = op;
  n.inputs = std::move(inputs);
  n.loc = to_ir(loc);
  return dag_.add(std::move(n));
}

}  // namespace

ir::Dag lower(const ast::Function& function) { return Lowerer(function).run(); }

}  // namespace epigemm::frontend
