// The cpu_reference provider and its single operator.
#include "providers/cpu_reference/cpu_reference_provider.hpp"

#include "providers/cpu_reference/reference_epilogue.hpp"
#include "providers/cpu_reference/reference_gemm.hpp"

namespace epigemm::detail {
namespace {

class CpuReferenceOperator final : public OperatorImpl {
 public:
  CpuReferenceOperator() : OperatorImpl(make_metadata()) {}

  Status supports(const Problem& problem) const override {
    if (problem.device != Device::host) {
      return Status::unsupported("cpu_reference runs on host tensors; these are on cuda:" +
                                 std::to_string(problem.device_index));
    }
    return Status::ok();
  }

  void run(const Problem& problem, void* stream) override {
    (void)stream;
    run_reference_epilogue(problem, reference_gemm(problem));
  }

 private:
  static OperatorMetadata make_metadata() {
    OperatorMetadata md;
    md.name = "cpu_reference";
    md.provider = "cpu_reference";
    md.extra["gemm"] = "double";
    md.extra["epilogue"] = "interpreted";
    return md;
  }
};

class CpuReferenceProvider final : public Provider {
 public:
  std::string_view name() const override { return "cpu_reference"; }
  std::vector<std::shared_ptr<OperatorImpl>> operators(int target_sm) const override {
    (void)target_sm;
    return {op_};
  }

 private:
  std::shared_ptr<OperatorImpl> op_ = std::make_shared<CpuReferenceOperator>();
};

}  // namespace

std::shared_ptr<Provider> make_cpu_reference_provider() { return std::make_shared<CpuReferenceProvider>(); }

}  // namespace epigemm::detail
