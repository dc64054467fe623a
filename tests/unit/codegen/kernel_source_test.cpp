// Whole kernel sources, the problem-class key, and the kernel argument
// records filled from a Problem (pointers, strides and scalar values read
// back from the bytes and compared with the tensors the test bound).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "api/epilogue_program.hpp"
#include "api/problem.hpp"
#include "codegen/device_params.hpp"
#include "codegen/embedded_kernels.hpp"
#include "codegen/kernel_source.hpp"
#include "nvrtc/catalog_problem.hpp"

namespace epigemm::testing {
namespace {

using codegen::KernelTemplate;

class KernelSource : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  const DTypeCombo kF16{"f16", DType::f16, DType::f16, DType::f32, DType::f32};
};

TEST_F(KernelSource, SimtSourceIncludesEmbeddedHeadersAndDefinesBothEntryPoints) {
  HostCatalogProblem hp(epilogue_case("relu_aux_store"), kF16, 1, 9, 11, 13, rng);
  detail::Problem p;
  detail::analyze(hp.args, p);
  const std::string src = codegen::kernel_source(p, KernelTemplate::simt);
  EXPECT_NE(src.find("#include \"simt_gemm.cuh\""), std::string::npos);
  EXPECT_NE(src.find(std::string("void __launch_bounds__(256) ") + codegen::kSimtGemmKernel), std::string::npos);
  EXPECT_NE(src.find(codegen::kSimtFillKernel), std::string::npos);
  EXPECT_EQ(codegen::instantiated_kernel(src), "") << "extern \"C\" kernels need no name expression";
  EXPECT_NE(src.find("epg_simt_gemm<kEpgF16, kEpgF16, EpgEpilogue>(args);"), std::string::npos) << src;
  EXPECT_NE(src.find("//     store D [tile] f16"), std::string::npos) << "the printed DAG heads the source";
  // Every header the source names is embedded in the library.
  for (std::string_view header : codegen::kernel_headers(KernelTemplate::simt)) {
    const auto text = codegen::embedded_kernel_file(header);
    ASSERT_TRUE(text.has_value()) << header;
    EXPECT_NE(text->find("#pragma once"), std::string_view::npos) << header;
  }
  EXPECT_FALSE(codegen::embedded_kernel_file("no_such_header.cuh").has_value());
}

TEST_F(KernelSource, OperandDTypesReachTheInstantiation) {
  const DTypeCombo mixed{"mixed", DType::e4m3, DType::e5m2, DType::f32, DType::f32};
  HostCatalogProblem hp(epilogue_case("bias_add"), mixed, 1, 4, 4, 4, rng);
  detail::Problem p;
  detail::analyze(hp.args, p);
  const std::string src = codegen::kernel_source(p, KernelTemplate::simt);
  EXPECT_NE(src.find("epg_simt_gemm<kEpgE4m3, kEpgE5m2, EpgEpilogue>"), std::string::npos) << src;
}

TEST_F(KernelSource, ClassKeyFollowsTheClassNotThePointersOrExtents) {
  HostCatalogProblem a(epilogue_case("relu_aux_store"), kF16, 1, 9, 11, 13, rng);
  HostCatalogProblem b(epilogue_case("relu_aux_store"), kF16, 1, 9, 11, 13, rng);
  detail::Problem pa, pb;
  detail::analyze(a.args, pa);
  detail::analyze(b.args, pb);
  const auto key = [](const detail::Problem& p, int sm = 90) {
    return codegen::kernel_class_key(p, KernelTemplate::simt, sm);
  };
  EXPECT_EQ(key(pa), key(pb)) << "other pointers, same class";
  EXPECT_NE(key(pa), key(pa, 80)) << "the target SM is part of the class";

  HostCatalogProblem c(epilogue_case("relu_aux_store"), {"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32}, 1, 9, 11,
                       13, rng);
  detail::Problem pc;
  detail::analyze(c.args, pc);
  EXPECT_NE(key(pa), key(pc)) << "A/B dtype changes the kernel";

  HostCatalogProblem d(epilogue_case("relu_aux_store"), {"f16acc", DType::f16, DType::f16, DType::f16, DType::f32}, 1, 9, 11,
                       13, rng);
  detail::Problem pd;
  detail::analyze(d.args, pd);
  EXPECT_NE(key(pa), key(pd)) << "the accumulator changes the kernel";

  HostCatalogProblem e(epilogue_case("aux_normalize"), kF16, 1, 9, 11, 13, rng);
  detail::Problem pe;
  detail::analyze(e.args, pe);
  EXPECT_NE(key(pa), key(pe)) << "another epilogue";
}

TEST_F(KernelSource, EpilogueParamsHoldPointersStridesAndValues) {
  const EpilogueCase c = epilogue_case("broadcast_epilogue");  // row_bias (N,), col_bias (M,1), alpha, D
  std::uniform_real_distribution<double> dist(-4.0, 4.0);
  EpilogueCase bound = c;
  const double alpha = dist(rng);
  for (auto& op : bound.operands) {
    if (op.name == "alpha") op.value = alpha;
  }
  const std::int64_t L = 3, M = 5, N = 7;
  HostCatalogProblem hp(bound, kF16, L, M, N, 2, rng);
  detail::Problem p;
  detail::analyze(hp.args, p);
  ASSERT_EQ(codegen::epilogue_params_size(p), 4 * sizeof(codegen::DeviceOperand));
  std::vector<std::byte> bytes(codegen::epilogue_params_size(p));
  codegen::fill_epilogue_params(p, bytes);
  std::vector<codegen::DeviceOperand> ops(4);
  std::memcpy(ops.data(), bytes.data(), bytes.size());
  const auto ptr = [&](const char* name) {
    return reinterpret_cast<std::uint64_t>(hp.tensors.at(name)->ref().data);
  };
  // Inputs in parameter order: row_bias, col_bias, alpha; then the output D.
  EXPECT_EQ(ops[0].ptr, ptr("row_bias"));
  EXPECT_EQ(ops[0].stride_n, 1);
  EXPECT_EQ(ops[0].stride_m, 0);
  EXPECT_EQ(ops[0].stride_l, 0);
  EXPECT_EQ(ops[1].ptr, ptr("col_bias"));
  EXPECT_EQ(ops[1].stride_m, 1);
  EXPECT_EQ(ops[1].stride_n, 0);
  EXPECT_EQ(ops[2].ptr, 0u);
  EXPECT_EQ(ops[2].value, alpha);
  EXPECT_EQ(ops[3].ptr, ptr("D"));
  EXPECT_EQ(ops[3].stride_l, M * N);
  EXPECT_EQ(ops[3].stride_m, N);
  EXPECT_EQ(ops[3].stride_n, 1);

  std::vector<std::byte> small(bytes.size() - 1);
  EXPECT_THROW(codegen::fill_epilogue_params(p, small), Error);
}

TEST_F(KernelSource, GemmArgsFollowEachOperandsLayout) {
  const std::int64_t L = 2, M = 6, N = 5, K = 3;
  HostTensor A(DType::f16, {L, M, K}, {M * K, 1, M});  // column-major per batch
  HostTensor B(DType::f16, {K, N});                     // shared by the batch
  HostTensor D(DType::f16, {L, M, N});
  EpilogueArguments epi("def e(accum):\n    D = accum\n    return D\n", {{"D", D.ref()}});
  GemmArguments args{.A = A.ref(), .B = B.ref(), .out = D.ref(), .accumulator = DType::f32, .epilogue = epi};
  detail::Problem p;
  detail::analyze(args, p);
  const codegen::DeviceGemmArgs g = codegen::gemm_args(p);
  EXPECT_EQ(g.a, reinterpret_cast<std::uint64_t>(A.ref().data));
  EXPECT_EQ(g.b, reinterpret_cast<std::uint64_t>(B.ref().data));
  EXPECT_EQ(g.m, M);
  EXPECT_EQ(g.n, N);
  EXPECT_EQ(g.k, K);
  EXPECT_EQ(g.l, L);
  EXPECT_EQ(g.a_sl, M * K);
  EXPECT_EQ(g.a_sm, 1);
  EXPECT_EQ(g.a_sk, M);
  EXPECT_EQ(g.b_sl, 0);
  EXPECT_EQ(g.b_sk, N);
  EXPECT_EQ(g.b_sn, 1);
}

TEST_F(KernelSource, Sm80SourceNamesItsStagingAndSharedMemory) {
  const DTypeCombo bf16{"bf16", DType::bf16, DType::bf16, DType::f32, DType::f32};
  HostCatalogProblem hp(epilogue_case("relu_aux_store"), bf16, 1, 9, 11, 16, rng);
  detail::Problem p;
  detail::analyze(hp.args, p);
  // A (9, 16) row-major: K-major, rows 32 bytes apart (pieces of 8); B
  // (16, 11) row-major: N-major, rows 22 bytes apart (single elements).
  const codegen::Sm80Variant v = codegen::sm80_variant(p);
  EXPECT_TRUE(v.a_k_major);
  EXPECT_FALSE(v.b_k_major);
  EXPECT_EQ(v.a_vec, 8);
  EXPECT_EQ(v.b_vec, 1);
  // Four stages of A (128 rows of 32 + 8) and B (32 rows of 128 + 8), 16-bit.
  EXPECT_EQ(codegen::sm80_shared_bytes(v), 4u * 2u * (128u * 40u + 32u * 136u));
  EXPECT_EQ(codegen::dynamic_shared_bytes(p, KernelTemplate::sm80), codegen::sm80_shared_bytes(v));
  EXPECT_EQ(codegen::dynamic_shared_bytes(p, KernelTemplate::simt), 0u);
  const std::string src = codegen::kernel_source(p, KernelTemplate::sm80);
  EXPECT_NE(src.find("#include \"sm80_gemm.cuh\""), std::string::npos);
  EXPECT_NE(src.find("epg_sm80_gemm<kEpgBf16, kEpgBf16, true, false, 8, 1, 4, EpgEpilogue>(args);"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("static_assert(epg_sm80_shared_bytes<true, false, 4>() == " +
                     std::to_string(codegen::sm80_shared_bytes(v))),
            std::string::npos);
  EXPECT_NE(src.find(codegen::kSimtFillKernel), std::string::npos);
  for (std::string_view header : codegen::kernel_headers(KernelTemplate::sm80)) {
    EXPECT_TRUE(codegen::embedded_kernel_file(header).has_value()) << header;
  }

  // The staging is part of the sm80 class, not of the simt one.
  detail::Problem q = p;
  q.B.row_stride = 16;  // B's rows now 32 bytes apart
  q.N = 16;
  EXPECT_EQ(codegen::sm80_variant(q).b_vec, 8);
  EXPECT_NE(codegen::kernel_class_key(p, KernelTemplate::sm80, 80), codegen::kernel_class_key(q, KernelTemplate::sm80, 80));
  EXPECT_EQ(codegen::kernel_class_key(p, KernelTemplate::simt, 80), codegen::kernel_class_key(q, KernelTemplate::simt, 80));
}

TEST_F(KernelSource, Sm80TakesSixteenBitOperandsOnly) {
  for (const DTypeCombo& combo : dtype_combos()) {
    HostCatalogProblem hp(epilogue_case("relu_aux_store"), combo, 1, 4, 4, 4, rng);
    detail::Problem p;
    detail::analyze(hp.args, p);
    const Status status = codegen::can_instantiate(p, KernelTemplate::sm80);
    const bool sixteen = (combo.a == DType::f16 || combo.a == DType::bf16) && combo.b == combo.a;
    const bool accumulates = combo.accumulator == DType::f32 || combo.accumulator == DType::f16;
    EXPECT_EQ(static_cast<bool>(status), sixteen && accumulates) << combo.name;
    if (!sixteen) {
      EXPECT_NE(status.reason().find("both f16 or both bf16"), std::string::npos) << status.reason();
      EXPECT_THROW(codegen::kernel_source(p, KernelTemplate::sm80), Error);
    }
  }
}

TEST_F(KernelSource, TemplateNamesRoundTrip) {
  EXPECT_EQ(codegen::to_string(KernelTemplate::simt), "simt");
  EXPECT_EQ(codegen::parse_kernel_template("simt"), KernelTemplate::simt);
  EXPECT_EQ(codegen::to_string(KernelTemplate::sm80), "sm80");
  EXPECT_EQ(codegen::parse_kernel_template("sm80"), KernelTemplate::sm80);
  EXPECT_FALSE(codegen::parse_kernel_template("wgmma").has_value());
}

}  // namespace
}  // namespace epigemm::testing
