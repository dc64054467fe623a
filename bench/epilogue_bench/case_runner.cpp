// CaseRunner: for each epilogue of a case, builds epigemm's arguments and the
// cuBLASLt anchors, checks every result on poisoned outputs against the
// double-precision reference, then times epigemm, the anchors (and a copy of
// B for skinny shapes) interleaved, with the L2 flushed before each run.
#include "case_runner.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "case_data.hpp"
#include "cuda_check.hpp"
#include "lt_anchor.hpp"
#include "operator_choice.hpp"
#include "spot_check.hpp"

namespace epigemm::bench {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;  // cuBLASLt workspace
constexpr unsigned char kPoison = 0xFF;                          // NaN in every float format
// Integers have no NaN: 0x80 bytes are an i32 of -2^31 + 0x808080, far outside
// what the int8 cases produce (|D| < 2^24), so a poisoned element stands out.
constexpr unsigned char kIntegerPoison = 0x80;

void poison(BenchTensor& t, cudaStream_t stream) {
  t.poison(is_integer(t.dtype()) ? kIntegerPoison : kPoison, stream);
}

GemmArguments make_args(EpilogueKind kind, const CaseData& d) {
  GemmArguments args{.A = d.A.ref(), .B = d.B.ref(), .out = d.D.ref(), .accumulator = d.spec.accumulator(),
                     .epilogue = std::nullopt, .compute = DType::f32};
  std::map<std::string, Binding> b;
  switch (kind) {
    case EpilogueKind::none: return args;
    case EpilogueKind::alpha_beta: b = {{"alpha", d.alpha}, {"beta", d.beta}, {"C", d.C.ref()}, {"D", d.D.ref()}}; break;
    case EpilogueKind::relu_aux: b = {{"alpha", d.alpha}, {"C", d.C.ref()}, {"D", d.D.ref()}, {"F", d.F.ref()}}; break;
    case EpilogueKind::gelu_bias:
    case EpilogueKind::gelu_tanh_bias: b = {{"bias", d.row_bias.ref()}, {"D", d.D.ref()}}; break;
    case EpilogueKind::row_col_bias:
      b = {{"alpha", d.alpha}, {"row_bias", d.row_bias.ref()}, {"col_bias", d.col_bias.ref()}, {"D", d.D.ref()}};
      break;
    case EpilogueKind::scale_amax:
      args.out = d.D8->ref();
      b = {{"scale", d.scale.ref()}, {"D", d.D8->ref()}, {"amax", d.amax->ref()}};
      break;
  }
  args.epilogue = EpilogueArguments(std::string(epilogue_source(kind)), std::move(b));
  return args;
}

LtAnchorConfig gemm_config(const CaseData& d) {
  LtAnchorConfig c;
  c.shape = d.spec.shape;
  c.ab = d.spec.ab;
  c.c_dtype = c.d_dtype = d.spec.out_dtype();
  c.A = d.A.device();
  c.B = d.B.device();
  c.b_col_major = d.spec.b_col_major();
  c.C = c.D = d.anchor_D.device();
  if (is_fp8(d.spec.ab)) c.a_scale = c.b_scale = static_cast<const float*>(d.ones.device());
  // The anchor accumulates as the row's epigemm operator does.
  c.fast_accumulation = d.spec.fp8_accumulation == Fp8Accumulation::fast;
  return c;
}

/// cuBLASLt's own fused version of an epilogue, where it has one.
struct FusedAnchor {
  std::string name;
  LtAnchorConfig config;
  BenchTensor* out = nullptr;
  SpotCheck::Expected expected;
};

constexpr const char* kGeluBiasName = "cuBLASLt GELU_BIAS";

std::optional<FusedAnchor> fused_anchor(EpilogueKind kind, CaseData& d) {
  FusedAnchor f;
  f.config = gemm_config(d);
  f.out = &d.anchor_D;
  const double alpha = d.alpha;
  switch (kind) {
    case EpilogueKind::alpha_beta:
      f.name = "cuBLASLt alpha/beta+C";
      f.config.C = d.C.device();
      f.config.alpha = static_cast<float>(d.alpha);
      f.config.beta = static_cast<float>(d.beta);
      break;
    case EpilogueKind::gelu_bias:
    case EpilogueKind::gelu_tanh_bias:
      f.name = kGeluBiasName;
      f.config.epilogue = CUBLASLT_EPILOGUE_GELU_BIAS;
      f.config.bias = d.row_bias.device();
      break;
    case EpilogueKind::row_col_bias:
      f.name = "cuBLASLt BIAS (row bias only)";
      f.config.epilogue = CUBLASLT_EPILOGUE_BIAS;
      f.config.bias = d.row_bias.device();
      f.config.alpha = static_cast<float>(alpha);
      f.expected = [&d, alpha](double acc, std::int64_t, std::int64_t n) { return alpha * acc + d.row_bias.value_at(n); };
      return f;
    case EpilogueKind::scale_amax:
      if (!is_fp8(d.spec.ab)) return std::nullopt;
      f.name = "cuBLASLt fp8 D-scale+amax";
      f.config.C = d.C.device();
      f.config.d_dtype = DType::e4m3;
      f.config.D = d.anchor_D8->device();
      f.config.d_scale = static_cast<const float*>(d.scale.device());
      f.config.amax_d = static_cast<float*>(d.anchor_amax->device());
      f.out = &*d.anchor_D8;
      break;
    default: return std::nullopt;
  }
  f.expected = [&d, kind](double acc, std::int64_t m, std::int64_t n) {
    return reference_epilogue(kind, acc, d.inputs_at(m, n)).d;
  };
  return f;
}

/// The issue wants every fused epilogue of the 16-bit rows past M = 128
/// faster than cuBLASLt's bias+GELU. Rows whose own fused anchor is another
/// (or none) time GELU_BIAS too, interleaved with them, so that comparison
/// is made in the same row rather than against the gelu row's run.
std::optional<FusedAnchor> gelu_reference(EpilogueKind kind, CaseData& d,
                                          const std::optional<FusedAnchor>& fused) {
  const DType ab = d.spec.ab;
  if (kind == EpilogueKind::none || d.spec.shape.m <= 128 || (ab != DType::bf16 && ab != DType::f16))
    return std::nullopt;
  if (fused && fused->name == kGeluBiasName) return std::nullopt;
  return fused_anchor(EpilogueKind::gelu_bias, d);
}

std::string b_layout_name(const BenchCase& c) { return c.b_col_major() ? "col-major" : "row-major"; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CaseRunner::CaseRunner(cudaStream_t stream, cublasLtHandle_t lt, InterleavedTimer& timer, RunnerOptions options)
    : stream_(stream), lt_(lt), timer_(timer), options_(std::move(options)) {
  BENCH_CUDA(cudaMalloc(&workspace_, kWorkspaceBytes));
  workspace_bytes_ = kWorkspaceBytes;
}

CaseRunner::~CaseRunner() {
  if (workspace_ != nullptr) cudaFree(workspace_);
}

void CaseRunner::sync(const char* what) {
  const cudaError_t e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) check_cuda(e, what, __FILE__, __LINE__);
  BENCH_CUDA(cudaGetLastError());
}

void CaseRunner::run(const BenchCase& c, std::uint64_t seed, const std::function<void(const RowResult&)>& on_row) {
  const DeviceMemory pad(static_cast<std::size_t>(options_.pad_mib) << 20);
  CaseData data(c, seed);
  SpotCheck spot(data.A, data.B, c.shape, options_.samples, seed ^ 0x9E3779B97F4A7C15ull,
                 is_fp8(c.ab) && c.fp8_accumulation == Fp8Accumulation::fast);
  gemm_anchor_check_.clear();
  gemm_anchor_pass_ = true;
  for (EpilogueKind kind : c.epilogues) {
    RowResult row;
    try {
      row = run_epilogue(kind, data, spot);
    } catch (const std::exception& e) {
      row.dtype = c.dtype_label();
      row.b_layout = b_layout_name(c);
      row.shape = c.shape;
      row.epilogue = std::string(epilogue_label(kind));
      row.error = e.what();
      row.check = "FAIL: not run";
      const cudaError_t first = cudaDeviceSynchronize();
      (void)cudaGetLastError();
      if (first != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess) {
        on_row(row);
        throw FatalCudaError(std::string("the CUDA context is unusable after: ") + e.what());
      }
    }
    on_row(row);
  }
}

RowResult CaseRunner::run_epilogue(EpilogueKind kind, CaseData& data, SpotCheck& spot) {
  RowResult row;
  row.dtype = data.spec.dtype_label();
  row.b_layout = b_layout_name(data.spec);
  row.shape = data.spec.shape;
  row.epilogue = std::string(epilogue_label(kind));
  const SpotCheck::Expected expected = [&data, kind](double acc, std::int64_t m, std::int64_t n) {
    return reference_epilogue(kind, acc, data.inputs_at(m, n)).d;
  };

  // epigemm: choose, compile, run once on poisoned outputs, check.
  std::optional<GemmArguments> args;
  std::optional<Operator> op;
  try {
    args = make_args(kind, data);
    OperatorChoice choice =
        choose_operator(*args, options_.target_sm, options_.pin, data.spec.fp8_accumulation_name());
    row.note = choice.note;
    if (choice.op) {
      op = choice.op;
      row.op_name = op->name();
      row.provider = op->metadata().provider;
      const auto start = std::chrono::steady_clock::now();
      op->compile(*args);
      row.compile_s = seconds_since(start);
      BenchTensor& d_out = kind == EpilogueKind::scale_amax ? *data.D8 : data.D;
      poison(d_out, stream_);
      if (kind == EpilogueKind::relu_aux) poison(data.F, stream_);
      if (kind == EpilogueKind::scale_amax) poison(*data.amax, stream_);
      op->run(*args, stream_);
      sync("the epigemm run");
      spot.reset();
      d_out.download();
      spot.expect("D", d_out, expected);
      if (kind == EpilogueKind::relu_aux) {
        data.F.download();
        spot.expect("F", data.F, [&data](double acc, std::int64_t m, std::int64_t n) {
          return reference_epilogue(EpilogueKind::relu_aux, acc, data.inputs_at(m, n)).f;
        });
      }
      if (kind == EpilogueKind::scale_amax) {
        data.amax->download();
        spot.expect_amax("amax", *data.amax, d_out, expected);
      }
      row.check_pass = spot.passed();
      row.check = spot.summary();
      row.rel_error = spot.worst_relative_error();
    } else {
      row.check = "FAIL: no epigemm operator ran";
    }
  } catch (const Error& e) {
    op.reset();
    row.error = std::string("epigemm: ") + e.what();
    row.check = "FAIL: " + row.error;
  }

  // The anchors: GEMM alone (checked once per case) and the fused one.
  std::unique_ptr<LtAnchor> gemm;
  try {
    gemm = std::make_unique<LtAnchor>(lt_, gemm_config(data), workspace_, workspace_bytes_);
  } catch (const BenchError& e) {
    // NOTE: without a cuBLASLt GEMM the row still times epigemm; it says why there is no anchor.
    const std::string why = std::string("cuBLASLt GEMM unavailable: ") + e.what();
    row.note += (row.note.empty() ? "" : "; ") + why;
    gemm_anchor_check_ = why;
  }
  if (gemm && gemm_anchor_check_.empty()) {
    poison(data.anchor_D, stream_);
    gemm->run(stream_);
    sync("the cuBLASLt GEMM anchor");
    data.anchor_D.download();
    spot.reset();
    spot.expect("D", data.anchor_D, [](double acc, std::int64_t, std::int64_t) { return acc; });
    gemm_anchor_pass_ = spot.passed();
    gemm_anchor_check_ = "cuBLASLt GEMM " + spot.summary();
  }
  row.anchor_pass = gemm_anchor_pass_;
  row.anchor_check = gemm_anchor_check_;
  // Builds a cuBLASLt anchor and spot-checks its output once; null, with the
  // reason in the row's anchor check, where cuBLASLt cannot run it.
  const auto checked_anchor = [&](const FusedAnchor& spec, const std::string& label,
                                  const char* what) -> std::unique_ptr<LtAnchor> {
    std::unique_ptr<LtAnchor> anchor;
    try {
      anchor = std::make_unique<LtAnchor>(lt_, spec.config, workspace_, workspace_bytes_);
    } catch (const BenchError& e) {
      row.anchor_check += "; " + label + " unavailable: " + e.what();
      return nullptr;
    }
    poison(*spec.out, stream_);
    anchor->run(stream_);
    sync(what);
    spec.out->download();
    spot.reset();
    spot.expect("D", *spec.out, spec.expected);
    row.anchor_pass = row.anchor_pass && spot.passed();
    row.anchor_check += "; " + label + " " + spot.summary();
    return anchor;
  };
  const std::optional<FusedAnchor> fused_spec = fused_anchor(kind, data);
  std::unique_ptr<LtAnchor> fused;
  if (fused_spec) {
    row.fused_name = fused_spec->name;
    // NOTE: a missing fused anchor leaves the row (epigemm and GEMM alone) standing.
    fused = checked_anchor(*fused_spec, fused_spec->name, "the cuBLASLt fused anchor");
    if (!fused) row.fused_name += " (unavailable)";
  }
  // NOTE: without the reference the report compares against the gelu row's GELU_BIAS.
  const std::optional<FusedAnchor> reference_spec = gelu_reference(kind, data, fused_spec);
  const std::unique_ptr<LtAnchor> reference =
      reference_spec ? checked_anchor(*reference_spec, reference_spec->name + " (reference)",
                                      "the cuBLASLt GELU_BIAS reference")
                     : nullptr;

  // Interleaved timing.
  std::vector<TimedVariant> variants;
  if (op) variants.push_back({"epigemm", [&](cudaStream_t s) { op->run(*args, s); }});
  const std::size_t gemm_at = variants.size();
  if (gemm) variants.push_back({"cuBLASLt", [&](cudaStream_t s) { gemm->run(s); }});
  if (fused) variants.push_back({"fused", [&](cudaStream_t s) { fused->run(s); }});
  if (reference) variants.push_back({"gelu reference", [&](cudaStream_t s) { reference->run(s); }});
  if (data.copy_target) {
    row.weight_bytes = static_cast<double>(data.B.bytes());
    variants.push_back({"copy", [&](cudaStream_t s) {
                          BENCH_CUDA(cudaMemcpyAsync(data.copy_target->data(), data.B.device(), data.B.bytes(),
                                                     cudaMemcpyDeviceToDevice, s));
                        }});
  }
  if (variants.empty()) return row;
  const std::vector<TimingStats> stats = timer_.measure(variants, options_.timer);
  if (op) row.epigemm = stats[0];
  std::size_t next = gemm_at;
  if (gemm) row.gemm = stats[next++];
  if (fused) row.fused = stats[next++];
  if (reference) row.gelu_reference = stats[next++];
  if (data.copy_target) row.copy = stats[next++];
  return row;
}

}  // namespace epigemm::bench
