// The operator API around the providers: rebinding without parsing again,
// metadata and provider filters, candidates with reasons, and the generated
// source of GPU operators (which needs no GPU).
#include <set>

#include "common/gemm_fixture.hpp"

namespace epigemm::testing {
namespace {

class Operators : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  HostGemm g{1, 12, 20, 8, DType::f16, rng};
  HostTensor D{DType::f32, {1, 12, 20}};
  void SetUp() override { D.poison(); }
};

TEST_F(Operators, RebindingAScalarAndAShapeClassWithoutParsingAgain) {
  HostTensor row(DType::f32, {20}), col(DType::f32, {12, 1});
  row.fill_int(rng);
  col.fill_int(rng);
  EpilogueArguments epi("def e(accum, s, b):\n    D = accum * s + b\n    return D\n", {{"s", 2.0}, {"b", row}, {"D", D}});
  GemmArguments args{.A = g.A, .B = g.B, .out = D, .epilogue = epi};
  HostGemm::run(args);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return 2.0 * g.accum(l, m, n) + row.get({n}); });

  args.epilogue->set("s", -1.0);
  args.epilogue->set("b", col);  // a row vector becomes a column vector
  D.poison();
  HostGemm::run(args);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return -g.accum(l, m, n) + col.get({m, 0}); });

  EXPECT_THROW(args.epilogue->set("nope", 1.0), Error);
  HostTensor bad(DType::f32, {7});
  EXPECT_THROW(args.epilogue->set("b", bad), Error);
}

TEST_F(Operators, MetadataAndProviderFilters) {
  GemmArguments args{.A = g.A, .B = g.B, .out = D};
  EXPECT_EQ(get_operators(args).at(0).metadata().provider, "cpu_reference");
  OperatorQuery none;
  none.metadata_filter = [](const OperatorMetadata&) { return false; };
  EXPECT_TRUE(get_operators(args, none).empty());
  OperatorQuery host_only;
  host_only.metadata_filter = [](const OperatorMetadata& md) { return md.min_sm == 0; };
  for (const Operator& op : get_operators(args, host_only)) EXPECT_EQ(op.metadata().min_sm, 0);
}

// Views of host memory marked cuda: enough for supports() to give reasons
// and for code generation, never for running.
TEST_F(Operators, GpuCandidatesGiveReasonsAndGenerateSource) {
  HostGemm wide(1, 12, 32, 16, DType::f16, rng);  // rows of 16-byte multiples, as TMA needs
  HostTensor C(DType::f16, {1, 12, 32}), Dh(DType::f16, {1, 12, 32}), F(DType::f16, {1, 12, 32});
  auto cuda = [](const TensorRef& t) { return TensorRef::cuda(t.data, t.dtype, t.shape, t.strides); };
  EpilogueArguments epi("def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n",
                        {{"alpha", 3.0}, {"C", cuda(C)}, {"D", cuda(Dh)}, {"F", cuda(F)}});
  GemmArguments args{.A = cuda(wide.A), .B = cuda(wide.B), .out = cuda(Dh), .epilogue = epi};

  const auto candidates = explain_operators(args, {.target_sm = 90});
  std::set<std::string> providers;
  for (const auto& c : candidates) {
    providers.insert(c.op.metadata().provider);
    EXPECT_FALSE(c.status.is_ok()) << c.op.name();  // host memory can run nowhere
    EXPECT_FALSE(c.status.reason().empty()) << c.op.name();
  }
  EXPECT_TRUE(providers.count("sm90") && providers.count("simt") && providers.count("cpu_reference"));

  // Every GPU operator whose kernel takes f16 generates the fused epilogue;
  // the others (and the host provider) say why not.
  std::set<std::string> generated;
  for (const auto& c : candidates) {
    try {
      const std::string source = c.op.generated_source(args);
      EXPECT_NE(source.find("epilogue_apply"), std::string::npos) << c.op.name();
      EXPECT_NE(source.find("epg_relu"), std::string::npos) << c.op.name();
      generated.insert(c.op.metadata().provider);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
      // sm90 operators of the other operand classes (fp8, tf32, int8) refuse
      // f16; the grouped-k ones refuse a K that is not whole boxes of k-blocks.
      const bool sm90 = c.op.metadata().provider == "sm90";
      const bool other_class = sm90 && c.op.name().find("_16bit") == std::string::npos;
      const bool grouped = sm90 && c.op.metadata().extra.count("k_blocks_per_stage") != 0 &&
                           std::string(e.what()).find("the other tiles take") != std::string::npos;
      EXPECT_TRUE(c.op.metadata().provider == "cpu_reference" || other_class || grouped)
          << c.op.name() << ": " << e.what();
    }
  }
  EXPECT_EQ(generated, (std::set<std::string>{"simt", "sm80", "sm90"}));
}

// With ignore_devices an operator judges the problem alone: the GPU
// operators whose kernels take it say ok whether or not this machine has a
// GPU, and those that refuse it give the problem's reason, not the machine's.
TEST_F(Operators, IgnoringDevicesJudgesTheProblemAlone) {
  HostGemm wide(1, 256, 256, 128, DType::bf16, rng);
  HostTensor Dh(DType::bf16, {1, 256, 256});
  auto cuda = [](const TensorRef& t) { return TensorRef::cuda(t.data, t.dtype, t.shape, t.strides); };
  GemmArguments args{.A = cuda(wide.A), .B = cuda(wide.B), .out = cuda(Dh)};
  const OperatorQuery query{.target_sm = 90, .ignore_devices = true};

  const auto candidates = explain_operators(args, query);
  ASSERT_FALSE(candidates.empty());
  ASSERT_TRUE(candidates.front().status.is_ok()) << candidates.front().status.reason();
  EXPECT_EQ(candidates.front().op.metadata().provider, "sm90");
  bool seen_refused = false;
  std::set<std::string> took;
  for (const auto& c : candidates) {
    if (c.status) {
      took.insert(c.op.name());
      EXPECT_FALSE(seen_refused) << c.op.name() << " (ok) ranks below a refused operator";
      EXPECT_FALSE(c.op.generated_source(args).empty()) << c.op.name();
    } else {
      seen_refused = true;
      EXPECT_EQ(c.status.reason().find("cannot run here"), std::string::npos) << c.op.name() << ": " << c.status.reason();
    }
  }
  EXPECT_TRUE(seen_refused);  // the other operand classes and the host provider

  // The problem's own checks stay: every operator that took it refuses an
  // A off its elements' alignment, saying so.
  TensorRef shifted = cuda(wide.A);
  shifted.data = static_cast<char*>(shifted.data) + 1;
  args.A = shifted;
  for (const auto& c : explain_operators(args, query)) {
    EXPECT_FALSE(c.status.is_ok()) << c.op.name();
    if (took.count(c.op.name())) {
      EXPECT_NE(c.status.reason().find("aligned"), std::string::npos) << c.op.name() << ": " << c.status.reason();
    }
  }
}

// A tool describing a GPU without one gives its SM count and L2 size, and
// the sm90 ranking weighs them: an H100's 50 MB of L2 puts a fused bf16
// 8192^3 on 128x192 pingpong (the H200's 60 on 128x128 pingpong), and 114
// SMs put 1536^3 on 128x192 (132 on 128x160, whose 120 tiles then fill one
// wave). Nothing is read: the tensors only describe CUDA memory at aligned
// addresses.
TEST_F(Operators, TheDescribedGpusSmCountAndL2SteerTheRanking) {
  std::uintptr_t next = std::uintptr_t{1} << 40;
  auto described = [&](DType dtype, Dims shape, Dims strides = {}) {
    const void* at = reinterpret_cast<const void*>(next);
    next += std::uintptr_t{1} << 32;
    return TensorRef::cuda(at, dtype, std::move(shape), std::move(strides));
  };
  auto first = [](const GemmArguments& args, const OperatorQuery& query) {
    for (const OperatorCandidate& c : explain_operators(args, query)) {
      if (!c.status) continue;
      EXPECT_NE(c.ranking.find("modelled"), std::string::npos) << c.op.name() << ": " << c.ranking;
      return c.op.name();
    }
    return std::string("none");
  };
  const std::int64_t n = 8192;
  const TensorRef fused_d = described(DType::bf16, {1, n, n});
  GemmArguments fused{.A = described(DType::bf16, {1, n, n}),
                      .B = described(DType::bf16, {1, n, n}),
                      .out = fused_d,
                      .epilogue = EpilogueArguments("def e(accum, C):\n    D = relu(accum + C)\n    return D\n",
                                                    {{"C", described(DType::bf16, {1, n, n})}, {"D", fused_d}})};
  OperatorQuery query{.target_sm = 90, .providers = {"sm90"}, .ignore_devices = true};
  EXPECT_EQ(first(fused, query), "sm90_wgmma_128x128x64_c1x1_pingpong_16bit");
  query.l2_bytes = std::int64_t{60} << 20;
  EXPECT_EQ(first(fused, query), "sm90_wgmma_128x128x64_c1x1_pingpong_16bit");
  query.l2_bytes = std::int64_t{50} << 20;
  EXPECT_EQ(first(fused, query), "sm90_wgmma_128x192x64_c1x1_pingpong_16bit");

  // B column-major: with a row-major B (N-major) 1536^3 ranks 128x192 first.
  const std::int64_t m = 1536;
  const GemmArguments mid{.A = described(DType::bf16, {1, m, m}),
                          .B = described(DType::bf16, {1, m, m}, {m * m, 1, m}),
                          .out = described(DType::bf16, {1, m, m})};
  query.l2_bytes = 0;
  EXPECT_EQ(first(mid, query), "sm90_wgmma_128x160x64_c1x1_16bit");
  query.sm_count = 132;
  EXPECT_EQ(first(mid, query), "sm90_wgmma_128x160x64_c1x1_16bit");
  query.sm_count = 114;
  EXPECT_EQ(first(mid, query), "sm90_wgmma_128x192x64_c1x1_16bit");

  // Without ignore_devices the device tells, and a described figure is an error.
  query.ignore_devices = false;
  EXPECT_THROW(explain_operators(mid, query), Error);
  query.ignore_devices = true;
  query.sm_count = -1;
  EXPECT_THROW(explain_operators(mid, query), Error);
}

// fp8 GEMMs accumulate precisely by default, as cuBLASLt and
// torch._scaled_mm do; a metadata filter on "fp8_accumulation" opts into
// the tensor cores' fast accumulation.
TEST_F(Operators, Fp8RanksPreciseAccumulationFirstAndTheFilterPicksFast) {
  auto cuda = [](const TensorRef& t) { return TensorRef::cuda(t.data, t.dtype, t.shape, t.strides); };
  const std::int64_t M = 256, N = 512, K = 1024;
  HostTensor A(DType::e4m3, {M, K}), B(DType::e4m3, {K, N}, {1, K}), Dh(DType::bf16, {M, N});
  A.fill_int(rng);
  B.fill_int(rng);
  GemmArguments args{.A = cuda(A), .B = cuda(B), .out = cuda(Dh)};
  const auto accumulation = [](const Operator& op) {
    const auto& extra = op.metadata().extra;
    const auto it = extra.find("fp8_accumulation");
    return it == extra.end() ? std::string("-") : it->second;
  };

  const auto all = explain_operators(args, {.target_sm = 90, .providers = {"sm90"}});
  ASSERT_FALSE(all.empty());
  // Every sm90 operator that takes fp8 says how it accumulates; the
  // precise ones come before every fast one.
  bool seen_fast = false;
  int precise = 0, fast = 0;
  for (const auto& c : all) {
    const bool fp8 = c.op.name().find("_fp8") != std::string::npos;
    if (!fp8) {
      EXPECT_EQ(accumulation(c.op), "-") << c.op.name();
      continue;
    }
    const std::string how = accumulation(c.op);
    ASSERT_TRUE(how == "precise" || how == "fast") << c.op.name() << ": " << how;
    if (how == "fast") {
      seen_fast = true;
      ++fast;
    } else {
      ++precise;
      EXPECT_FALSE(seen_fast) << c.op.name() << " (precise) ranks below a fast operator";
    }
  }
  EXPECT_GT(precise, 0);
  EXPECT_GT(fast, 0);
  // The operators of other operand classes (which refuse fp8) aside, a precise one comes first.
  const auto first_fp8 = std::find_if(all.begin(), all.end(), [](const OperatorCandidate& c) {
    return c.op.name().find("_fp8") != std::string::npos;
  });
  ASSERT_NE(first_fp8, all.end());
  EXPECT_EQ(accumulation(first_fp8->op), "precise") << first_fp8->op.name();

  OperatorQuery fast_only{.target_sm = 90, .providers = {"sm90"}};
  fast_only.metadata_filter = [](const OperatorMetadata& md) {
    const auto it = md.extra.find("fp8_accumulation");
    return it != md.extra.end() && it->second == "fast";
  };
  const auto picked = explain_operators(args, fast_only);
  ASSERT_EQ(picked.size(), static_cast<std::size_t>(fast));
  for (const auto& c : picked) EXPECT_EQ(accumulation(c.op), "fast") << c.op.name();
  // Both kinds generate their kernel; only the precise one promotes.
  const std::string precise_source = first_fp8->op.generated_source(args);
  const std::string fast_source = picked.front().op.generated_source(args);
  EXPECT_NE(precise_source.find("_precise"), std::string::npos);
  EXPECT_EQ(fast_source.find("_precise"), std::string::npos);
}

}  // namespace
}  // namespace epigemm::testing
