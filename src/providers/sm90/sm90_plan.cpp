// make_sm90_plan(): the sm90 kernel's requirements on a problem, each with
// its own reason, and the TMA views of A, B and D when they all hold (A and
// B through a repacked copy when TMA cannot read them as they lie).
#include "providers/sm90/sm90_plan.hpp"

#include <climits>
#include <cstdio>
#include <string>

#include "codegen/epilogue_emitter.hpp"
#include "ir/names.hpp"
#include "ir/op_table.hpp"

namespace epigemm::detail {
namespace {

constexpr std::uint64_t kMaxTmaStride = std::uint64_t{1} << 40;

std::string str(DType t) { return std::string(to_string(t)); }

std::uint64_t round_up16(std::uint64_t bytes) { return (bytes + 15) / 16 * 16; }

/// One way to lay a matrix into a TMA view: which axis is contiguous.
struct Axes {
  bool inner_is_cols;  ///< the matrix's columns (its last dimension) are contiguous
};
/// A is M x K: K-major = row-major; B is K x N: K-major = column-major; D
/// and the epilogue's staged tiles are row-major, or column-major where the
/// tile configuration stores D so (Sm90TileConfig::d_column_major).
constexpr Axes kAKMajor{true}, kAMMajor{false}, kBKMajor{false}, kBNMajor{true}, kRowMajor{true},
    kColumnMajor{false};

/// How the kernel lays out D and its staged tiles.
Axes d_axes(bool d_column_major) { return d_column_major ? kColumnMajor : kRowMajor; }

/// How a matrix lies along `axes`: whether its inner axis has unit stride,
/// its pitch and batch stride in bytes, and whether those and its pointer
/// are as TMA needs them (multiples of 16 bytes, below TMA's limit).
struct TmaFit {
  bool contiguous = false;
  bool aligned = false;
  std::uint64_t pitch = 0, batch_bytes = 0;
};

TmaFit tma_fit(const MatrixOperand& m, Axes axes, std::int64_t L, bool batched) {
  const std::int64_t inner = axes.inner_is_cols ? m.cols : m.rows;
  const std::int64_t outer = axes.inner_is_cols ? m.rows : m.cols;
  const std::int64_t inner_stride = axes.inner_is_cols ? m.col_stride : m.row_stride;
  const std::int64_t outer_stride = axes.inner_is_cols ? m.row_stride : m.col_stride;
  const auto element = static_cast<std::uint64_t>(size_bytes(m.dtype));
  TmaFit fit;
  fit.contiguous = inner_stride == 1 || inner == 1;
  fit.pitch = outer == 1 ? round_up16(static_cast<std::uint64_t>(inner) * element)
                         : static_cast<std::uint64_t>(outer_stride) * element;
  fit.batch_bytes = batched && L > 1 ? static_cast<std::uint64_t>(m.batch_stride) * element
                                     : fit.pitch * static_cast<std::uint64_t>(outer);
  const bool batch_ok = !(batched && L > 1) || (fit.batch_bytes % 16 == 0 && fit.batch_bytes < kMaxTmaStride);
  fit.aligned = fit.contiguous && fit.pitch % 16 == 0 && fit.pitch < kMaxTmaStride && batch_ok &&
                (m.tensor == nullptr || reinterpret_cast<std::uintptr_t>(m.tensor->data) % 16 == 0);
  return fit;
}

/// The TMA view of `m` laid out as `axes`, as it lies.
Sm90TmaView tma_view(const MatrixOperand& m, Axes axes, std::int64_t L, bool batched, const TmaFit& fit) {
  Sm90TmaView view;
  view.data = m.tensor->data;
  view.dtype = m.dtype;
  view.dims[0] = static_cast<std::uint64_t>(axes.inner_is_cols ? m.cols : m.rows);
  view.dims[1] = static_cast<std::uint64_t>(axes.inner_is_cols ? m.rows : m.cols);
  view.dims[2] = batched ? static_cast<std::uint64_t>(L) : 1;
  view.strides[0] = fit.pitch;
  view.strides[1] = fit.batch_bytes < 16 ? 16 : fit.batch_bytes;
  return view;
}

/// The view of `m` copied along `axes` (K-major or not) into rows of a
/// 128-byte multiple (kernels/operand_repack.cuh), and the copy; the view's
/// data is set at launch, to the copy's place in the workspace.
void repacked_view(const MatrixOperand& m, Axes axes, bool k_major, std::int64_t L, bool batched, Sm90TmaView& view,
                   Sm90Repack& repack) {
  const std::int64_t element = size_bytes(m.dtype);
  repack.active = true;
  repack.src = m.tensor->data;
  repack.element_bytes = static_cast<int>(element);
  repack.inner = axes.inner_is_cols ? m.cols : m.rows;
  repack.outer = axes.inner_is_cols ? m.rows : m.cols;
  repack.src_inner = axes.inner_is_cols ? m.col_stride : m.row_stride;
  repack.src_outer = axes.inner_is_cols ? m.row_stride : m.col_stride;
  repack.batches = batched ? L : 1;
  repack.src_batch = batched ? m.batch_stride : 0;
  repack.pitch = (repack.inner * element + kSm90RepackRowAlign - 1) / kSm90RepackRowAlign * kSm90RepackRowAlign / element;
  view.data = nullptr;
  view.dtype = m.dtype;
  // The copy's rows are zeros from `inner` up to the pitch; a K-major
  // copy's view spans them (the pitch is a whole number of k-blocks, which
  // the grouped-k tiles' boxes need).
  view.dims[0] = static_cast<std::uint64_t>(k_major ? repack.pitch : repack.inner);
  view.dims[1] = static_cast<std::uint64_t>(repack.outer);
  view.dims[2] = static_cast<std::uint64_t>(repack.batches);
  view.strides[0] = static_cast<std::uint64_t>(repack.pitch * element);
  view.strides[1] = view.strides[0] * static_cast<std::uint64_t>(repack.outer);
}

/// The A/B dtypes an operand class takes, in reasons.
std::string class_dtypes(Sm90OperandClass c) {
  switch (c) {
    case Sm90OperandClass::fp8: return "fp8 (e4m3/e5m2)";
    case Sm90OperandClass::tf32: return "tf32";
    case Sm90OperandClass::int8: return "int8 (i8/u8)";
    case Sm90OperandClass::bits16: break;
  }
  return "f16/bf16";
}

/// How the kernel reads A (`is_b` false) or B: how the operand lies
/// K-major and MN-major, the major taken and whether it is repacked. K-major
/// first; MN-major when allowed (16-bit operands: wgmma transposes only
/// those) and K-major does not fit. When TMA can read neither, the operand
/// is repacked: along its unit-stride axis where the tensor cores can take
/// that major, else K-major.
struct OperandReading {
  Axes k_axes, mn_axes;
  bool batched;  ///< a batch stride (else one matrix serves every batch)
  TmaFit k, mn;
  bool k_major = true;
  bool repack = false;
  Axes axes() const noexcept { return k_major ? k_axes : mn_axes; }
};

OperandReading reading_of(const MatrixOperand& m, bool is_b, Sm90OperandClass operands, std::int64_t L) {
  OperandReading r{is_b ? kBKMajor : kAKMajor, is_b ? kBNMajor : kAMMajor, m.batch_stride != 0, {}, {}};
  r.k = tma_fit(m, r.k_axes, L, r.batched);
  r.mn = tma_fit(m, r.mn_axes, L, r.batched);
  const bool transposes = operands == Sm90OperandClass::bits16;
  if (r.k.aligned) {
    r.k_major = true;
  } else if (transposes && r.mn.aligned) {
    r.k_major = false;
  } else {
    r.repack = true;
    r.k_major = !transposes || r.k.contiguous || !r.mn.contiguous;
  }
  return r;
}

/// The plan's view, major and copy (if any) of A (`is_b` false) or B.
void choose_major(const MatrixOperand& m, bool is_b, Sm90OperandClass operands, std::int64_t L, Sm90TmaView& view,
                  bool& is_k_major, Sm90Repack& repack) {
  const OperandReading r = reading_of(m, is_b, operands, L);
  is_k_major = r.k_major;
  repack = Sm90Repack{};
  if (r.repack) {
    repacked_view(m, r.axes(), r.k_major, L, r.batched, view, repack);
  } else {
    view = tma_view(m, r.axes(), L, r.batched, r.k_major ? r.k : r.mn);
  }
}

Status check_dtypes(const Problem& p, const Sm90TileConfig& config) {
  Sm90OperandClass operands{};
  if (!sm90_operand_class(p.A.dtype, p.B.dtype, operands)) {
    const DType bad = sm90_operand_class(p.A.dtype, p.A.dtype, operands) ? p.B.dtype : p.A.dtype;
    const std::string hint = bad == DType::f32 ? "; pass tf32 A and B to multiply f32 data on the tensor cores" : "";
    return Status::unsupported("sm90 does not support " + str(bad) +
                               " A/B (f16, bf16, tf32, e4m3, e5m2, i8 and u8 only)" + hint);
  }
  if (operands != config.operands) {
    return Status::unsupported("this operator is for " + class_dtypes(config.operands) + " A/B; A is " +
                               str(p.A.dtype));
  }
  if (operands == Sm90OperandClass::int8) {
    if (p.accumulator != DType::i32) {
      return Status::unsupported("sm90 sums " + str(p.A.dtype) + " x " + str(p.B.dtype) +
                                 " products in i32 only; accumulator " + str(p.accumulator) + " is not supported");
    }
  } else if (p.accumulator == DType::i32) {
    return Status::unsupported("accumulator i32 needs i8/u8 A and B; A is " + str(p.A.dtype));
  } else {
    const bool f16_accumulator_ok = p.A.dtype == DType::f16 || operands == Sm90OperandClass::fp8;
    if (p.accumulator != DType::f32 && !(p.accumulator == DType::f16 && f16_accumulator_ok)) {
      return Status::unsupported("sm90 does not support accumulator " + str(p.accumulator) + " with " +
                                 str(p.A.dtype) + " A/B (f32, or f16 for f16/fp8)");
    }
  }
  if (p.compute != DType::f32 && p.compute != DType::f16 && p.compute != DType::bf16) {
    return Status::unsupported("sm90 computes epilogues in f32, f16 or bf16; compute type " + str(p.compute) +
                               " is not supported");
  }
  return codegen::can_emit(*p.dag, p.accumulator, p.compute);
}

Status check_outputs(const Problem& p, Sm90Plan& plan) {
  plan.d_slot = -1;
  for (std::size_t j = 0; j < p.outputs.size(); ++j) {
    const EpilogueOperand& out = p.outputs[j];
    if (out.name == "D") plan.d_slot = static_cast<int>(j);
    if (ir::is_reduce_store(out.store_kind) && out.dtype != DType::f32) {
      return Status::unsupported("reduction output '" + std::string(out.name) + "' is " + str(out.dtype) +
                                 "; the sm90 provider reduces into f32 tensors only");
    }
  }
  if (plan.d_slot < 0) return Status::unsupported("the epilogue has no output D");
  const EpilogueOperand& d = p.outputs[static_cast<std::size_t>(plan.d_slot)];
  if (d.store_kind != ir::StoreKind::Tile) return Status::unsupported("D is not stored as a tile");
  if (d.dtype == DType::f64 || d.dtype == DType::tf32) {
    return Status::unsupported("D is " + str(d.dtype) +
                               "; the sm90 kernel stores D as f16, bf16, f32, e4m3, e5m2, i8, u8 or i32 (staged in "
                               "shared memory, written by TMA)");
  }
  plan.d_dtype = d.dtype;
  return Status::ok();
}

Status check_extents(const Problem& p) {
  const std::pair<const char*, std::int64_t> extents[] = {{"M", p.M}, {"N", p.N}, {"K", p.K}, {"L", p.L}};
  for (const auto& [name, value] : extents) {
    if (value > INT_MAX) {
      return Status::unsupported(std::string(name) + " = " + std::to_string(value) +
                                 " is too large for the sm90 kernel's 32-bit coordinates");
    }
  }
  // The tile scheduler counts tiles (at least 64x64) of the whole batch in an int.
  const std::int64_t tiles = (p.M + 63) / 64 * ((p.N + 63) / 64) * p.L;
  if (tiles > INT_MAX) return Status::unsupported("the problem has too many output tiles for the sm90 scheduler");
  return Status::ok();
}

/// Whether an operand's offset along `axis` of extent `extent` is the index
/// itself (stride 1, or a single element, where the stride is recorded as 0).
bool unit_axis(std::int64_t stride, std::int64_t extent) { return stride == 1 || (extent == 1 && stride == 0); }

void unit_masks(const Problem& p, Sm90Plan& plan) {
  plan.unit_inputs = plan.unit_outputs = 0;
  for (std::size_t i = 0; i < p.inputs.size() && i < 64; ++i) {
    const EpilogueOperand& in = p.inputs[i];
    const bool unit = in.load_kind == ir::LoadKind::Column ? unit_axis(in.stride_m, p.M) : unit_axis(in.stride_n, p.N);
    if (unit) plan.unit_inputs |= std::uint64_t{1} << i;
  }
  for (std::size_t j = 0; j < p.outputs.size() && j < 64; ++j) {
    if (unit_axis(p.outputs[j].stride_n, p.N)) plan.unit_outputs |= std::uint64_t{1} << j;
  }
}

/// Whether `dtype` can share D's staging slots (as a staged input or output).
bool stageable(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 || dtype == DType::f32 || is_fp8(dtype);
}

/// Whether a staged input may be of `dtype`: the kernel hands the epilogue a
/// staged element as a float, which holds every value of these types but an
/// i32 beyond 2^24; computing in bf16 would then round it twice where the
/// threads' own load rounds once (in f32 the two agree, and in f16 such
/// values overflow either way).
bool stageable_input(DType dtype, DType compute) {
  if (dtype == DType::i8 || dtype == DType::u8) return true;
  if (dtype == DType::i32) return compute != DType::bf16;
  return stageable(dtype);
}

/// An (L, M, N) epilogue operand as a matrix.
MatrixOperand tile_operand(const Problem& p, const EpilogueOperand& e) {
  MatrixOperand m;
  m.tensor = e.tensor;
  m.dtype = e.dtype;
  m.rows = p.M;
  m.cols = p.N;
  m.row_stride = e.stride_m;
  m.col_stride = e.stride_n;
  m.batch_stride = e.stride_l;
  return m;
}

/// The TMA view of an (L, M, N) epilogue operand laid out as D's: {N, M, L}
/// with unit n stride, or {M, N, L} with unit m stride where D is
/// column-major; false when TMA cannot describe it so.
bool tile_view(const Problem& p, const EpilogueOperand& e, bool d_column_major, Sm90TmaView& view) {
  const bool single_line = d_column_major ? p.N == 1 : p.M == 1;
  if (!single_line && (d_column_major ? e.stride_n : e.stride_m) <= 0) return false;
  const MatrixOperand m = tile_operand(p, e);
  const TmaFit fit = tma_fit(m, d_axes(d_column_major), p.L, e.stride_l != 0);
  if (!fit.aligned) return false;
  view = tma_view(m, d_axes(d_column_major), p.L, e.stride_l != 0, fit);
  return true;
}

/// The stride (elements) between the lines (rows, or a column-major D's
/// columns) of a tile laid out as D, with M and N strides `stride_m` and
/// `stride_n` and TMA view `view`, for the thread stores of a ragged edge:
/// its own, or with one line (whose stride is recorded as 0) the view's pitch.
std::int64_t line_stride(const Problem& p, bool d_column_major, const Sm90TmaView& view, std::int64_t stride_m,
                         std::int64_t stride_n) {
  const std::int64_t lines = d_column_major ? p.N : p.M;
  if (lines == 1) return static_cast<std::int64_t>(view.strides[0] / size_bytes(view.dtype));
  return d_column_major ? stride_n : stride_m;
}

/// Whether the tile's slots hold each consumer's whole part in one round
/// (every 64-row block of it has its own slots): the condition for staged
/// inputs and outputs.
bool whole_tile_slots(const Sm90TileConfig& config, int d_bytes) {
  const int chunks = config.warpgroup_n() / config.chunk_cols(d_bytes);
  return config.epilogue_slots(d_bytes) == chunks;
}

/// Picks the first full-tile input that can share D's staging slots: same
/// element size as D, laid out as D (rows contiguous, or columns where D's
/// are) and TMA-describable, on a tile whose slots hold each consumer's
/// whole part.
/// Other inputs (and this one when none fits) are read from global memory.
void choose_staged_input(const Problem& p, const Sm90TileConfig& config, Sm90Plan& plan) {
  plan.staged_input = -1;
  const int d_bytes = size_bytes(plan.d_dtype);
  if (!whole_tile_slots(config, d_bytes)) return;
  for (std::size_t i = 0; i < p.inputs.size() && i < 64; ++i) {
    const EpilogueOperand& in = p.inputs[i];
    if (in.load_kind != ir::LoadKind::Tile || in.tensor == nullptr || !stageable_input(in.dtype, p.compute) ||
        size_bytes(in.dtype) != d_bytes || !tile_view(p, in, plan.d_column_major, plan.c)) {
      continue;
    }
    plan.staged_input = static_cast<int>(i);
    plan.c_batched = in.stride_l != 0;
    return;
  }
}

/// Picks the first tile output besides D that can follow D through its
/// staging slots: as for inputs, and the chunks unrolled (its values wait in
/// registers while D's stores read the slots).
void choose_staged_output(const Problem& p, const Sm90TileConfig& config, Sm90Plan& plan) {
  plan.staged_output = -1;
  const int d_bytes = size_bytes(plan.d_dtype);
  if (plan.loop_chunks || !whole_tile_slots(config, d_bytes)) return;
  for (std::size_t j = 0; j < p.outputs.size() && j < 64; ++j) {
    const EpilogueOperand& out = p.outputs[j];
    if (static_cast<int>(j) == plan.d_slot || out.store_kind != ir::StoreKind::Tile || out.tensor == nullptr ||
        !stageable(out.dtype) || size_bytes(out.dtype) != d_bytes || !tile_view(p, out, plan.d_column_major, plan.f)) {
      continue;
    }
    plan.staged_output = static_cast<int>(j);
    plan.ldf = line_stride(p, plan.d_column_major, plan.f, out.stride_m, out.stride_n);
    plan.f_batch = out.stride_l;
    return;
  }
}

/// Whether input i is a bound tile input the threads read (not staged).
bool thread_read_tile(const Problem& p, const Sm90Plan& plan, std::size_t i) {
  const EpilogueOperand& in = p.inputs[i];
  return in.load_kind == ir::LoadKind::Tile && in.tensor != nullptr && static_cast<int>(i) != plan.staged_input;
}

/// Whether output j is a bound tile output the threads store (not D, not
/// staged).
bool thread_stored_tile(const Problem& p, const Sm90Plan& plan, std::size_t j) {
  const EpilogueOperand& out = p.outputs[j];
  const int slot = static_cast<int>(j);
  return out.store_kind == ir::StoreKind::Tile && out.tensor != nullptr && slot != plan.d_slot &&
         slot != plan.staged_output;
}

/// thread_read_tile, with a unit step along n.
bool thread_read_contiguous_tile(const Problem& p, const Sm90Plan& plan, std::size_t i) {
  return thread_read_tile(p, plan, i) && i < 64 && ((plan.unit_inputs >> i) & 1) != 0;
}

/// thread_stored_tile, with a unit step along n.
bool thread_stored_contiguous_tile(const Problem& p, const Sm90Plan& plan, std::size_t j) {
  return thread_stored_tile(p, plan, j) && j < 64 && ((plan.unit_outputs >> j) & 1) != 0;
}

/// Why the pairs of adjacent elements at even columns of tile operand `t`
/// are not all aligned to a pair's size, or empty when they are.
std::string unpaired_cause(const Problem& p, const EpilogueOperand& t) {
  const auto pair_bytes = static_cast<std::uintptr_t>(2 * size_bytes(t.dtype));
  if (reinterpret_cast<std::uintptr_t>(t.tensor->data) % pair_bytes != 0) {
    return "its base address is not a multiple of " + std::to_string(pair_bytes) + " bytes (two elements)";
  }
  if (t.stride_m % 2 != 0) return "its rows are an odd number of elements apart";
  if (p.L > 1 && t.stride_l % 2 != 0) return "its batches are an odd number of elements apart";
  return "";
}

/// Marks each contiguous tile input the threads read, and output they
/// store, whose every pair of adjacent elements at an even column is
/// aligned to its size (pointer aligned to the pair, row and batch strides
/// even). The kernel then loads or stores such pairs as one access with no
/// check of its own.
void pair_masks(const Problem& p, Sm90Plan& plan) {
  plan.pair_inputs = plan.pair_outputs = 0;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    if (thread_read_contiguous_tile(p, plan, i) && unpaired_cause(p, p.inputs[i]).empty())
      plan.pair_inputs |= std::uint64_t{1} << i;
  }
  for (std::size_t j = 0; j < p.outputs.size(); ++j) {
    if (thread_stored_contiguous_tile(p, plan, j) && unpaired_cause(p, p.outputs[j]).empty())
      plan.pair_outputs |= std::uint64_t{1} << j;
  }
}

/// A tile input or output the threads access element by element, with how
/// TMA would fit it.
struct ThreadTile {
  const EpilogueOperand* operand;
  TmaFit fit;
};

/// The tile inputs and outputs the threads access element by element (every
/// one but D and the staged ones) whose rows are not 16 bytes apart.
std::vector<ThreadTile> unaligned_thread_tiles(const Problem& p, const Sm90Plan& plan) {
  std::vector<ThreadTile> found;
  const auto add_if_unaligned = [&](const EpilogueOperand& t) {
    const TmaFit fit = tma_fit(tile_operand(p, t), kRowMajor, p.L, t.stride_l != 0);
    if (fit.pitch % 16 != 0) found.push_back({&t, fit});
  };
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    if (thread_read_tile(p, plan, i)) add_if_unaligned(p.inputs[i]);
  }
  for (std::size_t j = 0; j < p.outputs.size(); ++j) {
    if (thread_stored_tile(p, plan, j)) add_if_unaligned(p.outputs[j]);
  }
  return found;
}

/// The grouped-k tiles' own conditions: a K-major A and whole k-blocks.
Status check_grouped_k(const Problem& p, const Sm90TileConfig& config, const Sm90Plan& plan) {
  if (config.k_group == 1) return Status::ok();
  const std::string tile = "the " + config.shape_name() + " tile";
  if (!plan.a_k_major) {
    return Status::unsupported(tile + " loads " + std::to_string(config.k_group) +
                               " k-blocks of A per box and needs A K-major (row-major); the other tiles take "
                               "this layout");
  }
  // K as the boxes see it: a copy's rows are zero-padded to whole k-blocks.
  const auto bk = static_cast<std::uint64_t>(config.bk());
  const bool whole = plan.a.dims[0] % bk == 0 && (!plan.b_k_major || plan.b.dims[0] % bk == 0);
  if (!whole || plan.a.dims[0] / bk < static_cast<std::uint64_t>(config.k_group)) {
    return Status::unsupported("K is " + std::to_string(p.K) + "; " + tile + " needs K a multiple of " +
                               std::to_string(bk) + " and at least " + std::to_string(bk * config.k_group) +
                               " (whole k-blocks in its boxes; A and a K-major B copied into 128-byte rows count "
                               "as padded with zeros); the other tiles take any K");
  }
  return Status::ok();
}

/// The reduce outputs' elements over their batches.
std::int64_t reduce_elements(const Problem& p) {
  std::int64_t elements = 0;
  for (const EpilogueOperand& out : p.outputs) {
    switch (out.store_kind) {
      case ir::StoreKind::RowReduce: elements += p.L * p.M; break;
      case ir::StoreKind::ColumnReduce: elements += p.L * p.N; break;
      case ir::StoreKind::ScalarReduce: elements += p.L; break;
      default: break;
    }
  }
  return elements;
}

/// "rows" for a matrix whose columns are contiguous (row-major), else "columns".
const char* lines_of(Axes axes) { return axes.inner_is_cols ? "rows" : "columns"; }

/// Why TMA cannot read or write a matrix that lies contiguous along `axes` as `fit` says.
std::string unfit_cause(Axes axes, const TmaFit& fit, std::int64_t L, bool batched) {
  if (fit.pitch % 16 != 0 || fit.pitch >= kMaxTmaStride) {
    return std::string("its ") + lines_of(axes) + " are " + std::to_string(fit.pitch) +
           " bytes apart (TMA needs a multiple of 16)";
  }
  if (batched && L > 1 && (fit.batch_bytes % 16 != 0 || fit.batch_bytes >= kMaxTmaStride)) {
    return "its batches are " + std::to_string(fit.batch_bytes) + " bytes apart (TMA needs a multiple of 16)";
  }
  return "its base address is not 16-byte aligned";
}

/// "33.5 MB", "24.6 KB".
std::string byte_size(std::uint64_t bytes) {
  char text[32];
  if (bytes >= 1'000'000) {
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.1f KB", static_cast<double>(bytes) / 1e3);
  }
  return text;
}

std::string repack_note(const char* name, const MatrixOperand& m, bool is_b, const Sm90Repack& copy,
                        Sm90OperandClass operands, std::int64_t L) {
  const OperandReading r = reading_of(m, is_b, operands, L);
  std::string cause;
  if (!r.k.contiguous && !r.mn.contiguous) {
    cause = "it has no unit stride";
  } else if (!r.k.contiguous && operands != Sm90OperandClass::bits16) {
    cause = "the tensor cores read " + class_dtypes(operands) + " operands only K-major";
  } else {
    cause = r.k.contiguous ? unfit_cause(r.k_axes, r.k, L, r.batched) : unfit_cause(r.mn_axes, r.mn, L, r.batched);
  }
  return std::string(name) + " is copied before the GEMM into " + (r.axes().inner_is_cols ? "row" : "column") +
         "-major " + lines_of(r.axes()) + " " + std::to_string(copy.pitch * copy.element_bytes) + " bytes apart (" +
         (r.k_major ? "K" : is_b ? "N" : "M") + "-major), because " + cause + "; " + byte_size(copy.bytes()) +
         " of workspace on the launch's stream";
}

}  // namespace

/// Whether the epilogue calls a transcendental function: inlined once per
/// element of a whole tile, such code outgrows the instruction cache, so the
/// kernel stages its output chunks in a loop instead (measured on the H200:
/// gelu(acc + bias) at 4096^3 1.25x -> 1.17x cuBLAS time; short epilogues
/// lose 2-4% in a loop). In f32, sigmoid, silu and gelu_tanh are 4-7
/// instructions (one ex2, one reciprocal), as short as the arithmetic.
bool sm90_long_epilogue(const ir::Dag& dag, DType compute) {
  for (const ir::Node& n : dag.nodes) {
    if (n.kind != ir::NodeKind::Compute || !ir::op_info(n.op).transcendental) continue;
    const bool short_in_f32 = n.op == ir::OpCode::sigmoid || n.op == ir::OpCode::silu || n.op == ir::OpCode::gelu_tanh;
    if (!(short_in_f32 && compute == DType::f32)) return true;
  }
  return false;
}

std::vector<std::string> sm90_plan_notes(const Problem& p, const Sm90Plan& plan, Sm90OperandClass operands) {
  std::vector<std::string> notes;
  if (plan.repack_a.active) notes.push_back(repack_note("A", p.A, false, plan.repack_a, operands, p.L));
  if (plan.repack_b.active) notes.push_back(repack_note("B", p.B, true, plan.repack_b, operands, p.L));
  if (plan.d_by_threads) {
    const Axes axes = d_axes(plan.d_column_major);
    notes.push_back("D is stored by the kernel's threads instead of TMA, because " +
                    unfit_cause(axes, tma_fit(p.D, axes, p.L, true), p.L, true) +
                    (plan.d_words ? "; they store it in 4- to 16-byte pieces"
                                  : "; they store it one element at a time (rows, batches and base address "
                                    "4-byte aligned would let them store wider pieces)"));
  }
  for (const ThreadTile& t : unaligned_thread_tiles(p, plan)) {
    const bool input = t.operand->load_kind == ir::LoadKind::Tile;
    notes.push_back(std::string(input ? "input '" : "output '") + std::string(t.operand->name) + "' is " +
                    (input ? "read" : "written") + " by the kernel's threads, because " +
                    unfit_cause(kRowMajor, t.fit, p.L, t.operand->stride_l != 0) +
                    "; whole tiles run on one CTA per SM");
  }
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    if (!thread_read_contiguous_tile(p, plan, i)) continue;
    if (const std::string cause = unpaired_cause(p, p.inputs[i]); !cause.empty()) {
      notes.push_back("input '" + std::string(p.inputs[i].name) +
                      "' is read by the kernel's threads one element per load rather than two, because " + cause);
    }
  }
  return notes;
}

bool sm90_repacks(const MatrixOperand& m, bool is_b, Sm90OperandClass operands, std::int64_t L) {
  return reading_of(m, is_b, operands, L).repack;
}

bool sm90_reads_k_major(const MatrixOperand& m, bool is_b, Sm90OperandClass operands, std::int64_t L) {
  return reading_of(m, is_b, operands, L).k_major;
}

bool sm90_operand_class(DType a, DType b, Sm90OperandClass& out) noexcept {
  if ((a == DType::f16 || a == DType::bf16) && a == b) {
    out = Sm90OperandClass::bits16;
    return true;
  }
  if (is_fp8(a) && is_fp8(b)) {
    out = Sm90OperandClass::fp8;
    return true;
  }
  if (a == DType::tf32 && b == DType::tf32) {
    out = Sm90OperandClass::tf32;
    return true;
  }
  const auto int8 = [](DType t) { return t == DType::i8 || t == DType::u8; };
  if (int8(a) && int8(b)) {
    out = Sm90OperandClass::int8;
    return true;
  }
  return false;
}

/// Each consumer warp leaves its partials of the reduce outputs (one value
/// apiece) in kSm90TotalsSharedBytes of static shared memory
/// (kernels/sm90_totals.cuh) before one thread commits them.
Status check_reduce_partials(const Problem& p, const Sm90TileConfig& config) {
  const auto reduces = std::count_if(p.outputs.begin(), p.outputs.end(),
                                     [](const EpilogueOperand& out) { return ir::is_reduce_store(out.store_kind); });
  const int warps = 4 * config.consumers();
  const std::int64_t per_output = warps * static_cast<std::int64_t>(size_bytes(p.compute));
  if (reduces * per_output <= kSm90TotalsSharedBytes) return Status::ok();
  return Status::unsupported("the epilogue has " + std::to_string(reduces) + " reduce outputs; this tile's " +
                             std::to_string(warps) + " consumer warps hold the partials of at most " +
                             std::to_string(kSm90TotalsSharedBytes / per_output));
}

/// Whether D lies as the configuration's kernel writes it: row-major (N
/// contiguous), or column-major (M contiguous; a 2-byte D) for the tiles
/// that store D so. Sets plan.d_column_major.
Status check_d_layout(const Problem& p, const Sm90TileConfig& config, Sm90Plan& plan) {
  plan.d_column_major = config.d_column_major;
  if (!config.d_column_major) {
    if (tma_fit(p.D, kRowMajor, p.L, true).contiguous) return Status::ok();
    return Status::unsupported("D's N stride is " + std::to_string(p.D.col_stride) +
                               " elements, not 1; this operator's kernel writes D row-major (N contiguous), or "
                               "column-major (M contiguous) as the transposed problem's D^T");
  }
  if (size_bytes(plan.d_dtype) != 2) {
    return Status::unsupported("D is " + str(plan.d_dtype) +
                               "; this operator's kernel writes D column-major, which it does for a 2-byte D (f16, "
                               "bf16) only");
  }
  if (tma_fit(p.D, kColumnMajor, p.L, true).contiguous) return Status::ok();
  return Status::unsupported("D's M stride is " + std::to_string(p.D.row_stride) +
                             " elements, not 1; this operator's kernel writes D column-major (M contiguous), or "
                             "row-major (N contiguous) as the transposed problem's D^T");
}

Status make_sm90_plan(const Problem& p, const Sm90TileConfig& config, Sm90Plan& plan) {
  if (p.dag == nullptr) return Status::unsupported("the problem has no epilogue DAG");
  if (Status s = check_dtypes(p, config); !s) return s;
  if (Status s = check_outputs(p, plan); !s) return s;
  if (Status s = check_reduce_partials(p, config); !s) return s;
  if (Status s = check_extents(p); !s) return s;
  plan.a_batched = p.A.batch_stride != 0;
  plan.b_batched = p.B.batch_stride != 0;
  choose_major(p.A, false, config.operands, p.L, plan.a, plan.a_k_major, plan.repack_a);
  choose_major(p.B, true, config.operands, p.L, plan.b, plan.b_k_major, plan.repack_b);
  plan.repack_b.offset = plan.repack_a.active ? sm90_repack_offset(plan.repack_a.bytes()) : 0;
  // D's lines, batches or pointer not as TMA needs them: its chunks leave
  // through the threads instead (d_by_threads).
  if (Status s = check_d_layout(p, config, plan); !s) return s;
  const TmaFit d = tma_fit(p.D, d_axes(plan.d_column_major), p.L, true);
  plan.d = tma_view(p.D, d_axes(plan.d_column_major), p.L, true, d);
  plan.d_by_threads = !d.aligned;
  plan.d_words = plan.d_by_threads && (d.pitch | d.batch_bytes) % 4 == 0 &&
                 reinterpret_cast<std::uintptr_t>(p.D.tensor->data) % 4 == 0;
  plan.tile_kinds = sm90_tile_kinds(config, p);
  plan.ldd = line_stride(p, plan.d_column_major, plan.d, p.D.row_stride, p.D.col_stride);
  plan.d_batch = p.D.batch_stride;
  unit_masks(p, plan);
  plan.loop_chunks = sm90_long_epilogue(*p.dag, p.compute);
  plan.reduce_elements = reduce_elements(p);
  plan.gemm_writes_identity = plan.reduce_elements > 0 && plan.reduce_elements <= kSm90GridIdentityElements;
  choose_staged_input(p, config, plan);
  choose_staged_output(p, config, plan);
  pair_masks(p, plan);
  plan.unaligned_tile_rows = !unaligned_thread_tiles(p, plan).empty();
  return check_grouped_k(p, config, plan);
}

}  // namespace epigemm::detail
