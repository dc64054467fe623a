// The sm90 provider's decisions that need no GPU: which problems the kernel
// takes (majors, TMA views) and the reason for each it refuses; the shared
// memory of every tile configuration; the tile heuristic on known shapes.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <algorithm>
#include <set>

#include "api/problem.hpp"
#include "common/host_tensor.hpp"
#include "epigemm/epigemm.hpp"
#include "providers/sm90/sm90_kernel_source.hpp"
#include "providers/sm90/sm90_operator.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "providers/sm90/sm90_repack.hpp"
#include "providers/sm90/sm90_tensor_maps.hpp"
#include "providers/sm90/sm90_tile_config.hpp"
#include "fast_divide.cuh"

namespace epigemm::testing {
namespace {

using detail::Sm90OperandClass;
using detail::Sm90Plan;
using detail::Sm90TileConfig;

const Sm90TileConfig kBig16{128, 256, 2, 3, Sm90OperandClass::bits16};
const Sm90TileConfig kBigFp8{128, 256, 2, 3, Sm90OperandClass::fp8};

/// A host problem D = epilogue(A @ B) with tensors of chosen dtypes and strides.
struct HostProblem {
  std::vector<std::unique_ptr<HostTensor>> owned;
  GemmArguments args;
  detail::Problem problem;

  HostTensor& tensor(DType dtype, Dims shape, Dims strides = {}) {
    owned.push_back(std::make_unique<HostTensor>(dtype, shape, strides));
    return *owned.back();
  }

  /// Binds further epilogue parameters (given this problem, the bindings, M and N).
  using BindMore = std::function<void(HostProblem&, std::map<std::string, Binding>&, std::int64_t, std::int64_t)>;

  HostProblem(DType ab, Dims a_shape, Dims a_strides, Dims b_shape, Dims b_strides, DType d, Dims d_strides = {},
              DType accumulator = DType::f32, DType compute = DType::f32,
              std::string source = "def epi(accum):\n    D = accum\n    return D\n", DType extra_out = DType::f32,
              const BindMore& bind_more = {}) {
    const int r = a_shape.size();
    const std::int64_t M = a_shape[r - 2], N = b_shape[b_shape.size() - 1];
    const std::int64_t L = r == 3 ? a_shape[0] : 1;
    args.A = tensor(ab, a_shape, a_strides).ref();
    args.B = tensor(ab, b_shape, b_strides).ref();
    args.out = tensor(d, L > 1 ? Dims{L, M, N} : Dims{M, N}, d_strides).ref();
    args.accumulator = accumulator;
    args.compute = compute;
    std::map<std::string, Binding> bindings{{"D", Binding(args.out)}};
    if (source.find(" s\n") != std::string::npos) bindings.emplace("s", Binding(tensor(extra_out, {M, 1}).ref()));
    if (bind_more) bind_more(*this, bindings, M, N);
    args.epilogue.emplace(source, bindings);
    detail::analyze(args, problem);
  }

  Status plan(const Sm90TileConfig& config, Sm90Plan& out) const { return detail::make_sm90_plan(problem, config, out); }
  std::string reason(const Sm90TileConfig& config) const {
    Sm90Plan out;
    const Status s = plan(config, out);
    EXPECT_FALSE(s) << "the plan accepted it";
    return s.reason();
  }
};

bool contains(const std::string& text, const std::string& phrase) { return text.find(phrase) != std::string::npos; }

/// Expects the operator's notes for `given` to be those for `transposed`
/// (the same problem written by hand as D^T = B^T A^T) after a first note
/// that contains `lead`.
void expect_transposed_notes(const detail::Sm90Operator& op, const detail::Problem& given,
                             const detail::Problem& transposed, const std::string& lead) {
  std::vector<std::string> notes = op.plan_notes(given);
  ASSERT_FALSE(notes.empty());
  EXPECT_TRUE(contains(notes.front(), lead)) << notes.front();
  notes.erase(notes.begin());
  EXPECT_EQ(notes, op.plan_notes(transposed));
}

TEST(Sm90Plan, PicksMajorsAndTmaViewsFromStrides) {
  // A (2, 40, 24) row-major, B (2, 24, 32) row-major, D f32 (2, 40, 32).
  HostProblem rr(DType::f16, {2, 40, 24}, {}, {2, 24, 32}, {}, DType::f32);
  Sm90Plan plan;
  ASSERT_TRUE(rr.plan(kBig16, plan));
  EXPECT_TRUE(plan.a_k_major);
  EXPECT_FALSE(plan.b_k_major);
  EXPECT_EQ(plan.a.dims[0], 24u);  // {K, M, L}
  EXPECT_EQ(plan.a.dims[1], 40u);
  EXPECT_EQ(plan.a.dims[2], 2u);
  EXPECT_EQ(plan.a.strides[0], 48u);
  EXPECT_EQ(plan.a.strides[1], 48u * 40u);
  EXPECT_EQ(plan.b.dims[0], 32u);  // {N, K, L}
  EXPECT_EQ(plan.d.dims[0], 32u);  // {N, M, L}
  EXPECT_EQ(plan.d.strides[0], 128u);
  EXPECT_EQ(plan.ldd, 32);
  EXPECT_EQ(plan.d_batch, 40 * 32);
  // A column-major and B column-major (K-major), batch shared through stride 0.
  HostProblem cc(DType::bf16, {2, 40, 24}, {0, 1, 40}, {1, 24, 32}, {24 * 32, 1, 24}, DType::bf16);
  ASSERT_TRUE(cc.plan(kBig16, plan));
  EXPECT_FALSE(plan.a_k_major);
  EXPECT_TRUE(plan.b_k_major);
  EXPECT_FALSE(plan.a_batched);
  EXPECT_FALSE(plan.b_batched);
  EXPECT_EQ(plan.a.dims[2], 1u);
  EXPECT_EQ(plan.b.dims[0], 24u);  // {K, N, L}
}

TEST(Sm90Plan, RepacksOperandsTmaCannotReadAsTheyLie) {
  Sm90Plan plan;
  // K = 7: A's rows 14 bytes apart; copied K-major into 128-byte rows. B
  // (7, 32) row-major has 64-byte rows: read as it lies.
  HostProblem odd_k(DType::f16, {40, 7}, {}, {7, 32}, {}, DType::f16);
  ASSERT_TRUE(odd_k.plan(kBig16, plan));
  EXPECT_TRUE(plan.repack_a.active);
  EXPECT_FALSE(plan.repack_b.active);
  EXPECT_TRUE(plan.a_k_major);
  EXPECT_EQ(plan.repack_a.src, odd_k.args.A.data);
  EXPECT_EQ(plan.repack_a.inner, 7);
  EXPECT_EQ(plan.repack_a.outer, 40);
  EXPECT_EQ(plan.repack_a.src_inner, 1);
  EXPECT_EQ(plan.repack_a.src_outer, 7);
  EXPECT_EQ(plan.repack_a.pitch, 64);  // elements: 128 bytes
  EXPECT_EQ(plan.a.data, nullptr);      // set at launch
  EXPECT_EQ(plan.a.dims[0], 64u);  // the copy's rows: zeros from K up to the pitch
  EXPECT_EQ(plan.a.dims[1], 40u);
  EXPECT_EQ(plan.a.strides[0], 128u);
  EXPECT_EQ(detail::sm90_repack_bytes(plan), 40u * 128u);
  // A column-major with 14-byte columns: copied M-major (its unit stride).
  HostProblem col(DType::bf16, {7, 24}, {1, 7}, {24, 32}, {}, DType::bf16);
  ASSERT_TRUE(col.plan(kBig16, plan));
  EXPECT_TRUE(plan.repack_a.active);
  EXPECT_FALSE(plan.a_k_major);
  EXPECT_EQ(plan.repack_a.inner, 7);  // M
  EXPECT_EQ(plan.repack_a.src_inner, 1);
  EXPECT_EQ(plan.repack_a.src_outer, 7);
  // A with no unit stride: copied K-major through the kernel's tiles.
  HostProblem strided(DType::f16, {40, 8}, {16, 2}, {8, 32}, {}, DType::f16);
  ASSERT_TRUE(strided.plan(kBig16, plan));
  EXPECT_TRUE(plan.a_k_major);
  EXPECT_EQ(plan.repack_a.src_inner, 2);
  EXPECT_EQ(plan.repack_a.src_outer, 16);
  // A batch stride of 8 bytes: every batch copied.
  HostProblem batches(DType::f16, {2, 40, 8}, {4, 8, 1}, {2, 8, 32}, {}, DType::f16);
  ASSERT_TRUE(batches.plan(kBig16, plan));
  EXPECT_EQ(plan.repack_a.batches, 2);
  EXPECT_EQ(plan.repack_a.src_batch, 4);
  EXPECT_EQ(plan.a.dims[2], 2u);
  EXPECT_EQ(plan.a.strides[1], 40u * 128u);
  // Both: B's copy after A's, 256-byte aligned.
  HostProblem both(DType::f16, {3, 7}, {}, {7, 5}, {}, DType::f16);
  ASSERT_TRUE(both.plan(kBig16, plan));
  ASSERT_TRUE(plan.repack_a.active && plan.repack_b.active);
  EXPECT_EQ(plan.repack_a.bytes(), 3u * 128u);
  EXPECT_EQ(plan.repack_b.offset, 512u);
  EXPECT_EQ(detail::sm90_repack_bytes(plan), 512u + 7u * 128u);
  EXPECT_FALSE(plan.b_k_major);  // B row-major: N contiguous
  // What the repack kernel is given: B's copy at its offset, each operand's
  // blocks, and tiles only where the source's contiguous axis is not the copy's.
  alignas(256) static std::byte workspace[4096];
  unsigned blocks = 0;
  const detail::Sm90RepackArgs args = detail::sm90_repack_args(plan, workspace, blocks);
  EXPECT_EQ(args.op[0].dst, workspace);
  EXPECT_EQ(args.op[1].dst, workspace + 512);
  EXPECT_EQ(args.op[1].dst_pitch, 64);
  EXPECT_EQ(args.op[0].through_tiles, 0);
  EXPECT_EQ(blocks, static_cast<unsigned>(args.op[0].blocks + args.op[1].blocks));
  ASSERT_TRUE(strided.plan(kBig16, plan));
  EXPECT_EQ(detail::sm90_repack_args(plan, workspace, blocks).op[0].through_tiles, 1);
  // Threads per row: enough for its 16-byte pieces (a power of two up to
  // the block), the rest of the block on further rows.
  EXPECT_EQ(args.op[0].row_lanes, 8);  // 14-byte rows written whole: 128 bytes with their zeros
  const auto lanes_and_blocks = [&](std::int64_t rows, std::int64_t k) {
    HostProblem wide(DType::f16, {rows, k}, {}, {k, 64}, {}, DType::f16);
    Sm90Plan p;
    EXPECT_TRUE(wide.plan(kBig16, p));
    EXPECT_TRUE(p.repack_a.active && !p.repack_b.active);
    const detail::Sm90RepackOperandArgs a = detail::sm90_repack_args(p, workspace, blocks).op[0];
    return std::make_pair(a.row_lanes, a.blocks);
  };
  EXPECT_EQ(lanes_and_blocks(3, 4095), std::make_pair(256, 3));  // 512 pieces a row: a block each
  EXPECT_EQ(lanes_and_blocks(9, 301), std::make_pair(64, 3));    // 38 pieces: 4 rows a block
  // Only B: it takes the kernel's first blocks.
  HostProblem only_b(DType::f16, {16, 8}, {}, {8, 5}, {}, DType::f16);
  ASSERT_TRUE(only_b.plan(kBig16, plan));
  ASSERT_FALSE(plan.repack_a.active);
  EXPECT_EQ(plan.repack_b.offset, 0u);
  const detail::Sm90RepackArgs b_args = detail::sm90_repack_args(plan, workspace, blocks);
  EXPECT_EQ(b_args.op[0].src, only_b.args.B.data);
  EXPECT_EQ(b_args.op[1].blocks, 0);
  // Aligned operands are read as they lie.
  ASSERT_TRUE(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16).plan(kBig16, plan));
  EXPECT_EQ(detail::sm90_repack_bytes(plan), 0u);
}

TEST(Sm90Plan, NotesSayHowKIsCut) {
  // Without a GPU the operator assumes an H100/H200's 132 SMs (with one, its
  // own count, so only the H200's numbers are compared).
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  const HostProblem skinny(DType::bf16, {16, 2048}, {}, {2048, 1024}, {}, DType::bf16);
  const std::vector<std::string> split = detail::Sm90Operator(grouped).plan_notes(skinny.problem);
  ASSERT_EQ(split.size(), 1u);
  EXPECT_TRUE(contains(split[0], "split-K: each of the 16 tiles runs on 2 CTAs, one per slice of K (on ")) << split[0];
  EXPECT_TRUE(contains(split[0], " SMs; not while the stream captures a graph)")) << split[0];
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::bits16, true};
  const HostProblem cut(DType::bf16, {1920, 2048}, {}, {2048, 2304}, {}, DType::bf16);
  const std::vector<std::string> stream_k = detail::Sm90Operator(pingpong).plan_notes(cut.problem);
  ASSERT_EQ(stream_k.size(), 1u);
  EXPECT_TRUE(contains(stream_k[0], " of the 270 tiles are cut along K into one range per CTA")) << stream_k[0];
  if (contains(stream_k[0], "(on 132 SMs")) {
    EXPECT_TRUE(contains(stream_k[0], "the last 138 of")) << stream_k[0];
  }
  // Whole tiles: no note.
  EXPECT_TRUE(detail::Sm90Operator(pingpong).plan_notes(skinny.problem).empty());
}

TEST(Sm90Plan, AColumnMajorDRunsAsTheTransposedProblem) {
  // D (M, N) column-major with a bias along N is D^T (N, M) row-major with
  // the bias along its M, from B^T (N, K) and A^T (K, M), both column-major.
  // Every operator ranks the two alike and generates one kernel for both;
  // its notes begin by saying so.
  const std::int64_t M = 1000, N = 2700, K = 520;
  const std::string source = "def epi(accum, bias):\n    D = accum + bias\n    return D\n";
  const auto bias = [](Dims shape) {
    return [shape](HostProblem& hp, std::map<std::string, Binding>& bindings, std::int64_t, std::int64_t) {
      bindings.emplace("bias", Binding(hp.tensor(DType::f32, shape).ref()));
    };
  };
  const DType f32 = DType::f32;
  const HostProblem column(DType::bf16, {M, K}, {}, {K, N}, {}, DType::bf16, {1, M}, f32, f32, source, f32, bias({N}));
  const HostProblem transposed(DType::bf16, {N, K}, {1, N}, {K, M}, {1, K}, DType::bf16, {}, f32, f32, source, f32,
                               bias({N, 1}));
  int planned = 0;
  for (const Sm90TileConfig& config : detail::sm90_tile_configs()) {
    SCOPED_TRACE(config.shape_name());
    const detail::Sm90Operator op(config);
    EXPECT_EQ(op.ranking(column.problem), op.ranking(transposed.problem));
    EXPECT_EQ(op.preference(column.problem), op.preference(transposed.problem));
    Sm90Plan plan;
    if (!transposed.plan(config, plan)) continue;
    ++planned;
    EXPECT_EQ(op.generated_source(column.problem), op.generated_source(transposed.problem));
    expect_transposed_notes(op, column.problem, transposed.problem,
                            "D is column-major: the kernel writes the row-major D^T = B^T A^T");
  }
  EXPECT_GT(planned, 10);
}

TEST(Sm90Plan, ColumnMajorDTilesRunARowMajorDTransposed) {
  // The tiles that write D column-major take a row-major D (M, N) as the
  // column-major D^T (N, M) of B^T A^T: they rank, note and generate it as
  // that problem written by hand, C staged in D's order. Their plan of a
  // column-major D views it (and C) {M, N, L}; they refuse a row-major D
  // given to the plan as it is, and a D of other than two bytes.
  const std::int64_t M = 1000, N = 2704, K = 520;
  const std::string source = "def epi(accum, bias, C):\n    D = accum + bias + C\n    return D\n";
  const auto bind = [](Dims bias, Dims c, Dims c_strides) {
    return [=](HostProblem& hp, std::map<std::string, Binding>& bindings, std::int64_t, std::int64_t) {
      bindings.emplace("bias", Binding(hp.tensor(DType::f32, bias).ref()));
      bindings.emplace("C", Binding(hp.tensor(DType::bf16, c, c_strides).ref()));
    };
  };
  const DType f32 = DType::f32;
  const HostProblem row(DType::bf16, {M, K}, {}, {K, N}, {}, DType::bf16, {}, f32, f32, source, f32,
                        bind({N}, {M, N}, {}));
  const HostProblem hand(DType::bf16, {N, K}, {1, N}, {K, M}, {1, K}, DType::bf16, {1, N}, f32, f32, source, f32,
                         bind({N, 1}, {N, M}, {1, N}));
  int planned = 0;
  for (const Sm90TileConfig& config : detail::sm90_tile_configs()) {
    if (!config.d_column_major) continue;
    SCOPED_TRACE(config.shape_name());
    EXPECT_EQ(config.operands, Sm90OperandClass::bits16);
    const detail::Sm90Operator op(config);
    EXPECT_EQ(op.metadata().extra.at("d_store").rfind("column-major", 0), 0u);
    EXPECT_EQ(op.ranking(row.problem), op.ranking(hand.problem));
    EXPECT_EQ(op.preference(row.problem), op.preference(hand.problem));
    EXPECT_TRUE(contains(row.reason(config), "D's M stride is 2704 elements, not 1"));
    Sm90Plan plan;
    ASSERT_TRUE(hand.plan(config, plan));
    ++planned;
    EXPECT_TRUE(plan.d_column_major);
    EXPECT_EQ(plan.d.dims[0], static_cast<std::uint64_t>(N));
    EXPECT_EQ(plan.d.dims[1], static_cast<std::uint64_t>(M));
    EXPECT_EQ(plan.d.strides[0], static_cast<std::uint64_t>(2 * N));
    EXPECT_EQ(plan.ldd, N);
    EXPECT_FALSE(plan.d_by_threads);
    if (plan.staged_input >= 0) {
      EXPECT_EQ(plan.c.dims[0], static_cast<std::uint64_t>(N));
      EXPECT_EQ(plan.c.dims[1], static_cast<std::uint64_t>(M));
    }
    const std::string kernel = op.generated_source(row.problem);
    EXPECT_EQ(kernel, op.generated_source(hand.problem));
    EXPECT_TRUE(contains(kernel, "D bf16 (column-major)"));
    expect_transposed_notes(op, row.problem, hand.problem,
                            "D is row-major: the kernel writes the column-major D^T = B^T A^T");
    const HostProblem f32_d(DType::bf16, {N, K}, {1, N}, {K, M}, {1, K}, DType::f32, {1, N});
    EXPECT_TRUE(contains(f32_d.reason(config), "D is f32; this operator's kernel writes D column-major, which it "
                                               "does for a 2-byte D"));
  }
  EXPECT_EQ(planned, 15);
  // The 1x1 128x256 tile stages C in D's order: column-major C where D is.
  const Sm90TileConfig dcol{128, 256, 1, 3, Sm90OperandClass::bits16, false, 0, 1, true};
  Sm90Plan plan;
  ASSERT_TRUE(hand.plan(dcol, plan));
  EXPECT_EQ(plan.staged_input, 1);
  const HostProblem row_c(DType::bf16, {N, K}, {1, N}, {K, M}, {1, K}, DType::bf16, {1, N}, f32, f32, source, f32,
                          bind({N, 1}, {N, M}, {}));
  ASSERT_TRUE(row_c.plan(dcol, plan));
  EXPECT_EQ(plan.staged_input, -1);
}

TEST(Sm90Plan, NotesSayWhatIsRepackedAndWhy) {
  const auto notes_of = [](const HostProblem& hp, const Sm90TileConfig& config) {
    Sm90Plan plan;
    EXPECT_TRUE(hp.plan(config, plan));
    return detail::sm90_plan_notes(hp.problem, plan, config.operands);
  };
  // K = 77: A's rows 154 bytes apart; B (77, 48) and D read and written as they lie.
  std::vector<std::string> notes = notes_of(HostProblem(DType::f16, {40, 77}, {}, {77, 48}, {}, DType::f16), kBig16);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "A is copied before the GEMM into row-major rows 256 bytes apart (K-major), because its rows are 154 "
            "bytes apart (TMA needs a multiple of 16); 10.2 KB of workspace on the launch's stream");
  // fp8 B row-major; D's rows 198 bytes apart.
  notes = notes_of(HostProblem(DType::e4m3, {40, 64}, {}, {64, 99}, {}, DType::f16), kBigFp8);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_TRUE(contains(notes[0], "B is copied before the GEMM into column-major columns 128 bytes apart (K-major), "
                                 "because the tensor cores read fp8 (e4m3/e5m2) operands only K-major"))
      << notes[0];
  EXPECT_EQ(notes[1],
            "D is stored by the kernel's threads instead of TMA, because its rows are 198 bytes apart (TMA needs a "
            "multiple of 16); they store it one element at a time (rows, batches and base address 4-byte aligned "
            "would let them store wider pieces)");
  // A batch stride of 8 bytes; a column-major B with no unit stride at all.
  notes = notes_of(HostProblem(DType::f16, {2, 40, 8}, {4, 8, 1}, {2, 8, 32}, {256, 2, 16}, DType::f16), kBig16);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_TRUE(contains(notes[0], "because its batches are 8 bytes apart")) << notes[0];
  EXPECT_TRUE(contains(notes[1], "because it has no unit stride")) << notes[1];
  // Nothing to say about operands TMA reads and writes as they lie.
  EXPECT_TRUE(notes_of(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16), kBig16).empty());
}

TEST(Sm90Plan, RefusesWhatTmaCannotWrite) {
  EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16, {1, 40}).reason(kBig16),
                       "writes D row-major"));
}

TEST(Sm90Plan, RefusesDTypesLayoutsAndEpiloguesItDoesNotRun) {
  EXPECT_EQ(HostProblem(DType::f32, {40, 8}, {}, {8, 32}, {}, DType::f32).reason(kBig16),
            "sm90 does not support f32 A/B (f16, bf16, tf32, e4m3, e5m2, i8 and u8 only); pass tf32 A and B to "
            "multiply f32 data on the tensor cores");
  EXPECT_EQ(HostProblem(DType::i8, {40, 16}, {}, {16, 32}, {}, DType::i32, {}, DType::i32).reason(kBig16),
            "this operator is for f16/bf16 A/B; A is i8");
  EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16).reason(kBigFp8),
                       "this operator is for fp8"));
  Sm90Plan fp8;
  ASSERT_TRUE(HostProblem(DType::e4m3, {40, 16}, {}, {16, 32}, {}, DType::f16).plan(kBigFp8, fp8));
  EXPECT_TRUE(fp8.b_k_major);  // B row-major: repacked K-major (wgmma transposes only 16-bit operands)
  EXPECT_TRUE(fp8.repack_b.active);
  EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f64).reason(kBig16),
                       "D is f64; the sm90 kernel stores D as f16, bf16, f32, e4m3, e5m2, i8, u8 or i32"));
  EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16, {}, DType::f32, DType::f64)
                           .reason(kBig16),
                       "compute type f64 is not supported"));
  const std::string reduce = "def epi(accum):\n    D = accum\n    s = sum(accum)\n    return D, s\n";
  EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16, {}, DType::f32, DType::f32,
                                   reduce, DType::f16)
                           .reason(kBig16),
                       "reduction output 's' is f16"));
  Sm90Plan plan;
  EXPECT_TRUE(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16, {}, DType::f32, DType::f32, reduce)
                  .plan(kBig16, plan));
  EXPECT_EQ(plan.d_slot, 0);
  // fp8 K-major with an f16 accumulator is fine; bf16 with f16 is not asked (analyze refuses it).
  EXPECT_TRUE(HostProblem(DType::e5m2, {40, 16}, {}, {16, 32}, {1, 16}, DType::bf16, {}, DType::f16).plan(kBigFp8, plan));
}

TEST(Sm90Plan, ReduceOutputsFitTheConsumerWarpsPartials) {
  // Each consumer warp leaves one f32 partial per reduce output in 1 KB: 32
  // outputs on the two-consumer tiles, 21 on the three of 192x96.
  const auto amaxes = [](int count) {
    std::string source = "def epi(accum):\n    D = accum\n";
    std::string outputs = "D";
    for (int i = 0; i < count; ++i) {
      source += "    s" + std::to_string(i) + " = amax(accum)\n";
      outputs += ", s" + std::to_string(i);
    }
    return source + "    return " + outputs + "\n";
  };
  const auto problem = [&](int count) {
    return std::make_unique<HostProblem>(
        DType::f16, Dims{40, 8}, Dims{}, Dims{8, 32}, Dims{}, DType::f16, Dims{}, DType::f32, DType::f32,
        amaxes(count), DType::f32, [count](HostProblem& hp, std::map<std::string, Binding>& b, std::int64_t, std::int64_t) {
          for (int i = 0; i < count; ++i) b.emplace("s" + std::to_string(i), Binding(hp.tensor(DType::f32, {1}).ref()));
        });
  };
  const Sm90TileConfig tall{192, 96, 1, 4, Sm90OperandClass::bits16};
  Sm90Plan plan;
  EXPECT_TRUE(problem(21)->plan(tall, plan));
  EXPECT_TRUE(contains(problem(22)->reason(tall),
                       "the epilogue has 22 reduce outputs; this tile's 12 consumer warps hold the partials of at most 21"));
  EXPECT_TRUE(problem(32)->plan(kBig16, plan));
  EXPECT_TRUE(contains(problem(33)->reason(kBig16), "8 consumer warps hold the partials of at most 32"));
}

TEST(Sm90Plan, TheGemmWritesTheIdentityOfFewReduceOutputs) {
  // s = sum(accum) over each row, (M, 1) per batch: the GEMM's first CTA
  // writes up to kSm90GridIdentityElements identities itself, a fill kernel
  // the rest; an epilogue without reductions needs neither.
  const std::string reduce = "def epi(accum):\n    D = accum\n    s = sum(accum)\n    return D, s\n";
  const auto plan_of = [&](Dims a_shape, Dims b_shape, const std::string& source,
                           const HostProblem::BindMore& bind_more = {}) {
    Sm90Plan plan;
    EXPECT_TRUE(HostProblem(DType::f16, a_shape, {}, b_shape, {}, DType::f16, {}, DType::f32, DType::f32, source,
                            DType::f32, bind_more)
                    .plan(kBig16, plan));
    return plan;
  };
  Sm90Plan plan = plan_of({40, 8}, {8, 32}, "def epi(accum):\n    D = accum\n    return D\n");
  EXPECT_EQ(plan.reduce_elements, 0);
  EXPECT_FALSE(plan.gemm_writes_identity);
  plan = plan_of({40, 8}, {8, 32}, reduce);
  EXPECT_EQ(plan.reduce_elements, 40);
  EXPECT_TRUE(plan.gemm_writes_identity);
  plan = plan_of({3, 600, 8}, {3, 8, 32}, reduce);
  EXPECT_EQ(plan.reduce_elements, 1800);
  EXPECT_TRUE(plan.gemm_writes_identity);
  plan = plan_of({4, 600, 8}, {4, 8, 32}, reduce);
  EXPECT_EQ(plan.reduce_elements, 2400);
  EXPECT_FALSE(plan.gemm_writes_identity);
  // A column sum and an amax per batch: L * (N + 1) elements.
  const std::string column_and_amax =
      "def epi(accum):\n    D = accum\n    c = sum(accum)\n    m = amax(accum)\n    return D, c, m\n";
  for (const std::int64_t L : {1, 2}) {
    plan = plan_of({L, 40, 8}, {L, 8, 1024}, column_and_amax,
                   [L](HostProblem& hp, std::map<std::string, Binding>& bindings, std::int64_t, std::int64_t N) {
                     bindings.emplace("c", Binding(hp.tensor(DType::f32, {L, 1, N}).ref()));
                     bindings.emplace("m", Binding(hp.tensor(DType::f32, {L, 1, 1}).ref()));
                   });
    EXPECT_EQ(plan.reduce_elements, L * 1025);
    EXPECT_EQ(plan.gemm_writes_identity, L == 1) << "L = " << L;
  }
}

const Sm90TileConfig kBigTf32{128, 256, 2, 3, Sm90OperandClass::tf32};
const Sm90TileConfig kBigInt8{128, 256, 2, 3, Sm90OperandClass::int8};

TEST(Sm90Plan, TakesTf32AndInt8WithBothOperandsKMajor) {
  Sm90Plan plan;
  // tf32 A (2, 40, 24) row-major, B (2, 24, 32) column-major; D f32 and bf16.
  for (const DType d : {DType::f32, DType::bf16, DType::i8}) {
    HostProblem tf32(DType::tf32, {2, 40, 24}, {}, {2, 24, 32}, {24 * 32, 1, 24}, d);
    ASSERT_TRUE(tf32.plan(kBigTf32, plan)) << to_string(d);
    EXPECT_TRUE(plan.a_k_major);
    EXPECT_TRUE(plan.b_k_major);
    EXPECT_EQ(plan.a.dtype, DType::tf32);
    EXPECT_EQ(plan.a.strides[0], 24u * 4u);  // {K, M, L}: rows of 24 four-byte elements
    EXPECT_EQ(plan.b.dims[0], 24u);          // {K, N, L}
    EXPECT_EQ(plan.d_dtype, d);
  }
  // s8 x u8 (and the other pairings) with i32, i8, u8 and f32 D.
  const std::pair<DType, DType> pairs[] = {
      {DType::i8, DType::i8}, {DType::i8, DType::u8}, {DType::u8, DType::i8}, {DType::u8, DType::u8}};
  for (const auto& [a, b] : pairs) {
    for (const DType d : {DType::i32, DType::i8, DType::u8, DType::f32}) {
      SCOPED_TRACE(std::string(to_string(a)) + " x " + std::string(to_string(b)) + " -> " +
                   std::string(to_string(d)));
      HostProblem p(a, {40, 32}, {}, {32, 48}, {1, 32}, d, {}, DType::i32);
      p.args.B = p.tensor(b, {32, 48}, {1, 32}).ref();
      p.problem = detail::Problem{};
      detail::analyze(p.args, p.problem);
      ASSERT_TRUE(p.plan(kBigInt8, plan));
      EXPECT_EQ(plan.d_dtype, d);
      EXPECT_EQ(plan.b.dtype, b);
      EXPECT_TRUE(plan.a_k_major && plan.b_k_major);
    }
  }
}

TEST(Sm90Plan, RepacksTf32AndInt8OperandsThatAreNotKMajor) {
  Sm90Plan plan;
  // tf32 A column-major, B row-major: both copied K-major, read through tiles.
  HostProblem tf32(DType::tf32, {40, 8}, {1, 40}, {8, 32}, {}, DType::f32);
  ASSERT_TRUE(tf32.plan(kBigTf32, plan));
  EXPECT_TRUE(plan.a_k_major && plan.b_k_major);
  EXPECT_EQ(plan.repack_a.src_inner, 40);  // K steps over A's columns
  EXPECT_EQ(plan.repack_a.pitch, 32);      // 8 four-byte elements padded to 128 bytes
  EXPECT_EQ(plan.repack_b.src_inner, 32);
  EXPECT_EQ(plan.repack_b.src_outer, 1);
  // i8 B row-major, u8 A column-major.
  ASSERT_TRUE(HostProblem(DType::i8, {40, 16}, {}, {16, 32}, {}, DType::i32, {}, DType::i32).plan(kBigInt8, plan));
  EXPECT_TRUE(plan.b_k_major && plan.repack_b.active && !plan.repack_a.active);
  ASSERT_TRUE(
      HostProblem(DType::u8, {40, 16}, {1, 40}, {16, 32}, {1, 16}, DType::i32, {}, DType::i32).plan(kBigInt8, plan));
  EXPECT_TRUE(plan.a_k_major && plan.repack_a.active && !plan.repack_b.active);
  // The operand class must match the operator's.
  EXPECT_EQ(HostProblem(DType::tf32, {40, 8}, {}, {8, 32}, {1, 8}, DType::f32).reason(kBigInt8),
            "this operator is for int8 (i8/u8) A/B; A is tf32");
  EXPECT_EQ(HostProblem(DType::i8, {40, 16}, {}, {16, 32}, {1, 16}, DType::i32, {}, DType::i32).reason(kBigTf32),
            "this operator is for tf32 A/B; A is i8");
  EXPECT_EQ(HostProblem(DType::e4m3, {40, 16}, {}, {16, 32}, {1, 16}, DType::f32).reason(kBigInt8),
            "this operator is for int8 (i8/u8) A/B; A is e4m3");
}

TEST(Sm90Plan, RefusesAccumulatorsTheOperandClassDoesNotSumIn) {
  // analyze() refuses these combinations itself; the plan must say why too,
  // for problems built past it.
  HostProblem i8(DType::i8, {40, 16}, {}, {16, 32}, {1, 16}, DType::i32, {}, DType::i32);
  detail::Problem p = i8.problem;
  p.accumulator = DType::f32;
  Sm90Plan plan;
  Status s = detail::make_sm90_plan(p, kBigInt8, plan);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.reason(), "sm90 sums i8 x i8 products in i32 only; accumulator f32 is not supported");
  HostProblem f16(DType::f16, {40, 8}, {}, {8, 32}, {}, DType::f16);
  p = f16.problem;
  p.accumulator = DType::i32;
  s = detail::make_sm90_plan(p, kBig16, plan);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.reason(), "accumulator i32 needs i8/u8 A and B; A is f16");
  HostProblem tf32(DType::tf32, {40, 8}, {}, {8, 32}, {1, 8}, DType::f32);
  p = tf32.problem;
  p.accumulator = DType::f16;
  s = detail::make_sm90_plan(p, kBigTf32, plan);
  ASSERT_FALSE(s);
  EXPECT_TRUE(contains(s.reason(), "sm90 does not support accumulator f16 with tf32 A/B")) << s.reason();
  // An i8 D on a 64x64 tile stages 32-byte rows; an i32 D 128-byte ones.
  const Sm90TileConfig narrow{64, 64, 1, 13, Sm90OperandClass::int8};
  HostProblem i8_d(DType::i8, {40, 16}, {}, {16, 32}, {1, 16}, DType::i8, {}, DType::i32);
  EXPECT_TRUE(i8_d.plan(narrow, plan)) << i8_d.reason(narrow);
  EXPECT_TRUE(i8.plan(narrow, plan));
}

TEST(Sm90TileConfigs, Tf32AndInt8ClassesHaveTheirOwnOperators) {
  int tf32 = 0, int8 = 0;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    const OperatorMetadata md = detail::sm90_metadata(c);
    if (c.operands == Sm90OperandClass::tf32) {
      ++tf32;
      EXPECT_EQ(c.bk(), 32);
      EXPECT_EQ(md.tile.k, 32);
      EXPECT_TRUE(md.name.ends_with("_tf32")) << md.name;
      EXPECT_EQ(md.extra.at("dtypes"), "tf32");
      EXPECT_EQ(md.extra.at("accumulators"), "f32");
    } else if (c.operands == Sm90OperandClass::int8) {
      ++int8;
      EXPECT_EQ(c.bk(), 128);
      EXPECT_TRUE(md.name.ends_with("_int8")) << md.name;
      EXPECT_EQ(md.extra.at("dtypes"), "i8,u8");
      EXPECT_EQ(md.extra.at("accumulators"), "i32");
      EXPECT_TRUE(contains(md.extra.at("out_dtypes"), "i32,i8,u8")) << md.extra.at("out_dtypes");
    } else {
      continue;
    }
    EXPECT_TRUE(contains(md.extra.at("layouts"), "others are repacked K-major")) << md.name;
    // The same stage bytes as the 16-bit (tf32) or fp8 (int8) tile of that shape.
    EXPECT_EQ(c.bk() * c.operand_bytes(), 128);
  }
  // Each: seven cooperative tiles, two pingpong and three grouped-k ones.
  EXPECT_EQ(tf32, 12);
  EXPECT_EQ(int8, 12);
  // The configurations that were there first keep their indices.
  const auto configs = detail::sm90_tile_configs();
  ASSERT_GE(configs.size(), 18u);
  for (std::size_t i = 0; i < 18; ++i) {
    EXPECT_TRUE(configs[i].operands == Sm90OperandClass::bits16 || configs[i].operands == Sm90OperandClass::fp8) << i;
  }
}

TEST(Sm90Plan, TakesFp8DWithRowsTmaCanStore) {
  const std::string scale_amax = "def epi(accum):\n    D = accum * 0.5\n    s = amax(D)\n    return D, s\n";
  for (const DType d : {DType::e4m3, DType::e5m2}) {
    SCOPED_TRACE(std::string("D ") + std::string(to_string(d)));
    Sm90Plan plan;
    // 16-bit A/B, batch of 2, D (2, 40, 48): rows of 48 bytes.
    HostProblem bf16(DType::bf16, {2, 40, 24}, {}, {2, 24, 48}, {}, d);
    ASSERT_TRUE(bf16.plan(kBig16, plan));
    EXPECT_EQ(plan.d_dtype, d);
    EXPECT_EQ(plan.d.dtype, d);
    EXPECT_EQ(plan.d.dims[0], 48u);  // {N, M, L}
    EXPECT_EQ(plan.d.dims[1], 40u);
    EXPECT_EQ(plan.d.dims[2], 2u);
    EXPECT_EQ(plan.d.strides[0], 48u);
    EXPECT_EQ(plan.d.strides[1], 48u * 40u);
    EXPECT_EQ(plan.ldd, 48);
    // fp8 A/B (K-major) with the row amax of D into f32.
    HostProblem fp8(DType::e4m3, {40, 32}, {}, {32, 16}, {1, 32}, d, {}, DType::f32, DType::f32, scale_amax);
    ASSERT_TRUE(fp8.plan(kBigFp8, plan));
    EXPECT_EQ(plan.d_dtype, d);
    EXPECT_EQ(plan.d_slot, 0);
    EXPECT_FALSE(plan.d_by_threads);
    // D's rows 24 bytes apart: TMA cannot store them, the threads do.
    ASSERT_TRUE(HostProblem(DType::f16, {40, 8}, {}, {8, 24}, {}, d).plan(kBig16, plan));
    EXPECT_TRUE(plan.d_by_threads);
    // The amax into an fp8 tensor: reductions go into f32 only.
    EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 32}, {}, d, {}, DType::f32, DType::f32, scale_amax,
                                     DType::e4m3)
                             .reason(kBig16),
                         "reduction output 's' is e4m3"));
  }
}

TEST(Sm90Plan, StoresDThroughTheThreadsWhereTmaCannot) {
  Sm90Plan plan;
  // N = 20 f16: D's rows 40 bytes apart.
  const HostProblem narrow(DType::f16, {40, 8}, {}, {8, 20}, {1, 8}, DType::f16);
  ASSERT_TRUE(narrow.plan(kBig16, plan));
  EXPECT_TRUE(plan.d_by_threads);
  EXPECT_EQ(plan.d.dims[0], 20u);  // {N, M, L}, as for a TMA view
  EXPECT_EQ(plan.d.strides[0], 40u);
  EXPECT_EQ(plan.ldd, 20);
  EXPECT_TRUE(plan.d_words);  // 40-byte rows: stored in words
  EXPECT_TRUE(contains(detail::sm90_kernel_name(narrow.problem, plan, kBig16), ", 4>>"));
  EXPECT_TRUE(contains(detail::sm90_plan_notes(narrow.problem, plan, kBig16.operands).back(),
                       "they store it in 4- to 16-byte pieces"));
  // N = 21 f16: rows 42 bytes apart, stored element by element.
  const HostProblem odd(DType::f16, {40, 8}, {}, {8, 21}, {1, 8}, DType::f16);
  ASSERT_TRUE(odd.plan(kBig16, plan));
  EXPECT_TRUE(plan.d_by_threads);
  EXPECT_FALSE(plan.d_words);
  EXPECT_TRUE(contains(detail::sm90_kernel_name(odd.problem, plan, kBig16), ", 1>>"));
  // Rows 48 bytes apart, but batches 1928 bytes apart.
  const HostProblem batches(DType::f16, {2, 40, 8}, {}, {2, 8, 24}, {}, DType::f16, {964, 24, 1});
  ASSERT_TRUE(batches.plan(kBig16, plan));
  EXPECT_TRUE(plan.d_by_threads);
  EXPECT_TRUE(plan.d_words);
  EXPECT_EQ(plan.d_batch, 964);
  // Batches 1926 bytes apart: element by element.
  const HostProblem odd_batches(DType::f16, {2, 40, 8}, {}, {2, 8, 24}, {}, DType::f16, {963, 24, 1});
  ASSERT_TRUE(odd_batches.plan(kBig16, plan));
  EXPECT_TRUE(plan.d_by_threads);
  EXPECT_FALSE(plan.d_words);
  // Rows and batches of whole 16 bytes: TMA stores D.
  const HostProblem aligned(DType::f16, {2, 40, 8}, {}, {2, 8, 24}, {}, DType::f16, {968, 24, 1});
  ASSERT_TRUE(aligned.plan(kBig16, plan));
  EXPECT_FALSE(plan.d_by_threads);
  EXPECT_FALSE(plan.d_words);
  EXPECT_TRUE(contains(detail::sm90_kernel_name(aligned.problem, plan, kBig16), ", 0>>"));
  // D still has to be row-major.
  EXPECT_TRUE(contains(HostProblem(DType::f16, {40, 8}, {}, {8, 20}, {1, 8}, DType::f16, {1, 40}).reason(kBig16),
                       "writes D row-major"));
}

TEST(Sm90Plan, StagesAFullTileInputOfDsSizeThatTmaCanLoad) {
  const std::string source = "def epi(accum, C, E):\n    D = accum + C * E\n    return D\n";
  // C and E of the given dtypes; C's rows `c_ld` elements apart.
  const auto problem = [&](DType c, DType e, std::int64_t c_ld) {
    return HostProblem(DType::bf16, {64, 16}, {}, {16, 40}, {}, DType::bf16, {}, DType::f32, DType::f32, source,
                       DType::f32, [=](HostProblem& hp, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
                         b.emplace("C", Binding(hp.tensor(c, {M, N}, {c_ld, 1}).ref()));
                         b.emplace("E", Binding(hp.tensor(e, {M, N}).ref()));
                       });
  };
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::bits16, true};
  Sm90Plan plan;
  // C bf16 with rows 48 elements (96 bytes) apart: the first input is staged.
  ASSERT_TRUE(problem(DType::bf16, DType::bf16, 48).plan(kBig16, plan));
  EXPECT_EQ(plan.staged_input, 0);
  EXPECT_FALSE(plan.unaligned_tile_rows);  // E, read by the threads, has 80-byte rows
  EXPECT_EQ(plan.c.dims[0], 40u);  // {N, M, L}, as D
  EXPECT_EQ(plan.c.dims[1], 64u);
  EXPECT_EQ(plan.c.strides[0], 96u);
  EXPECT_FALSE(plan.c_batched);
  // C f32 (not D's size) is read from global memory; E f16 is staged instead.
  ASSERT_TRUE(problem(DType::f32, DType::f16, 48).plan(kBig16, plan));
  EXPECT_EQ(plan.staged_input, 1);
  EXPECT_FALSE(plan.unaligned_tile_rows);
  // C's rows 41 elements apart (82 bytes): TMA cannot load it; E is staged,
  // and C's unaligned rows are read by the threads.
  const auto ragged_c = problem(DType::bf16, DType::bf16, 41);
  ASSERT_TRUE(ragged_c.plan(kBig16, plan));
  EXPECT_EQ(plan.staged_input, 1);
  EXPECT_TRUE(plan.unaligned_tile_rows);
  const std::vector<std::string> notes = detail::sm90_plan_notes(ragged_c.problem, plan, kBig16.operands);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "input 'C' is read by the kernel's threads, because its rows are 82 bytes apart (TMA needs a multiple of "
            "16); whole tiles run on one CTA per SM");
  EXPECT_EQ(notes[1],
            "input 'C' is read by the kernel's threads one element per load rather than two, because its rows are "
            "an odd number of elements apart");
  // Neither input fits: none is staged.
  ASSERT_TRUE(problem(DType::f32, DType::f32, 48).plan(kBig16, plan));
  EXPECT_EQ(plan.staged_input, -1);
  // A pingpong consumer stages both 64-row blocks of its tile.
  ASSERT_TRUE(problem(DType::bf16, DType::bf16, 48).plan(pingpong, plan));
  EXPECT_EQ(plan.staged_input, 0);
  // With an f32 D the pingpong tile's slots hold half a row block: none is staged.
  const auto f32_d = HostProblem(DType::bf16, {64, 16}, {}, {16, 40}, {}, DType::f32, {}, DType::f32, DType::f32,
                                 source, DType::f32,
                                 [](HostProblem& hp, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
                                   b.emplace("C", Binding(hp.tensor(DType::f32, {M, N}).ref()));
                                   b.emplace("E", Binding(hp.tensor(DType::f32, {M, N}).ref()));
                                 });
  ASSERT_TRUE(f32_d.plan(pingpong, plan));
  EXPECT_EQ(plan.staged_input, -1);
}

TEST(Sm90Plan, StagesIntegerInputsOfDsSize) {
  // An int8 GEMM, D = alpha * accum + beta * C with C of D's dtype (K-major
  // A and B), computed in `compute`.
  const std::string source = "def epi(accum, alpha, beta, C):\n    D = alpha * accum + beta * C\n    return D\n";
  const auto problem = [&](DType cd, DType compute) {
    return HostProblem(DType::i8, {256, 64}, {}, {64, 256}, {1, 64}, cd, {}, DType::i32, compute, source, DType::f32,
                       [=](HostProblem& hp, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
                         b.emplace("alpha", Binding(2.0));
                         b.emplace("beta", Binding(-1.0));
                         b.emplace("C", Binding(hp.tensor(cd, {M, N}).ref()));
                       });
  };
  // 128x128 cooperative: the slots hold a whole i32 or i8 row block.
  const Sm90TileConfig cooperative{128, 128, 1, 5, Sm90OperandClass::int8};
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::int8, true};
  Sm90Plan plan;
  ASSERT_TRUE(problem(DType::i32, DType::f32).plan(cooperative, plan));
  EXPECT_EQ(plan.staged_input, 2);
  EXPECT_EQ(plan.c.dtype, DType::i32);
  ASSERT_TRUE(problem(DType::i8, DType::f32).plan(cooperative, plan));
  EXPECT_EQ(plan.staged_input, 2);
  ASSERT_TRUE(problem(DType::u8, DType::bf16).plan(cooperative, plan));
  EXPECT_EQ(plan.staged_input, 2);
  // In f16 an i32 past 2^24 overflows whether or not it went through a float first.
  ASSERT_TRUE(problem(DType::i32, DType::f16).plan(cooperative, plan));
  EXPECT_EQ(plan.staged_input, 2);
  // In bf16 it would be rounded twice: the threads read it.
  ASSERT_TRUE(problem(DType::i32, DType::bf16).plan(cooperative, plan));
  EXPECT_EQ(plan.staged_input, -1);
  // The pingpong tile's slots hold half of an i32 row block.
  ASSERT_TRUE(problem(DType::i32, DType::f32).plan(pingpong, plan));
  EXPECT_EQ(plan.staged_input, -1);
}

TEST(Sm90Plan, KernelSourceSaysHowEachTileOperandMoves) {
  // C (bf16, D's size) and E (f32) in, F (bf16) and G (f32) out beside D.
  const std::string source =
      "def epi(accum, C, E):\n    F = accum + C\n    G = F * E\n    D = relu(G)\n    return D, F, G\n";
  const HostProblem hp(DType::bf16, {64, 16}, {}, {16, 40}, {}, DType::bf16, {}, DType::f32, DType::f32, source,
                       DType::f32, [](HostProblem& h, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
                         b.emplace("C", Binding(h.tensor(DType::bf16, {M, N}).ref()));
                         b.emplace("E", Binding(h.tensor(DType::f32, {M, N}).ref()));
                         b.emplace("F", Binding(h.tensor(DType::bf16, {M, N}).ref()));
                         b.emplace("G", Binding(h.tensor(DType::f32, {M, N}).ref()));
                       });
  Sm90Plan plan;
  ASSERT_TRUE(hp.plan(kBig16, plan));
  const std::string text = detail::sm90_kernel_source(hp.problem, plan, kBig16);
  EXPECT_TRUE(contains(text, "\n// D: staged, TMA stores. Tile inputs: C (TMA-loaded into D's buffers), E (read by the "
                             "threads in pairs). Other tile outputs: F (staged behind D, TMA stores), G (stored by the "
                             "threads in pairs).\n"))
      << text.substr(0, 400);
  // A GEMM alone: D's line only.
  const HostProblem alone(DType::bf16, {64, 16}, {}, {16, 40}, {}, DType::bf16);
  ASSERT_TRUE(alone.plan(kBig16, plan));
  EXPECT_TRUE(contains(detail::sm90_kernel_source(alone.problem, plan, kBig16), "\n// D: staged, TMA stores.\n"));
}

TEST(Sm90Plan, PairsTileInputsWhoseEvenColumnsAreAlignedToAPair) {
  // D = accum + E * G (f32 D: no 2- or 1-byte input is staged), E and G tile
  // inputs bound by `bind`, L = 2, M = 64, N = 40.
  using Bind = std::function<TensorRef(HostProblem&, DType, std::int64_t, std::int64_t)>;
  const auto pairs = [](DType dtype, const Bind& bind, const Sm90TileConfig& config = kBig16) {
    const std::string source = "def epi(accum, E, G):\n    D = accum + E * G\n    return D\n";
    const auto bind_inputs = [&](HostProblem& h, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
      b.emplace("E", Binding(bind(h, dtype, M, N)));
      b.emplace("G", Binding(h.tensor(DType::bf16, {2, M, N}, {M * N + 1, N, 1}).ref()));
    };
    const HostProblem hp(DType::bf16, {2, 64, 16}, {}, {2, 16, 40}, {}, DType::f32, {}, DType::f32, DType::f32, source,
                         DType::f32, bind_inputs);
    Sm90Plan plan;
    EXPECT_TRUE(hp.plan(config, plan));
    const std::vector<std::string> notes = detail::sm90_plan_notes(hp.problem, plan, config.operands);
    return std::tuple{plan.pair_inputs, detail::sm90_kernel_name(hp.problem, plan, config), notes};
  };
  const auto contiguous = [](HostProblem& h, DType dtype, std::int64_t M, std::int64_t N) {
    return h.tensor(dtype, {2, M, N}).ref();
  };
  // G's odd batch stride leaves batch 1's pairs unaligned: never paired.
  for (const DType dtype : {DType::u8, DType::bf16, DType::f16, DType::i32, DType::f64}) {
    SCOPED_TRACE(to_string(dtype));
    const auto [mask, name, notes] = pairs(dtype, contiguous);
    EXPECT_EQ(mask, 1u);  // E is input 0, G input 1
    EXPECT_TRUE(contains(name, "EpgSm90Hook<EpgEpilogue, 0, 32, 3ull, 1ull, 1ull, ")) << name;
    EXPECT_EQ(notes.back(),
              "input 'G' is read by the kernel's threads one element per load rather than two, because its batches "
              "are an odd number of elements apart");
    for (const std::string& note : notes) EXPECT_FALSE(contains(note, "'E' is read by the kernel's threads one"));
  }
  // Rows an odd number of elements apart, a pointer one element past a
  // pair's alignment, and a step of two along n: element by element.
  const auto odd_rows = [](HostProblem& h, DType dtype, std::int64_t M, std::int64_t N) {
    return h.tensor(dtype, {2, M, N}, {M * (N + 2), N + 1, 1}).ref();
  };
  const auto offset = [](HostProblem& h, DType dtype, std::int64_t M, std::int64_t N) {
    const TensorRef whole = h.tensor(dtype, {2 * M * N + 1}).ref();
    return TensorRef::host(static_cast<const char*>(whole.data) + size_bytes(dtype), dtype, {2, M, N});
  };
  const auto strided = [](HostProblem& h, DType dtype, std::int64_t M, std::int64_t N) {
    return h.tensor(dtype, {2, M, N}, {2 * M * N, 2 * N, 2}).ref();
  };
  const auto mask = [](const auto& result) { return std::get<0>(result); };
  const auto first_note = [](const auto& result) { return std::get<2>(result).at(0); };
  EXPECT_EQ(mask(pairs(DType::f16, odd_rows)), 0u);
  EXPECT_TRUE(contains(first_note(pairs(DType::f16, odd_rows)), "'E' is read by the kernel's threads, because its rows "
                                                                  "are 82 bytes apart"));
  EXPECT_EQ(mask(pairs(DType::f16, offset)), 0u);
  EXPECT_EQ(first_note(pairs(DType::f32, offset)),
            "input 'E' is read by the kernel's threads one element per load rather than two, because its base "
            "address is not a multiple of 8 bytes (two elements)");
  EXPECT_EQ(mask(pairs(DType::f32, offset)), 0u);
  EXPECT_EQ(mask(pairs(DType::f16, strided)), 0u);
  // An f32 E is D's size: staged on a tile whose slots hold a whole f32
  // row block, read by pairs where they hold part of one.
  const Sm90TileConfig cooperative{128, 128, 1, 5, Sm90OperandClass::bits16};
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::bits16, true};
  EXPECT_EQ(mask(pairs(DType::f32, contiguous, cooperative)), 0u);
  EXPECT_EQ(mask(pairs(DType::f32, contiguous, pingpong)), 1u);
  EXPECT_EQ(mask(pairs(DType::f32, contiguous)), 1u);
}

TEST(Sm90Plan, PairsTileOutputsWhoseEvenColumnsAreAlignedToAPair) {
  // F (f32, beside a bf16 D: stored by the threads) bound by `bind`; L = 2,
  // M = 64, N = 40.
  using Bind = std::function<TensorRef(HostProblem&, std::int64_t, std::int64_t)>;
  const auto pair_outputs = [](const Bind& bind, DType f_dtype = DType::f32) {
    const std::string source = "def epi(accum):\n    F = accum * 2.0\n    D = relu(F)\n    return D, F\n";
    const auto bind_f = [&](HostProblem& h, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
      b.emplace("F", Binding(f_dtype == DType::f32 ? bind(h, M, N) : h.tensor(f_dtype, {2, M, N}).ref()));
    };
    const HostProblem hp(DType::bf16, {2, 64, 16}, {}, {2, 16, 40}, {}, DType::bf16, {}, DType::f32, DType::f32, source,
                         DType::f32, bind_f);
    Sm90Plan plan;
    EXPECT_TRUE(hp.plan(kBig16, plan));
    return std::pair{plan.pair_outputs, detail::sm90_kernel_name(hp.problem, plan, kBig16)};
  };
  const auto [mask, name] = pair_outputs([](HostProblem& h, std::int64_t M, std::int64_t N) {
    return h.tensor(DType::f32, {2, M, N}).ref();
  });
  EXPECT_EQ(mask, 2u);  // D is output 0, F output 1
  EXPECT_TRUE(contains(name, "EpgSm90Hook<EpgEpilogue, 0, 64, 0ull, 3ull, 0ull, 2ull, ")) << name;
  // Rows an odd number of elements apart, a pointer one element past a
  // pair's alignment, a step of two along n, and an F of D's size (staged).
  EXPECT_EQ(pair_outputs([](HostProblem& h, std::int64_t M, std::int64_t N) {
              return h.tensor(DType::f32, {2, M, N}, {M * (N + 1), N + 1, 1}).ref();
            }).first,
            0u);
  EXPECT_EQ(pair_outputs([](HostProblem& h, std::int64_t M, std::int64_t N) {
              const TensorRef whole = h.tensor(DType::f32, {2 * M * N + 1}).ref();
              return TensorRef::host(static_cast<const char*>(whole.data) + 4, DType::f32, {2, M, N});
            }).first,
            0u);
  EXPECT_EQ(pair_outputs([](HostProblem& h, std::int64_t M, std::int64_t N) {
              return h.tensor(DType::f32, {2, M, N}, {2 * M * N, 2 * N, 2}).ref();
            }).first,
            0u);
  EXPECT_EQ(pair_outputs(nullptr, DType::f16).first, 0u);
}

TEST(Sm90Plan, StagesATileOutputOfDsSizeThatTmaCanStore) {
  // F of the given dtype with rows `f_ld` elements apart, beside D (bf16);
  // `activation` makes the epilogue long (its chunks then run in a loop).
  const auto problem = [&](DType f, std::int64_t f_ld, const std::string& activation = "relu") {
    const std::string source =
        "def epi(accum, alpha):\n    F = accum * alpha\n    D = " + activation + "(F)\n    return D, F\n";
    return HostProblem(DType::bf16, {2, 64, 16}, {}, {2, 16, 40}, {}, DType::bf16, {}, DType::f32, DType::f32, source,
                       DType::f32, [=](HostProblem& hp, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
                         b.emplace("alpha", Binding(0.5));
                         b.emplace("F", Binding(hp.tensor(f, {2, M, N}, {M * f_ld, f_ld, 1}).ref()));
                       });
  };
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::bits16, true};
  Sm90Plan plan;
  // F f16 with rows 48 elements (96 bytes) apart: staged, with its strides
  // for the ragged edge (N = 40: 80-byte rows).
  ASSERT_TRUE(problem(DType::f16, 48).plan(kBig16, plan));
  EXPECT_EQ(plan.staged_output, 1);
  EXPECT_EQ(plan.f.dims[0], 40u);  // {N, M, L}, as D
  EXPECT_EQ(plan.f.dims[2], 2u);
  EXPECT_EQ(plan.f.strides[0], 96u);
  EXPECT_EQ(plan.ldf, 48);
  EXPECT_EQ(plan.f_batch, 64 * 48);
  EXPECT_FALSE(plan.loop_chunks);
  // On a pingpong tile too.
  ASSERT_TRUE(problem(DType::bf16, 48).plan(pingpong, plan));
  EXPECT_EQ(plan.staged_output, 1);
  // F f32 (not D's size), rows TMA cannot store, or a long epilogue (chunks
  // in a loop): F is stored from the registers instead.
  ASSERT_TRUE(problem(DType::f32, 48).plan(kBig16, plan));
  EXPECT_EQ(plan.staged_output, -1);
  EXPECT_FALSE(plan.unaligned_tile_rows);
  const auto ragged_f = problem(DType::bf16, 41);
  ASSERT_TRUE(ragged_f.plan(kBig16, plan));
  EXPECT_EQ(plan.staged_output, -1);
  EXPECT_TRUE(plan.unaligned_tile_rows);
  const std::vector<std::string> notes = detail::sm90_plan_notes(ragged_f.problem, plan, kBig16.operands);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_TRUE(contains(notes[0], "output 'F' is written by the kernel's threads, because its rows are 82 bytes"))
      << notes[0];
  ASSERT_TRUE(problem(DType::bf16, 48, "gelu").plan(kBig16, plan));
  EXPECT_TRUE(plan.loop_chunks);
  EXPECT_EQ(plan.staged_output, -1);
  EXPECT_FALSE(plan.unaligned_tile_rows);
}

TEST(Sm90KernelKey, IsSharedExactlyByProblemsOfOneKernelName) {
  // One epilogue class; each problem differs from the first in one planned
  // fact (D's store mode, a major, an input's unit stride, the staged input
  // or output), on three tiles. The operator finds its loaded kernel by the
  // key: two names under one key would run one problem with the other's kernel.
  const std::string source = "def epi(accum, alpha, C):\n    F = accum * alpha + C\n    D = relu(F)\n    return D, F\n";
  const auto problem = [&](Dims a_strides, Dims b_strides, Dims d_strides, Dims c_strides, std::int64_t f_ld) {
    return std::make_unique<HostProblem>(
        DType::bf16, Dims{64, 16}, a_strides, Dims{16, 40}, b_strides, DType::bf16, d_strides, DType::f32, DType::f32,
        source, DType::f32, [=](HostProblem& hp, std::map<std::string, Binding>& b, std::int64_t M, std::int64_t N) {
          b.emplace("alpha", Binding(0.5));
          b.emplace("C", Binding(hp.tensor(DType::bf16, {M, N}, c_strides).ref()));
          b.emplace("F", Binding(hp.tensor(DType::bf16, {M, N}, {f_ld, 1}).ref()));
        });
  };
  std::vector<std::unique_ptr<HostProblem>> problems;
  problems.push_back(problem({}, {}, {}, {48, 1}, 48));
  problems.push_back(problem({}, {}, {44, 1}, {48, 1}, 48));  // D's rows 88 bytes apart: stored by the threads
  problems.push_back(problem({1, 64}, {}, {}, {48, 1}, 48));  // A column-major
  problems.push_back(problem({}, {1, 16}, {}, {48, 1}, 48));  // B column-major
  problems.push_back(problem({}, {}, {}, {41, 1}, 48));       // C not staged
  problems.push_back(problem({}, {}, {}, {1, 64}, 48));       // C column-major: no unit stride along n
  problems.push_back(problem({}, {}, {}, {48, 1}, 41));       // F not staged
  const Sm90TileConfig configs[] = {kBig16, {128, 128, 1, 5, Sm90OperandClass::bits16, true},
                                    {64, 128, 1, 8, Sm90OperandClass::bits16}};
  std::vector<std::pair<std::string, std::uint64_t>> kernels;
  for (const Sm90TileConfig& config : configs) {
    for (const auto& hp : problems) {
      Sm90Plan plan;
      ASSERT_TRUE(hp->plan(config, plan));
      // Each also as the kernel of problems with one kind of tile only.
      for (const int kinds : {detail::kSm90InsideTiles | detail::kSm90EdgeTiles, detail::kSm90InsideTiles,
                              detail::kSm90EdgeTiles}) {
        plan.tile_kinds = kinds;
        kernels.emplace_back(detail::sm90_kernel_name(hp->problem, plan, config),
                             detail::sm90_kernel_key(hp->problem, plan, config));
      }
    }
  }
  std::set<std::string> names;
  for (const auto& [name, key] : kernels) names.insert(name);
  EXPECT_EQ(names.size(), kernels.size()) << "each problem and tile should name a kernel of its own";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    for (std::size_t j = i + 1; j < kernels.size(); ++j) {
      EXPECT_EQ(kernels[i].first == kernels[j].first, kernels[i].second == kernels[j].second)
          << kernels[i].first << "\n" << kernels[j].first;
    }
  }
}

TEST(Sm90Plan, KernelsCompileTheEpilogueOnlyForTheKindsOfTileTheProblemHas) {
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::bits16, true};
  const Sm90TileConfig skinny{64, 128, 1, 8, Sm90OperandClass::bits16};  // two consumers of 64 columns
  const auto kinds = [](const Sm90TileConfig& config, std::int64_t m, std::int64_t n) {
    Sm90Plan plan;
    EXPECT_TRUE(HostProblem(DType::bf16, {m, 64}, {}, {64, n}, {}, DType::bf16).plan(config, plan));
    return plan.tile_kinds;
  };
  constexpr int kInside = detail::kSm90InsideTiles, kEdge = detail::kSm90EdgeTiles;
  EXPECT_EQ(kinds(pingpong, 256, 384), kInside);
  EXPECT_EQ(kinds(pingpong, 192, 384), kInside | kEdge);  // M not a multiple of 128
  EXPECT_EQ(kinds(pingpong, 256, 320), kInside | kEdge);  // N not a multiple of 128
  EXPECT_EQ(kinds(pingpong, 16, 384), kEdge);             // every row block crosses M
  EXPECT_EQ(kinds(pingpong, 256, 96), kEdge);             // every tile crosses N
  // A 2x1 cluster over 3 tile rows: the last cluster's second tile lies past M.
  const Sm90TileConfig clustered{128, 256, 2, 3, Sm90OperandClass::bits16};
  EXPECT_EQ(kinds(clustered, 512, 512), kInside);
  EXPECT_EQ(kinds(clustered, 384, 512), kInside | kEdge);
  EXPECT_EQ(kinds(clustered, 128, 256), kInside | kEdge);
  EXPECT_EQ(kinds(skinny, 192, 256), kInside);
  EXPECT_EQ(kinds(skinny, 64, 96), kInside | kEdge);      // a consumer's 64 columns fit once
  EXPECT_EQ(kinds(skinny, 16, 256), kEdge);
  EXPECT_EQ(kinds(skinny, 64, 32), kEdge);
  // The kernel's name says so: GemmConfig's last argument, after k_group and kCutsTiles.
  Sm90Plan plan;
  const HostProblem whole(DType::bf16, {256, 64}, {}, {64, 384}, {}, DType::bf16);
  ASSERT_TRUE(whole.plan(pingpong, plan));
  EXPECT_TRUE(contains(detail::sm90_kernel_name(whole.problem, plan, pingpong), ", 1, true, 1>, EpgSm90Hook"));
  plan.stream_k_code = false;
  EXPECT_TRUE(contains(detail::sm90_kernel_name(whole.problem, plan, pingpong), ", 1, false, 1>, EpgSm90Hook"));
  const HostProblem thin(DType::bf16, {16, 64}, {}, {64, 384}, {}, DType::bf16);
  ASSERT_TRUE(thin.plan(skinny, plan));
  plan.stream_k_code = true;
  EXPECT_TRUE(contains(detail::sm90_kernel_name(thin.problem, plan, skinny), ", 1, true, 2>, EpgSm90Hook"));
}

TEST(Sm90Plan, TileKindsSayWhetherAnyWarpgroupTileCrossesTheOutputsEdge) {
  // Every warpgroup tile the kernel's scheduler makes (64-row blocks of
  // warpgroup_n() columns, cluster_m tiles stacked along M, the last
  // cluster's tiles past M included), against sm90_tile_kinds: without the
  // edge kind the kernel runs only the unchecked epilogue, so no tile may
  // cross M or N then; without the inside kind, no tile may be inside.
  for (const Sm90TileConfig& config : detail::sm90_tile_configs()) {
    for (const std::int64_t M : {1, 16, 63, 64, 65, 128, 129, 192, 256, 320, 384, 512, 640}) {
      for (const std::int64_t N : {8, 32, 64, 96, 128, 192, 256, 320, 384, 512, 1000, 1024}) {
        detail::Problem problem;
        problem.M = M;
        problem.N = N;
        const int kinds = detail::sm90_tile_kinds(config, problem);
        const std::int64_t cluster_rows = config.bm * config.cluster_m;
        const std::int64_t row_end = (M + cluster_rows - 1) / cluster_rows * cluster_rows;
        const std::int64_t col_end = (N + config.bn - 1) / config.bn * config.bn;
        bool any_inside = false, any_edge = false;
        for (std::int64_t m = 0; m < row_end; m += 64) {
          for (std::int64_t n = 0; n < col_end; n += config.warpgroup_n()) {
            const bool inside = m + 64 <= M && n + config.warpgroup_n() <= N;
            any_inside = any_inside || inside;
            any_edge = any_edge || !inside;
          }
        }
        SCOPED_TRACE(config.shape_name() + " M " + std::to_string(M) + " N " + std::to_string(N));
        EXPECT_EQ((kinds & detail::kSm90InsideTiles) != 0, any_inside);
        EXPECT_EQ((kinds & detail::kSm90EdgeTiles) != 0, any_edge);
      }
    }
  }
}

TEST(Sm90Plan, LoopsOverChunksOnlyForLongEpilogues) {
  // Calls `fn` on the accumulator, computing in `compute`.
  const auto loops = [](const std::string& fn, DType compute) {
    const std::string source = "def epi(accum):\n    D = " + fn + "(accum)\n    return D\n";
    Sm90Plan plan;
    EXPECT_TRUE(HostProblem(DType::bf16, {64, 16}, {}, {16, 64}, {}, DType::bf16, {}, DType::f32, compute, source)
                    .plan(kBig16, plan));
    return plan.loop_chunks;
  };
  EXPECT_FALSE(loops("relu", DType::f32));
  // One ex2 and one reciprocal in f32: as short as the arithmetic.
  EXPECT_FALSE(loops("sigmoid", DType::f32));
  EXPECT_FALSE(loops("silu", DType::f32));
  EXPECT_FALSE(loops("gelu_tanh", DType::f32));
  // The math library's forms.
  EXPECT_TRUE(loops("gelu", DType::f32));
  EXPECT_TRUE(loops("tanh", DType::f32));
  EXPECT_TRUE(loops("exp", DType::f32));
  EXPECT_TRUE(loops("silu", DType::bf16));
}

TEST(Sm90TileConfigs, StageFp8DInWholeRowsOrTheWarpgroupWidth) {
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    SCOPED_TRACE(c.shape_name());
    // 192-column warpgroups stage an fp8 D in three 64-column chunks,
    // 160- and 96-column ones every D in chunks of 32.
    const bool part_chunks = c.warpgroup_n() % 64 != 0;
    EXPECT_EQ(c.chunk_cols(1), part_chunks ? 32 : c.warpgroup_n() == 192 ? 64 : std::min(c.warpgroup_n(), 128));
    EXPECT_EQ(c.chunk_cols(2), part_chunks ? 32 : std::min(c.warpgroup_n(), 64));
    EXPECT_EQ(c.chunk_cols(4), 32);
    EXPECT_EQ(c.warpgroup_n() % c.chunk_cols(1), 0);
  }
  // 128x256: two 128-column fp8 chunks per warpgroup, both staged at once.
  EXPECT_EQ(kBig16.epilogue_slots(1), 2);
  EXPECT_EQ(kBigFp8.epilogue_slots(1), 2);
  // 64x128: each warpgroup owns 64 columns, one chunk of 64 rows x 64 bytes.
  const Sm90TileConfig small{64, 128, 1, 6, Sm90OperandClass::fp8};
  EXPECT_EQ(small.warpgroup_n(), 64);
  EXPECT_EQ(small.chunk_cols(1), 64);
  EXPECT_EQ(small.epilogue_slots(1), 1);
  EXPECT_EQ(small.shared_bytes(1), 1024 + 6 * (64 + 128) * 128 + 2 * 64 * 64 + (2 * 6 + 3) * 8);
}

TEST(Sm90TileConfigs, FitInSharedMemoryAndHaveUniqueNames) {
  std::set<std::string> names;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    names.insert(detail::sm90_metadata(c).name);
    for (int d_bytes : {1, 2, 4}) {
      EXPECT_LE(c.shared_bytes(d_bytes) + detail::kSm90TotalsSharedBytes, detail::kSm90MaxSharedBytes)
          << c.shape_name();
      const int cols = c.chunk_cols(d_bytes);
      // The kernel stages 128-byte rows, or the whole warpgroup tile when it
      // is narrower: 64 bytes, or 32 (fp8 D on 64x64's 32-column warpgroups);
      // or less where 128 do not divide the warpgroup tile (fp8 D on 192: 64
      // bytes; 160 and 96 columns: 32-column chunks, 32 to 128 bytes).
      EXPECT_TRUE(cols * d_bytes == 128 || ((cols * d_bytes == 64 || cols * d_bytes == 32) && cols == c.warpgroup_n()) ||
                  (cols * d_bytes == 64 && c.warpgroup_n() % (128 / d_bytes) != 0) ||
                  (cols == 32 && c.warpgroup_n() % 64 != 0))
          << c.shape_name();
      EXPECT_EQ(c.warpgroup_n() % cols, 0) << c.shape_name();
      EXPECT_EQ((c.warpgroup_n() / cols) % c.epilogue_slots(d_bytes), 0) << c.shape_name();
    }
  }
  EXPECT_EQ(names.size(), detail::sm90_tile_configs().size());
  // The 128x256 tile stages an f32 D in halves; 16-bit D whole.
  EXPECT_EQ(kBig16.epilogue_slots(4), 4);
  EXPECT_EQ(kBig16.epilogue_slots(2), 4);
  // 128x160 (four 40 KB stages, B's room three 64-column chunks): its five
  // chunks fit whole for a 16-bit D; for an f32 D the slots must divide five.
  const Sm90TileConfig mid{128, 160, 1, 4, Sm90OperandClass::bits16};
  EXPECT_EQ(mid.epilogue_slots(2), 5);
  EXPECT_EQ(mid.epilogue_slots(4), 1);
  EXPECT_EQ(mid.shared_bytes(2), 1024 + 4 * (128 + 192) * 128 + 2 * 5 * 64 * 64 + (2 * 4 + 3) * 8);
}

TEST(Sm90TileConfigs, TheTallTileRunsThreeConsumersOfWholeTiles) {
  // 192x96: one consumer per 64-row block (512 threads), each 64 x 96 in
  // three 32-column chunks; four 40 KB stages (B's room two 64-column
  // chunks) beside three consumers' slots and barriers.
  const Sm90TileConfig tall{192, 96, 1, 4, Sm90OperandClass::bits16};
  ASSERT_NE(std::find_if(detail::sm90_tile_configs().begin(), detail::sm90_tile_configs().end(),
                         [&](const Sm90TileConfig& c) { return c.shape_name() == tall.shape_name(); }),
            detail::sm90_tile_configs().end());
  EXPECT_EQ(tall.consumers(), 3);
  EXPECT_EQ(tall.threads(), 512);
  EXPECT_EQ(detail::sm90_metadata(tall).extra.at("threads"), "512");
  EXPECT_EQ(kBig16.threads(), 384);
  EXPECT_EQ(tall.warpgroup_n(), 96);
  EXPECT_EQ(tall.chunk_cols(2), 32);
  EXPECT_EQ(tall.epilogue_slots(2), 3);
  EXPECT_EQ(tall.shared_bytes(2), 1024 + 4 * (192 + 128) * 128 + 3 * 3 * 64 * 64 + (2 * 4 + 3 + 1) * 8);
  EXPECT_EQ(tall.epilogue_slots(4), 1);  // three f32 chunks do not fit beside the ring
  // It does not cut tiles along K (stream-K's workspace holds two consumers' flags a CTA).
  EXPECT_FALSE(tall.may_cut_along_k());
}

TEST(Sm90TileConfigs, ClustersDivideAnNMajorBAlongKOnlyWhereItsChunksDoNotDivide) {
  // 128x192 in 2x1 clusters: three 64-column chunks of an N-major B, so each
  // CTA loads half of every chunk's rows of K; a K-major B divides by rows of N.
  const Sm90TileConfig mid_pair{128, 192, 2, 4, Sm90OperandClass::bits16};
  EXPECT_TRUE(mid_pair.splits_b_along_k(false));
  EXPECT_FALSE(mid_pair.splits_b_along_k(true));
  // A width of part chunks counts its last chunk, as the kernel's kBChunks
  // does: 160 columns are three 64-column chunks.
  EXPECT_EQ((Sm90TileConfig{128, 160, 2, 4, Sm90OperandClass::bits16}.b_chunks()), 3);
  EXPECT_TRUE((Sm90TileConfig{128, 160, 2, 4, Sm90OperandClass::bits16}.splits_b_along_k(false)));
  EXPECT_EQ(mid_pair.b_box_dim1(false), 32);  // rows of K
  EXPECT_EQ(mid_pair.b_box_dim1(true), 96);   // rows of N
  EXPECT_EQ(kBig16.b_box_dim1(false), 64);
  // Of the offered tiles only 128x192 2x1 splits (128x256 2x1 divides its four chunks).
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    EXPECT_EQ(c.splits_b_along_k(false), c.bn == 192 && c.cluster_m == 2) << c.shape_name();
    EXPECT_FALSE(c.splits_b_along_k(true)) << c.shape_name();
  }
  EXPECT_FALSE(kBig16.splits_b_along_k(false));
}

TEST(Sm90TileConfigs, AnNMajorBComesInChunksThatTheTileWidthDivides) {
  // 64-column chunks swizzled 128 bytes wide, but 32-column chunks swizzled
  // 64 bytes wide on a tile 96 wide: TMA boxes of 32 x 64 that load only the
  // tile's columns; a tile 160 wide loads two whole chunks and a tail of 32
  // columns through a map of its own. A K-major B keeps boxes of 64 elements
  // of K, swizzled 128 bytes wide, and no tail.
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    const bool part_chunks = c.bn == 96;
    EXPECT_EQ(c.b_chunk_cols(), part_chunks ? 32 : 64) << c.shape_name();
    EXPECT_EQ(c.b_tail(false), c.bn == 160) << c.shape_name();
    EXPECT_FALSE(c.b_tail(true)) << c.shape_name();
    EXPECT_EQ(c.b_box_dim0(true), c.bk()) << c.shape_name();
    EXPECT_EQ(c.b_swizzle_bytes(true), 128) << c.shape_name();
    if (c.operands != Sm90OperandClass::bits16) continue;  // an N-major B is 16-bit
    EXPECT_EQ(c.b_box_dim0(false), part_chunks ? 32 : 64) << c.shape_name();
    EXPECT_EQ(c.b_swizzle_bytes(false), part_chunks ? 64 : 128) << c.shape_name();
  }
  EXPECT_EQ((Sm90TileConfig{192, 96, 1, 4, Sm90OperandClass::bits16}.b_box_dim0(false)), 32);
  EXPECT_EQ((Sm90TileConfig{192, 96, 1, 4, Sm90OperandClass::bits16}.b_swizzle_bytes(false)), 64);
  EXPECT_EQ((Sm90TileConfig{128, 160, 1, 4, Sm90OperandClass::bits16}.b_swizzle_bytes(false)), 128);
  EXPECT_EQ(kBig16.b_box_dim0(false), 64);
}

TEST(Sm90TileConfigs, SkinnyTilesStageNarrowChunksAndKeepDeepRings) {
  const Sm90TileConfig* narrow = nullptr;
  const Sm90TileConfig* wide = nullptr;
  const Sm90TileConfig* grouped = nullptr;
  const Sm90TileConfig* finer = nullptr;
  const Sm90TileConfig* tall = nullptr;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.operands != Sm90OperandClass::bits16) continue;
    if (c.bm == 64 && c.bn == 64 && c.k_group == 1) narrow = &c;
    if (c.bm == 64 && c.bn == 64 && c.k_group == 4) grouped = &c;
    if (c.bm == 64 && c.bn == 64 && c.k_group == 2) finer = &c;
    if (c.bm == 128 && c.bn == 64 && c.k_group == 1) wide = &c;
    if (c.bm == 64 && c.bn == 128 && c.k_group == 1) tall = &c;
  }
  ASSERT_NE(narrow, nullptr);
  ASSERT_NE(wide, nullptr);
  ASSERT_NE(tall, nullptr);
  ASSERT_NE(grouped, nullptr);
  ASSERT_NE(finer, nullptr);
  // The grouped 64x64 tiles: 4 k-blocks of A and B per stage in 3 stages, or
  // 2 in 6; the same ~96 KB of B in flight, and no room for another stage.
  for (const Sm90TileConfig* g : {grouped, finer}) {
    EXPECT_EQ(g->shared_bytes(2), 1024 + g->stages * g->k_group * 128 * 128 + 2 * 64 * 64 + 16 * g->stages + 24);
    EXPECT_GE(g->stages * g->k_group * g->bn * 128, 96 * 1024);
    Sm90TileConfig deeper = *g;
    ++deeper.stages;
    EXPECT_GT(deeper.shared_bytes(4), detail::kSm90MaxSharedBytes);
  }
  EXPECT_EQ(grouped->stages * grouped->k_group, finer->stages * finer->k_group);
  EXPECT_EQ(grouped->shape_name(), "64x64x64_c1x1_kgroup4");
  EXPECT_EQ(finer->shape_name(), "64x64x64_c1x1_kgroup2");
  // 64x64: each consumer owns 64 x 32; a 16-bit D is staged 64 bytes wide,
  // an f32 D 128 bytes wide, one chunk per consumer.
  EXPECT_EQ(narrow->warpgroup_n(), 32);
  EXPECT_EQ(narrow->chunk_cols(2), 32);
  EXPECT_EQ(narrow->chunk_cols(4), 32);
  EXPECT_EQ(narrow->epilogue_slots(2), 1);
  EXPECT_EQ(narrow->epilogue_slots(4), 1);
  EXPECT_EQ(narrow->shared_bytes(2), 1024 + narrow->stages * 128 * 128 + 2 * 64 * 64 + 16 * narrow->stages + 24);
  // 128x64: each consumer owns 64 x 64; an f32 D takes two 128-byte chunks.
  EXPECT_EQ(wide->warpgroup_n(), 64);
  EXPECT_EQ(wide->chunk_cols(2), 64);
  EXPECT_EQ(wide->chunk_cols(4), 32);
  EXPECT_EQ(wide->epilogue_slots(4), 2);
  // One chunk per consumer: the kernel begins it before the tile's last stage.
  EXPECT_TRUE(narrow->begins_chunk_early(2));
  EXPECT_TRUE(narrow->begins_chunk_early(4));
  EXPECT_TRUE(grouped->begins_chunk_early(2));
  EXPECT_TRUE(wide->begins_chunk_early(2));
  EXPECT_FALSE(wide->begins_chunk_early(4));
  // Two 64-row blocks per pingpong consumer, two chunks per 128x256 consumer.
  EXPECT_FALSE((Sm90TileConfig{128, 128, 1, 5, Sm90OperandClass::bits16, true}.begins_chunk_early(2)));
  EXPECT_FALSE((Sm90TileConfig{128, 256, 1, 3, Sm90OperandClass::bits16}.begins_chunk_early(2)));
  // Promotion (precise fp8) builds the Tile after the main loop: one chunk of
  // a 1-byte D per 128x128 consumer, but not begun early.
  EXPECT_TRUE((Sm90TileConfig{128, 128, 2, 5, Sm90OperandClass::fp8}.begins_chunk_early(1)));
  EXPECT_FALSE((Sm90TileConfig{128, 128, 2, 5, Sm90OperandClass::fp8, false, 1}.begins_chunk_early(1)));
  // The hook holds vector values for a chunk begun early (1), and loads them
  // a chunk ahead (2) only for unrolled chunks of a kernel with edge tiles.
  EXPECT_EQ(narrow->vector_hold(2, true, false), 1);
  EXPECT_EQ(narrow->vector_hold(2, false, true), 1);
  const Sm90TileConfig five{128, 160, 1, 4, Sm90OperandClass::bits16};
  EXPECT_EQ(five.vector_hold(2, true, false), 2);
  EXPECT_EQ(five.vector_hold(2, false, false), 0);
  EXPECT_EQ(five.vector_hold(2, true, true), 0);
  EXPECT_EQ((Sm90TileConfig{128, 128, 1, 5, Sm90OperandClass::bits16, true}.vector_hold(2, true, false)), 2);
  EXPECT_EQ((Sm90TileConfig{128, 128, 2, 5, Sm90OperandClass::fp8, false, 1}.vector_hold(1, true, false)), 0);
  // At least ~100 KB (64x64) and 64 KB (128x64) of B in flight per SM.
  EXPECT_GE(narrow->stages * narrow->bn * 128, 100 * 1024);
  EXPECT_GE(wide->stages * wide->bn * 128, 64 * 1024);
  // Deeper would not fit next to an f32 D's staging (64x128 keeps the 8
  // stages of 128x64).
  EXPECT_EQ(tall->stages, 8);
  for (const Sm90TileConfig* c : {narrow, wide, tall}) {
    Sm90TileConfig deeper = *c;
    ++deeper.stages;
    EXPECT_GT(deeper.shared_bytes(4), detail::kSm90MaxSharedBytes) << c->shape_name();
  }
}

/// The configuration of `operands` the heuristic ranks first for `p`,
/// among those `keep` admits (all when it is empty).
/// `l2_bytes`: the device's L2 size (the H200's by default).
Sm90TileConfig best_of(const detail::Problem& p, Sm90OperandClass operands = Sm90OperandClass::bits16,
                       const std::function<bool(const Sm90TileConfig&)>& keep = {},
                       std::int64_t l2_bytes = detail::kSm90DefaultL2Bytes) {
  const Sm90TileConfig* best = nullptr;
  int best_score = 0;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    // The tiles that write D column-major run a row-major D's transpose
    // (their operators orient it; see
    // ColumnMajorDTilesTakeTheTransposeWhereAPartChunkTileWouldReadAnNMajorB).
    if (c.operands != operands || c.d_column_major || (keep && !keep(c))) continue;
    const int score = detail::sm90_preference(c, p, 132, l2_bytes);
    EXPECT_GT(score, 0);
    if (best == nullptr || score > best_score) best = &c, best_score = score;
  }
  EXPECT_NE(best, nullptr);
  return best == nullptr ? Sm90TileConfig{} : *best;
}

/// The configuration of `operands` the heuristic ranks first for extents (M, N, K).
Sm90TileConfig best_for(std::int64_t M, std::int64_t N, std::int64_t K,
                        Sm90OperandClass operands = Sm90OperandClass::bits16) {
  detail::Problem p;
  p.M = M;
  p.N = N;
  p.K = K;
  return best_of(p, operands);
}

std::string shape_of(const Sm90TileConfig& c) { return c.shape_name(); }

/// The shape name of the 16-bit operator that ranks first for `p` (each
/// orients the problem as its tile writes D), among the grouped-k tiles too
/// where `grouped_k`.
std::string first_operator_shape(const detail::Problem& p, bool grouped_k) {
  std::string best;
  int best_score = 0;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    if (c.operands != Sm90OperandClass::bits16 || (!grouped_k && c.k_group > 1)) continue;
    const int score = detail::Sm90Operator(c).preference(p);
    if (best.empty() || score > best_score) best = c.shape_name(), best_score = score;
  }
  return best;
}

/// D = accum: the DAG of a GEMM alone.
ir::Dag gemm_alone_dag() {
  ir::Dag dag;
  dag.outputs = {"D"};
  ir::Node fetch;
  fetch.kind = ir::NodeKind::AccFetch;
  dag.add(fetch);
  ir::Node store;
  store.kind = ir::NodeKind::Store;
  store.store_kind = ir::StoreKind::Tile;
  store.inputs = {0};
  dag.add(store);
  return dag;
}

/// The L2 sizes of the two cards the heuristic was measured on.
constexpr std::int64_t kH100L2 = std::int64_t{50} << 20;
constexpr std::int64_t kH200L2 = std::int64_t{60} << 20;  // kSm90DefaultL2Bytes

/// The shape of the fast-accumulating tile of `operands` ranked first for
/// (M, N, K) on a card with `l2` bytes of L2; `dag` null: ranked as a fused
/// epilogue.
std::string fast_accumulating_best(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t l2,
                                   Sm90OperandClass operands = Sm90OperandClass::bits16,
                                   const ir::Dag* dag = nullptr) {
  detail::Problem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.dag = dag;
  return shape_of(best_of(p, operands, [](const Sm90TileConfig& c) { return c.promote_k_blocks == 0; }, l2));
}

TEST(Sm90Heuristic, PicksTheTileFromTheShapeAndSmCount) {
  EXPECT_EQ(best_for(64, 4096, 4096).bm, 64);
  // Skinny problems of 64 tiles or fewer split K (sm90_split_k_slices) on
  // the grouped 64x64 tile, ranked as two slices (kSplitKRankedSlices): 64
  // tiles run in 2 slices, 16 in 8.
  EXPECT_EQ(shape_of(best_for(8, 4096, 4096)), "64x64x64_c1x1_kgroup2");
  EXPECT_EQ(shape_of(best_for(16, 1024, 4096)), "64x64x64_c1x1_kgroup2");
  // 128x256 would leave 100 SMs idle; 64x64 would take two waves; of the
  // one-wave tiles with the deepest ring, 64x128 measured faster than 128x64.
  EXPECT_EQ(shape_of(best_for(1024, 1024, 1024)), "64x128x64_c1x1");
  // Several 128x128 tiles per CTA: pingpong, whose consumers hide each
  // other's epilogues; a 1x1 grid (measured faster than 2x1 there).
  EXPECT_EQ(shape_of(best_for(8192, 8192, 8192)), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(shape_of(best_for(4096, 4096, 4096)), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(shape_of(best_for(4096, 14336, 4096)), "128x128x64_c1x1_pingpong");
  // Two tiles per CTA are enough for pingpong (one consumer's epilogue under
  // the other's main loop); one is not (1024^3 above).
  EXPECT_EQ(shape_of(best_for(2048, 2048, 2048)), "128x128x64_c1x1_pingpong");
  // Where 128x128 would leave a last wave of a third of the SMs (3072^3:
  // 576 tiles, 4.4 waves), 128x192 (384 tiles, 2.9 waves).
  EXPECT_EQ(shape_of(best_for(3072, 3072, 3072)), "128x192x64_c1x1");
  // One wave at 1536^3 (64x128: 288 tiles, 2.2 waves): 120 tiles of 128x160
  // put more SMs to work than 96 of 128x192.
  EXPECT_EQ(shape_of(best_for(1536, 1536, 1536)), "128x160x64_c1x1");
  EXPECT_EQ(shape_of(best_for(2048, 1536, 1536)), "128x192x64_c1x1");
  // One wave of 24 k-blocks or more on an elongated problem in 128 tiles of
  // 192x96 (three consumers), against 96 of 128x192 or 120 of 128x160
  // (measured 0.89-0.925 and 0.80-0.83 of their time at K = 4096); not on a
  // square one (1536^2: 1.04-1.11 of 128x160's), not past one wave, not at
  // shorter K.
  EXPECT_EQ(shape_of(best_for(768, 3072, 4096)), "192x96x64_c1x1");
  EXPECT_EQ(shape_of(best_for(3072, 768, 4096)), "192x96x64_c1x1");
  EXPECT_EQ(shape_of(best_for(3072, 768, 1536)), "192x96x64_c1x1");
  EXPECT_EQ(shape_of(best_for(1536, 1536, 4096)), "128x160x64_c1x1");
  EXPECT_NE(shape_of(best_for(3072, 1536, 4096)), "192x96x64_c1x1");
  EXPECT_NE(shape_of(best_for(1536, 3072, 4096)), "192x96x64_c1x1");
  EXPECT_NE(shape_of(best_for(768, 3072, 1024)), "192x96x64_c1x1");
}

TEST(Sm90Heuristic, AnNMajorBRanksTilesOfWholeChunksFirst) {
  // bf16: with B row-major (N-major) 128x160, loading three whole 64-column
  // chunks of B, ran 7-33% slower than with B column-major; the tiles of
  // whole chunks measured faster in its place (kPartChunkNMajorBCost).
  // 192x96, loading three 32-column chunks, leads on one wave of a square
  // problem below 40 k-blocks (kTallTileSquareCost).
  const auto best = [](std::int64_t M, std::int64_t N, std::int64_t K, detail::Layout b_layout) {
    detail::Problem p;
    p.M = M;
    p.N = N;
    p.K = K;
    for (detail::MatrixOperand* x : {&p.A, &p.B, &p.D}) x->dtype = DType::bf16;
    p.A.row_stride = K;
    p.A.col_stride = 1;
    p.D.row_stride = N;
    p.D.col_stride = 1;
    p.B.layout = b_layout;
    const bool row_major = b_layout == detail::Layout::row_major;
    p.B.row_stride = row_major ? N : 1;
    p.B.col_stride = row_major ? 1 : K;
    EXPECT_EQ(detail::sm90_reads_k_major(p.B, true, Sm90OperandClass::bits16, 1), !row_major);
    return shape_of(best_of(p, Sm90OperandClass::bits16, {}, kH100L2));
  };
  constexpr detail::Layout row = detail::Layout::row_major, col = detail::Layout::col_major;
  EXPECT_EQ(best(1536, 1536, 4096, col), "128x160x64_c1x1");
  // One wave of a square problem from 48 k-blocks: the tail chunk's tile
  // (128x192 and 128x128 1.0-1.05 of its time; 192x96 slower still;
  // kPartChunkLongKMinKBlocks).
  EXPECT_EQ(best(1536, 1536, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(1536, 1664, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(1408, 1792, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(1408, 1536, 4096, row), "128x128x64_c1x1");  // 132 tiles: 128x160 1.24-1.29
  EXPECT_EQ(best(1536, 1536, 1536, row), "192x96x64_c1x1");    // 0.924-0.993 of 128x192's
  EXPECT_EQ(best(1536, 1536, 2048, row), "192x96x64_c1x1");    // 0.945-1.008 of 128x192's
  EXPECT_EQ(best(1536, 1536, 1536, col), "128x160x64_c1x1");
  EXPECT_EQ(best(2304, 1024, 2048, row), "128x128x64_c1x1");  // not square: 192x96 unmeasured
  EXPECT_EQ(best(2304, 1024, 4096, col), "128x160x64_c1x1");
  // One wave of long K up to 2.5 times as long as wide goes uncharged too:
  // 0.72-1.03 of the former pick's time (1024x2176: 1.02-1.07, a loss taken).
  EXPECT_EQ(best(2304, 1024, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(1024, 2432, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(1088, 2048, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(2176, 960, 4096, row), "128x160x64_c1x1");
  EXPECT_EQ(best(2176, 960, 8192, row), "128x160x64_c1x1");   // 0.72-0.76 of 128x64's
  EXPECT_EQ(best(1088, 2048, 3072, row), "128x160x64_c1x1");  // 0.83-0.86 of 64x128's
  EXPECT_EQ(best(1536, 1024, 4096, row), "128x128x64_c1x1");  // 128x160 1.26-1.30 of its time
  EXPECT_NE(best(3072, 1024, 4096, row), "128x160x64_c1x1");  // 3 times as long: charged
  EXPECT_EQ(best(2304, 2048, 4096, row), "128x128x64_c1x1_pingpong");  // 0.85-0.89
  // One wave of fewer than 24 k-blocks keeps 128x160 (128x192 1.03-1.10 of its
  // time with the light epilogues); past one wave short K is charged too.
  EXPECT_EQ(best(3072, 768, 1024, row), "128x160x64_c1x1");
  EXPECT_EQ(best(1536, 1536, 1024, row), "128x160x64_c1x1");
  EXPECT_EQ(best(2304, 1024, 1536, row), "128x128x64_c1x1");  // 128x160 the slowest (ncu)
  EXPECT_EQ(best(2304, 2048, 1024, row), "128x128x64_c1x1_pingpong");  // 0.85-1.0
  // 192x96 keeps its picks with either major: it ran as fast with both there.
  EXPECT_EQ(best(3072, 768, 4096, row), "192x96x64_c1x1");
  EXPECT_EQ(best(3072, 768, 4096, col), "192x96x64_c1x1");
}

TEST(Sm90Heuristic, ColumnMajorDTilesTakeTheTransposeWhereAPartChunkTileWouldReadAnNMajorB) {
  // bf16, A row-major: the operators' ranking (each maps the problem to the
  // orientation its tile writes). With B row-major, the part-chunk tiles
  // ran 7-12% faster on the transpose (B read K-major as A^T) than on the
  // problem as it is, but 192x96 on a wide transpose 1-4% slower
  // (kColumnMajorDPartChunkGain); the whole-chunk tiles tied or lost.
  const auto pick = [](std::int64_t M, std::int64_t N, std::int64_t K, bool b_row_major, bool d_row_major) {
    const HostProblem hp(DType::bf16, {M, K}, {}, {K, N}, b_row_major ? Dims{} : Dims{1, K}, DType::bf16,
                         d_row_major ? Dims{} : Dims{1, M});
    return first_operator_shape(hp.problem, false);
  };
  EXPECT_EQ(pick(1536, 1536, 1536, true, true), "128x160x64_c1x1_dcol");  // 0.929-0.937 of 192x96's
  EXPECT_EQ(pick(1536, 1536, 4096, true, true), "128x160x64_c1x1_dcol");  // 0.916-0.925
  EXPECT_EQ(pick(1536, 1536, 1024, true, true), "128x160x64_c1x1_dcol");  // 0.926-0.952
  EXPECT_EQ(pick(2304, 1024, 4096, true, true), "128x160x64_c1x1_dcol");  // 0.929-0.930
  EXPECT_EQ(pick(1024, 2304, 4096, true, true), "128x160x64_c1x1_dcol");  // 0.881-0.890 of 128x192's
  EXPECT_EQ(pick(768, 3072, 4096, true, true), "192x96x64_c1x1_dcol");    // 0.898-0.925
  EXPECT_EQ(pick(3072, 768, 4096, true, true), "192x96x64_c1x1");         // dcol 1.010-1.041
  EXPECT_EQ(pick(6144, 384, 4096, true, true), "192x96x64_c1x1");         // dcol 1.014-1.038
  EXPECT_EQ(pick(2048, 2048, 2048, true, true).find("_dcol"), std::string::npos);  // dcol 1.008-1.029
  EXPECT_EQ(pick(4096, 4096, 4096, true, true).find("_dcol"), std::string::npos);  // dcol 0.998-1.020
  // B column-major: both orientations read K-major operands.
  EXPECT_EQ(pick(1536, 1536, 1536, false, true), "128x160x64_c1x1");
  // A column-major D: the row-major tiles' transpose (B^T as an M-major
  // A') beat 192x96 writing it as it is (1.054-1.073).
  EXPECT_EQ(pick(1536, 1536, 1536, true, false), "128x160x64_c1x1");
}

TEST(Sm90Heuristic, OneWaveOfALongEpilogueTakesTheTallTileOfThreeConsumers) {
  // gelu(acc + bias), bf16, A row-major: one wave's epilogue is the exposed
  // tail, 1.4-1.6 us on 192x96's three consumers against 3.0-4.3 on 128x160
  // (kLongEpilogueTallTileCredit). Past one wave, on few tiles and for the
  // short f32 transcendentals (silu) the picks stay.
  const auto pick = [](std::int64_t M, std::int64_t N, std::int64_t K, bool b_row_major, const char* activation) {
    const std::string source = std::string("def epi(accum, bias):\n    D = ") + activation + "(accum + bias)\n    return D\n";
    const auto bind_bias = [](HostProblem& hp, std::map<std::string, Binding>& bindings, std::int64_t, std::int64_t n) {
      bindings.emplace("bias", Binding(hp.tensor(DType::bf16, {1, n}).ref()));
    };
    const HostProblem hp(DType::bf16, {M, K}, {}, {K, N}, b_row_major ? Dims{} : Dims{1, K}, DType::bf16, {},
                         DType::f32, DType::f32, source, DType::f32, bind_bias);
    return first_operator_shape(hp.problem, true);
  };
  EXPECT_EQ(pick(1536, 1536, 1536, true, "gelu"), "192x96x64_c1x1");          // 0.903 of 128x160 dcol's
  EXPECT_EQ(pick(1536, 1536, 2048, true, "gelu"), "192x96x64_c1x1");          // 0.947
  EXPECT_EQ(pick(1536, 1536, 512, true, "gelu"), "192x96x64_c1x1_dcol");      // 0.757
  EXPECT_EQ(pick(3072, 768, 512, true, "gelu"), "192x96x64_c1x1");            // 0.868 of 128x160's
  EXPECT_EQ(pick(1536, 1536, 1536, true, "silu"), "128x160x64_c1x1_dcol");
  EXPECT_EQ(pick(1536, 1536, 1536, false, "silu"), "128x160x64_c1x1");
  EXPECT_NE(pick(2304, 2048, 1024, true, "gelu").find("128x128x64_c"), std::string::npos);  // two waves
  EXPECT_EQ(pick(4096, 4096, 4096, true, "gelu").find("192x96"), std::string::npos);
  for (const std::int64_t size : {64, 256, 512, 768}) {
    SCOPED_TRACE(size);
    EXPECT_EQ(pick(size, size, 512, true, "gelu").find("192x96"), std::string::npos);
  }
}

TEST(Sm90Heuristic, AGemmAloneTakesTheWideCooperativeTileUnlessKIsShort) {
  // D = accum: the cooperative tile exposes only D's store, and 128x256 1x1
  // measured 1-4% faster than 128x128 pingpong at these shapes (one wave
  // of long K included); with 32 k-blocks or fewer per tile (2048^3,
  // 8192x8192x1024) the exposed store outweighs that and pingpong stays
  // ahead, as it does wherever the epilogue computes.
  const auto node = [](ir::NodeKind kind, std::vector<ir::NodeId> inputs) {
    ir::Node n;
    n.kind = kind;
    n.inputs = std::move(inputs);
    if (kind == ir::NodeKind::Store) n.store_kind = ir::StoreKind::Tile;
    return n;
  };
  const ir::Dag plain = gemm_alone_dag();
  ir::Dag relu = plain;
  relu.nodes[1] = node(ir::NodeKind::Compute, {0});
  relu.nodes[1].op = ir::OpCode::relu;
  relu.add(node(ir::NodeKind::Store, {1}));
  // The fast-accumulating tile of `operands` ranked first, A and B of
  // dtype `ab`, D of dtype `d` (the store's share grows with its bytes).
  const auto best = [](std::int64_t M, std::int64_t N, std::int64_t K, const ir::Dag& dag,
                       Sm90OperandClass operands = Sm90OperandClass::bits16, DType ab = DType::bf16,
                       DType d = DType::bf16) {
    detail::Problem p;
    p.M = M;
    p.N = N;
    p.K = K;
    p.A.dtype = p.B.dtype = ab;
    p.D.dtype = d;
    p.dag = &dag;
    return shape_of(best_of(p, operands, [](const Sm90TileConfig& c) { return c.promote_k_blocks == 0; }));
  };
  EXPECT_EQ(best(4096, 4096, 4096, plain), "128x256x64_c1x1");
  EXPECT_EQ(best(6144, 6144, 6144, plain), "128x256x64_c1x1");
  EXPECT_EQ(best(1024, 8192, 8192, plain), "128x256x64_c1x1");
  EXPECT_EQ(best(8192, 8192, 8192, plain), "128x256x64_c1x1");
  EXPECT_EQ(best(4096, 14336, 4096, plain), "128x256x64_c1x1");
  EXPECT_EQ(best(1024, 4096, 14336, plain), "128x256x64_c1x1");
  EXPECT_EQ(best(2048, 2048, 2048, plain), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 1024, plain), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(2048, 11008, 4096, plain), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, relu), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(4096, 4096, 4096, relu), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(6144, 6144, 6144, relu), "128x128x64_c1x1_pingpong");
  // 8192^3 in the other operand classes, D as the benchmark binds it:
  // e4m3 (bf16 D) and tf32 (f32 D) measured 1.2-1.4% faster on 128x256;
  // int8's i32 D costs twice the store and pingpong measured 2% faster.
  using C = Sm90OperandClass;
  EXPECT_EQ(best(8192, 8192, 8192, plain, C::fp8, DType::e4m3, DType::bf16), "128x256x128_c1x1");
  EXPECT_EQ(best(8192, 8192, 8192, relu, C::fp8, DType::e4m3, DType::bf16), "128x128x128_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, plain, C::tf32, DType::tf32, DType::f32), "128x256x32_c1x1");
  EXPECT_EQ(best(8192, 8192, 8192, relu, C::tf32, DType::tf32, DType::f32), "128x128x32_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, plain, C::int8, DType::i8, DType::i32), "128x128x128_c1x1_pingpong");
  // Just over one wave, every cooperative tile cut along K (stream-K), as
  // in 16-bit: 1536x1536x4096 on 128x128 (144 tiles) took 0.62 (tf32) and
  // 0.80 (int8) of 128x64's time, tf32 4500x1024x3000 on 128x256 0.80 of
  // pingpong 2x1's (H100).
  EXPECT_EQ(best(1536, 1536, 4096, plain, C::tf32, DType::tf32, DType::f32), "128x128x32_c1x1");
  EXPECT_EQ(best(1536, 1536, 4096, plain, C::int8, DType::i8, DType::i32), "128x128x128_c1x1");
  EXPECT_EQ(best(4500, 1024, 3000, plain, C::tf32, DType::tf32, DType::f32), "128x256x32_c1x1");
}

TEST(Sm90Heuristic, OnAnH100sL2FusedEpiloguesAtLongKOnManyWavesTakeTheWideTile) {
  // The H100 (50 MB of L2) ran 128x256 1x1 faster than 128x128 pingpong for
  // fused epilogues where 128x256 has many waves of long K, and 128x192
  // pingpong faster than both where it has at least 12 waves of 32 k-blocks;
  // the H200 (60 MB) keeps 128x128 pingpong. A GEMM alone takes 128x256 on
  // both (above).
  const auto best = [](std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t l2,
                       Sm90OperandClass operands = Sm90OperandClass::bits16) {
    return fast_accumulating_best(M, N, K, l2, operands);  // no DAG: ranked as a fused epilogue
  };
  EXPECT_EQ(best(8192, 8192, 8192, kH200L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(4096, 14336, 4096, kH200L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, kH100L2), "128x192x64_c1x1_pingpong");
  EXPECT_EQ(best(4096, 14336, 4096, kH100L2), "128x192x64_c1x1_pingpong");
  EXPECT_EQ(best(16384, 8192, 8192, kH100L2), "128x192x64_c1x1_pingpong");
  EXPECT_EQ(best(4096, 14336, 3072, kH100L2), "128x192x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 2560, kH100L2), "128x192x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 2048, kH100L2), "128x192x64_c1x1_pingpong");
  EXPECT_EQ(best(16384, 4096, 2048, kH100L2), "128x192x64_c1x1_pingpong");
  // Fewer waves of it: 128x256 where that still has 8 (4096x8192x8192,
  // 10.4 of 128x192, where the two measured even), else 128x128 pingpong
  // (10.7 of 128x192 measured 2% slower than it).
  EXPECT_EQ(best(4096, 8192, 8192, kH100L2), "128x256x64_c1x1");
  EXPECT_EQ(best(2048, 8192, 8192, kH100L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(16384, 2048, 2048, kH100L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 4096, 2048, kH100L2), "128x128x64_c1x1_pingpong");
  // Few waves of 128x256 (4096^3: 3.9), short K (8192x8192x1024 and x1536:
  // 16 and 24 k-blocks, where the cooperative epilogue is exposed most),
  // fp8 and int8 (int8 measured 5-15% slower on 128x256) keep the H200's
  // ranking.
  EXPECT_EQ(best(4096, 4096, 4096, kH100L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 1024, kH100L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 1536, kH100L2), "128x128x64_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, kH100L2, Sm90OperandClass::fp8), "128x128x128_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, kH100L2, Sm90OperandClass::int8), "128x128x128_c1x1_pingpong");
  // tf32 (f32 C and D) from 80 k-blocks and 3 waves: 128x256 1x1 took
  // 0.92-0.99 of pingpong's time (and of 128x256 2x1's at 4500x8192x4096)
  // from 8192x8192x2560 and 3072x4096x2560 (2.9 waves) up; at 64 k-blocks
  // 1.06 (H100, alpha*acc+beta*C).
  EXPECT_EQ(best(8192, 8192, 8192, kH100L2, Sm90OperandClass::tf32), "128x256x32_c1x1");
  EXPECT_EQ(best(4096, 4096, 4096, kH100L2, Sm90OperandClass::tf32), "128x256x32_c1x1");
  EXPECT_EQ(best(3072, 4096, 2560, kH100L2, Sm90OperandClass::tf32), "128x256x32_c1x1");
  EXPECT_EQ(best(4500, 8192, 4096, kH100L2, Sm90OperandClass::tf32), "128x256x32_c1x1");
  EXPECT_EQ(best(8192, 8192, 2048, kH100L2, Sm90OperandClass::tf32), "128x128x32_c1x1_pingpong");
  EXPECT_EQ(best(8192, 8192, 8192, kH200L2, Sm90OperandClass::tf32), "128x128x32_c1x1_pingpong");
  // Skinny and small problems do not move.
  EXPECT_EQ(best(128, 8192, 8192, kH100L2), best(128, 8192, 8192, kH200L2));
  EXPECT_EQ(best(1024, 1024, 1024, kH100L2), best(1024, 1024, 1024, kH200L2));
}

TEST(Sm90Heuristic, OnAnH100sL2AGemmAloneTakesTheWideTileFrom32KBlocks) {
  // D = accum on 50 MB of L2: 128x256 1x1 measured 4-15% faster than
  // 128x128 pingpong at K = 2048 and 3072 (3.9 waves of 128x256 and up);
  // at K = 1024 and 1536 pingpong stays, as it does on the H200's 60 MB,
  // and where 128x256 has a single wave (2048^3, unmeasured on the H100).
  const ir::Dag plain = gemm_alone_dag();
  const auto best = [&](std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t l2,
                        Sm90OperandClass operands = Sm90OperandClass::bits16) {
    return fast_accumulating_best(M, N, K, l2, operands, &plain);
  };
  const std::string wide = "128x256x64_c1x1", pingpong = "128x128x64_c1x1_pingpong";
  EXPECT_EQ(best(4096, 4096, 2048, kH100L2), wide);
  EXPECT_EQ(best(8192, 4096, 2048, kH100L2), wide);
  EXPECT_EQ(best(8192, 8192, 2048, kH100L2), wide);
  EXPECT_EQ(best(8192, 8192, 3072, kH100L2), wide);
  EXPECT_EQ(best(8192, 8192, 1536, kH100L2), pingpong);
  EXPECT_EQ(best(8192, 8192, 1024, kH100L2), pingpong);
  EXPECT_EQ(best(2048, 2048, 2048, kH100L2), pingpong);
  EXPECT_EQ(best(4096, 4096, 2048, kH200L2), pingpong);
  EXPECT_EQ(best(8192, 8192, 2048, kH200L2), pingpong);
  // Other operand classes keep their ranking.
  EXPECT_EQ(best(8192, 8192, 2048, kH100L2, Sm90OperandClass::int8),
            best(8192, 8192, 2048, kH200L2, Sm90OperandClass::int8));
}

TEST(Sm90Heuristic, TheWidePingpongTileRanksFirstOnlyWhereItWasMeasured) {
  // 128x192 pingpong was timed on an H100 only, for fused 16-bit epilogues:
  // over a grid of shapes it ranks first nowhere on the H200's 60 MB, never
  // as a GEMM alone, and on 50 MB only at 12 of its waves or more and K of
  // 32 k-blocks or more (where it measured ahead).
  const ir::Dag plain = gemm_alone_dag();
  int ranked_first = 0;
  for (const std::int64_t M : {512, 2048, 3072, 4096, 8192, 16384}) {
    for (const std::int64_t N : {1024, 2048, 3000, 4096, 8192, 14336}) {
      for (const std::int64_t K : {512, 1024, 2048, 4096, 8192}) {
        for (const bool fused : {true, false}) {
          for (const std::int64_t l2 : {std::int64_t{50} << 20, std::int64_t{60} << 20}) {
            detail::Problem p;  // no DAG: ranked as a fused epilogue
            p.M = M;
            p.N = N;
            p.K = K;
            if (!fused) p.dag = &plain;
            const Sm90TileConfig best = best_of(p, Sm90OperandClass::bits16, {}, l2);
            if (!best.pingpong || best.bn != 192) continue;
            ++ranked_first;
            SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
            EXPECT_TRUE(fused);
            EXPECT_EQ(l2, std::int64_t{50} << 20);
            EXPECT_GE((M + 127) / 128 * ((N + 191) / 192), 11 * 132 + 1);
            EXPECT_GE(K, 32 * 64);
          }
        }
      }
    }
  }
  EXPECT_GT(ranked_first, 0);
}

TEST(Sm90Heuristic, EpiloguesThatReadCTakeTheWidePingpongTileOnlyAtLongK) {
  // D = act(acc + C): the 128x192 pingpong tile's threads read C from
  // global memory, and every chunk of the epilogue waits for its loads; on
  // an H100 it lost at K = 2048 and 4096 and won from 6144. gelu(acc)
  // without C keeps it from K = 2048.
  const auto node = [](ir::NodeKind kind, std::vector<ir::NodeId> inputs, ir::OpCode op = ir::OpCode::add) {
    ir::Node n;
    n.kind = kind;
    n.inputs = std::move(inputs);
    n.op = op;
    if (kind == ir::NodeKind::Load) n.load_kind = ir::LoadKind::Tile;
    if (kind == ir::NodeKind::Store) n.store_kind = ir::StoreKind::Tile;
    return n;
  };
  const auto dag_of = [&](ir::OpCode activation, bool reads_c) {
    ir::Dag dag;
    dag.outputs = {"D"};
    dag.add(node(ir::NodeKind::AccFetch, {}));
    ir::NodeId x = 0;
    if (reads_c) {
      dag.add(node(ir::NodeKind::Load, {}));
      x = dag.add(node(ir::NodeKind::Compute, {0, 1}, ir::OpCode::add));
    }
    dag.add(node(ir::NodeKind::Compute, {x}, activation));
    dag.add(node(ir::NodeKind::Store, {static_cast<ir::NodeId>(dag.nodes.size() - 1)}));
    return dag;
  };
  const TensorRef c_tensor{};
  const auto best = [&](std::int64_t M, std::int64_t N, std::int64_t K, ir::OpCode activation, bool reads_c) {
    const ir::Dag dag = dag_of(activation, reads_c);
    detail::Problem p;
    p.M = M;
    p.N = N;
    p.K = K;
    p.dag = &dag;
    if (reads_c) {
      detail::EpilogueOperand c;
      c.load_kind = ir::LoadKind::Tile;
      c.tensor = &c_tensor;
      p.inputs.push_back(c);
    }
    return shape_of(best_of(p, Sm90OperandClass::bits16, {}, kH100L2));
  };
  const std::string wide = "128x192x64_c1x1_pingpong";
  for (const std::int64_t K : {2048, 4096}) {
    SCOPED_TRACE(K);
    EXPECT_NE(best(4096, 14336, K, ir::OpCode::gelu, true), wide);
    EXPECT_NE(best(8192, 8192, K, ir::OpCode::gelu, true), wide);
    EXPECT_NE(best(8192, 8192, K, ir::OpCode::silu, true), wide);
    EXPECT_NE(best(8192, 8192, K, ir::OpCode::relu, true), wide);
    EXPECT_EQ(best(4096, 14336, K, ir::OpCode::gelu, false), wide);
    EXPECT_EQ(best(8192, 8192, K, ir::OpCode::relu, false), wide);
  }
  EXPECT_EQ(best(6144, 6144, 6144, ir::OpCode::gelu, true), wide);
  EXPECT_EQ(best(8192, 8192, 8192, ir::OpCode::gelu, true), wide);
  EXPECT_EQ(best(8192, 8192, 8192, ir::OpCode::relu, true), wide);
}

TEST(Sm90Heuristic, RowsNot128ByteAlignedPreferTilesThatLoadFewerRows) {
  // bf16, row-major A and B: rows 3000 elements (6000 bytes) apart cost the
  // L2 fill twice, so a 2x1 cluster (B shared) ranks first, on 128x192 (2.9
  // waves, against 128x256's 2.2); rows of 3072 keep the 1x1 tile that fits
  // the SMs best (128x192).
  const auto bf16_square = [](std::int64_t n) {
    detail::Problem p;
    p.M = p.N = p.K = n;
    for (detail::MatrixOperand* x : {&p.A, &p.B, &p.D}) {
      x->dtype = DType::bf16;
      x->row_stride = n;
      x->col_stride = 1;
    }
    return p;
  };
  EXPECT_EQ(shape_of(best_of(bf16_square(3072))), "128x192x64_c1x1");
  EXPECT_EQ(shape_of(best_of(bf16_square(3000))), "128x192x64_c2x1");
  // Only an unaligned B gains from the cluster's share: with B's rows
  // aligned (N = 3072, 1024) and A's not, the 1x1 tiles rank first.
  const auto bf16_gemm = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
    detail::Problem p = bf16_square(K);
    p.M = M;
    p.N = N;
    p.B.row_stride = p.D.row_stride = N;
    return shape_of(best_of(p));
  };
  EXPECT_EQ(bf16_gemm(3000, 3072, 3000), "128x192x64_c1x1");
  EXPECT_EQ(bf16_gemm(3072, 1536, 3000), "128x192x64_c1x1");
  EXPECT_EQ(bf16_gemm(3072, 1024, 3000), "128x256x64_c1x1");
  EXPECT_EQ(bf16_gemm(3072, 3000, 3072), "128x192x64_c2x1");  // B unaligned (A aligned): shared
  // One wave of 64x128 tiles shares B in 2x1 clusters where its rows are
  // unaligned; past one wave the short tiles' clusters rank below.
  EXPECT_EQ(shape_of(best_of(bf16_square(1000))), "64x128x64_c2x1");
  EXPECT_EQ(bf16_gemm(1000, 1000, 4000), "64x128x64_c2x1");
  EXPECT_EQ(shape_of(best_of(bf16_square(1024))), "64x128x64_c1x1");
  EXPECT_EQ(bf16_gemm(4500, 1000, 2048), "128x128x64_c2x1_pingpong");
  // Just over one wave of 128x256 tiles, every one cut along K (stream-K):
  // 0.65-0.73 of pingpong 1x1's three waves (H100, every epilogue).
  EXPECT_EQ(bf16_gemm(4500, 1024, 3000), "128x256x64_c1x1");
  // Where B's rows are unaligned the cut tiles yield to whole ones in 2x1
  // clusters: 1000x5000x3000 cut on 128x256 took 1.24-1.27x 128x192 2x1's
  // time (H200, every epilogue).
  EXPECT_EQ(bf16_gemm(1000, 5000, 3000), "128x192x64_c2x1");
  // The model's largest term: the fill on unaligned rows, the math on aligned ones.
  const Sm90TileConfig pingpong{128, 128, 1, 5, Sm90OperandClass::bits16, true};
  detail::Sm90ModelBound bound = detail::Sm90ModelBound::math;
  detail::sm90_modelled_time(pingpong, bf16_square(3000), 132, detail::kSm90DefaultL2Bytes, &bound);
  EXPECT_EQ(bound, detail::Sm90ModelBound::l2_fill);
  detail::sm90_modelled_time(pingpong, bf16_square(3072), 132, detail::kSm90DefaultL2Bytes, &bound);
  EXPECT_EQ(bound, detail::Sm90ModelBound::math);
  // Rows TMA cannot read as they lie (4095 elements, 8190 bytes apart) are
  // repacked into 128-byte rows, which fill at the aligned rate.
  const detail::Problem odd = bf16_square(4095);
  EXPECT_TRUE(detail::sm90_repacks(odd.A, false, Sm90OperandClass::bits16, 1));
  EXPECT_FALSE(detail::sm90_repacks(bf16_square(3000).A, false, Sm90OperandClass::bits16, 1));
  detail::Problem padded = bf16_square(4095);
  padded.A.row_stride = padded.B.row_stride = 4096;
  const Sm90TileConfig narrow{64, 64, 1, 13, Sm90OperandClass::bits16};  // the most rows loaded per product
  EXPECT_DOUBLE_EQ(detail::sm90_modelled_time(narrow, odd, 132), detail::sm90_modelled_time(narrow, padded, 132));
  padded.A.row_stride = padded.B.row_stride = 4104;  // 16- but not 128-byte aligned: read as they lie
  EXPECT_GT(detail::sm90_modelled_time(narrow, padded, 132), 1.2 * detail::sm90_modelled_time(narrow, odd, 132));
  // A column-major B's pitch is its column stride.
  detail::Problem col = bf16_square(3072);
  col.B.layout = detail::Layout::col_major;
  col.B.row_stride = 1;
  col.B.col_stride = 3000;
  col.K = 3000;
  col.A.row_stride = 3008;
  const double misaligned = detail::sm90_modelled_time(best_for(3072, 3072, 3072), col, 132);
  col.B.col_stride = 3008;
  EXPECT_GT(misaligned, 1.1 * detail::sm90_modelled_time(best_for(3072, 3072, 3072), col, 132));
}

TEST(Sm90Heuristic, StreamsSkinnyProblemsOnEverySm) {
  // M = 16 and 128, N = K = 8192: the weights dominate the bytes; at M = 16
  // 64x64 tiles put a CTA on nearly every SM (64x128 busies only 64 SMs),
  // the grouped-k one with A's boxes cut to M's rows; at M = 128 64x64 would
  // take two waves and re-read A from L2 for every 64 columns, and 64x128
  // wins (measured 48 vs 52 us); its 8 plain stages hold as much B as the
  // grouped tile's 4 and measured 1% faster. Of the grouped 64x64 tiles,
  // 6 stages of 2 k-blocks measured faster than 3 of 4 with B streamed.
  // Where a problem's layout or K does not suit the grouped tiles,
  // supports() leaves the plain ones.
  EXPECT_EQ(shape_of(best_for(16, 8192, 8192)), "64x64x64_c1x1_kgroup2");
  EXPECT_EQ(shape_of(best_for(128, 8192, 8192)), "64x128x64_c1x1");
  {
    detail::Problem p;
    p.M = 128;
    p.N = p.K = 8192;
    detail::Sm90ModelBound bound = detail::Sm90ModelBound::math;
    detail::sm90_modelled_time(best_for(128, 8192, 8192), p, 132, detail::kSm90DefaultL2Bytes, &bound);
    EXPECT_EQ(bound, detail::Sm90ModelBound::dram);  // the weights' stream
  }
  EXPECT_EQ(shape_of(best_for(1, 8192, 8192)), "64x64x64_c1x1_kgroup2");
  // 64 < M < 112: 64x128 x2's second tile row would load mostly zero-filled
  // rows of A (M = 80: 47 us); 128x64 x2's one box holds A's rows (38 us).
  EXPECT_EQ(shape_of(best_for(80, 8192, 8192)), "128x64x64_c1x1_kgroup2");
  EXPECT_EQ(shape_of(best_for(96, 8192, 8192)), "128x64x64_c1x1_kgroup2");
  EXPECT_EQ(shape_of(best_for(112, 8192, 8192)), "64x128x64_c1x1");
  // The model: memory-bound there (math below the bytes' time), and faster
  // than the 64x128 tile the compute-only model picked.
  detail::Problem p;
  p.M = 16;
  p.N = p.K = 8192;
  p.D.dtype = DType::bf16;
  Sm90TileConfig old{64, 128, 1, 6, Sm90OperandClass::bits16};
  const double t_new = detail::sm90_modelled_time(best_for(16, 8192, 8192), p, 132);
  const double t_old = detail::sm90_modelled_time(old, p, 132);
  EXPECT_LT(t_new, 0.9 * t_old);
  // Copy speed: 134 MB of B at 4.2 TB/s is 32 us; the model stays above it.
  EXPECT_GT(t_new, 32'000.0);
  EXPECT_LT(t_new, 45'000.0);
  // With half the SMs, half the loads are in flight.
  EXPECT_GT(detail::sm90_modelled_time(best_for(16, 8192, 8192), p, 66), 1.1 * t_new);
  // 64x128 beats 128x64, whose second consumer would work on rows past M.
  const Sm90TileConfig tall{128, 64, 1, 8, Sm90OperandClass::bits16};
  EXPECT_LT(detail::sm90_modelled_time(old, p, 132), detail::sm90_modelled_time(tall, p, 132));
}

TEST(Sm90Heuristic, StreamsSkinnyNProblemsWithFewPaddedColumns) {
  // N = 16, M = K = 8192: A holds the weights, and with B row-major every
  // column of a tile past N is a zero-filled row of B that costs its load
  // like a real one (measured: 128x64 45 us, 64x64 48 us, 64x128 with two
  // k-blocks per stage 86 us). The narrow tiles win; the model counts A's
  // rows in flight there, not B's.
  for (const std::int64_t n : {16, 32}) {
    const Sm90TileConfig best = best_for(8192, n, 8192);
    EXPECT_EQ(best.bn, 64) << n << ": " << best.shape_name();
    EXPECT_EQ(best.k_group, 1) << n << ": " << best.shape_name();
  }
  detail::Problem p;
  p.M = p.K = 8192;
  p.N = 16;
  p.D.dtype = DType::bf16;
  const Sm90TileConfig wide{64, 128, 1, 4, Sm90OperandClass::bits16, false, 0, 2};
  const Sm90TileConfig narrow = best_for(8192, 16, 8192);
  EXPECT_GT(detail::sm90_modelled_time(wide, p, 132), 1.2 * detail::sm90_modelled_time(narrow, p, 132));
  // B column-major: a grouped tile cuts B's boxes to the 16 columns (64x64
  // with four k-blocks per stage measured 38 us) and beats the plain ones.
  p.B.row_stride = 1;
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  EXPECT_LT(detail::sm90_modelled_time(grouped, p, 132), detail::sm90_modelled_time(narrow, p, 132));
  // With A streamed the 4-k-block ring keeps its rank (kDeepStagesCost is
  // for a streamed B); at M = 16 the 2-k-block one of the same bytes wins.
  const Sm90TileConfig finer{64, 64, 1, 6, Sm90OperandClass::bits16, false, 0, 2};
  EXPECT_LE(detail::sm90_modelled_time(grouped, p, 132), detail::sm90_modelled_time(finer, p, 132));
  p.M = 16;
  p.N = 8192;
  EXPECT_LT(detail::sm90_modelled_time(finer, p, 132), detail::sm90_modelled_time(grouped, p, 132));
}

TEST(Sm90Plan, StreamsOperandsReadByOneTileRowOrColumnWithEvictFirst) {
  const Sm90TileConfig narrow{64, 64, 1, 13, Sm90OperandClass::bits16};
  const auto flags = [&](const HostProblem& hp) {
    Sm90Plan plan;
    EXPECT_TRUE(hp.plan(narrow, plan));
    const detail::Sm90GemmParams g = detail::sm90_gemm_params(hp.problem, plan, narrow);
    return std::pair{(g.flags & sm90::kAEvictFirst) != 0 ? 1 : 0, (g.flags & sm90::kBEvictFirst) != 0 ? 1 : 0};
  };
  // M = 16: every column of B is read by one tile; A by all 8 column tiles.
  EXPECT_EQ(flags(HostProblem(DType::bf16, {16, 256}, {}, {256, 512}, {1, 256}, DType::bf16)), std::pair(0, 1));
  // M = 128 on 64-row tiles: two tile rows, run side by side; M = 192: three.
  EXPECT_EQ(flags(HostProblem(DType::bf16, {128, 256}, {}, {256, 512}, {1, 256}, DType::bf16)), std::pair(0, 1));
  EXPECT_EQ(flags(HostProblem(DType::bf16, {192, 256}, {}, {256, 512}, {1, 256}, DType::bf16)), std::pair(0, 0));
  // N = 64: A is the streamed operand.
  EXPECT_EQ(flags(HostProblem(DType::bf16, {512, 256}, {}, {256, 64}, {1, 256}, DType::bf16)), std::pair(1, 0));
  // One B for both batches (batch stride 0) is re-read by the second batch.
  EXPECT_EQ(flags(HostProblem(DType::bf16, {2, 16, 256}, {}, {2, 256, 512}, {0, 1, 256}, DType::bf16)),
            std::pair(0, 0));
  EXPECT_EQ(flags(HostProblem(DType::bf16, {2, 16, 256}, {}, {2, 256, 512}, {256 * 512, 1, 256}, DType::bf16)),
            std::pair(0, 1));
}

TEST(Sm90Plan, SkinnyProblemsAndUnalignedRowsPromoteOperandLoadsTo128ByteLines) {
  const Sm90TileConfig narrow{64, 64, 1, 13, Sm90OperandClass::bits16};
  const auto promotions = [&](const HostProblem& hp) {
    Sm90Plan plan;
    EXPECT_TRUE(hp.plan(narrow, plan));
    return std::pair{detail::sm90_operand_promotion(plan, narrow, plan.a),
                     detail::sm90_operand_promotion(plan, narrow, plan.b)};
  };
  constexpr auto k128 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B, k256 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  // M = 16: B is streamed once, so both operands' loads promote to 128 bytes.
  EXPECT_EQ(promotions(HostProblem(DType::bf16, {16, 256}, {}, {256, 512}, {1, 256}, DType::bf16)),
            std::pair(k128, k128));
  // Eight tiles each way, rows of 512 bytes: 256-byte lines.
  EXPECT_EQ(promotions(HostProblem(DType::bf16, {512, 256}, {}, {256, 512}, {1, 256}, DType::bf16)),
            std::pair(k256, k256));
  // K = 200: A's rows and a column-major B's are 400 bytes apart.
  EXPECT_EQ(promotions(HostProblem(DType::bf16, {512, 200}, {}, {200, 512}, {1, 200}, DType::bf16)),
            std::pair(k128, k128));
  EXPECT_EQ(promotions(HostProblem(DType::bf16, {512, 200}, {}, {200, 512}, {}, DType::bf16)), std::pair(k128, k256));
}

TEST(Sm90Plan, FewTileColumnsWalkTheTileOrderRowByRow) {
  const Sm90TileConfig wide{128, 128, 1, 5, Sm90OperandClass::bits16};
  // Up to 8 tile columns: the CTAs that share a row block of A run side by side.
  EXPECT_EQ(detail::sm90_tile_order_group(128, wide), 1);
  EXPECT_EQ(detail::sm90_tile_order_group(1024, wide), 1);
  // More: groups of 8 tile rows, walked column by column.
  EXPECT_EQ(detail::sm90_tile_order_group(1025, wide), 8);
  EXPECT_EQ(detail::sm90_tile_order_group(8192, wide), 8);
  Sm90Plan plan;
  HostProblem hp(DType::bf16, {512, 256}, {}, {256, 2048}, {1, 256}, DType::bf16);
  ASSERT_TRUE(hp.plan(wide, plan));
  EXPECT_EQ(detail::sm90_gemm_params(hp.problem, plan, wide).group_m, 8);
}

TEST(Sm90Plan, TileOrderDivisorsAreTheGroupSpanTheGroupAndTheLastGroupsRows) {
  // The kernel divides by these through their magic numbers (fast_divide.cuh).
  const auto divides_by = [](unsigned magic, unsigned shift, unsigned d) {
    for (unsigned n : {0u, 1u, d - 1, d, d + 1, 7 * d + 3, 1000003u, (1u << 31) - 1})
      if (sm90::fast_divide(n, magic, shift) != n / d) return false;
    return true;
  };
  const Sm90TileConfig wide{128, 128, 1, 5, Sm90OperandClass::bits16};
  Sm90Plan plan;
  // 20 tile rows in groups of 8 (the last has 4) by 24 tile columns.
  HostProblem hp(DType::bf16, {2560, 256}, {}, {256, 3072}, {1, 256}, DType::bf16);
  ASSERT_TRUE(hp.plan(wide, plan));
  const detail::Sm90GemmParams g = detail::sm90_gemm_params(hp.problem, plan, wide);
  ASSERT_EQ(g.group_m, 8);
  EXPECT_TRUE(divides_by(g.span_magic, g.order_shifts & 0xff, 8 * 24));
  EXPECT_TRUE(divides_by(g.group_magic, g.order_shifts >> 8 & 0xff, 8));
  EXPECT_TRUE(divides_by(g.tail_magic, g.order_shifts >> 16 & 0xff, 4));
  // 16 tile rows fill both groups: the last group's divisor is the group's.
  HostProblem full(DType::bf16, {2048, 256}, {}, {256, 3072}, {1, 256}, DType::bf16);
  ASSERT_TRUE(full.plan(wide, plan));
  const detail::Sm90GemmParams f = detail::sm90_gemm_params(full.problem, plan, wide);
  EXPECT_TRUE(divides_by(f.tail_magic, f.order_shifts >> 16 & 0xff, 8));
}

TEST(Sm90Plan, GroupedKTilesTakeAKMajorAWithWholeKBlocks) {
  const Sm90TileConfig grouped{64, 64, 1, 3, Sm90OperandClass::bits16, false, 0, 4};
  Sm90Plan plan;
  // A row-major, B column-major, K = 512: accepted; A's boxes hold M's 16 rows.
  HostProblem ok(DType::bf16, {16, 512}, {}, {512, 256}, {1, 512}, DType::bf16);
  ASSERT_TRUE(ok.plan(grouped, plan));
  EXPECT_EQ(detail::sm90_gemm_params(ok.problem, plan, grouped).a_box_rows, 16);
  EXPECT_EQ(detail::sm90_a_box_rows(13, grouped), 16);
  EXPECT_EQ(detail::sm90_a_box_rows(1000, grouped), 64);
  EXPECT_EQ(detail::sm90_a_box_rows(13, Sm90TileConfig{64, 64, 1, 13, Sm90OperandClass::bits16}), 64);
  // A K-major B's boxes hold N's columns likewise (N = 256: all 64 rows).
  EXPECT_EQ(detail::sm90_gemm_params(ok.problem, plan, grouped).b_box_rows, 64);
  HostProblem skinny_n(DType::bf16, {512, 512}, {}, {512, 24}, {1, 512}, DType::bf16);
  ASSERT_TRUE(skinny_n.plan(grouped, plan));
  EXPECT_TRUE(plan.b_k_major);
  EXPECT_EQ(detail::sm90_gemm_params(skinny_n.problem, plan, grouped).b_box_rows, 24);
  EXPECT_EQ(detail::sm90_gemm_params(skinny_n.problem, plan, grouped).a_box_rows, 64);
  EXPECT_EQ(detail::sm90_b_box_rows(1, grouped, true), 8);
  EXPECT_EQ(detail::sm90_b_box_rows(1000, grouped, true), 64);
  EXPECT_EQ(detail::sm90_b_box_rows(13, Sm90TileConfig{64, 64, 1, 13, Sm90OperandClass::bits16}, true), 64);
  // B row-major (N contiguous) too, in whole 64-column boxes; A column-major
  // only on the plain tiles.
  EXPECT_TRUE(HostProblem(DType::bf16, {16, 512}, {}, {512, 256}, {}, DType::bf16).plan(grouped, plan));
  EXPECT_FALSE(plan.b_k_major);
  EXPECT_EQ(detail::sm90_b_box_rows(13, grouped, false), 64);
  const std::string layout =
      HostProblem(DType::bf16, {16, 512}, {1, 16}, {512, 256}, {}, DType::bf16).reason(grouped);
  EXPECT_TRUE(contains(layout, "needs A K-major (row-major)")) << layout;
  // K not whole k-blocks, or fewer than a box's four.
  const std::string ragged =
      HostProblem(DType::bf16, {16, 520}, {}, {520, 256}, {1, 520}, DType::bf16).reason(grouped);
  EXPECT_TRUE(contains(ragged, "K is 520")) << ragged;
  EXPECT_TRUE(contains(ragged, "multiple of 64 and at least 256")) << ragged;
  EXPECT_FALSE(HostProblem(DType::bf16, {16, 192}, {}, {192, 256}, {1, 192}, DType::bf16).plan(grouped, plan));
  // Copies count as padded with zeros to whole k-blocks: K = 8191 with A's
  // rows 16382 bytes apart (copied), B row-major (read as it lies, TMA's
  // zeros past K) or column-major (copied too).
  ASSERT_TRUE(HostProblem(DType::bf16, {16, 8191}, {}, {8191, 256}, {}, DType::bf16).plan(grouped, plan));
  EXPECT_TRUE(plan.repack_a.active);
  EXPECT_EQ(plan.a.dims[0], 8192u);
  EXPECT_EQ(plan.b.dims[1], 8191u);
  ASSERT_TRUE(HostProblem(DType::bf16, {16, 8191}, {}, {8191, 256}, {1, 8191}, DType::bf16).plan(grouped, plan));
  EXPECT_TRUE(plan.repack_b.active && plan.b_k_major);
  EXPECT_EQ(plan.b.dims[0], 8192u);
  // A copied but a K-major B read as it lies (rows padded to 8200): B's K is not whole k-blocks.
  EXPECT_FALSE(HostProblem(DType::bf16, {16, 8191}, {}, {8191, 256}, {1, 8200}, DType::bf16).plan(grouped, plan));
}

TEST(Sm90Heuristic, RanksTf32AndInt8TilesLikeTheirByteTwins) {
  // tf32 k-blocks take as long as 16-bit ones and int8 ones as fp8 ones, so
  // the same shapes win; the skinny problems stream their weights on 64x64.
  // The big ones run on the 128x128 pingpong tile, as 16-bit's do.
  EXPECT_EQ(shape_of(best_for(8192, 8192, 8192, Sm90OperandClass::int8)), "128x128x128_c1x1_pingpong");
  EXPECT_EQ(shape_of(best_for(4096, 4096, 4096, Sm90OperandClass::int8)), "128x128x128_c1x1_pingpong");
  EXPECT_EQ(shape_of(best_for(8192, 8192, 8192, Sm90OperandClass::tf32)), "128x128x32_c1x1_pingpong");
  EXPECT_EQ(shape_of(best_for(2048, 2048, 2048, Sm90OperandClass::tf32)), "128x128x32_c1x1_pingpong");
  for (const Sm90OperandClass c : {Sm90OperandClass::tf32, Sm90OperandClass::int8}) {
    SCOPED_TRACE(c == Sm90OperandClass::tf32 ? "tf32" : "int8");
    EXPECT_EQ(best_for(16, 8192, 8192, c).bm, 64);
    EXPECT_EQ(best_for(16, 8192, 8192, c).bn, 64);
    EXPECT_EQ(best_for(16, 8192, 8192, c).k_group, 4);
    EXPECT_EQ(best_for(1024, 1024, 1024, c).bn, 64);
  }
  // Same math time per k-block as the byte twin; twice (tf32) or the same
  // (int8) operand bytes: a memory-bound tf32 problem takes about twice as long.
  detail::Problem p;
  p.M = 16;
  p.N = p.K = 8192;
  p.D.dtype = DType::f32;
  const Sm90TileConfig b16{64, 64, 1, 13, Sm90OperandClass::bits16}, t32{64, 64, 1, 13, Sm90OperandClass::tf32};
  const Sm90TileConfig f8{64, 64, 1, 13, Sm90OperandClass::fp8}, i8{64, 64, 1, 13, Sm90OperandClass::int8};
  EXPECT_GT(detail::sm90_modelled_time(t32, p, 132), 1.8 * detail::sm90_modelled_time(b16, p, 132));
  EXPECT_DOUBLE_EQ(detail::sm90_modelled_time(i8, p, 132), detail::sm90_modelled_time(f8, p, 132));
  p.M = p.N = p.K = 8192;
  const Sm90TileConfig big16{128, 256, 2, 3, Sm90OperandClass::bits16};
  const double t_bf16 = detail::sm90_modelled_time(big16, p, 132);
  EXPECT_DOUBLE_EQ(detail::sm90_modelled_time(kBigTf32, p, 132), 2.0 * t_bf16);  // half the rate
  EXPECT_DOUBLE_EQ(detail::sm90_modelled_time(kBigInt8, p, 132), 0.5 * t_bf16);  // twice the rate
}

/// The fp8 configuration with the highest preference for (M, N, K) among
/// those `keep` admits.
template <class Keep>
Sm90TileConfig best_fp8_for(std::int64_t M, std::int64_t N, std::int64_t K, Keep keep) {
  detail::Problem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.D.dtype = DType::bf16;
  return best_of(p, Sm90OperandClass::fp8, keep);
}

TEST(Sm90TileConfigs, PreciseFp8ConfigurationsHoldThreeAccumulatorSetsAndSayHowTheyAccumulate) {
  int precise = 0;
  std::set<std::string> precise_shapes;
  for (const Sm90TileConfig& c : detail::sm90_tile_configs()) {
    SCOPED_TRACE(c.shape_name());
    const OperatorMetadata md = detail::sm90_metadata(c);
    if (c.operands != Sm90OperandClass::fp8) {
      EXPECT_EQ(c.promote_k_blocks, 0);
      EXPECT_EQ(md.extra.count("fp8_accumulation"), 0u);
      continue;
    }
    ASSERT_EQ(md.extra.count("fp8_accumulation"), 1u);
    if (c.promote_k_blocks == 0) {
      EXPECT_EQ(md.extra.at("fp8_accumulation"), "fast");
      EXPECT_EQ(md.name.find("precise"), std::string::npos);
      continue;
    }
    ++precise;
    precise_shapes.insert(std::to_string(c.bm) + "x" + std::to_string(c.bn) + "_c" + std::to_string(c.cluster_m) +
                          (c.k_group > 1 ? "_kgroup" + std::to_string(c.k_group) : ""));
    EXPECT_EQ(md.extra.at("fp8_accumulation"), "precise");
    EXPECT_EQ(md.name, "sm90_wgmma_" + c.shape_name() + "_fp8");
    EXPECT_NE(md.name.find("_precise_fp8"), std::string::npos);
    // The accumulators and two fragments (f32, 64 x warpgroup_n over 128
    // threads each) fit next to everything else in the consumers' 232
    // registers only up to 128 columns.
    EXPECT_LE(c.warpgroup_n(), 128);
    EXPECT_FALSE(c.pingpong);
    EXPECT_EQ(c.promote_k_blocks, 1);
  }
  EXPECT_EQ(precise, 8);
  EXPECT_EQ(precise_shapes, (std::set<std::string>{"128x128_c1", "128x128_c2", "64x128_c1", "128x64_c1", "64x64_c1",
                                                   "64x64_c1_kgroup2", "64x128_c1_kgroup2", "128x64_c1_kgroup2"}));
}

TEST(Sm90Heuristic, Fp8DefaultsToPreciseAccumulationAndFastIsAnOptIn) {
  const auto any = [](const Sm90TileConfig&) { return true; };
  const auto fast = [](const Sm90TileConfig& c) { return c.promote_k_blocks == 0; };
  const std::int64_t shapes[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {1024, 1024, 1024},
                                    {16, 8192, 8192},   {128, 8192, 8192},   {4096, 14336, 4096}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]));
    EXPECT_GT(best_fp8_for(s[0], s[1], s[2], any).promote_k_blocks, 0);
    EXPECT_EQ(best_fp8_for(s[0], s[1], s[2], fast).promote_k_blocks, 0);
  }
  // The fast pick at 8192^3 is pingpong (0.96x cuBLASLt's fast
  // accumulation, 1.00x on 128x256); the precise one is the widest that
  // holds the accumulators and both fragments.
  EXPECT_EQ(shape_of(best_fp8_for(8192, 8192, 8192, fast)), "128x128x128_c1x1_pingpong");
  // A skinny problem streams its weights on a grouped-k tile, precise or fast.
  EXPECT_EQ(shape_of(best_fp8_for(16, 8192, 8192, any)), "64x64x128_c1x1_kgroup2_precise");
  EXPECT_EQ(shape_of(best_fp8_for(16, 8192, 8192, fast)), "64x64x128_c1x1_kgroup4");
  EXPECT_EQ(best_fp8_for(8192, 8192, 8192, any).bm, 128);
  EXPECT_EQ(best_fp8_for(8192, 8192, 8192, any).bn, 128);
  // Promotion is modelled as a cost: the same tile accumulating fast is faster.
  detail::Problem p;
  p.M = p.N = p.K = 4096;
  p.D.dtype = DType::bf16;
  const Sm90TileConfig fast128{128, 128, 1, 5, Sm90OperandClass::fp8};
  Sm90TileConfig precise128 = fast128;
  precise128.promote_k_blocks = 1;
  EXPECT_GT(detail::sm90_modelled_time(precise128, p, 132), detail::sm90_modelled_time(fast128, p, 132));
  EXPECT_GT(detail::sm90_preference(precise128, p, 132), detail::sm90_preference(fast128, p, 132));
  // 16-bit operands are unaffected: nothing is demoted.
  EXPECT_EQ(shape_of(best_for(8192, 8192, 8192)), "128x128x64_c1x1_pingpong");
}

}  // namespace
}  // namespace epigemm::testing
