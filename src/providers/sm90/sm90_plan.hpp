// Sm90Plan: what the sm90 kernel needs to know about one problem besides the
// epilogue (operand majors, the three TMA views, D's slot and strides), and
// make_sm90_plan(), which says why a problem cannot run (dtypes, layouts,
// TMA alignment, sizes) before anything touches the device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/problem.hpp"
#include "epigemm/error.hpp"
#include "providers/sm90/sm90_tile_config.hpp"

namespace epigemm::detail {

/// A matrix operand as a 3-D TMA tensor map walks it: dims innermost first
/// {contiguous, other, batch}; strides in bytes of the second and third
/// dimension (multiples of 16).
struct Sm90TmaView {
  const void* data = nullptr;
  DType dtype = DType::f16;
  std::uint64_t dims[3] = {1, 1, 1};
  std::uint64_t strides[2] = {16, 16};
};

/// Rows of a repacked operand start this many bytes apart (TMA's 128-byte
/// swizzle reads a box row as one line).
inline constexpr std::int64_t kSm90RepackRowAlign = 128;

/// An operand TMA cannot read as it lies (rows not 16 bytes apart, a base or
/// batch stride not 16-byte aligned, no unit stride, or an MN-major operand
/// of a class the tensor cores read only K-major), copied before the GEMM
/// into the repack workspace (kernels/operand_repack.cuh): element (l, o, i)
/// of the copy, i along its contiguous axis, is element
/// src + l*src_batch + o*src_outer + i*src_inner (elements) of the source.
struct Sm90Repack {
  bool active = false;
  const void* src = nullptr;
  int element_bytes = 2;
  std::int64_t batches = 1, outer = 0, inner = 0;
  std::int64_t src_batch = 0, src_outer = 0, src_inner = 1;
  std::int64_t pitch = 0;      ///< the copy's row stride, elements (kSm90RepackRowAlign bytes a multiple)
  std::uint64_t offset = 0;    ///< the copy's byte offset in the workspace
  /// Bytes of the copy.
  std::uint64_t bytes() const noexcept {
    return static_cast<std::uint64_t>(batches * outer * pitch * element_bytes);
  }
};

/// Where B's copy starts after A's of `bytes` (256-byte aligned).
inline std::uint64_t sm90_repack_offset(std::uint64_t bytes) noexcept { return (bytes + 255) / 256 * 256; }

struct Sm90Plan {
  bool a_k_major = true;  ///< A row-major (K contiguous); else column-major (M contiguous)
  bool b_k_major = true;  ///< B column-major (K contiguous); else row-major (N contiguous)
  bool a_batched = true;  ///< false when one A serves the whole batch
  bool b_batched = true;
  int d_slot = 0;         ///< D's index among the epilogue outputs
  DType d_dtype = DType::f16;
  Sm90TmaView a, b, d;    ///< A {K, M, L} or {M, K, L}; B {K, N, L} or {N, K, L}; D {N, M, L} or {M, N, L}
  /// D is column-major (Sm90TileConfig::d_column_major): its view, and those
  /// of the staged input and output, are {M, N, L}, and ldd, ldf their
  /// column strides.
  bool d_column_major = false;
  /// A's and B's copies when TMA cannot read them as they lie (their views
  /// then describe the copies; the launch sets the views' data).
  Sm90Repack repack_a, repack_b;
  std::int64_t ldd = 0;      ///< D's row (or column) stride, elements, for the ragged-edge stores
  std::int64_t d_batch = 0;  ///< D's batch stride (elements)
  /// D's pitch, batch stride or pointer is not a multiple of 16 bytes, so
  /// TMA cannot store it: the threads store every chunk (slower), and the
  /// kernel's D map is a placeholder it never uses.
  bool d_by_threads = false;
  /// With d_by_threads: D's pointer, pitch and batch stride are multiples of
  /// 4 bytes, so the threads store it in 4-byte words (or wider) rather than
  /// element by element.
  bool d_words = false;
  /// Bit I: epilogue input I steps by one element along its contiguous axis
  /// (n for rows and tiles, m for columns); bit J of unit_outputs likewise
  /// for tile output J. The kernel then indexes without a multiply.
  std::uint64_t unit_inputs = 0;
  std::uint64_t unit_outputs = 0;
  /// Bit I: tile input I, read by the threads (not staged), has contiguous
  /// rows, a pointer aligned to two elements and even row and batch
  /// strides, so the kernel loads each even column with its odd neighbour
  /// as one access; bit J of pair_outputs likewise for tile output J
  /// stored by the threads (the kernel then checks no pair's alignment).
  std::uint64_t pair_inputs = 0;
  std::uint64_t pair_outputs = 0;
  /// The full-tile epilogue input the kernel TMA-loads into D's staging
  /// slots during the main loop (-1: none), its view (laid out as D's) and
  /// whether it has a batch dimension.
  int staged_input = -1;
  Sm90TmaView c;
  bool c_batched = true;
  /// The tile output besides D that the kernel stages through D's slots once
  /// D's stores have read them, and TMA-stores (-1: none); its view (laid
  /// out as D's) and its line and batch strides (elements) for the
  /// ragged-edge stores.
  int staged_output = -1;
  Sm90TmaView f;
  std::int64_t ldf = 0;
  std::int64_t f_batch = 0;
  /// A tile input or output other than D that the threads read or write
  /// element by element (not staged) has rows not 16 bytes apart. Whole-tile
  /// launches then keep one CTA per SM instead of the fewest CTAs that take
  /// the same rounds (Sm90KCut::whole_ctas): on the H200, 4095^3 relu+F
  /// took 0.364 ms on 128 CTAs against 0.303 on 132, alpha*acc+beta*C 0.287
  /// against 0.268 (other epilogues 0.5% slower on 132; with aligned rows,
  /// per-element inputs too run faster on 128).
  bool unaligned_tile_rows = false;
  /// Stage the output chunks in a loop rather than unrolled (long epilogues).
  bool loop_chunks = false;
  /// The reduce outputs' elements over their batches, and whether they are
  /// few enough (kSm90GridIdentityElements) for the GEMM's first CTA to
  /// write their identity itself rather than a fill kernel before it.
  std::int64_t reduce_elements = 0;
  bool gemm_writes_identity = false;
  /// The kernel carries stream-K's code (sm90_stream_k_code); the operator
  /// sets it for the device. False only matters on tiles that could cut.
  bool stream_k_code = true;
  /// The kinds of tile the problem has (sm90_tile_kinds): the kernel
  /// compiles the epilogue's unchecked and bounds-checked copies for them.
  int tile_kinds = kSm90AllTileKinds;
};

/// Reduce-output elements up to which the GEMM writes their identity itself,
/// one warp of its first CTA (64 stores per lane): a fill kernel launched
/// before the GEMM cost 0.5-0.9 us on the H200 (M = 16, 128 and 1024^3 with
/// amax).
inline constexpr std::int64_t kSm90GridIdentityElements = 2048;

/// Bytes of the repack workspace the plan needs (0: A and B are read as they lie).
inline std::uint64_t sm90_repack_bytes(const Sm90Plan& plan) noexcept {
  if (plan.repack_b.active) return plan.repack_b.offset + plan.repack_b.bytes();
  return plan.repack_a.active ? plan.repack_a.bytes() : 0;
}

/// Whether `problem` fits the sm90 kernel with `config`, and if so its plan.
/// Reasons name the operand at fault and what would make it fit. Looks at
/// dtypes, layouts, strides, pointers' 16-byte alignment and extents only:
/// not at the device (see Sm90Operator::supports). A and B fit in any
/// layout: those TMA cannot read as they lie are repacked.
Status make_sm90_plan(const Problem& problem, const Sm90TileConfig& config, Sm90Plan& plan);

/// Operator::plan_notes for a plan: A and B repacked (why, and the
/// workspace), D stored by the threads.
std::vector<std::string> sm90_plan_notes(const Problem& problem, const Sm90Plan& plan, Sm90OperandClass operands);

/// Whether the plan repacks A (`is_b` false) or B: TMA cannot read it as it lies.
bool sm90_repacks(const MatrixOperand& operand, bool is_b, Sm90OperandClass operands, std::int64_t L);

/// Whether the plan reads A (`is_b` false) or B K-major (as it lies or repacked).
bool sm90_reads_k_major(const MatrixOperand& operand, bool is_b, Sm90OperandClass operands, std::int64_t L);

/// The operand class of a problem's A/B dtypes, if the sm90 kernel has one.
bool sm90_operand_class(DType a, DType b, Sm90OperandClass& out) noexcept;

/// Whether the epilogue calls a transcendental function other than the
/// short f32 ones (sigmoid, silu, gelu_tanh): the kernel then stages its
/// output chunks in a loop (Sm90Plan::loop_chunks).
bool sm90_long_epilogue(const ir::Dag& dag, DType compute);

}  // namespace epigemm::detail
