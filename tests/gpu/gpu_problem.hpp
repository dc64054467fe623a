// GpuProblem: a GEMM problem built twice, on the GPU (device tensors) and on
// the host (the same input values), run by the simt provider and by
// cpu_reference, and every output compared. Device outputs are poisoned
// with two byte patterns in two runs, so an element never written fails.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/host_tensor.hpp"
#include "epigemm/epigemm.hpp"
#include "ir/convert.hpp"
#include "nvrtc/epilogue_catalog.hpp"
#include "runtime/cuda_objects.hpp"
#include "runtime/driver.hpp"

namespace epigemm::testing {

/// Skips the calling test when no CUDA driver or device is present, else
/// makes device 0's primary context current and returns the driver.
#define EPIGEMM_REQUIRE_GPU(driver_var)                                                        \
  Status gpu_status_ = Status::ok();                                                           \
  const runtime::Driver* driver_var = runtime::Driver::get(&gpu_status_);                      \
  if (driver_var == nullptr) GTEST_SKIP() << "no CUDA device here: " << gpu_status_.reason(); \
  driver_var->make_current(0)

/// Only the provider `name`, for the current device's SM.
inline OperatorQuery provider_query(const runtime::Driver& driver, const std::string& name) {
  OperatorQuery query;
  query.target_sm = driver.device_info(0).sm;
  query.providers = {name};
  return query;
}

/// Only the simt provider, for the current device's SM.
inline OperatorQuery simt_query(const runtime::Driver& driver) { return provider_query(driver, "simt"); }

/// Only the cpu_reference provider.
inline OperatorQuery reference_query() {
  OperatorQuery query;
  query.providers = {"cpu_reference"};
  return query;
}

/// Bytes a tensor view spans from its first element.
inline std::size_t span_bytes(DType dtype, const Dims& shape, const Dims& strides) {
  std::int64_t last = 0;
  for (int i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * strides[i];
  return static_cast<std::size_t>((last + 1) * size_bytes(dtype));
}

/// Allowed |got - want| for a value stored as `dtype`: a few units in the
/// last place of float outputs, one step for integers.
inline double tolerance(DType dtype, double want) {
  const double a = std::fabs(want);
  switch (dtype) {
    case DType::f64: return 1e-9 * a + 1e-9;
    case DType::f32: case DType::tf32: return 2e-5 * a + 2e-4;
    case DType::f16: return 2e-3 * a + 2e-3;
    case DType::bf16: return 1.6e-2 * a + 1e-2;
    case DType::e4m3: return 0.13 * a + 0.02;
    case DType::e5m2: return 0.26 * a + 0.02;
    default: return 1.0;
  }
}

class GpuProblem {
 public:
  struct Operand {
    bool output = false;
    std::unique_ptr<HostTensor> host;  ///< input values; for outputs the reference result
    std::unique_ptr<HostTensor> got;   ///< outputs: what the GPU wrote
    runtime::DeviceBuffer device;
    TensorRef device_ref;
    std::size_t bytes = 0;
  };

  GpuProblem(const runtime::Driver& driver, std::mt19937& rng) : driver_(driver), rng_(rng) {}

  /// A tensor on both sides. Inputs get random integers in [lo, hi];
  /// `offset_bytes` shifts the device pointer (for alignment tests).
  TensorRef& add(const std::string& name, DType dtype, Dims shape, Dims strides = {}, bool output = false,
                 std::size_t offset_bytes = 0, int lo = -2, int hi = 2) {
    Operand& op = operands_[name];
    op.output = output;
    op.host = std::make_unique<HostTensor>(dtype, shape, strides);
    const Dims s = op.host->ref().effective_strides();
    op.bytes = span_bytes(dtype, shape, s);
    op.device = runtime::DeviceBuffer(driver_, 0, op.bytes + offset_bytes + 64);
    op.device_ref = TensorRef::cuda(static_cast<char*>(op.device.data()) + offset_bytes, dtype, shape, strides);
    if (output) {
      op.got = std::make_unique<HostTensor>(dtype, shape, strides);
    } else {
      op.host->fill_int(rng_, dtype == DType::u8 ? 0 : lo, hi);
      upload(name);
    }
    return op.device_ref;
  }
  /// Random normal values instead of integers (inputs only).
  void fill_normal(const std::string& name, double scale = 1.0) {
    operands_.at(name).host->fill_normal(rng_, scale);
    upload(name);
  }
  void scalar(const std::string& name, double value) { scalars_[name] = value; }
  /// Widens output `name`'s tolerance by `abs` (an error bound the test
  /// derived for a computation that f32 cannot carry out exactly).
  void allow_error(const std::string& name, double abs) { extra_tolerance_[name] = abs; }
  /// New random integers in every input (host and device); the reference
  /// runs again at the next comparison.
  void refresh_inputs() {
    for (auto& [name, op] : operands_) {
      if (op.output) continue;
      op.host->fill_int(rng_, op.host->dtype == DType::u8 ? 0 : -2, 2);
      upload(name);
    }
    reference_done_ = false;
  }
  /// Fills every output with `byte`, on `stream` (ordered before the
  /// launches that follow there; the legacy stream does not order a
  /// non-blocking one).
  void poison_outputs(unsigned char byte, CUstream stream = nullptr) {
    for (auto& [name, o] : operands_) {
      if (o.output) o.device.fill_bytes(byte, stream);
    }
  }

  /// Every operand of a catalog case, shaped for (L, M, N).
  void add_case(const EpilogueCase& c, std::int64_t L, std::int64_t M, std::int64_t N) {
    source_ = c.source;
    for (const CatalogOperand& op : c.operands) {
      if (op.shape == OperandShape::scalar) {
        scalar(op.name, op.value);
      } else {
        const bool output = op.name == "D" || is_output_shape(op.shape) || returned(c.source, op.name);
        add(op.name, op.dtype, operand_dims(op.shape, L, M, N), {}, output);
      }
    }
  }
  void set_source(std::string source) { source_ = std::move(source); }
  /// A (L, M, K) and B (L, K, N), contiguous row-major, random integers.
  void add_ab(DType a, DType b, std::int64_t L, std::int64_t M, std::int64_t N, std::int64_t K) {
    add("A", a, {L, M, K});
    add("B", b, {L, K, N});
  }

  GemmArguments args(bool on_device, DType accumulator, DType compute) const {
    std::map<std::string, Binding> bindings;
    for (const auto& [name, value] : scalars_) bindings.emplace(name, Binding(value));
    for (const auto& [name, op] : operands_) {
      if (name == "A" || name == "B") continue;
      bindings.emplace(name, Binding(ref(op, on_device)));
    }
    GemmArguments a{.A = ref(operands_.at("A"), on_device), .B = ref(operands_.at("B"), on_device),
                    .out = ref(operands_.at("D"), on_device), .accumulator = accumulator,
                    .epilogue = EpilogueArguments(source_, bindings), .compute = compute};
    return a;
  }

  /// The tiled provider run_and_compare runs: "simt" (the default) or "sm80".
  void use_provider(std::string name) { provider_ = std::move(name); }

  /// The operator of that provider for the device problem (fails the test if none).
  Operator simt_operator(const GemmArguments& device_args) const {
    auto candidates = explain_operators(device_args, provider_query(driver_, provider_));
    EXPECT_EQ(candidates.size(), 1u);
    if (!candidates.at(0).status) ADD_FAILURE() << provider_ << " refused: " << candidates.at(0).status.reason();
    return candidates.at(0).op;
  }

  /// Runs that provider (twice, with two poison patterns) and cpu_reference,
  /// and compares every element of every output.
  void run_and_compare(DType accumulator = DType::f32, DType compute = DType::f32) {
    run_and_compare(simt_operator(args(true, accumulator, compute)), accumulator, compute);
  }
  /// The same with operator `op`.
  void run_and_compare(Operator op, DType accumulator, DType compute) {
    const GemmArguments device_args = args(true, accumulator, compute);
    for (unsigned char poison : {0xFF, 0x5A}) {
      poison_outputs(poison);
      op.run(device_args);
      driver_.check(driver_.ctx_synchronize(), "waiting for " + op.name());
      run_reference_once(accumulator, compute);
      compare_outputs(op.name() + ", poison 0x" + std::to_string(poison));
      expect_only_outputs_written(poison, op.name());
    }
  }

  /// Checks that a run wrote nothing but its outputs' elements: the inputs
  /// are unchanged, and every byte of each output's buffer that no element
  /// of the tensor covers (before it, after it, and the padding between its
  /// rows or batches) still holds `poison`, the byte poison_outputs filled
  /// it with. TMA stores write whole boxes and must not spill into padding.
  void expect_only_outputs_written(unsigned char poison, const std::string& context) {
    expect_inputs_unchanged(context);
    for (auto& [name, o] : operands_) {
      if (!o.output) continue;
      std::vector<unsigned char> bytes(o.device.size());
      o.device.download(bytes.data(), bytes.size());
      const std::vector<bool> covered = element_bytes(o);
      std::size_t written = 0;
      for (std::size_t b = 0; b < bytes.size(); ++b) {
        if (covered[b] || bytes[b] == poison) continue;
        if (written++ < 3) ADD_FAILURE() << context << ": byte " << b << " of output " << name << "'s buffer was written";
      }
      EXPECT_EQ(written, 0u) << context << ": bytes of output " << name << "'s buffer outside its elements";
    }
  }
  /// Checks that every input's device bytes still equal what was uploaded.
  void expect_inputs_unchanged(const std::string& context) {
    for (auto& [name, o] : operands_) {
      if (o.output) continue;
      std::vector<unsigned char> now(o.bytes);
      o.device.download(now.data(), o.bytes, device_offset(o));
      EXPECT_EQ(std::memcmp(now.data(), o.host->ref().data, o.bytes), 0)
          << context << ": input " << name << " was written";
    }
  }

  Operand& operand(const std::string& name) { return operands_.at(name); }
  /// Which bytes of the operand's device buffer belong to an element of its
  /// tensor (laid out as its host copy: same shape and strides).
  static std::vector<bool> element_bytes(const Operand& op) {
    const std::size_t element = size_bytes(op.device_ref.dtype), start = device_offset(op);
    std::vector<bool> covered(op.device.size(), false);
    op.host->for_each_offset([&](std::int64_t, std::size_t at) {
      std::fill(covered.begin() + start + at, covered.begin() + start + at + element, true);
    });
    return covered;
  }
  /// Where the operand's tensor starts in its device buffer (bytes).
  static std::size_t device_offset(const Operand& op) {
    return static_cast<std::size_t>(static_cast<char*>(op.device_ref.data) - static_cast<char*>(op.device.data()));
  }
  /// The names of the outputs, in name order.
  std::vector<std::string> output_names() const {
    std::vector<std::string> names;
    for (const auto& [name, op] : operands_) {
      if (op.output) names.push_back(name);
    }
    return names;
  }
  void upload(const std::string& name) {
    Operand& op = operands_.at(name);
    op.device.upload(op.host->ref().data, op.bytes, device_offset(op));
  }
  void download_outputs() {
    for (auto& [name, o] : operands_) {
      if (o.output) o.device.download(o.got->ref().data, o.bytes, device_offset(o));
    }
  }

  /// cpu_reference on the host copies (once per problem).
  void run_reference_once(DType accumulator, DType compute) {
    if (reference_done_) return;
    for (auto& [name, o] : operands_) {
      if (o.output) o.host->poison();
    }
    const GemmArguments host_args = args(false, accumulator, compute);
    auto ops = get_operators(host_args, reference_query());
    ASSERT_EQ(ops.size(), 1u);
    ops[0].run(host_args);
    reference_done_ = true;
  }

  /// Compares every output element; reports the first few mismatches.
  void compare_outputs(const std::string& context) {
    download_outputs();
    for (auto& [name, o] : operands_) {
      if (!o.output) continue;
      const TensorRef& want = o.host->ref();
      const TensorRef& got = o.got->ref();
      const auto extra = extra_tolerance_.find(name);
      const double slack = extra == extra_tolerance_.end() ? 0.0 : extra->second;
      int failures = 0;
      o.host->for_each_offset([&](std::int64_t e, std::size_t at) {
        const double w = ir::decode(want.dtype, static_cast<const char*>(want.data) + at);
        const double g = ir::decode(got.dtype, static_cast<const char*>(got.data) + at);
        const bool same =
            (std::isnan(w) && std::isnan(g)) || w == g || std::fabs(g - w) <= tolerance(want.dtype, w) + slack;
        if (!same && failures++ < 5) {
          ADD_FAILURE() << context << ": output " << name << " element " << e << " (of " << want.numel()
                        << "): got " << g << ", want " << w;
        }
      });
      EXPECT_EQ(failures, 0) << context << ": output " << name << " " << want.describe();
    }
  }

 private:
  static bool returned(const std::string& source, const std::string& name) {
    const auto at = source.rfind("return");
    if (at == std::string::npos) return false;
    std::string tail = source.substr(at + 6);
    for (char& c : tail) {
      if (c == ',' || c == '\n' || c == ';') c = ' ';
    }
    return (" " + tail + " ").find(" " + name + " ") != std::string::npos;
  }
  static const TensorRef& ref(const Operand& op, bool on_device) {
    return on_device ? op.device_ref : op.host->ref();
  }
  const runtime::Driver& driver_;
  std::mt19937& rng_;
  std::string source_;
  std::map<std::string, Operand> operands_;
  std::map<std::string, double> scalars_;
  std::map<std::string, double> extra_tolerance_;
  bool reference_done_ = false;
  std::string provider_ = "simt";
};

}  // namespace epigemm::testing
