// Writes the sm90 kernel's source and name expression for one problem class
// and tile configuration, from the code generator's epilogue.
#include "providers/sm90/sm90_kernel_source.hpp"

#include <iterator>
#include <string>

#include "codegen/embedded_kernels.hpp"
#include "codegen/epilogue_emitter.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/names.hpp"
#include "ir/printer.hpp"
#include "support/hash.hpp"
#include "support/text_writer.hpp"

namespace epigemm::detail {
namespace {

/// The device type the GEMM template takes for an operand or D dtype.
std::string_view device_type(DType t) {
  switch (t) {
    case DType::f16: return "__half";
    case DType::bf16: return "__nv_bfloat16";
    case DType::e4m3: return "__nv_fp8_e4m3";
    case DType::e5m2: return "__nv_fp8_e5m2";
    case DType::f32: case DType::tf32: return "float";  // tf32: f32 storage, wgmma reads 19 bits
    case DType::i8: return "signed char";
    case DType::u8: return "unsigned char";
    case DType::i32: return "int";
    default: return "void";
  }
}

std::string_view major(bool k_major) { return k_major ? "epigemm::sm90::Major::K" : "epigemm::sm90::Major::MN"; }

int d_bytes(const Sm90Plan& plan) { return static_cast<int>(size_bytes(plan.d_dtype)); }

/// The hook's kDByThreads: 0 when TMA stores D, else 1 (one element per
/// store) or 4 (in words).
int d_store_mode(const Sm90Plan& plan) { return plan.d_by_threads ? (plan.d_words ? 4 : 1) : 0; }

std::string dag_comment(const ir::Dag& dag) {
  return prefix_lines(ir::print_text(dag), "//   ");
}

/// The hook's DValue for an int32 accumulator: "int" when D is the
/// accumulator as it is (stored without a conversion), else "float" (D is
/// computed in f32); empty for other accumulators (the hook's default).
std::string_view d_value_type(const Problem& p, const Sm90Plan& plan) {
  if (p.accumulator != DType::i32) return "";
  for (const ir::Node& n : p.dag->nodes) {
    if (n.kind == ir::NodeKind::Store && n.slot == plan.d_slot && !n.inputs.empty() &&
        p.dag->node(n.inputs[0]).kind == ir::NodeKind::AccFetch) {
      return "int";
    }
  }
  return "float";
}

bool reduces(const Problem& p) {
  for (const EpilogueOperand& out : p.outputs) {
    if (ir::is_reduce_store(out.store_kind)) return true;
  }
  return false;
}

/// "NAME (how), ...": the full-tile operands among `operands` but `skip`,
/// each with how(index) says it moves.
template <class How>
std::string tile_operand_list(const std::vector<EpilogueOperand>& operands, bool inputs, int skip, const How& how) {
  std::string items;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const bool tile = inputs ? operands[i].load_kind == ir::LoadKind::Tile
                             : operands[i].store_kind == ir::StoreKind::Tile;
    if (!tile || static_cast<int>(i) == skip) continue;
    items += (items.empty() ? "" : ", ") + std::string(operands[i].name) + " (" + std::string(how(i)) + ")";
  }
  return items;
}

/// How the kernel moves each full-tile operand: D and at most one more
/// output leave through the staging buffers, one input may arrive through
/// them; the threads read and write the others, by aligned pairs where
/// every pair is aligned (Sm90Plan::pair_inputs, pair_outputs).
std::string tile_operand_comment(const Problem& p, const Sm90Plan& plan) {
  TextWriter out;
  out << "// D: " << (!plan.d_by_threads ? "staged, TMA stores" : plan.d_words ? "stored by the threads in words"
                                                                                : "stored by the threads")
      << ".";
  const std::string in = tile_operand_list(p.inputs, true, -1, [&](std::size_t i) -> std::string_view {
    if (static_cast<int>(i) == plan.staged_input) return "TMA-loaded into D's buffers";
    return i < 64 && ((plan.pair_inputs >> i) & 1) != 0 ? "read by the threads in pairs" : "read by the threads";
  });
  const std::string out_list = tile_operand_list(p.outputs, false, plan.d_slot, [&](std::size_t j) -> std::string_view {
    if (static_cast<int>(j) == plan.staged_output) return "staged behind D, TMA stores";
    return j < 64 && ((plan.pair_outputs >> j) & 1) != 0 ? "stored by the threads in pairs" : "stored by the threads";
  });
  if (!in.empty()) out << " Tile inputs: " << in << ".";
  if (!out_list.empty()) out << " Other tile outputs: " << out_list << ".";
  out << "\n";
  return out.str();
}

/// A tile that could cut along K whose kernel leaves stream-K's code out.
bool without_stream_k(const Sm90Plan& plan, const Sm90TileConfig& c) {
  return c.may_cut_along_k() && !plan.stream_k_code;
}

/// The kernel's GemmConfig type.
std::string gemm_config_type(const Problem& p, const Sm90Plan& plan, const Sm90TileConfig& c) {
  TextWriter out;
  out << "epigemm::sm90::GemmConfig<" << device_type(p.A.dtype) << ", " << device_type(p.B.dtype) << ", "
      << device_type(plan.d_dtype) << ", " << major(plan.a_k_major) << ", " << major(plan.b_k_major) << ", " << c.bm
      << ", " << c.bn << ", " << c.stages << ", " << c.cluster_m << ", " << c.epilogue_slots(d_bytes(plan)) << ", "
      << (c.pingpong ? "true" : "false") << ", " << c.promote_k_blocks;
  // kKGroup, kCutsTiles, kTileKinds and kDColumnMajor, up to the last that
  // differs from its default.
  const std::string trailing[] = {std::to_string(c.k_group), without_stream_k(plan, c) ? "false" : "true",
                                  std::to_string(plan.tile_kinds), plan.d_column_major ? "true" : "false"};
  const std::string defaults[] = {"1", "true", std::to_string(kSm90AllTileKinds), "false"};
  std::size_t count = std::size(trailing);
  while (count > 0 && trailing[count - 1] == defaults[count - 1]) --count;
  for (std::size_t i = 0; i < count; ++i) out << ", " << trailing[i];
  out << ">";
  return out.str();
}

}  // namespace

std::string sm90_kernel_name(const Problem& p, const Sm90Plan& plan, const Sm90TileConfig& c) {
  TextWriter out;
  out << "epigemm::sm90::gemm_kernel<" << gemm_config_type(p, plan, c) << ", EpgSm90Hook<EpgEpilogue, "
      << plan.d_slot << ", " << c.chunk_cols(d_bytes(plan)) << ", " << plan.unit_inputs << "ull, " << plan.unit_outputs
      << "ull, " << plan.pair_inputs << "ull, " << plan.pair_outputs << "ull, "
      << (plan.loop_chunks ? "true" : "false") << ", " << plan.staged_input << ", " << plan.staged_output << ", "
      << c.vector_hold(d_bytes(plan), (plan.tile_kinds & kSm90EdgeTiles) != 0, plan.loop_chunks) << ", "
      << d_store_mode(plan);
  if (const std::string_view d_value = d_value_type(p, plan); !d_value.empty()) out << ", " << d_value;
  out << ">>";
  return out.str();
}

std::uint64_t sm90_kernel_key(const Problem& p, const Sm90Plan& plan, const Sm90TileConfig& config) noexcept {
  std::uint64_t key = codegen::kernel_class_key(p, codegen::KernelTemplate::simt, 90);
  key = hash_combine(key, fnv1a64("sm90"));
  key = hash_combine(key, static_cast<std::uint64_t>(config.bm) << 32 | static_cast<std::uint64_t>(config.bn));
  key = hash_combine(key, static_cast<std::uint64_t>(config.cluster_m * 16 + config.stages));
  key = hash_combine(key, config.pingpong ? 1 : 0);
  key = hash_combine(key, static_cast<std::uint64_t>(config.promote_k_blocks));
  key = hash_combine(key, static_cast<std::uint64_t>(config.k_group));
  key = hash_combine(key, static_cast<std::uint64_t>(plan.a_k_major) * 2 + static_cast<std::uint64_t>(plan.b_k_major));
  key = hash_combine(key, static_cast<std::uint64_t>(plan.d_slot));
  key = hash_combine(key, plan.unit_inputs);
  key = hash_combine(key, plan.unit_outputs);
  key = hash_combine(key, plan.pair_inputs);
  key = hash_combine(key, plan.pair_outputs);
  key = hash_combine(key, static_cast<std::uint64_t>(plan.staged_input + 1));
  key = hash_combine(key, static_cast<std::uint64_t>(plan.staged_output + 1));
  key = hash_combine(key, without_stream_k(plan, config) ? 1 : 0);
  key = hash_combine(key, static_cast<std::uint64_t>(plan.tile_kinds));
  key = hash_combine(key, plan.d_column_major ? 1 : 0);
  return hash_combine(key, static_cast<std::uint64_t>(d_store_mode(plan)));
}

std::string sm90_kernel_source(const Problem& p, const Sm90Plan& plan, const Sm90TileConfig& c) {
  TextWriter out;
  out << "// epigemm sm90 kernel " << c.shape_name() << ": A " << to_string(p.A.dtype)
      << (plan.a_k_major ? " (K-major)" : " (M-major)") << ", B " << to_string(p.B.dtype)
      << (plan.b_k_major ? " (K-major)" : " (N-major)") << ", D " << to_string(plan.d_dtype)
      << (plan.d_column_major ? " (column-major)" : "") << ", accumulator "
      << to_string(p.accumulator) << ", compute " << to_string(p.compute) << ".\n";
  out << tile_operand_comment(p, plan);
  out << "// The epilogue DAG:\n" << dag_comment(*p.dag) << "\n";
  out << "#include \"epilogue_params.cuh\"\n#include \"dtypes.cuh\"\n#include \"epilogue_ops.cuh\"\n\n";
  out << codegen::emit_epilogue(*p.dag, p.accumulator, p.compute) << "\n";
  out << "#include \"sm90_fused_epilogue.cuh\"\n#include \"sm90_gemm.cuh\"\n\n";
  if (reduces(p)) {
    // The simt template's identity fill serves here too: same argument
    // record, same traits. It lets the GEMM (launched next as its
    // programmatic dependent) start at once; the GEMM waits for the fill's
    // writes before it first adds to a reduce output.
    out << "#include \"simt_gemm.cuh\"\n\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << kSm90FillThreads << ") " << kSm90FillKernel
        << "(const __grid_constant__ EpgSimtArgs<EpgEpilogue> args) {\n"
        << "  epigemm::sm90::launch_dependent_grids();\n"
        << "  epg_simt_fill_identity<EpgEpilogue>(args);\n}\n";
  }
  // The launch asks for the host's count of dynamic shared memory; the
  // kernel lays it out by its own.
  const std::string cfg = gemm_config_type(p, plan, c);
  out << "\nstatic_assert(" << cfg << "::kSmemBytes == " << c.shared_bytes(d_bytes(plan))
      << ", \"the host's shared memory size for this tile differs from the kernel's\");\n";
  // The host encodes B's tensor maps with its own boxes (one k-block per
  // stage), the tail chunk's only where it takes one.
  if (c.k_group == 1) {
    out << "static_assert(" << cfg << "::kBoxB0 == " << c.b_box_dim0(plan.b_k_major) << " && " << cfg
        << "::kBoxB1 == " << c.b_box_dim1(plan.b_k_major) << " && " << cfg
        << "::kBSwizzleBytes == " << c.b_swizzle_bytes(plan.b_k_major) << " && " << cfg
        << "::kBTail == " << (c.b_tail(plan.b_k_major) ? "true" : "false") << " && " << cfg
        << "::kBTailCols == " << c.b_tail_cols()
        << ", \"the host's TMA box of B for this tile differs from the kernel's\");\n";
  }
  // And D's (and the staged tiles') with the chunk's box, row- or column-major.
  const int chunk = c.chunk_cols(d_bytes(plan));
  out << "static_assert(" << cfg << "::kBoxD0 == " << (plan.d_column_major ? 64 : chunk) << " && " << cfg
      << "::kBoxD1 == " << (plan.d_column_major ? chunk : 64)
      << ", \"the host's TMA box of D for this tile differs from the kernel's\");\n";
  out << "\n" << codegen::kInstantiatedKernelComment << sm90_kernel_name(p, plan, c) << "\n";
  return out.str();
}

runtime::KernelSource sm90_kernel_build(const Problem& p, const Sm90Plan& plan, const Sm90TileConfig& c) {
  runtime::KernelSource source;
  source.source = sm90_kernel_source(p, plan, c);
  source.name_expression = sm90_kernel_name(p, plan, c);
  source.arch = runtime::arch_name(90);
  source.options = {"-std=c++17"};
  source.headers = codegen::embedded_kernel_files();
  source.file_name = "epigemm_sm90_" + c.shape_name() + ".cu";
  source.dynamic_shared_bytes = c.shared_bytes(d_bytes(plan));
  return source;
}

}  // namespace epigemm::detail
