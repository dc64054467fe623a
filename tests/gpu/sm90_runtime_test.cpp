// The sm90 provider around the kernel: problems it rejects (with the reason)
// run on sm80 or simt through get_operators; operators exist for sm_90 only and carry
// their metadata; run() is graph-capturable, loads nothing when warm, and
// encodes tensor maps only when operands change; launched as a programmatic
// dependent, it waits for the previous kernel before touching memory.

#include <algorithm>
#include <set>
#include <vector>

#include "gpu/graph_replay.hpp"
#include "api/problem.hpp"
#include "gpu/sm90_problem.hpp"
#include "providers/sm90/sm90_operator.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/nvrtc.hpp"

namespace epigemm::testing {
namespace {

class Sm90Runtime : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// Every sm90 candidate refuses with a reason containing `phrase`, and
  /// get_operators hands the problem to sm80 (f16/bf16 A and B) or simt,
  /// which runs it correctly.
  void expect_rejected_then_fallback(GpuProblem& p, const std::string& phrase, DType a, DType b,
                                     DType accumulator = DType::f32) {
    const GemmArguments args = p.args(true, accumulator, DType::f32);
    const auto candidates = explain_operators(args, sm90_query());
    ASSERT_EQ(candidates.size(), detail::sm90_tile_configs().size());
    for (const auto& c : candidates) {
      ASSERT_FALSE(c.status) << c.op.name() << " accepted it";
      // Operators of the other operand class say so instead.
      if (c.status.reason().find("this operator is for") != std::string::npos) continue;
      EXPECT_NE(c.status.reason().find(phrase), std::string::npos) << c.op.name() << ": " << c.status.reason();
    }
    const auto ops = get_operators(args, {.target_sm = 90});
    ASSERT_FALSE(ops.empty());
    const bool tensor_cores = (a == DType::f16 || a == DType::bf16) && b == a && accumulator != DType::i32;
    const std::string fallback = tensor_cores ? "sm80" : "simt";
    EXPECT_EQ(ops.front().metadata().provider, fallback);
    p.use_provider(fallback);
    p.run_and_compare(accumulator);
  }

  static void epilogue(GpuProblem& p, std::int64_t M, std::int64_t N, DType d = DType::f16, Dims d_strides = {},
                       std::size_t d_offset = 0) {
    p.set_source("def epi(accum, C):\n    D = accum + C\n    return D\n");
    p.add("C", DType::f16, {M, N});
    p.add("D", d, {M, N}, d_strides, true, d_offset);
  }
};

TEST_F(Sm90Runtime, RejectedProblemsRunOnSm80OrSimt) {
  EPIGEMM_REQUIRE_SM90(driver);
  // A and B that TMA cannot read as they lie are repacked instead
  // (sm90_repack_test.cpp).
  /// One operand: dtype, shape, strides (empty: contiguous).
  struct Operand {
    DType dtype;
    Dims shape, strides;
  };
  struct Rejected {
    const char* what;
    Operand a, b;
    DType d;
    Dims d_strides;
    const char* phrase;  ///< part of every sm90 operator's reason
  };
  const std::int64_t M = 40, N = 24;
  const Rejected cases[] = {
      {"D with no unit stride", {DType::f16, {M, 8}, {}}, {DType::f16, {8, N}, {}}, DType::f16, {2 * N, 2},
       "row-major"},
      {"D is f64", {DType::f16, {M, 8}, {}}, {DType::f16, {8, N}, {}}, DType::f64, {},
       "stores D as f16, bf16, f32, e4m3, e5m2, i8, u8 or i32"},
      {"f32 operands", {DType::f32, {M, 8}, {}}, {DType::f32, {8, N}, {}}, DType::f32, {},
       "sm90 does not support f32 A/B"},
  };
  for (const Rejected& r : cases) {
    SCOPED_TRACE(r.what);
    GpuProblem p(*driver, rng);
    p.add("A", r.a.dtype, r.a.shape, r.a.strides);
    p.add("B", r.b.dtype, r.b.shape, r.b.strides);
    epilogue(p, M, r.b.shape[1], r.d, r.d_strides);
    expect_rejected_then_fallback(p, r.phrase, r.a.dtype, r.b.dtype);
  }
}

TEST_F(Sm90Runtime, DRowsTmaCannotStoreLeaveThroughTheThreads) {
  // D's pitch, batch stride or pointer not a multiple of 16 bytes: every
  // 16-bit tile stores each chunk of D with the threads, edges included, and
  // leaves the bytes between D's rows alone; C staged in and F staged out
  // (both aligned) keep their TMA loads and stores beside it.
  EPIGEMM_REQUIRE_SM90(driver);
  struct Case {
    const char* what;
    const char* source;
    DType d;
    std::int64_t L, M, N;
    Dims d_strides;  ///< empty: contiguous
    std::size_t d_offset = 0;
  };
  const char* plain = "def epi(accum, alpha):\n    D = accum * alpha\n    return D\n";
  const char* staged = "def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n";
  const char* amax = "def epi(accum, alpha):\n    D = accum * alpha\n    m = amax(D)\n    return D, m\n";
  const Case cases[] = {
      {"bf16 D, rows of 75 elements (150 bytes)", plain, DType::bf16, 1, 150, 75, {}},
      {"bf16 D with C and F staged, rows 150 bytes apart", staged, DType::bf16, 1, 150, 75, {}},
      {"e4m3 D with its amax, rows 100 bytes apart", amax, DType::e4m3, 1, 130, 100, {}},
      {"f32 D, batches 2522 elements apart", plain, DType::f32, 3, 70, 36, {2522, 36, 1}},
      {"f16 D 2 bytes past 16-byte alignment", plain, DType::f16, 1, 96, 64, {}, 2},
      {"bf16 D, rows 2 elements longer than N", plain, DType::bf16, 2, 65, 130, {65 * 131, 131, 1}},
      // Rows and batches 4-byte aligned: stored in words, each row's last
      // 2 or 3 bytes in narrower stores.
      {"bf16 D, rows of 75 elements 152 bytes apart", plain, DType::bf16, 1, 150, 75, {76, 1}},
      {"e4m3 D, rows of 99 elements 100 bytes apart", plain, DType::e4m3, 2, 70, 99, {70 * 100, 100, 1}},
  };
  const std::int64_t K = 40;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    for (const detail::Sm90TileConfig& config : bits16_tile_configs()) {
      SCOPED_TRACE("tile " + config.shape_name());
      GpuProblem p(*driver, rng);
      add_padded_ab(p, DType::bf16, DType::bf16, c.L, c.M, c.N, K);
      p.set_source(c.source);
      p.scalar("alpha", 1.5);
      const Dims d_shape = c.L > 1 ? Dims{c.L, c.M, c.N} : Dims{c.M, c.N};
      if (std::string(c.source).find(" C") != std::string::npos) {
        p.add("C", DType::bf16, d_shape, padded_rows(DType::bf16, d_shape));
        p.add("F", DType::bf16, d_shape, padded_rows(DType::bf16, d_shape), true);
      }
      if (std::string(c.source).find("amax") != std::string::npos) p.add("m", DType::f32, {1}, {}, true);
      p.add("D", c.d, d_shape, c.d_strides, true, c.d_offset);
      const std::string name = run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
      EXPECT_EQ(name, detail::sm90_metadata(config).name);
    }
  }
}

TEST_F(Sm90Runtime, OneOperatorKeepsAKernelPerDStoreMode) {
  // The same operator and epilogue with D aligned, then not (thread stores
  // in words, then element by element), then aligned again: each run loads
  // the kernel of its own store mode.
  EPIGEMM_REQUIRE_SM90(driver);
  const char* amax = "def epi(accum, alpha):\n    D = accum * alpha\n    m = amax(D)\n    return D, m\n";
  const detail::Sm90TileConfig config = bits16_tile_configs().front();
  for (const std::int64_t N : {128, 100, 99, 128}) {
    SCOPED_TRACE("D rows " + std::to_string(N) + " bytes apart");
    GpuProblem p(*driver, rng);
    const std::int64_t M = 96, K = 64;
    add_padded_ab(p, DType::bf16, DType::bf16, 1, M, N, K);
    p.set_source(amax);
    p.scalar("alpha", 0.75);
    p.add("m", DType::f32, {1}, {}, true);
    p.add("D", DType::e4m3, {M, N}, {}, true);
    run_sm90_and_compare(p, DType::f32, DType::f32, pin_config(config));
  }
}

TEST_F(Sm90Runtime, HostTensorsAndOtherTargetsGetNoSm90Operator) {
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::f16, DType::f16, 1, 16, 24, 8);
  epilogue(p, 16, 24);
  const auto host = explain_operators(p.args(false, DType::f32, DType::f32), sm90_query());
  ASSERT_FALSE(host.empty());
  for (const auto& c : host) EXPECT_EQ(c.status.reason(), "A is a host tensor; the sm90 provider needs CUDA tensors");
  OperatorQuery sm80 = sm90_query();
  sm80.target_sm = 80;
  EXPECT_TRUE(explain_operators(p.args(true, DType::f32, DType::f32), sm80).empty());
}

TEST_F(Sm90Runtime, OperatorsCarryTheirMetadata) {
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  add_padded_ab(p, DType::bf16, DType::bf16, 1, 16, 24, 8);
  epilogue(p, 16, 24);
  const auto candidates = explain_operators(p.args(true, DType::f32, DType::f32), sm90_query());
  ASSERT_EQ(candidates.size(), detail::sm90_tile_configs().size());
  std::set<std::string> names;
  for (const auto& c : candidates) {
    const OperatorMetadata& md = c.op.metadata();
    names.insert(md.name);
    EXPECT_EQ(md.provider, "sm90");
    EXPECT_EQ(md.min_sm, 90);
    EXPECT_TRUE(md.tile.m == 64 || md.tile.m == 128 || md.tile.m == 192) << md.name;
    EXPECT_EQ(md.extra.at("threads"), md.tile.m == 192 ? "512" : "384") << md.name;
    EXPECT_TRUE(md.cluster.m == 1 || md.cluster.m == 2) << md.name;
    EXPECT_GE(md.stages, 3) << md.name;
    EXPECT_FALSE(md.extra.at("dtypes").empty());
    // K = 8 here: the grouped-k tiles need whole boxes of k-blocks.
    const bool grouped = md.extra.count("k_blocks_per_stage") != 0;
    EXPECT_EQ(static_cast<bool>(c.status), md.extra.at("dtypes") == "f16,bf16" && !grouped)
        << md.name << ": " << c.status.reason();
  }
  EXPECT_EQ(names.size(), detail::sm90_tile_configs().size());
}

TEST_F(Sm90Runtime, WarmRunsLoadNothingAndEncodeMapsOnlyWhenOperandsChange) {
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem first(*driver, rng);
  add_padded_ab(first, DType::f16, DType::f16, 2, 70, 90, 40);
  add_padded_case(first, seed_epilogues()[1], 2, 70, 90);
  const std::string name = run_sm90_and_compare(first);
  ASSERT_FALSE(name.empty());
  auto pinned = [name](const OperatorMetadata& md) { return md.name == name; };
  Operator op = explain_operators(first.args(true, DType::f32, DType::f32), sm90_query(pinned)).at(0).op;
  auto impl = std::dynamic_pointer_cast<detail::Sm90Operator>(op.impl());
  ASSERT_NE(impl, nullptr);
  const std::size_t loaded = runtime::KernelLoader::instance().loaded_count();
  const std::uint64_t encodings = impl->tensor_map_encodings();
  op.run(first.args(true, DType::f32, DType::f32));
  op.run(first.args(true, DType::f32, DType::f32));
  EXPECT_EQ(impl->tensor_map_encodings(), encodings) << "same operands, same maps";
  // Other buffers and extents of the same class: the same kernel, new maps.
  // M = 33 has no tile wholly inside D, but the loaded kernel for both kinds
  // of tile serves it: nothing new is compiled or loaded.
  GpuProblem second(*driver, rng);
  add_padded_ab(second, DType::f16, DType::f16, 2, 33, 120, 17);
  add_padded_case(second, seed_epilogues()[1], 2, 33, 120);
  auto kinds = [&impl](GpuProblem& gp) {
    detail::Problem problem;
    detail::analyze(gp.args(true, DType::f32, DType::f32), problem);
    return detail::sm90_tile_kinds(impl->config(), problem);
  };
  ASSERT_EQ(kinds(first), detail::kSm90AllTileKinds) << name;
  ASSERT_EQ(kinds(second), detail::kSm90EdgeTiles) << name;
  run_sm90_and_compare(second, DType::f32, DType::f32, pinned);
  EXPECT_EQ(runtime::KernelLoader::instance().loaded_count(), loaded);
  EXPECT_EQ(impl->tensor_map_encodings(), encodings + 1);
}

TEST_F(Sm90Runtime, CapturedRunWithReductionsReplaysWithNewData) {
  EPIGEMM_REQUIRE_SM90(driver);
  GpuProblem p(*driver, rng);
  const std::int64_t L = 2, M = 150, N = 70, K = 40;
  add_padded_ab(p, DType::bf16, DType::bf16, L, M, N, K);
  p.set_source("def epi(accum, C, alpha):\n    F = accum * alpha + C\n    D = relu(F)\n    s = sum(F)\n"
               "    c = max(D)\n    return D, F, s, c\n");
  p.scalar("alpha", 0.5);
  p.add("C", DType::bf16, {L, M, N});
  p.add("D", DType::bf16, {L, M, N}, padded_rows(DType::bf16, {L, M, N}), true);
  p.add("F", DType::f32, {L, M, N}, {}, true);
  p.add("s", DType::f32, {L, M, 1}, {}, true);
  p.add("c", DType::f32, {L, 1, N}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  Operator op = get_operators(args, sm90_query()).at(0);
  expect_graph_replays_match_reference(*driver, p, op, args);
}

// A kernel that lets its programmatic dependents launch at once, waits
// `wait_ns`, then copies `a_src` over `a` and reads `d` into `d_seen`.
constexpr char kEarlyTriggerSource[] = R"(
extern "C" __global__ void late_writer(unsigned* a, const unsigned* a_src, const unsigned* d, unsigned* d_seen,
                                       long long a_words, long long d_words, unsigned long long wait_ns) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < wait_ns);
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < a_words; i += step) a[i] = a_src[i];
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < d_words; i += step) d_seen[i] = d[i];
}
)";

TEST_F(Sm90Runtime, ProgrammaticDependentGemmWaitsForThePreviousKernel) {
  // The previous kernel lets the GEMM launch at once but writes the GEMM's
  // A, and reads its D, only 300 us later: the GEMM must neither read A nor
  // write D before that (A holds NaN until then; D's poison must be what
  // the previous kernel read).
  EPIGEMM_REQUIRE_SM90(driver);
  if (!driver->device_info(0).programmatic_launch) GTEST_SKIP() << "no programmatic dependent launch here";
  const std::int64_t M = 256, N = 512, K = 192;
  GpuProblem p(*driver, rng);
  p.add_ab(DType::bf16, DType::bf16, 1, M, N, K);
  p.set_source("def epi(accum):\n    D = accum\n    return D\n");
  p.add("D", DType::bf16, {1, M, N}, {}, true);
  GpuProblem::Operand& a = p.operand("A");
  GpuProblem::Operand& d = p.operand("D");
  runtime::DeviceBuffer a_src(*driver, 0, a.bytes), d_seen(*driver, 0, d.bytes);
  a_src.upload(a.host->ref().data, a.bytes);

  runtime::CompileRequest request;
  request.source = kEarlyTriggerSource;
  request.arch = runtime::arch_name(90);
  const runtime::CompileResult compiled = runtime::nvrtc_compile(request);
  const runtime::Module module = runtime::Module::load(*driver, compiled.cubin, "late_writer");
  const CUfunction late_writer = module.function("late_writer");

  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  Operator op = get_operators(args, sm90_query()).at(0);
  CUstream stream = nullptr;
  driver->check(driver->stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  for (unsigned char poison : {0xFF, 0x5A}) {
    a.device.fill_bytes(0xFF, stream);  // bf16 NaN
    p.poison_outputs(poison, stream);
    void* a_ptr = a.device_ref.data;
    void* src_ptr = a_src.data();
    void* d_ptr = d.device_ref.data;
    void* seen_ptr = d_seen.data();
    long long a_words = static_cast<long long>(a.bytes / 4), d_words = static_cast<long long>(d.bytes / 4);
    unsigned long long wait_ns = 300'000;
    void* params[] = {&a_ptr, &src_ptr, &d_ptr, &seen_ptr, &a_words, &d_words, &wait_ns};
    runtime::LaunchConfig config;
    config.grid = {4, 1, 1};  // most SMs stay free for the GEMM
    config.block = {256, 1, 1};
    config.stream = stream;
    driver->launch(late_writer, config, params);
    op.run(args, stream);
    driver->check(driver->stream_synchronize(stream), "running the kernel and the GEMM");
    const std::string context = op.name() + ", poison byte " + std::to_string(poison);
    p.run_reference_once(DType::f32, DType::f32);
    p.compare_outputs(context);
    std::vector<unsigned char> seen(d.bytes);
    d_seen.download(seen.data(), seen.size());
    EXPECT_EQ(std::count(seen.begin(), seen.end(), poison), static_cast<std::ptrdiff_t>(seen.size()))
        << context << ": D was written before the previous kernel read it";
  }
  driver->check(driver->stream_destroy(stream), "destroying the stream");
}

}  // namespace
}  // namespace epigemm::testing
