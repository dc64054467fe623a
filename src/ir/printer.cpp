// Text and Graphviz forms of the DAG. The text form depends only on the DAG's
// content (never on source positions or addresses), one node per line, so
// equal DAGs print equal text; numbers print in their shortest exact form.
#include "ir/printer.hpp"

#include <charconv>
#include <cmath>
#include <string_view>

#include "ir/names.hpp"

namespace epigemm::ir {
namespace {

/// Shortest text that reads back as the same double, written as Python's
/// repr writes floats: fixed notation for exponents in [-4, 16), scientific
/// otherwise, always with a '.' or an exponent ("2.0", "0.1", "1e+20", "nan").
std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const std::string scientific(buffer, result.ptr);  // "-1.25e+05"
  const std::size_t e = scientific.find('e');
  const int exponent = std::stoi(scientific.substr(e + 1));
  constexpr int kMinFixedExponent = -4, kMaxFixedExponent = 16;
  if (exponent < kMinFixedExponent || exponent >= kMaxFixedExponent) return scientific;
  const bool negative = scientific[0] == '-';
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i) {
    if (scientific[i] != '.') digits += scientific[i];
  }
  std::string text = negative ? "-" : "";
  if (exponent < 0) return text + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  const auto integer_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() < integer_digits) digits.append(integer_digits - digits.size(), '0');
  const std::string fraction = digits.substr(integer_digits);
  return text + digits.substr(0, integer_digits) + "." + (fraction.empty() ? "0" : fraction);
}

std::string ref(NodeId id) { return "%" + std::to_string(id); }

std::string join_inputs(const Node& n) {
  std::string text;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (i > 0) text += ", ";
    text += ref(n.inputs[i]);
  }
  return text;
}

/// The op's name, or a placeholder for a corrupt op code (the printer is used
/// to show broken DAGs too, so it must not read outside the table).
std::string_view op_name(OpCode op) {
  if (static_cast<std::size_t>(op) >= all_ops().size()) return "<bad op>";
  return op_info(op).name;
}

std::string store_kind_text(const Node& n) {
  std::string text(to_string(n.store_kind));
  if (is_reduce_store(n.store_kind)) text += " " + std::string(op_name(n.op));
  return text;
}

std::string header(const Dag& dag) {
  std::string text = "def " + dag.function_name + "(accum";
  for (const std::string& param : dag.params) text += ", " + param;
  text += ") ->";
  for (std::size_t i = 0; i < dag.outputs.size(); ++i) text += (i == 0 ? " " : ", ") + dag.outputs[i];
  return text;
}

std::string text_line(NodeId id, const Node& n) {
  const std::string type(to_string(n.dtype));
  switch (n.kind) {
    case NodeKind::AccFetch: return ref(id) + " = accum  : " + type;
    case NodeKind::Constant: return ref(id) + " = const " + format_number(n.value) + "  : " + type;
    case NodeKind::Load:
      return ref(id) + " = load " + n.name + " [" + std::string(to_string(n.load_kind)) + "] " + type;
    case NodeKind::Compute: {
      std::string text = ref(id) + " = " + std::string(op_name(n.op));
      if (!n.inputs.empty()) text += " " + join_inputs(n);
      text += "  : " + type;
      if (!n.name.empty()) text += "   # " + n.name;
      return text;
    }
    case NodeKind::Store:
      return "store " + n.name + " [" + store_kind_text(n) + "] " + type + " <- " + join_inputs(n);
  }
  return ref(id) + " = <bad node kind>";
}

/// Escapes a string for a double-quoted Graphviz label.
std::string dot_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

/// The label's lines: what the node is, how it is read or written, its type.
std::string dot_label(NodeId id, const Node& n) {
  const std::string type(to_string(n.dtype));
  std::string label;
  switch (n.kind) {
    case NodeKind::AccFetch: label = ref(id) + " accum\\n" + type; break;
    case NodeKind::Constant: label = ref(id) + " const " + format_number(n.value) + "\\n" + type; break;
    case NodeKind::Load:
      label = ref(id) + " load " + dot_escape(n.name) + "\\n" + std::string(to_string(n.load_kind)) + "\\n" + type;
      break;
    case NodeKind::Compute:
      label = ref(id) + " " + std::string(op_name(n.op)) + "\\n" + type;
      if (!n.name.empty()) label += "\\n" + dot_escape(n.name);
      break;
    case NodeKind::Store:
      label = "store " + dot_escape(n.name) + "\\n" + store_kind_text(n) + "\\n" + type;
      break;
  }
  return label;
}

std::string_view dot_shape(NodeKind kind) {
  switch (kind) {
    case NodeKind::Store: return "box";
    case NodeKind::AccFetch:
    case NodeKind::Load: return "invhouse";
    case NodeKind::Constant: return "plaintext";
    case NodeKind::Compute: return "ellipse";
  }
  return "ellipse";
}

}  // namespace

std::string print_text(const Dag& dag) {
  std::string text = header(dag) + "\n";
  for (NodeId id = 0; id < static_cast<NodeId>(dag.nodes.size()); ++id) {
    text += "  " + text_line(id, dag.nodes[static_cast<std::size_t>(id)]) + "\n";
  }
  return text;
}

std::string print_dot(const Dag& dag) {
  std::string text = "digraph \"" + dot_escape(dag.function_name) + "\" {\n";
  text += "  node [fontname=\"monospace\"];\n";
  for (NodeId id = 0; id < static_cast<NodeId>(dag.nodes.size()); ++id) {
    const Node& n = dag.nodes[static_cast<std::size_t>(id)];
    text += "  n" + std::to_string(id) + " [shape=" + std::string(dot_shape(n.kind)) + ", label=\"" +
            dot_label(id, n) + "\"];\n";
  }
  for (NodeId id = 0; id < static_cast<NodeId>(dag.nodes.size()); ++id) {
    for (NodeId input : dag.nodes[static_cast<std::size_t>(id)].inputs) {
      text += "  n" + std::to_string(input) + " -> n" + std::to_string(id) + ";\n";
    }
  }
  text += "}\n";
  return text;
}

}  // namespace epigemm::ir
