// NVRTC compiles the whole sm90 kernel (GEMM template + fused generated
// epilogue) for sm_90a: every seed epilogue, epilogues covering every op,
// load/store kind and epilogue dtype, every tile configuration, operand
// majors, fp8, tf32 and int8 operands, fp8 and integer D and the
// accumulator/compute variants, whole-output reductions on every
// configuration, and the operand repack module. No GPU
// needed; any compile error or warning fails, and so does ptxas serializing
// wgmmas. Compiles run on parallel threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "api/problem.hpp"
#include "codegen/kernel_source.hpp"
#include "common/random_epilogue.hpp"
#include "nvrtc/catalog_problem.hpp"
#include "support/parallel.hpp"
#include "providers/sm90/sm90_kernel_source.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "providers/sm90/sm90_repack.hpp"
#include "runtime/nvrtc.hpp"
#include "support/env.hpp"

namespace epigemm::testing {
namespace {

using detail::Sm90OperandClass;
using detail::Sm90TileConfig;

struct Sm90Job {
  std::string label;
  runtime::KernelSource source;
  std::string error;  ///< empty when the compile succeeded without warnings
};

/// Extents whose rows are 16-byte aligned for every dtype used (8 x 16-bit,
/// 16 x 8-bit), so the plan accepts every layout.
constexpr std::int64_t kL = 2, kM = 8, kN = 16, kK = 32;

/// Every configuration but the grouped-k ones, which need a K-major A and
/// K of at least one box of k-blocks (GroupedKTilesOnTheirLayout compiles
/// those), and those that write D column-major (`d_column_major`: those
/// alone; ColumnMajorDTiles compiles them).
std::vector<Sm90TileConfig> plain_tile_configs(bool d_column_major = false) {
  std::vector<Sm90TileConfig> out;
  for (const auto& c : detail::sm90_tile_configs()) {
    if (c.k_group == 1 && c.d_column_major == d_column_major) out.push_back(c);
  }
  return out;
}

/// The configuration of `operands` class at index `i` (wrapping).
Sm90TileConfig config_at(Sm90OperandClass operands, std::size_t i) {
  std::vector<Sm90TileConfig> of_class;
  for (const auto& c : plain_tile_configs()) {
    if (c.operands == operands) of_class.push_back(c);
  }
  return of_class.at(i % of_class.size());
}

/// The sm90 build of one catalog case: A and B replaced by views of the
/// requested majors, the problem analysed and planned (the plan must accept).
/// `adjust` (if any) may rebind the epilogue's operands before the analysis.
Sm90Job make_job(const std::string& label, const EpilogueCase& c, const DTypeCombo& combo, const Sm90TileConfig& config,
                 bool a_k_major, bool b_k_major, std::mt19937& rng,
                 const std::function<void(HostCatalogProblem&)>& adjust = nullptr, std::int64_t k = kK,
                 bool stream_k_code = true,
                 int tile_kinds = detail::kSm90AllTileKinds) {
  HostCatalogProblem hp(c, combo, kL, kM, kN, k, rng);
  if (adjust) adjust(hp);
  // A (L, M, K): K-major = row-major; B (L, K, N): K-major = column-major.
  const auto add = [&hp](DType dtype, Dims dims, Dims strides) -> HostTensor& {
    hp.owned.push_back(std::make_unique<HostTensor>(dtype, dims, strides));
    return *hp.owned.back();
  };
  HostTensor& a = a_k_major ? add(combo.a, {kL, kM, k}, {}) : add(combo.a, {kL, kM, k}, {kM * k, 1, kM});
  HostTensor& b = b_k_major ? add(combo.b, {kL, k, kN}, {k * kN, 1, k}) : add(combo.b, {kL, k, kN}, {});
  a.fill_int(rng);
  b.fill_int(rng);
  hp.args.A = a.ref();
  hp.args.B = b.ref();
  detail::Problem p;
  detail::analyze(hp.args, p);
  detail::Sm90Plan plan;
  const Status s = detail::make_sm90_plan(p, config, plan);
  Sm90Job job{label + "_" + config.shape_name(), {}, {}};
  if (!s) {
    job.error = "the plan refused it: " + s.reason();
    return job;
  }
  EXPECT_EQ(plan.a_k_major, a_k_major) << label;
  EXPECT_EQ(plan.b_k_major, b_k_major) << label;
  plan.stream_k_code = stream_k_code;
  plan.tile_kinds = tile_kinds;
  job.source = detail::sm90_kernel_build(p, plan, config);
  // The unit names its template kernel where `epigemm emit --compile` reads it.
  EXPECT_EQ(codegen::instantiated_kernel(job.source.source), job.source.name_expression) << label;
  EXPECT_EQ(job.source.source.find("operand_repack"), std::string::npos) << label << ": the repack kernel has its own module";
  return job;
}

/// Compiles every job (that has a source) on up to hardware_concurrency() threads.
void compile_all(std::vector<Sm90Job>& jobs) {
  run_in_parallel(jobs.size(), 8, [&](std::size_t i) {
    Sm90Job& job = jobs[i];
    if (!job.error.empty()) return;
    runtime::CompileRequest request;
    request.source = job.source.source;
    request.file_name = job.label + ".cu";
    request.arch = job.source.arch;
    request.options = job.source.options;
    // ptxas reports (verbosely) where it serializes wgmmas: C7510 (a call
    // or assert in the main loop), C7514, C7517 and C7519 (other code
    // touching accumulators while wgmmas are in flight).
    request.options.push_back("--ptxas-options=--verbose");
    request.name_expressions = {job.source.name_expression};
    request.headers = job.source.headers;
    try {
      const runtime::CompileResult result = runtime::nvrtc_compile(request);
      if (result.cubin.empty()) job.error = "no cubin produced";
      if (result.log.find("warning") != std::string::npos) job.error = "warnings:\n" + result.log;
      for (const char* code : {"C7510", "C7514", "C7517", "C7519"}) {
        if (result.log.find(code) != std::string::npos) job.error = "wgmma serialized:\n" + result.log;
      }
      if (result.lowered_names.size() != 1 || result.lowered_names[0].empty()) job.error = "kernel name not found";
    } catch (const std::exception& e) {
      job.error = e.what();
    }
  });
}

void expect_all_compile(std::vector<Sm90Job> jobs) {
  ASSERT_FALSE(jobs.empty());
  compile_all(jobs);
  for (const Sm90Job& job : jobs) EXPECT_TRUE(job.error.empty()) << job.label << ":\n" << job.error;
}

TEST(Sm90RepackCompile, TheRepackModuleForEveryOperandSize) {
  // The repack kernel is a module of its own (not in the GEMM units), one
  // per element size; the GEMM unit must not carry it.
  std::vector<Sm90Job> jobs;
  for (int bytes : {1, 2, 4}) {
    Sm90Job job{"repack_" + std::to_string(bytes) + "byte", detail::sm90_repack_kernel_build(bytes), {}};
    EXPECT_EQ(codegen::instantiated_kernel(job.source.source), job.source.name_expression) << job.label;
    EXPECT_EQ(job.source.name_expression, "epg_sm90_repack_kernel<" + std::to_string(bytes) + ">");
    jobs.push_back(std::move(job));
  }
  expect_all_compile(std::move(jobs));
  EXPECT_NE(detail::sm90_repack_kernel_key(1), detail::sm90_repack_kernel_key(2));
  EXPECT_THROW(detail::sm90_repack_kernel_build(8), Error);
}

class Sm90Compile : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kF16{"f16_f32acc", DType::f16, DType::f16, DType::f32, DType::f32};
};

TEST_F(Sm90Compile, EverySeedEpilogueWithTheLargestTile) {
  std::vector<Sm90Job> jobs;
  const Sm90TileConfig config = config_at(Sm90OperandClass::bits16, 0);
  for (const EpilogueCase& c : seed_epilogues()) {
    jobs.push_back(make_job("seed_" + c.name, c, kF16, config, true, false, rng));
  }
  EXPECT_EQ(jobs.size(), 11u);
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, EveryOpLoadKindStoreKindOnEveryTileConfiguration) {
  // The coverage epilogues (every op, load kind and dtype, store dtype,
  // reductions) spread over the 16-bit configurations.
  std::vector<Sm90Job> jobs;
  std::size_t i = 0;
  for (const EpilogueCase& c : coverage_epilogues()) {
    jobs.push_back(make_job("coverage_" + c.name, c, kF16, config_at(Sm90OperandClass::bits16, i++), true, false, rng));
  }
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, OperandMajorsDTypesAccumulatorsAndOutputTypes) {
  const auto seeds = seed_epilogues(DType::bf16, DType::bf16);
  const EpilogueCase with_accum = epilogue_case(seeds, "relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  const EpilogueCase f32_out = epilogue_case(coverage_epilogues(), "activations");  // D is f32
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  std::vector<Sm90Job> jobs;
  // Every A/B major pairing for 16-bit operands.
  for (int majors = 0; majors < 4; ++majors) {
    jobs.push_back(make_job("bf16_majors" + std::to_string(majors), with_accum, bf16,
                            config_at(Sm90OperandClass::bits16, static_cast<std::size_t>(majors)), majors & 1,
                            majors & 2, rng));
  }
  // f16 accumulators, f16/bf16 compute, f32 D on the tiles that stage it in parts.
  jobs.push_back(make_job("f16_acc", with_accum, {"f16acc", DType::f16, DType::f16, DType::f16, DType::f32},
                          config_at(Sm90OperandClass::bits16, 2), true, true, rng));
  jobs.push_back(make_job("compute_f16", reductions, {"c16", DType::f16, DType::f16, DType::f32, DType::f16},
                          config_at(Sm90OperandClass::bits16, 4), false, false, rng));
  jobs.push_back(make_job("compute_bf16", with_accum, {"cb16", DType::bf16, DType::bf16, DType::f32, DType::bf16},
                          config_at(Sm90OperandClass::bits16, 3), true, false, rng));
  for (std::size_t i = 0; i < 3; ++i) {
    jobs.push_back(make_job("f32_out", f32_out, kF16, config_at(Sm90OperandClass::bits16, i), true, false, rng));
  }
  // fp8: mixed and f16-accumulated, K-major only, across the fp8 configurations.
  jobs.push_back(make_job("e4m3_e5m2", with_accum, {"e4m3_e5m2", DType::e4m3, DType::e5m2, DType::f32, DType::f32},
                          config_at(Sm90OperandClass::fp8, 0), true, true, rng));
  jobs.push_back(make_job("e5m2_f16acc", reductions, {"e5m2", DType::e5m2, DType::e5m2, DType::f16, DType::f32},
                          config_at(Sm90OperandClass::fp8, 2), true, true, rng));
  jobs.push_back(make_job("e4m3_small_m", f32_out, {"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32},
                          config_at(Sm90OperandClass::fp8, 4), true, true, rng));
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, PartChunkTilesWithAnNMajorB) {
  // The tiles whose width is not a whole number of 64-column chunks take an
  // N-major B in 32-column chunks (192x96) or in whole chunks and a tail
  // multiplied by its own m64n32 wgmma (128x160): both A majors, a fused
  // epilogue and reductions, none with a wgmma serialized.
  const EpilogueCase with_accum = epilogue_case(seed_epilogues(DType::bf16, DType::bf16), "relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  std::vector<Sm90Job> jobs;
  for (const Sm90TileConfig& c : plain_tile_configs()) {
    if (c.operands != Sm90OperandClass::bits16 || c.bn % 64 == 0) continue;
    for (bool a_k_major : {true, false}) {
      const std::string majors = a_k_major ? "_ak" : "_am";
      jobs.push_back(make_job("n_major_b" + majors, with_accum, bf16, c, a_k_major, false, rng));
      jobs.push_back(make_job("n_major_b_reduce" + majors, reductions, kF16, c, a_k_major, false, rng));
    }
  }
  EXPECT_EQ(jobs.size(), 8u);  // 128x160 and 192x96
  expect_all_compile(std::move(jobs));
}

/// The 1x1 configuration of tile bm x bn for `operands`, cooperative or
/// pingpong (it must exist).
Sm90TileConfig config_of(Sm90OperandClass operands, int bm, int bn, bool pingpong = false) {
  for (const auto& c : plain_tile_configs()) {
    if (c.operands == operands && c.bm == bm && c.bn == bn && c.cluster_m == 1 && c.pingpong == pingpong) return c;
  }
  ADD_FAILURE() << "no 1x1 " << bm << "x" << bn << (pingpong ? " pingpong" : "") << " configuration";
  return {};
}

/// A row bias and an extra f32 output next to D (of dtype `d`).
EpilogueCase bias_and_extra_output(DType d) {
  using S = OperandShape;
  return {"bias_extra_out",
          "def epi(accum, alpha, bias):\n    F = accum * alpha + bias\n    D = relu(F)\n    return D, F\n",
          {{"alpha", S::scalar, DType::f32, 1.5}, {"bias", S::row, DType::f32}, {"D", S::tile, d},
           {"F", S::tile, DType::f32}}};
}

TEST_F(Sm90Compile, DStoredByTheThreadsWhereTmaCannot) {
  // D's rows 2 elements longer than N: pitches TMA cannot store (36 bytes
  // for bf16, stored in words; 18 for e4m3, stored element by element), so
  // the threads store every chunk; with a staged input (the threads' reads
  // of the slots before its next load) and a staged output, on a
  // cooperative, a pingpong and a one-chunk tile.
  const auto unaligned_d = [](HostCatalogProblem& hp) {
    HostTensor& d = *hp.tensors.at("D");
    hp.owned.push_back(std::make_unique<HostTensor>(d.dtype, Dims{hp.L, hp.M, hp.N},
                                                    Dims{hp.M * (hp.N + 2), hp.N + 2, 1}));
    hp.args.out = hp.owned.back()->ref();
    hp.args.epilogue->set("D", Binding(hp.args.out));
  };
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  // C staged in, F staged out, D by the threads.
  const EpilogueCase staged = epilogue_case(seed_epilogues(DType::bf16, DType::bf16), "relu_aux_store");
  std::vector<Sm90Job> jobs;
  const Sm90TileConfig pingpong = config_of(Sm90OperandClass::bits16, 128, 128, true);
  for (const Sm90TileConfig& c :
       {config_of(Sm90OperandClass::bits16, 128, 256), config_of(Sm90OperandClass::bits16, 64, 64), pingpong}) {
    jobs.push_back(make_job("d_by_threads", staged, bf16, c, true, false, rng, unaligned_d));
    jobs.push_back(
        make_job("d_by_threads_out", bias_and_extra_output(DType::bf16), bf16, c, true, false, rng, unaligned_d));
  }
  jobs.push_back(make_job("d_by_threads_e4m3", bias_and_extra_output(DType::e4m3), bf16,
                          config_of(Sm90OperandClass::bits16, 64, 128), true, true, rng, unaligned_d));
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, ColumnMajorDTiles) {
  // The tiles that write D column-major, on a column-major D (the kernel's
  // own orientation) with A and B in every order: a staged input and output
  // laid out as D, and reductions of every kind, on each; D's columns 18
  // bytes apart (stored by the threads) on two.
  const auto column_major_tiles = [](HostCatalogProblem& hp, std::int64_t pitch) {
    for (const char* name : {"C", "D", "F"}) {
      const auto it = hp.tensors.find(name);
      if (it == hp.tensors.end() || it->second->shape.size() != 3 || it->second->shape[1] != hp.M) continue;
      hp.owned.push_back(std::make_unique<HostTensor>(it->second->dtype, Dims{hp.L, hp.M, hp.N},
                                                      Dims{pitch * hp.N, 1, pitch}));
      it->second = hp.owned.back().get();
      if (std::string_view(name) == "D") hp.args.out = it->second->ref();
      hp.args.epilogue->set(name, Binding(it->second->ref()));
    }
  };
  const auto aligned = [&](HostCatalogProblem& hp) { column_major_tiles(hp, hp.M); };
  const auto unaligned = [&](HostCatalogProblem& hp) { column_major_tiles(hp, hp.M + 1); };
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  const EpilogueCase staged = epilogue_case(seed_epilogues(DType::bf16, DType::bf16), "relu_aux_store");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  std::vector<Sm90Job> jobs;
  const std::vector<Sm90TileConfig> configs = plain_tile_configs(true);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const bool a_k_major = i % 2 == 0, b_k_major = i / 2 % 2 == 1;
    jobs.push_back(make_job("dcol_staged", staged, bf16, configs[i], a_k_major, b_k_major, rng, aligned));
    jobs.push_back(make_job("dcol_reductions", reductions, kF16, configs[i], a_k_major, b_k_major, rng, aligned));
    EXPECT_NE(jobs.back().source.name_expression.find(", true>, EpgSm90Hook"), std::string::npos)
        << jobs.back().label;
    if (i < 2) {
      jobs.push_back(make_job("dcol_by_threads", staged, bf16, configs[i], true, false, rng, unaligned));
      EXPECT_NE(jobs.back().source.source.find("D: stored by the threads"), std::string::npos) << jobs.back().label;
    }
  }
  EXPECT_EQ(configs.size(), 15u);
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, SkinnyTilesEveryOperandMajorAndOutputType) {
  // 64x64 (each consumer 64 x 32: m64n32 wgmmas, 64-byte-wide staging for a
  // 16-bit D) and 128x64 (each consumer 64 x 64).
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  const DTypeCombo e4m3{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32};
  std::vector<Sm90Job> jobs;
  for (const auto& [bm, bn] : {std::pair{64, 64}, std::pair{128, 64}}) {
    const Sm90TileConfig c16 = config_of(Sm90OperandClass::bits16, bm, bn);
    const Sm90TileConfig c8 = config_of(Sm90OperandClass::fp8, bm, bn);
    // Every A/B major pairing for bf16 and f16, each D type with each operand
    // type and with an N-major (row-major) B.
    const DType bf16_d[4] = {DType::bf16, DType::f16, DType::f32, DType::bf16};
    const DType f16_d[4] = {DType::f16, DType::f32, DType::bf16, DType::f16};
    for (int majors = 0; majors < 4; ++majors) {
      const bool a_k = majors & 1, b_k = majors & 2;
      const std::string tag = std::string("_a") + (a_k ? "k" : "m") + (b_k ? "bk" : "bn") + "_d";
      jobs.push_back(make_job("bf16" + tag + std::string(to_string(bf16_d[majors])),
                              bias_and_extra_output(bf16_d[majors]), bf16, c16, a_k, b_k, rng));
      jobs.push_back(make_job("f16" + tag + std::string(to_string(f16_d[majors])), bias_and_extra_output(f16_d[majors]),
                              kF16, c16, a_k, b_k, rng));
    }
    for (const DType d : {DType::bf16, DType::f32}) {
      jobs.push_back(make_job("e4m3_d" + std::string(to_string(d)), bias_and_extra_output(d), e4m3, c8, true, true, rng));
    }
    // Column reductions (a chunk's columns in registers) on the narrow chunks.
    jobs.push_back(make_job("reductions", epilogue_case(coverage_epilogues(), "reductions"), kF16, c16, true, false, rng));
  }
  EXPECT_EQ(jobs.size(), 22u);
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, Fp8OutputDOnEveryTileConfiguration) {
  // D = accum * scale into e4m3 and e5m2 with its amax, on every tile
  // configuration of both operand classes (64x128 stages fp8 D in 64-byte
  // rows, 64x64 in 32-byte ones), and fp8 D next to column, row and whole
  // reductions.
  using S = OperandShape;
  const auto scale_amax = [](DType d) {
    return EpilogueCase{"scale_amax",
                        "def epi(accum, scale):\n    D = accum * scale\n    amax = amax(D)\n    return D, amax\n",
                        {{"scale", S::scalar_tensor, DType::f32},
                         {"D", S::tile, d},
                         {"amax", S::scalar_reduce, DType::f32}}};
  };
  EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  for (CatalogOperand& op : reductions.operands) {
    if (op.name == "D") op.dtype = DType::e5m2;
  }
  // One combination per operand class, in Sm90OperandClass order.
  const DTypeCombo combos[] = {{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32},
                               {"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32},
                               {"tf32", DType::tf32, DType::tf32, DType::f32, DType::f32},
                               {"s8u8", DType::i8, DType::u8, DType::i32, DType::f32}};
  std::vector<Sm90Job> jobs;
  std::size_t configs = 0;
  for (const Sm90TileConfig& config : plain_tile_configs()) {
    ++configs;
    const DTypeCombo& combo = combos[static_cast<int>(config.operands)];
    const bool b_k_major = config.operands != Sm90OperandClass::bits16;
    for (const DType d : {DType::e4m3, DType::e5m2}) {
      jobs.push_back(make_job(combo.name + "_D_" + std::string(to_string(d)), scale_amax(d), combo, config, true,
                              b_k_major, rng));
    }
  }
  jobs.push_back(make_job("f16_reductions_D_e5m2", reductions, kF16, config_at(Sm90OperandClass::bits16, 1), true,
                          false, rng));
  jobs.push_back(make_job("f16_mn_reductions_D_e5m2", reductions, kF16, config_at(Sm90OperandClass::bits16, 4), false,
                          true, rng));
  jobs.push_back(make_job("e5m2_f16acc_reductions_D_e5m2", reductions,
                          {"e5m2_f16acc", DType::e5m2, DType::e5m2, DType::f16, DType::f32},
                          config_at(Sm90OperandClass::fp8, 2), true, true, rng));
  EXPECT_EQ(jobs.size(), 2 * configs + 3);
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, StagedInputsAndOutputsOfEveryElementSize) {
  // A full-tile C of D's element size is read from D's staging slots
  // (ldmatrix for 2 bytes, 16-bit loads for fp8 and i8/u8, 8-byte loads for
  // f32 and i32), in C's own dtype where it differs from D's; F of D's size
  // follows D through the slots (TMA-stored), an F of another size is stored
  // directly. Last, an int8 GEMM's i32 C on its 128x128 cooperative tile.
  using S = OperandShape;
  const auto relu_with_f = [](DType c, DType d, DType f) {
    return EpilogueCase{"relu_f",
                        "def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n",
                        {{"alpha", S::scalar, DType::f32, 0.5}, {"C", S::tile, c}, {"D", S::tile, d}, {"F", S::tile, f}}};
  };
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  struct Types {
    DType c, d, f;
  };
  const Types types[] = {{DType::bf16, DType::bf16, DType::bf16}, {DType::f16, DType::bf16, DType::f16},
                         {DType::f32, DType::f32, DType::f32}, {DType::e5m2, DType::e4m3, DType::e5m2},
                         {DType::bf16, DType::bf16, DType::f32}, {DType::i32, DType::i32, DType::f32},
                         {DType::i8, DType::u8, DType::e4m3},     {DType::u8, DType::e5m2, DType::bf16}};
  std::vector<Sm90Job> jobs;
  std::vector<bool> staged_f;
  std::size_t i = 0;
  for (const Types& t : types) {
    // An f32 D fills 128x256's slots only in halves: no room for C there.
    const int wide = size_bytes(t.d) == 4 ? 128 : 256;
    for (const auto& [bm, bn] : {std::pair{128, wide}, std::pair{64, 128}}) {
      const std::string name = "staged_" + std::string(to_string(t.c)) + "_into_" + std::string(to_string(t.d)) +
                               "_f_" + std::string(to_string(t.f));
      jobs.push_back(make_job(name, relu_with_f(t.c, t.d, t.f), bf16, config_of(Sm90OperandClass::bits16, bm, bn),
                              (i++ % 2) == 0, false, rng));
      staged_f.push_back(size_bytes(t.f) == size_bytes(t.d));
    }
  }
  const DTypeCombo s8u8{"s8u8", DType::i8, DType::u8, DType::i32, DType::f32};
  jobs.push_back(make_job("s8u8_staged_i32", relu_with_f(DType::i32, DType::i32, DType::f32), s8u8,
                          config_of(Sm90OperandClass::int8, 128, 128), true, true, rng));
  staged_f.push_back(true);
  // The hook's arguments after kLoop: the staged input (C: 1) and output (F: 1, or -1).
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::string expected = staged_f[j] ? "false, 1, 1" : "false, 1, -1";
    EXPECT_NE(jobs[j].source.name_expression.find(expected), std::string::npos)
        << jobs[j].label << ": " << jobs[j].source.name_expression;
  }
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, TileOperandsReadAndStoredInPairsOfEveryElementSize) {
  // Besides C (D's size: staged), tile inputs of 2, 1, 4 and 8 bytes that
  // the threads read an even column and its neighbour at a time, and tile
  // outputs of 1 and 4 bytes they store so, in unrolled and looped chunks,
  // on a cooperative, a pingpong and a one-chunk tile; then with rows an
  // odd number of elements apart, read and stored element by element.
  using S = OperandShape;
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  const auto odd_rows = [](HostCatalogProblem& hp) {
    for (const auto& [name, dtype] :
         {std::pair{"Q", DType::f16}, std::pair{"P", DType::i8}, std::pair{"Y", DType::e5m2}}) {
      hp.owned.push_back(std::make_unique<HostTensor>(dtype, Dims{hp.L, hp.M, hp.N},
                                                      Dims{hp.M * (hp.N + 1), hp.N + 1, 1}));
      hp.args.epilogue->set(name, Binding(hp.owned.back()->ref()));
    }
  };
  const Sm90TileConfig pingpong = config_of(Sm90OperandClass::bits16, 128, 128, true);
  std::vector<Sm90Job> jobs;
  std::vector<std::string> masks;
  for (const bool loop : {false, true}) {
    const EpilogueCase c{"pairs",
                         "def epi(accum, C, Q, P, R, W):\n    X = " + std::string(loop ? "gelu(accum)" : "accum") +
                             "\n    D = X + C + Q * P + R - W\n    Y = D * 0.5\n    Z = X - R\n    return D, Y, Z\n",
                         {{"C", S::tile, DType::bf16},
                          {"Q", S::tile, DType::f16},
                          {"P", S::tile, DType::i8},
                          {"R", S::tile, DType::f32},
                          {"W", S::tile, DType::f64},
                          {"D", S::tile, DType::bf16},
                          {"Y", S::tile, DType::e5m2},
                          {"Z", S::tile, DType::f32}}};
    for (const Sm90TileConfig& config :
         {config_of(Sm90OperandClass::bits16, 128, 256), config_of(Sm90OperandClass::bits16, 64, 64), pingpong}) {
      const std::string label = loop ? "looped_pairs" : "unrolled_pairs";
      // The unit-step masks, then the pairs: Q, P, R and W (inputs 1-4), Y and Z (outputs 1 and 2).
      jobs.push_back(make_job(label, c, bf16, config, true, false, rng));
      masks.push_back(", 31ull, 7ull, 30ull, 6ull, ");
      jobs.push_back(make_job(label + "_odd_rows", c, bf16, config, true, false, rng, odd_rows));
      masks.push_back(", 31ull, 7ull, 24ull, 4ull, ");  // R, W and Z
    }
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_NE(jobs[i].source.name_expression.find(masks[i]), std::string::npos)
        << jobs[i].label << ": " << jobs[i].source.name_expression;
  }
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, StridedInputsAndDirectTileOutputsOnEveryTileConfiguration) {
  // Inputs and directly stored tile outputs addressed from one base per
  // chunk: row, column and tile inputs with a unit step along their axis
  // and strided (rebound to strided views), per batch and shared, outputs
  // by pairs and strided, in looped and unrolled chunks, on every 16-bit
  // configuration.
  using S = OperandShape;
  const std::string body = "    D = X + rb + cb + rs - cs + T * U\n    F = D * 2.0\n    G = X - D\n    return D, F, G\n";
  std::vector<Sm90Job> jobs;
  for (const bool loop : {false, true}) {
    const EpilogueCase c{"strided",
                         "def epi(accum, rb, cb, rs, cs, T, U):\n    X = " + std::string(loop ? "gelu(accum)" : "accum") +
                             "\n" + body,
                         {{"rb", S::row, DType::bf16},
                          {"cb", S::column_batched, DType::f16},
                          {"rs", S::row, DType::f32},
                          {"cs", S::column, DType::bf16},
                          {"T", S::tile, DType::f32},
                          {"U", S::tile_shared, DType::bf16},
                          {"D", S::tile, DType::bf16},
                          {"F", S::tile, DType::f32},
                          {"G", S::tile, DType::f16}}};
    const auto strided = [](HostCatalogProblem& hp) {
      const auto view = [&hp](const std::string& name, DType dtype, Dims dims, Dims strides) {
        std::int64_t span = 1;
        for (int i = 0; i < dims.size(); ++i) span += (dims[i] - 1) * strides[i];
        hp.owned.push_back(std::make_unique<HostTensor>(dtype, Dims{span}));
        hp.args.epilogue->set(name, Binding(TensorRef::host(hp.owned.back()->ref().data, dtype, dims, strides)));
      };
      view("rs", DType::f32, {hp.N}, {2});
      view("cs", DType::bf16, {hp.M, 1}, {2, 1});
      view("U", DType::bf16, {hp.M, hp.N}, {1, hp.M});
      view("G", DType::f16, {hp.L, hp.M, hp.N}, {hp.M * hp.N, 1, hp.M});
    };
    for (const Sm90TileConfig& config : plain_tile_configs()) {
      if (config.operands != Sm90OperandClass::bits16) continue;
      jobs.push_back(make_job(std::string(loop ? "looped" : "unrolled") + "_strided_inputs", c, kF16, config, true,
                              false, rng, strided));
    }
  }
  // The hook's unit-step masks: rb, cb and T (inputs 0, 1 and 4); D and F
  // (outputs 0 and 1), stored directly (F of another size, G strided).
  for (const Sm90Job& job : jobs) {
    EXPECT_NE(job.source.name_expression.find(", 19ull, 3ull, "), std::string::npos)
        << job.label << ": " << job.source.name_expression;
  }
  expect_all_compile(std::move(jobs));
}

/// `c` with output D stored as `d`.
EpilogueCase with_d(EpilogueCase c, DType d) {
  for (CatalogOperand& op : c.operands) {
    if (op.name == "D") op.dtype = d;
  }
  return c;
}

TEST_F(Sm90Compile, Tf32OperandsOnEveryTileConfigurationAndOutputType) {
  // m64nNk8 tf32 wgmmas (4-byte elements, 32 of K per stage) on every tf32
  // tile (the pingpong ones too), D of each float type, and the accumulator as a second output.
  const DTypeCombo tf32{"tf32", DType::tf32, DType::tf32, DType::f32, DType::f32};
  const EpilogueCase with_accum = epilogue_case(seed_epilogues(DType::f32, DType::f32), "relu_scale_return_acc");
  const DType ds[] = {DType::f32, DType::bf16, DType::f16};
  std::vector<Sm90Job> jobs;
  std::size_t i = 0;
  for (const Sm90TileConfig& config : plain_tile_configs()) {
    if (config.operands != Sm90OperandClass::tf32) continue;
    const DType d = ds[i++ % 3];
    jobs.push_back(make_job("tf32_D_" + std::string(to_string(d)), with_d(with_accum, d), tf32, config, true, true, rng));
  }
  EXPECT_EQ(i, 9u);  // seven cooperative tiles and two pingpong ones
  jobs.push_back(make_job("tf32_D_e4m3", bias_and_extra_output(DType::e4m3), tf32, config_at(Sm90OperandClass::tf32, 0),
                          true, true, rng));
  jobs.push_back(make_job("tf32_D_i8", bias_and_extra_output(DType::i8), tf32, config_at(Sm90OperandClass::tf32, 2),
                          true, true, rng));
  jobs.push_back(make_job("tf32_reductions", epilogue_case(coverage_epilogues(), "reductions"), tf32,
                          config_at(Sm90OperandClass::tf32, 4), true, true, rng));
  jobs.push_back(make_job("tf32_store_dtypes", epilogue_case(coverage_epilogues(), "store_dtypes"), tf32,
                          config_at(Sm90OperandClass::tf32, 5), true, true, rng));
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, Int8OperandsEveryPairingTileConfigurationAndOutputType) {
  // m64nNk32 s8/u8 wgmmas into int accumulators on every int8 tile, the four
  // signedness pairings, D = accum as it is (int into D) and a computed D of
  // every type the staging takes (i8/u8 like fp8, i32 like f32), the
  // accumulator as a second output, reductions and every store dtype.
  const DTypeCombo pairings[] = {{"s8s8", DType::i8, DType::i8, DType::i32, DType::f32},
                                 {"s8u8", DType::i8, DType::u8, DType::i32, DType::f32},
                                 {"u8s8", DType::u8, DType::i8, DType::i32, DType::f32},
                                 {"u8u8", DType::u8, DType::u8, DType::i32, DType::f32}};
  const EpilogueCase accum_only = epilogue_case(coverage_epilogues(), "return_accum_only");
  // The seventh int8 tile is 64x64, whose 32-column warpgroups stage 1-byte
  // D in 32-byte rows; the last two are the pingpong tiles.
  const DType computed[] = {DType::i8,   DType::u8,  DType::i32,  DType::f32, DType::bf16,
                            DType::f16,  DType::e4m3, DType::i32, DType::i8};
  const DType as_is[] = {DType::i32, DType::f32, DType::i8, DType::bf16, DType::i32,
                         DType::f16, DType::u8,  DType::i8, DType::i32};
  std::vector<Sm90Job> jobs;
  std::size_t i = 0;
  for (const Sm90TileConfig& config : plain_tile_configs()) {
    if (config.operands != Sm90OperandClass::int8) continue;
    const DTypeCombo& combo = pairings[i % 4];
    const DType d1 = computed[i];
    const DType d2 = as_is[i];
    jobs.push_back(make_job(combo.name + "_D_" + std::string(to_string(d1)), bias_and_extra_output(d1), combo, config,
                            true, true, rng));
    // A computed D reaches the kernel as the f32 it was computed in; the
    // accumulator itself as an int (a plain copy into an i32 D).
    EXPECT_TRUE(jobs.back().source.name_expression.ends_with(", float>>")) << jobs.back().source.name_expression;
    jobs.push_back(make_job(combo.name + "_accum_D_" + std::string(to_string(d2)), with_d(accum_only, d2), combo,
                            config, true, true, rng));
    EXPECT_TRUE(jobs.back().source.name_expression.ends_with(", int>>")) << jobs.back().source.name_expression;
    ++i;
  }
  EXPECT_EQ(i, std::size(computed));
  const EpilogueCase with_accum = epilogue_case(seed_epilogues(DType::f32, DType::u8), "relu_scale_return_acc");
  jobs.push_back(make_job("s8u8_return_accum", with_accum, pairings[1], config_at(Sm90OperandClass::int8, 0), true, true,
                          rng));
  jobs.push_back(make_job("u8u8_reductions_D_i8", with_d(epilogue_case(coverage_epilogues(), "reductions"), DType::i8),
                          pairings[3], config_at(Sm90OperandClass::int8, 2), true, true, rng));
  jobs.push_back(make_job("s8s8_store_dtypes", epilogue_case(coverage_epilogues(), "store_dtypes"), pairings[0],
                          config_at(Sm90OperandClass::int8, 4), true, true, rng));
  jobs.push_back(make_job("u8s8_compute_f16", with_d(accum_only, DType::i32),
                          {"u8s8_c16", DType::u8, DType::i8, DType::i32, DType::f16}, config_at(Sm90OperandClass::int8, 3),
                          true, true, rng));
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, IntegerOutputDFromFloatOperands) {
  // i8, u8 and i32 D with f32 accumulators (16-bit and fp8 operands).
  const DTypeCombo e4m3{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32};
  std::vector<Sm90Job> jobs;
  jobs.push_back(make_job("f16_D_i8", bias_and_extra_output(DType::i8), kF16, config_at(Sm90OperandClass::bits16, 0),
                          true, false, rng));
  jobs.push_back(make_job("f16_D_i32", bias_and_extra_output(DType::i32), kF16, config_at(Sm90OperandClass::bits16, 4),
                          false, true, rng));
  jobs.push_back(make_job("f16_pingpong_D_u8", bias_and_extra_output(DType::u8), kF16,
                          config_at(Sm90OperandClass::bits16, 7), true, false, rng));
  jobs.push_back(make_job("e4m3_D_u8", bias_and_extra_output(DType::u8), e4m3, config_at(Sm90OperandClass::fp8, 1), true,
                          true, rng));
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, PreciseFp8AccumulationOnEveryPromotedConfiguration) {
  // Promotion (a second accumulator set added into the first every k-block)
  // on every configuration that has it: e4m3, mixed e4m3 x e5m2 and e5m2
  // with f16 accumulators, D in 16-bit, f32 and fp8 (with its amax), and
  // reductions next to D.
  using S = OperandShape;
  const EpilogueCase with_accum = epilogue_case(seed_epilogues(DType::bf16, DType::bf16), "relu_scale_return_acc");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  const EpilogueCase scale_amax{"scale_amax",
                                "def epi(accum, scale):\n    D = accum * scale\n    amax = amax(D)\n    return D, amax\n",
                                {{"scale", S::scalar_tensor, DType::f32},
                                 {"D", S::tile, DType::e4m3},
                                 {"amax", S::scalar_reduce, DType::f32}}};
  const DTypeCombo e4m3{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32};
  std::vector<Sm90Job> jobs;
  for (const Sm90TileConfig& config : plain_tile_configs()) {
    if (config.promote_k_blocks == 0) continue;
    EXPECT_EQ(config.operands, Sm90OperandClass::fp8) << config.shape_name();
    EXPECT_FALSE(config.pingpong) << config.shape_name();
    jobs.push_back(make_job("precise_e4m3_bias_d_bf16", bias_and_extra_output(DType::bf16), e4m3, config, true, true,
                            rng));
    jobs.push_back(make_job("precise_e4m3_e5m2", with_accum,
                            {"e4m3_e5m2", DType::e4m3, DType::e5m2, DType::f32, DType::f32}, config, true, true, rng));
    jobs.push_back(make_job("precise_e5m2_f16acc_reductions", reductions,
                            {"e5m2_f16acc", DType::e5m2, DType::e5m2, DType::f16, DType::f32}, config, true, true,
                            rng));
    if (config.warpgroup_n() >= 64) {
      jobs.push_back(make_job("precise_e4m3_D_e4m3", scale_amax, e4m3, config, true, true, rng));
    }
    // The promotion interval is GemmConfig's last argument.
    EXPECT_NE(jobs.back().source.name_expression.find(", 1>, EpgSm90Hook"), std::string::npos)
        << jobs.back().label << ": " << jobs.back().source.name_expression;
  }
  // 128x128 (1x1, 2x1), 64x128, 128x64 and 64x64.
  EXPECT_EQ(jobs.size(), 5u * 3u + 4u);
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, WholeOutputReductionsOnEveryTileConfiguration) {
  // Whole-output sums, maxima, minima and amax kept across a consumer's tiles
  // and combined through shared memory once per CTA (cooperative and
  // pingpong, 1x1 and 2x1 clusters, every operand class); next to row and
  // column reductions (whose first tile waits for the identity fill); and in
  // f16 and bf16 compute.
  using S = OperandShape;
  const EpilogueCase wholes{"wholes",
                            "def epi(accum, scale):\n    D = accum * scale\n    s = sum(D * D)\n    mx = max(D)\n"
                            "    mn = min(D)\n    am = amax(D)\n    return D, s, mx, mn, am\n",
                            {{"scale", S::scalar, DType::f32, 0.5},
                             {"D", S::tile, DType::f16},
                             {"s", S::scalar_reduce, DType::f32},
                             {"mx", S::scalar_reduce, DType::f32},
                             {"mn", S::scalar_reduce, DType::f32},
                             {"am", S::scalar_reduce, DType::f32}}};
  const EpilogueCase mixed{"wholes_rows_columns",
                           "def epi(accum):\n    D = accum\n    rs = sum(accum)\n    cm = max(accum)\n"
                           "    s = sum(accum)\n    am = amax(accum)\n    return D, rs, cm, s, am\n",
                           {{"D", S::tile, DType::bf16},
                            {"rs", S::row_reduce, DType::f32},
                            {"cm", S::column_reduce, DType::f32},
                            {"s", S::scalar_reduce, DType::f32},
                            {"am", S::scalar_reduce, DType::f32}}};
  const auto combo_of = [](Sm90OperandClass operands) -> DTypeCombo {
    switch (operands) {
      case Sm90OperandClass::fp8: return {"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32};
      case Sm90OperandClass::tf32: return {"tf32", DType::tf32, DType::tf32, DType::f32, DType::f32};
      case Sm90OperandClass::int8: return {"s8", DType::i8, DType::i8, DType::i32, DType::f32};
      case Sm90OperandClass::bits16: break;
    }
    return {"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  };
  std::vector<Sm90Job> jobs;
  for (const Sm90TileConfig& config : plain_tile_configs()) {
    const bool k_major_only = config.operands != Sm90OperandClass::bits16;
    jobs.push_back(make_job("wholes_" + combo_of(config.operands).name, wholes, combo_of(config.operands), config,
                            true, k_major_only, rng));
    if (config.operands == Sm90OperandClass::bits16 && (config.pingpong || config.cluster_m == 2)) {
      jobs.push_back(make_job("wholes_rows_columns", mixed, combo_of(config.operands), config, true, false, rng));
    }
  }
  for (const DType compute : {DType::f16, DType::bf16}) {
    const DTypeCombo combo{"f16_compute_" + std::string(to_string(compute)), DType::f16, DType::f16, DType::f32,
                           compute};
    jobs.push_back(make_job(combo.name, wholes, combo, config_at(Sm90OperandClass::bits16, 2), true, false, rng));
    jobs.push_back(make_job(combo.name + "_pingpong", mixed, combo, config_at(Sm90OperandClass::bits16, 8), true,
                            false, rng));
  }
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, KernelsWithoutStreamKCodeOrForOneKindOfTile) {
  // Kernels leave code out that their problems never run: stream-K's where
  // no tile is cut (sm90_stream_k_code: every 1x1 tile that may cut along
  // K, pingpong or cooperative), and the
  // epilogue's bounds-checked copy where every tile is whole or its
  // unchecked copy where none is (sm90_tile_kinds: every 16-bit and fp8
  // tile, pingpong ones also without stream-K's code). Each with a staged
  // input and output and with reductions of every kind, but for the edge
  // tiles alone (the staged case).
  const EpilogueCase staged = epilogue_case(seed_epilogues(DType::bf16, DType::bf16), "relu_aux_store");
  const EpilogueCase reductions = epilogue_case(coverage_epilogues(), "reductions");
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  const DTypeCombo e4m3{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32};
  std::vector<Sm90Job> jobs;
  for (const Sm90TileConfig& config : detail::sm90_tile_configs()) {
    const bool bits16 = config.operands == Sm90OperandClass::bits16;
    if ((!bits16 && config.operands != Sm90OperandClass::fp8) || config.d_column_major) continue;
    const std::int64_t k = config.k_group > 1 ? config.bk() * config.k_group : kK;  // whole boxes of k-blocks
    for (const int kinds : {detail::kSm90AllTileKinds, detail::kSm90InsideTiles, detail::kSm90EdgeTiles}) {
      if (kinds == detail::kSm90AllTileKinds && !(config.may_cut_along_k() && config.cluster_m == 1)) continue;
      const std::string name = kinds == detail::kSm90AllTileKinds  ? "no_stream_k_"
                               : kinds == detail::kSm90InsideTiles ? "whole_tiles_"
                                                                   : "edge_tiles_";
      const std::string ending = kinds == detail::kSm90AllTileKinds
                                     ? ", " + std::to_string(config.k_group) + ", false>"
                                     : ", " + std::to_string(kinds) + ">, EpgSm90Hook";
      for (const EpilogueCase* c : {&staged, &reductions}) {
        if (kinds == detail::kSm90EdgeTiles && c == &reductions) continue;
        jobs.push_back(make_job(name + c->name, *c, bits16 ? bf16 : e4m3, config, true, !bits16, rng, nullptr, k,
                                !config.may_cut_along_k(), kinds));
        EXPECT_NE(jobs.back().source.name_expression.find(ending), std::string::npos) << jobs.back().label;
      }
    }
  }
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, GroupedKTilesOnTheirLayout) {
  // A K-major, B of either major (16-bit) or K-major (the other classes), K
  // = 4 k-blocks (whole boxes of 4). Every grouped tile compiles the
  // coverage epilogues whose code follows the accumulator's layout (loads of
  // every kind and dtype, stores of every dtype, reductions, the bare
  // accumulator); the element-wise ones (every op and cast) take turns over
  // each class's grouped tiles, and so do the seed epilogues, each with B of
  // both majors, over the 16-bit ones.
  std::vector<Sm90Job> jobs;
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  const DTypeCombo others[] = {{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32},
                               {"s8", DType::i8, DType::i8, DType::i32, DType::f32},
                               {"tf32", DType::tf32, DType::tf32, DType::f32, DType::f32}};
  const auto class_index = [](Sm90OperandClass c) {
    return c == Sm90OperandClass::bits16 ? 0 : c == Sm90OperandClass::fp8 ? 1 : c == Sm90OperandClass::int8 ? 2 : 3;
  };
  const std::vector<std::string> element_wise = {"arithmetic", "activations", "elementary", "casts"};
  std::vector<std::vector<Sm90TileConfig>> grouped_of_class(4);
  for (const Sm90TileConfig& config : detail::sm90_tile_configs()) {
    if (config.k_group > 1) grouped_of_class[class_index(config.operands)].push_back(config);
  }
  for (std::size_t cls = 0; cls < grouped_of_class.size(); ++cls) {
    const std::vector<Sm90TileConfig>& configs = grouped_of_class[cls];
    ASSERT_FALSE(configs.empty()) << "no grouped tile of class " << cls;
    const DTypeCombo& combo = cls == 0 ? bf16 : others[cls - 1];
    const auto add = [&](const EpilogueCase& c, const Sm90TileConfig& config) {
      jobs.push_back(make_job("grouped_" + combo.name + "_" + c.name, c, combo, config, true, true, rng,
                              nullptr, 4 * config.bk()));
    };
    std::size_t turn = 0;
    for (const EpilogueCase& c : coverage_epilogues()) {
      const bool takes_turns = std::find(element_wise.begin(), element_wise.end(), c.name) != element_wise.end();
      if (takes_turns) {
        add(c, configs[turn++ % configs.size()]);
      } else {
        for (const Sm90TileConfig& config : configs) add(c, config);
      }
    }
  }
  std::size_t i = 0;
  for (const EpilogueCase& c : seed_epilogues()) {
    const Sm90TileConfig& config = grouped_of_class[0][i++ % grouped_of_class[0].size()];
    jobs.push_back(make_job("grouped_" + c.name, c, kF16, config, true, true, rng, nullptr, 4 * config.bk()));
    jobs.push_back(make_job("grouped_n_major_b_" + c.name, c, kF16, config, true, false, rng, nullptr, 4 * config.bk()));
  }
  // 64x64 x4, 64x128 x2 and 128x64 x2 of each class, fp8's precise ones, and 16-bit 64x64 x2
  std::size_t grouped = 0;
  for (const auto& configs : grouped_of_class) grouped += configs.size();
  EXPECT_EQ(grouped, 16u);
  // The element-wise epilogues named are coverage epilogues (a renamed one
  // would silently compile on every grouped tile again).
  for (const std::string& name : element_wise) EXPECT_NO_THROW(epilogue_case(coverage_epilogues(), name)) << name;
  expect_all_compile(std::move(jobs));
}

TEST_F(Sm90Compile, RandomEpiloguesOnRotatingTileConfigurations) {
  // Generated epilogues (random ops and casts, inputs of every broadcast
  // kind and dtype, extra tile outputs and reductions) on each operand class's
  // configurations in turn (16-bit with both majors of B, fp8, int8, tf32;
  // f32, f16 and bf16 compute). Fixed seeds: the same programs every run.
  // For a longer hunt (no GPU needed), EPIGEMM_TEST_RANDOM_CASES sets the
  // case count and EPIGEMM_TEST_RANDOM_SEED the first seed.
  struct Variant {
    DTypeCombo combo;
    Sm90OperandClass operands;
  };
  const Variant variants[] = {
      {kF16, Sm90OperandClass::bits16},
      {{"bf16_compute_bf16", DType::bf16, DType::bf16, DType::f32, DType::bf16}, Sm90OperandClass::bits16},
      {{"e4m3", DType::e4m3, DType::e4m3, DType::f32, DType::f32}, Sm90OperandClass::fp8},
      {{"f16_compute_f16", DType::f16, DType::f16, DType::f16, DType::f16}, Sm90OperandClass::bits16},
      {{"s8", DType::i8, DType::i8, DType::i32, DType::f32}, Sm90OperandClass::int8},
      {{"tf32", DType::tf32, DType::tf32, DType::f32, DType::f32}, Sm90OperandClass::tf32},
  };
  std::vector<Sm90Job> jobs;
  std::vector<std::string> sources;
  const auto cases = static_cast<std::uint32_t>(env::get_int("EPIGEMM_TEST_RANDOM_CASES", 18));
  const auto first_seed = static_cast<std::uint32_t>(env::get_int("EPIGEMM_TEST_RANDOM_SEED", 7000));
  for (std::uint32_t i = 0; i < cases; ++i) {
    const Variant& v = variants[i % std::size(variants)];
    std::mt19937 case_rng(first_seed + i);
    const RandomEpilogue r = random_epilogue(case_rng, "random" + std::to_string(i), kL, kM, kN, kK,
                                             v.combo.compute, /*more_ops=*/true);
    const bool b_k_major = v.operands != Sm90OperandClass::bits16 || i % 2 == 1;
    jobs.push_back(make_job(r.c.name + "_" + v.combo.name, r.c, v.combo, config_at(v.operands, i), true, b_k_major,
                            case_rng));
    sources.push_back(r.c.source);
  }
  compile_all(jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_TRUE(jobs[i].error.empty()) << jobs[i].label << " (seed " << first_seed + i << "):\n"
                                       << sources[i] << jobs[i].error;
}

}  // namespace
}  // namespace epigemm::testing
