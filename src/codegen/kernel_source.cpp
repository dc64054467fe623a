// Instantiates kernel templates with the generated epilogue, and computes
// the problem-class key the providers' memory caches use.
#include "codegen/kernel_source.hpp"

#include <tuple>

#include "support/text_writer.hpp"


#include "api/epilogue_program.hpp"
#include "codegen/epilogue_emitter.hpp"
#include "ir/printer.hpp"
#include "support/hash.hpp"

namespace epigemm::codegen {
namespace {

constexpr std::string_view kSimtHeaders[] = {"epilogue_params.cuh", "dtypes.cuh", "epilogue_ops.cuh",
                                             "reduce_atomics.cuh", "simt_gemm.cuh"};
constexpr std::string_view kSm80Headers[] = {"epilogue_params.cuh", "dtypes.cuh",    "epilogue_ops.cuh",
                                             "reduce_atomics.cuh",  "simt_gemm.cuh", "sm80_gemm.cuh"};

/// The elements per load (8, 4, 2, 1) of a 16-bit operand whose unit-stride
/// axis holds `extent` elements, the other axes `stride` and `batch_stride`
/// apart, starting at `address`.
int vector_width(std::uintptr_t address, std::int64_t extent, std::int64_t stride, std::int64_t batch_stride) {
  for (int v : {8, 4, 2}) {
    if (address % (2u * v) == 0 && extent % v == 0 && stride % v == 0 && batch_stride % v == 0) return v;
  }
  return 1;
}

/// Whether the operand's K axis is staged along shared-memory rows, and its vector width.
std::pair<bool, int> operand_staging(const detail::MatrixOperand& op, bool k_is_cols, std::int64_t k_extent,
                                     std::int64_t mn_extent) {
  const std::int64_t k_stride = k_is_cols ? op.col_stride : op.row_stride;
  const std::int64_t mn_stride = k_is_cols ? op.row_stride : op.col_stride;
  const std::uintptr_t address = op.tensor ? reinterpret_cast<std::uintptr_t>(op.tensor->data) : 0;
  if (k_stride == 1) return {true, vector_width(address, k_extent, mn_stride, op.batch_stride)};
  if (mn_stride == 1) return {false, vector_width(address, mn_extent, k_stride, op.batch_stride)};
  return {true, 1};
}

/// The printed DAG, one "// " comment line per line.
std::string dag_comment(const ir::Dag& dag) {
  return prefix_lines(ir::print_text(dag), "//   ");
}

std::string simt_entry_points(const detail::Problem& p) {
  const std::string args = "const __grid_constant__ EpgSimtArgs<EpgEpilogue> args";
  TextWriter out;
  out << "extern \"C\" __global__ void __launch_bounds__(" << kSimtThreads << ") " << kSimtGemmKernel << "(" << args
      << ") {\n"
      << "  epg_simt_gemm<" << device_dtype_name(p.A.dtype) << ", " << device_dtype_name(p.B.dtype)
      << ", EpgEpilogue>(args);\n}\n\n";
  out << "extern \"C\" __global__ void __launch_bounds__(" << kSimtThreads << ") " << kSimtFillKernel << "(" << args
      << ") {\n  epg_simt_fill_identity<EpgEpilogue>(args);\n}\n";
  return out.str();
}

std::string sm80_entry_points(const detail::Problem& p) {
  const Sm80Variant v = sm80_variant(p);
  const std::string args = "const __grid_constant__ EpgSimtArgs<EpgEpilogue> args";
  TextWriter out;
  out << "extern \"C\" __global__ void __launch_bounds__(" << kSm80Threads << ", " << kSm80MinBlocksPerSm << ") "
      << kSm80GemmKernel << "(" << args
      << ") {\n"
      << "  epg_sm80_gemm<" << device_dtype_name(p.A.dtype) << ", " << device_dtype_name(p.B.dtype) << ", "
      << (v.a_k_major ? "true" : "false") << ", " << (v.b_k_major ? "true" : "false") << ", " << v.a_vec << ", "
      << v.b_vec << ", " << kSm80Stages << ", EpgEpilogue>(args);\n}\n\n";
  out << "static_assert(epg_sm80_shared_bytes<" << (v.a_k_major ? "true" : "false") << ", "
      << (v.b_k_major ? "true" : "false") << ", " << kSm80Stages << ">() == " << sm80_shared_bytes(v)
      << ", \"the host launches with the kernel's shared memory\");\n\n";
  out << "extern \"C\" __global__ void __launch_bounds__(" << kSimtThreads << ") " << kSimtFillKernel << "(" << args
      << ") {\n  epg_simt_fill_identity<EpgEpilogue>(args);\n}\n";
  return out.str();
}

}  // namespace

Sm80Variant sm80_variant(const detail::Problem& p) noexcept {
  Sm80Variant v;
  // A is (M, K): K along its columns; B is (K, N): K along its rows.
  std::tie(v.a_k_major, v.a_vec) = operand_staging(p.A, true, p.K, p.M);
  std::tie(v.b_k_major, v.b_vec) = operand_staging(p.B, false, p.K, p.N);
  return v;
}

unsigned sm80_shared_bytes(const Sm80Variant& v) noexcept {
  // (rows, cols + 8) per stage: K-major (128, 32 + 8), else (32, 128 + 8).
  const auto elements = [](bool k_major) { return k_major ? kSm80TileM * (kSm80TileK + 8) : kSm80TileK * (kSm80TileM + 8); };
  return static_cast<unsigned>(kSm80Stages * 2 * (elements(v.a_k_major) + elements(v.b_k_major)));
}

unsigned dynamic_shared_bytes(const detail::Problem& p, KernelTemplate kind) noexcept {
  return kind == KernelTemplate::sm80 ? sm80_shared_bytes(sm80_variant(p)) : 0;
}

std::string_view to_string(KernelTemplate kind) noexcept {
  switch (kind) {
    case KernelTemplate::simt: return "simt";
    case KernelTemplate::sm80: return "sm80";
  }
  return "unknown";
}

std::optional<KernelTemplate> parse_kernel_template(std::string_view name) noexcept {
  if (name == "simt") return KernelTemplate::simt;
  if (name == "sm80") return KernelTemplate::sm80;
  return std::nullopt;
}

Status can_instantiate(const detail::Problem& p, KernelTemplate kind) {
  if (p.dag == nullptr) return Status::unsupported("the problem has no epilogue DAG");
  if (Status s = can_emit(*p.dag, p.accumulator, p.compute); !s) return s;
  if (kind == KernelTemplate::simt) {
    const DType a = p.A.dtype, b = p.B.dtype, acc = p.accumulator;
    const auto integer = [](DType t) { return t == DType::i8 || t == DType::u8 || t == DType::i32; };
    if ((acc == DType::i32) != (integer(a) && integer(b))) {
      return Status::unsupported("accumulator " + std::string(to_string(acc)) + " with A " +
                                 std::string(to_string(a)) + " and B " + std::string(to_string(b)) +
                                 ": the simt kernel sums integer operands in i32 and float operands in f32/f16/f64");
    }
  }
  if (kind == KernelTemplate::sm80) {
    const DType a = p.A.dtype, b = p.B.dtype;
    if ((a != DType::f16 && a != DType::bf16) || b != a) {
      return Status::unsupported("A " + std::string(to_string(a)) + " and B " + std::string(to_string(b)) +
                                 ": the sm80 kernel takes A and B both f16 or both bf16");
    }
    if (p.accumulator != DType::f32 && p.accumulator != DType::f16) {
      return Status::unsupported("accumulator " + std::string(to_string(p.accumulator)) +
                                 ": the sm80 kernel accumulates f16/bf16 products in f32 (or f16)");
    }
  }
  return Status::ok();
}

std::string kernel_source(const detail::Problem& p, KernelTemplate kind) {
  const Status status = can_instantiate(p, kind);
  if (!status) throw Error(ErrorKind::Unsupported, status.reason());
  TextWriter out;
  out << "// epigemm " << to_string(kind) << " kernel: A " << to_string(p.A.dtype) << ", B " << to_string(p.B.dtype)
      << ", accumulator " << to_string(p.accumulator) << ", compute " << to_string(p.compute) << ".\n";
  out << "// The epilogue DAG:\n" << dag_comment(*p.dag) << "\n";
  out << "#include \"epilogue_params.cuh\"\n#include \"dtypes.cuh\"\n#include \"epilogue_ops.cuh\"\n\n";
  out << emit_epilogue(*p.dag, p.accumulator, p.compute) << "\n";
  switch (kind) {
    case KernelTemplate::simt:
      out << "#include \"simt_gemm.cuh\"\n\n" << simt_entry_points(p);
      break;
    case KernelTemplate::sm80:
      out << "#include \"sm80_gemm.cuh\"\n\n" << sm80_entry_points(p);
      break;
  }
  return out.str();
}

std::span<const std::string_view> kernel_headers(KernelTemplate kind) noexcept {
  switch (kind) {
    case KernelTemplate::simt: return kSimtHeaders;
    case KernelTemplate::sm80: return kSm80Headers;
  }
  return {};
}

std::string instantiated_kernel(std::string_view source) {
  const auto at = source.rfind(kInstantiatedKernelComment);
  if (at == std::string_view::npos) return "";
  const auto begin = at + kInstantiatedKernelComment.size();
  const auto end = source.find('\n', begin);
  return std::string(source.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
}

std::uint64_t kernel_class_key(const detail::Problem& p, KernelTemplate kind, int target_sm) noexcept {
  Hasher h(0x6570696c6f677565ull);
  h.u64(p.program ? p.program->hash : 0);
  h.value(kind).value(target_sm);
  h.value(p.A.dtype).value(p.B.dtype).value(p.accumulator).value(p.compute);
  for (const auto& in : p.inputs) h.value(in.load_kind).value(in.dtype).value(in.tensor != nullptr);
  h.u64(0xffff);
  for (const auto& out : p.outputs) h.value(out.store_kind).value(out.dtype).value(out.reduce_op);
  if (kind == KernelTemplate::sm80) {
    const Sm80Variant v = sm80_variant(p);
    h.value(v.a_k_major).value(v.b_k_major).value(v.a_vec).value(v.b_vec);
  }
  return h.digest64();
}

}  // namespace epigemm::codegen
