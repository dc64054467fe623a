// The provider side of an operator, and the registry providers join. The API
// layer knows providers only through this interface.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/problem.hpp"
#include "epigemm/operator.hpp"

namespace epigemm::detail {

class OperatorImpl {
 public:
  explicit OperatorImpl(OperatorMetadata metadata) : metadata_(std::move(metadata)) {}
  virtual ~OperatorImpl() = default;

  const OperatorMetadata& metadata() const noexcept { return metadata_; }

  /// Whether this operator can run the (already validated) problem.
  virtual Status supports(const Problem& problem) const = 0;
  /// supports() without the checks of this machine's devices (see
  /// OperatorQuery::ignore_devices); operators that check none need not
  /// override it.
  virtual Status supports_problem(const Problem& problem) const { return supports(problem); }
  /// Builds whatever the problem's class needs (a JIT kernel, ...).
  virtual void compile(const Problem& problem) { (void)problem; }
  /// See Operator::precompile (the problem checked by supports_problem,
  /// its described_sm_count set); host operators store nothing.
  virtual PrecompileResult precompile(const Problem& problem) const {
    (void)problem;
    return {};
  }
  /// Runs; called only when supports() said ok.
  virtual void run(const Problem& problem, void* stream) = 0;
  /// The CUDA source this operator compiles for the problem (for `epigemm
  /// emit`). Needs no device. Throws Error(Unsupported) when the problem
  /// does not fit the kernel, or when the operator generates no source.
  virtual std::string generated_source(const Problem& problem) const;
  /// See Operator::plan_notes; the problem is one supports() may refuse
  /// (then whatever the notes say is moot).
  virtual std::vector<std::string> plan_notes(const Problem& problem) const {
    (void)problem;
    return {};
  }
  /// Higher runs first among operators that support the problem.
  virtual int preference(const Problem& problem) const {
    (void)problem;
    return 0;
  }
  /// See Operator::ranking.
  virtual std::string ranking(const Problem& problem) const {
    (void)problem;
    return {};
  }

 private:
  OperatorMetadata metadata_;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string_view name() const = 0;
  /// The operators for `target_sm` (0: host only). Returns the same objects
  /// on every call, so compiled kernels stay with them.
  virtual std::vector<std::shared_ptr<OperatorImpl>> operators(int target_sm) const = 0;
};

/// Process-wide list of providers.
class ProviderRegistry {
 public:
  static ProviderRegistry& instance();
  /// Adds a provider; a second one with the same name replaces the first.
  void add(std::shared_ptr<Provider> provider);
  std::vector<std::shared_ptr<Provider>> providers() const;

  /// How device_target_sm() asks the current device's SM version (set by
  /// whoever links a GPU runtime; without one the answer is 0).
  void set_device_target_sm_query(int (*query)());
  int device_target_sm() const;
};

}  // namespace epigemm::detail
