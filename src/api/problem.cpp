// analyze(): checks a GemmArguments (pointers, ranks, extents, strides,
// dtypes, devices, overlaps) and normalises it into a Problem.
#include "api/problem.hpp"

#include <map>
#include <mutex>

#include "api/epilogue_program.hpp"
#include "api/memory_range.hpp"
#include "epigemm/error.hpp"

namespace epigemm::detail {
namespace {

[[noreturn]] void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

// Pointer, rank 2 or 3, positive extents, non-negative strides, and an
// element count and largest offset that fit in int64.
void check_matrix_tensor(const char* name, const TensorRef& t) {
  if (t.data == nullptr) fail(ErrorKind::Value, std::string(name) + " is a null pointer");
  if (t.rank() != 2 && t.rank() != 3) {
    fail(ErrorKind::Shape, std::string(name) + " has shape " + t.shape.to_string() + "; it must have rank 2 or 3");
  }
  check_tensor_extents({name, ""}, t);
}

MatrixOperand matrix_operand(const TensorRef& t) {
  MatrixOperand m;
  const Dims s = t.effective_strides();
  const int r = t.rank();
  m.tensor = &t;
  m.dtype = t.dtype;
  m.rows = t.shape[r - 2];
  m.cols = t.shape[r - 1];
  m.row_stride = s[r - 2];
  m.col_stride = s[r - 1];
  m.batch_stride = (r == 3 && t.shape[0] > 1) ? s[0] : 0;
  m.layout = matrix_layout(m.rows, m.cols, m.row_stride, m.col_stride);
  return m;
}

std::int64_t batch_of(const TensorRef& t) { return t.rank() == 3 ? t.shape[0] : 1; }

void check_dtypes(const GemmArguments& args) {
  const DType a = args.A.dtype, b = args.B.dtype, acc = args.accumulator;
  const bool same = a == b || (is_fp8(a) && is_fp8(b)) ||
                    ((a == DType::i8 || a == DType::u8) && (b == DType::i8 || b == DType::u8));
  if (!same) {
    fail(ErrorKind::Type, "A is " + std::string(to_string(a)) + " but B is " + std::string(to_string(b)) +
                              "; A and B must have the same dtype (or both fp8, or both 8-bit integers)");
  }
  bool acc_ok = false;
  switch (a) {
    case DType::f32: case DType::tf32: acc_ok = acc == DType::f32; break;
    case DType::f16: case DType::e4m3: case DType::e5m2: acc_ok = acc == DType::f32 || acc == DType::f16; break;
    case DType::bf16: acc_ok = acc == DType::f32; break;
    case DType::i8: case DType::u8: acc_ok = acc == DType::i32; break;
    case DType::f64: acc_ok = acc == DType::f64; break;
    case DType::i32: fail(ErrorKind::Type, "A and B cannot be i32; integer GEMMs take i8 or u8 operands");
  }
  if (!acc_ok) {
    fail(ErrorKind::Type, "accumulator " + std::string(to_string(acc)) + " cannot accumulate " +
                              std::string(to_string(a)) + " products (f32 for f32/tf32/bf16, f32 or f16 for "
                              "f16 and fp8, i32 for i8/u8, f64 for f64)");
  }
  if (args.out.dtype == DType::tf32) {
    fail(ErrorKind::Type, "out is tf32; tf32 is an operand type of A and B, store f32");
  }
  const DType c = args.compute;
  if (c != DType::f32 && c != DType::f64 && c != DType::f16 && c != DType::bf16) {
    fail(ErrorKind::Type, "compute type " + std::string(to_string(c)) + " is not supported; use f32, f64, f16 or bf16");
  }
}

// The epilogue for "no epilogue": D = accum, one per output dtype. Its DAG
// does not depend on the extents, so a 1x1 stand-in for D builds it.
const EpilogueArguments& identity_epilogue(DType out_dtype) {
  static std::mutex mutex;
  static std::map<DType, EpilogueArguments> epilogues;
  static const char kStandIn = 0;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = epilogues.find(out_dtype);
  if (it == epilogues.end()) {
    const TensorRef d = TensorRef::host(&kStandIn, out_dtype, {1, 1});
    it = epilogues.emplace(out_dtype, EpilogueArguments("def epi(accum):\n    D = accum\n    return D\n", {{"D", d}}))
             .first;
  }
  return it->second;
}

void fill_operand(EpilogueOperand& op, std::string_view name, const Binding& b, const Problem& p) {
  op.name = name;
  op.tensor = nullptr;
  op.value = 0.0;
  op.stride_l = op.stride_m = op.stride_n = 0;
  if (b.is_scalar()) {
    op.value = b.scalar();
    op.dtype = p.compute;
    return;
  }
  const TensorRef& t = b.tensor();
  op.tensor = &t;
  op.dtype = t.dtype;
  const Dims s = t.effective_strides();
  const std::int64_t extents[3] = {p.L, p.M, p.N};
  std::int64_t* strides[3] = {&op.stride_l, &op.stride_m, &op.stride_n};
  for (int i = 0; i < t.rank() && i < 3; ++i) {
    const int axis = 3 - t.rank() + i;  // aligned from the right
    if (t.shape[i] == extents[axis] && t.shape[i] > 1) *strides[axis] = s[i];
  }
}

// Epilogue tensors: pointers, extents, devices; outputs: no zero strides on
// kept axes and no overlap with any input or other output. Allocates only
// to build an error message.
void check_epilogue_tensors(const GemmArguments& args, const Problem& p) {
  if (args.epilogue) {
    for (const auto& [name, b] : args.epilogue->bindings()) {
      if (b.is_scalar()) continue;
      const TensorRef& t = b.tensor();
      if (t.data == nullptr) fail(ErrorKind::Value, "Tensor '" + name + "' is a null pointer");
      check_tensor_extents({"Tensor", name}, t);
      if (t.device != p.device || t.device_index != p.device_index) {
        fail(ErrorKind::Value, "Tensor '" + name + "' is " + t.describe() + " but A is " + args.A.describe() +
                                   "; every tensor must be on the same device");
      }
    }
  }
  for (std::size_t j = 0; j < p.outputs.size(); ++j) {
    const EpilogueOperand& out = p.outputs[j];
    check_output_strides(out.name, *out.tensor);
    const MemoryRange range = range_of(*out.tensor);
    auto check_input = [&](std::string_view input, const TensorRef& t) {
      if (range.overlaps(range_of(t))) {
        fail(ErrorKind::Value, "Output '" + std::string(out.name) + "' overlaps input '" + std::string(input) +
                                   "' in memory; inputs are never written, so outputs need their own memory");
      }
    };
    check_input("A", args.A);
    check_input("B", args.B);
    for (const EpilogueOperand& in : p.inputs) {
      if (in.tensor) check_input(in.name, *in.tensor);
    }
    for (std::size_t i = 0; i < j; ++i) {
      if (range.overlaps(range_of(*p.outputs[i].tensor))) {
        fail(ErrorKind::Value, "Outputs '" + std::string(p.outputs[i].name) + "' and '" + std::string(out.name) +
                                   "' overlap in memory");
      }
    }
  }
}

}  // namespace

Layout matrix_layout(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride) noexcept {
  if (col_stride == 1 || cols == 1) return Layout::row_major;
  if (row_stride == 1 || rows == 1) return Layout::col_major;
  return Layout::strided;
}

void analyze(const GemmArguments& args, Problem& p) {
  check_matrix_tensor("A", args.A);
  check_matrix_tensor("B", args.B);
  check_matrix_tensor("out", args.out);
  check_dtypes(args);

  const std::int64_t M = args.A.shape[args.A.rank() - 2], K = args.A.shape[args.A.rank() - 1];
  const std::int64_t Kb = args.B.shape[args.B.rank() - 2], N = args.B.shape[args.B.rank() - 1];
  if (K != Kb) {
    fail(ErrorKind::Shape, "A has shape " + args.A.shape.to_string() + " and B " + args.B.shape.to_string() +
                               ": A's K (" + std::to_string(K) + ") differs from B's K (" + std::to_string(Kb) + ")");
  }
  const std::int64_t Mo = args.out.shape[args.out.rank() - 2], No = args.out.shape[args.out.rank() - 1];
  if (Mo != M || No != N) {
    fail(ErrorKind::Shape, "out has shape " + args.out.shape.to_string() + " but A " + args.A.shape.to_string() +
                               " times B " + args.B.shape.to_string() + " gives (M, N) = (" + std::to_string(M) +
                               ", " + std::to_string(N) + ")");
  }
  const std::int64_t L = batch_of(args.out);
  for (const auto& [name, t] : {std::pair<const char*, const TensorRef*>{"A", &args.A}, {"B", &args.B}}) {
    if (batch_of(*t) != L && batch_of(*t) != 1) {
      fail(ErrorKind::Shape, std::string(name) + " has batch " + std::to_string(batch_of(*t)) + " but out has batch " +
                                 std::to_string(L) + "; a batch must match out's or be 1 (shared)");
    }
  }
  if (args.A.device != args.B.device || args.A.device != args.out.device ||
      args.A.device_index != args.B.device_index || args.A.device_index != args.out.device_index) {
    fail(ErrorKind::Value, "A is " + args.A.describe() + ", B is " + args.B.describe() + " and out is " +
                               args.out.describe() + "; every tensor must be on the same device");
  }

  p.L = L;
  p.M = M;
  p.N = N;
  p.K = K;
  p.A = matrix_operand(args.A);
  p.B = matrix_operand(args.B);
  p.D = matrix_operand(args.out);
  p.accumulator = args.accumulator;
  p.compute = args.compute;
  p.device = args.A.device;
  p.device_index = args.A.device_index;

  if (args.epilogue) {
    const EpilogueProgram& program = args.epilogue->program();
    const auto& x = program.extents;
    if (x.L != L || x.M != M || x.N != N) {
      fail(ErrorKind::Shape, "the epilogue's D has (L, M, N) = (" + std::to_string(x.L) + ", " + std::to_string(x.M) +
                                 ", " + std::to_string(x.N) + ") but the GEMM gives (" + std::to_string(L) + ", " +
                                 std::to_string(M) + ", " + std::to_string(N) + ")");
    }
    const TensorRef& d = args.epilogue->binding("D").tensor();
    if (d.data != args.out.data || d.dtype != args.out.dtype || !(d.shape == args.out.shape) ||
        !(d.effective_strides() == args.out.effective_strides())) {
      fail(ErrorKind::Value, "GemmArguments.out (" + args.out.describe() + ") and the epilogue's D (" + d.describe() +
                                 ") must be the same tensor");
    }
    p.program = &program;
    p.dag = &program.dag_for(args.accumulator, args.compute, args.epilogue->bindings());
  } else {
    const EpilogueArguments& identity = identity_epilogue(args.out.dtype);
    p.program = &identity.program();
    p.dag = &p.program->dag_for(args.accumulator, args.compute, identity.bindings());
  }

  const ir::Dag& dag = *p.dag;
  p.inputs.resize(dag.params.size());
  p.outputs.resize(dag.outputs.size());
  for (std::size_t i = 0; i < dag.params.size(); ++i) {
    fill_operand(p.inputs[i], dag.params[i], args.epilogue->binding(dag.params[i]), p);
    p.inputs[i].load_kind = ir::LoadKind::Unbound;  // unused parameters keep Unbound
  }
  for (const ir::Node& n : dag.nodes) {
    if (n.kind == ir::NodeKind::Load) p.inputs[n.slot].load_kind = n.load_kind;
    if (n.kind == ir::NodeKind::Store) {
      EpilogueOperand& op = p.outputs[n.slot];
      if (args.epilogue) {
        fill_operand(op, dag.outputs[n.slot], args.epilogue->binding(n.name), p);
      } else {
        fill_operand(op, dag.outputs[n.slot], Binding(args.out), p);
        op.tensor = &args.out;
      }
      op.store_kind = n.store_kind;
      op.reduce_op = n.op;
    }
  }
  check_epilogue_tensors(args, p);
}

}  // namespace epigemm::detail
