// Emits the CUDA C++ of an epilogue DAG: one local per node in the compute
// type, each op through the op table's device function, loads, stores and
// reductions through the kernel's context object.
#include "codegen/epilogue_emitter.hpp"
#include "support/text_writer.hpp"

#include <charconv>
#include <cmath>

#include "ir/names.hpp"
#include "ir/op_table.hpp"

namespace epigemm::codegen {
namespace {

std::string local(ir::NodeId id) { return "v" + std::to_string(id); }

/// A double literal that reads back as exactly `value` in C++.
std::string number_literal(double value) {
  if (std::isnan(value)) return "epg_nan<T>()";
  if (std::isinf(value)) return value < 0 ? "(-epg_infinity<T>())" : "epg_infinity<T>()";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return "T(" + text + ")";
}

/// Keeps identifier characters only, so a name can sit in a comment.
std::string comment_safe(std::string_view name) {
  std::string text;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    text += ok ? c : '?';
  }
  return text;
}

std::string_view load_kind_name(ir::LoadKind kind) {
  switch (kind) {
    case ir::LoadKind::Unbound: return "kEpgLoadUnbound";
    case ir::LoadKind::ScalarValue: return "kEpgLoadScalarValue";
    case ir::LoadKind::ScalarTensor: return "kEpgLoadScalarTensor";
    case ir::LoadKind::Row: return "kEpgLoadRow";
    case ir::LoadKind::Column: return "kEpgLoadColumn";
    case ir::LoadKind::Tile: return "kEpgLoadTile";
  }
  return "kEpgLoadUnbound";
}

std::string_view store_kind_name(ir::StoreKind kind) {
  switch (kind) {
    case ir::StoreKind::Unbound: return "kEpgStoreUnbound";
    case ir::StoreKind::Tile: return "kEpgStoreTile";
    case ir::StoreKind::RowReduce: return "kEpgStoreRowReduce";
    case ir::StoreKind::ColumnReduce: return "kEpgStoreColumnReduce";
    case ir::StoreKind::ScalarReduce: return "kEpgStoreScalarReduce";
  }
  return "kEpgStoreUnbound";
}

std::string_view reduce_op_name(ir::OpCode op) {
  switch (op) {
    case ir::OpCode::sum: return "kEpgReduceSum";
    case ir::OpCode::max: return "kEpgReduceMax";
    case ir::OpCode::min: return "kEpgReduceMin";
    case ir::OpCode::amax: return "kEpgReduceAmax";
    default: return "kEpgReduceNone";
  }
}

/// "{a, b, c}", or "{pad}" for an empty list (arrays hold at least one entry).
std::string braced(const std::vector<std::string>& items, std::string_view pad) {
  std::string text = "{";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  if (items.empty()) text += pad;
  return text + "}";
}

std::string array_size(std::size_t n) { return std::to_string(n > 0 ? n : 1); }

/// Wraps an expression so its value is rounded to a narrow compute type.
std::string rounded(DType compute, const std::string& expr) {
  if (compute == DType::f16 || compute == DType::bf16) {
    return "epg_round_to<" + std::string(device_dtype_name(compute)) + ">(" + expr + ")";
  }
  return expr;
}

/// The call computing one Compute node; absent trailing operands take the
/// op's defaults (as constant folding does).
std::string compute_expression(const ir::Node& n) {
  const ir::OpInfo& info = ir::op_info(n.op);
  std::string text = std::string(info.cuda_function) + "(";
  const int given = static_cast<int>(n.inputs.size());
  const int total = given > info.max_arity ? given : info.max_arity;
  for (int i = 0; i < total; ++i) {
    if (i) text += ", ";
    text += i < given ? local(n.inputs[static_cast<std::size_t>(i)]) : number_literal(info.defaults[i]);
  }
  return text + ")";
}

bool is_reduce_op(ir::OpCode op) { return ir::op_info(op).op_class == ir::OpClass::reduction; }

void emit_traits(TextWriter& out, const ir::Dag& dag, DType accumulator, DType compute) {
  const EpilogueSummary s = summarize(dag);
  std::vector<std::string> in_kind(dag.params.size(), "kEpgLoadUnbound"), in_dtype(dag.params.size(), "kEpgF32");
  std::vector<std::string> out_kind(dag.outputs.size(), "kEpgStoreUnbound"), out_dtype(dag.outputs.size(), "kEpgF32");
  std::vector<std::string> out_op(dag.outputs.size(), "kEpgReduceNone"), out_slot(dag.outputs.size(), "-1");
  int slot = 0;
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Load) {
      in_kind[n.slot] = load_kind_name(n.load_kind);
      in_dtype[n.slot] = device_dtype_name(n.dtype);
    } else if (n.kind == ir::NodeKind::Store) {
      out_kind[n.slot] = store_kind_name(n.store_kind);
      out_dtype[n.slot] = device_dtype_name(n.dtype);
      if (ir::is_reduce_store(n.store_kind)) {
        out_op[n.slot] = reduce_op_name(n.op);
        out_slot[n.slot] = std::to_string(slot++);
      }
    }
  }
  std::string inputs, outputs;
  for (const auto& p : dag.params) inputs += " " + comment_safe(p);
  for (const auto& o : dag.outputs) outputs += " " + comment_safe(o);
  out << "// Epilogue '" << comment_safe(dag.function_name) << "': inputs (" << inputs << " ), outputs (" << outputs
      << " ).\n";
  out << "struct EpgEpilogue {\n";
  out << "  using Acc = " << device_accumulator_type(accumulator) << ";\n";
  out << "  using Compute = " << device_compute_type(compute) << ";\n";
  out << "  using Params = EpgParams<" << s.num_inputs << ", " << s.num_outputs << ">;\n";
  out << "  static constexpr int kComputeDType = " << device_dtype_name(compute) << ";\n";
  out << "  static constexpr int kNumInputs = " << s.num_inputs << ";\n";
  out << "  static constexpr int kNumOutputs = " << s.num_outputs << ";\n";
  out << "  static constexpr int kNumReduce = " << s.num_reduce << ";\n";
  const std::string ni = array_size(dag.params.size()), no = array_size(dag.outputs.size());
  out << "  static constexpr int kInLoadKind[" << ni << "] = " << braced(in_kind, "kEpgLoadUnbound") << ";\n";
  out << "  static constexpr int kInDType[" << ni << "] = " << braced(in_dtype, "kEpgF32") << ";\n";
  out << "  static constexpr int kOutStoreKind[" << no << "] = " << braced(out_kind, "kEpgStoreUnbound") << ";\n";
  out << "  static constexpr int kOutDType[" << no << "] = " << braced(out_dtype, "kEpgF32") << ";\n";
  out << "  static constexpr int kOutReduceOp[" << no << "] = " << braced(out_op, "kEpgReduceNone") << ";\n";
  out << "  static constexpr int kOutReduceSlot[" << no << "] = " << braced(out_slot, "-1") << ";\n";
  out << "  template <class Ctx>\n  static __device__ __forceinline__ void apply(Ctx& ctx, Acc acc);\n";
  out << "  template <class Visitor>\n  static __device__ __forceinline__ void for_each_reduce(Visitor& visitor);\n";
  out << "};\n\n";
}

void emit_apply(TextWriter& out, const ir::Dag& dag, DType compute) {
  out << "template <class Ctx>\n__device__ __forceinline__ void epilogue_apply(Ctx& ctx, EpgEpilogue::Acc acc) {\n";
  out << "  using T = EpgEpilogue::Compute;\n  (void)ctx;\n  (void)acc;\n";
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const ir::Node& n = dag.nodes[i];
    const auto id = static_cast<ir::NodeId>(i);
    switch (n.kind) {
      case ir::NodeKind::AccFetch:
        out << "  const T " << local(id) << " = " << rounded(compute, "epg_from_acc<T>(acc)") << ";  // accum\n";
        break;
      case ir::NodeKind::Constant:
        out << "  const T " << local(id) << " = " << rounded(compute, number_literal(n.value)) << ";\n";
        break;
      case ir::NodeKind::Load:
        out << "  const T " << local(id) << " = "
            << rounded(compute, "ctx.template load<" + std::to_string(n.slot) + ">()") << ";  // "
            << comment_safe(n.name) << " (" << ir::to_string(n.load_kind) << ")\n";
        break;
      case ir::NodeKind::Compute:
        out << "  const T " << local(id) << " = " << rounded(compute, compute_expression(n)) << ";";
        if (!n.name.empty()) out << "  // " << comment_safe(n.name);
        out << "\n";
        break;
      case ir::NodeKind::Store: {
        const ir::NodeId value = n.inputs.at(0);
        const std::string j = std::to_string(n.slot);
        if (ir::is_reduce_store(n.store_kind)) {
          out << "  ctx.template reduce<" << j << ">(" << local(value) << ");  // " << comment_safe(n.name) << " ("
              << ir::to_string(n.store_kind) << " " << ir::op_info(n.op).name << ")\n";
        } else if (dag.node(value).kind == ir::NodeKind::AccFetch) {
          out << "  ctx.template store<" << j << ">(acc);  // " << comment_safe(n.name) << " (the accumulator as it is)\n";
        } else {
          out << "  ctx.template store<" << j << ">(" << local(value) << ");  // " << comment_safe(n.name) << "\n";
        }
        break;
      }
    }
  }
  out << "}\n\n";
}

void emit_for_each_reduce(TextWriter& out, const ir::Dag& dag) {
  out << "template <class Visitor>\n__device__ __forceinline__ void epilogue_for_each_reduce(Visitor& visitor) {\n";
  out << "  (void)visitor;\n";
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Store && ir::is_reduce_store(n.store_kind)) {
      out << "  visitor.template visit<" << n.slot << ">();  // " << comment_safe(n.name) << "\n";
    }
  }
  out << "}\n\n";
  out << "template <class Ctx>\n__device__ __forceinline__ void EpgEpilogue::apply(Ctx& ctx, Acc acc) {\n"
         "  epilogue_apply(ctx, acc);\n}\n";
  out << "template <class Visitor>\n__device__ __forceinline__ void EpgEpilogue::for_each_reduce(Visitor& visitor) {\n"
         "  epilogue_for_each_reduce(visitor);\n}\n";
}

}  // namespace

EpilogueSummary summarize(const ir::Dag& dag) {
  EpilogueSummary s;
  s.num_inputs = static_cast<int>(dag.params.size());
  s.num_outputs = static_cast<int>(dag.outputs.size());
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Store && ir::is_reduce_store(n.store_kind)) ++s.num_reduce;
  }
  return s;
}

Status can_emit(const ir::Dag& dag, DType accumulator, DType compute) {
  if (device_accumulator_type(accumulator).empty()) {
    return Status::unsupported("accumulator " + std::string(to_string(accumulator)) +
                               " is not supported by the CUDA epilogue generator (f32, f16, i32 or f64)");
  }
  if (device_compute_type(compute).empty()) {
    return Status::unsupported("compute type " + std::string(to_string(compute)) +
                               " is not supported by the CUDA epilogue generator (f32, f64, f16 or bf16)");
  }
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Load && n.load_kind == ir::LoadKind::Unbound) {
      return Status::unsupported("input '" + n.name + "' has no load kind (the DAG is not bound)");
    }
    if (n.kind == ir::NodeKind::Store && n.store_kind == ir::StoreKind::Unbound) {
      return Status::unsupported("output '" + n.name + "' has no store kind (the DAG is not bound)");
    }
    if (n.kind == ir::NodeKind::Store && ir::is_reduce_store(n.store_kind) && !is_reduce_op(n.op)) {
      return Status::unsupported("output '" + n.name + "' reduces without a reduction op");
    }
    if (n.kind == ir::NodeKind::Compute && is_reduce_op(n.op)) {
      return Status::unsupported("reduction '" + std::string(ir::op_info(n.op).name) +
                                 "' is used as a value; a reduction can only be returned");
    }
  }
  return Status::ok();
}

std::string emit_epilogue(const ir::Dag& dag, DType accumulator, DType compute) {
  const Status status = can_emit(dag, accumulator, compute);
  if (!status) throw Error(ErrorKind::Unsupported, status.reason());
  TextWriter out;
  emit_traits(out, dag, accumulator, compute);
  emit_apply(out, dag, compute);
  emit_for_each_reduce(out, dag);
  return out.str();
}

std::string_view device_dtype_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::f32: return "kEpgF32";
    case DType::tf32: return "kEpgTf32";
    case DType::f16: return "kEpgF16";
    case DType::bf16: return "kEpgBf16";
    case DType::e4m3: return "kEpgE4m3";
    case DType::e5m2: return "kEpgE5m2";
    case DType::i8: return "kEpgI8";
    case DType::u8: return "kEpgU8";
    case DType::i32: return "kEpgI32";
    case DType::f64: return "kEpgF64";
  }
  return "kEpgF32";
}

std::string_view device_compute_type(DType compute) noexcept {
  switch (compute) {
    case DType::f32: case DType::f16: case DType::bf16: return "float";
    case DType::f64: return "double";
    default: return "";
  }
}

std::string_view device_accumulator_type(DType accumulator) noexcept {
  switch (accumulator) {
    case DType::f32: return "float";
    case DType::f16: return "__half";
    case DType::i32: return "int";
    case DType::f64: return "double";
    default: return "";
  }
}

}  // namespace epigemm::codegen
