// Operator (the fixed public methods around a provider's OperatorImpl),
// get_operators and explain_operators.
#include "epigemm/operator.hpp"

#include <algorithm>

#include "api/operator_impl.hpp"
#include "api/problem.hpp"

namespace epigemm {
namespace {

// Reused by run() so a warm call does not allocate for the problem's lists.
detail::Problem& scratch_problem() {
  thread_local detail::Problem problem;
  return problem;
}

void check_known_providers(const OperatorQuery& query) {
  const auto providers = detail::ProviderRegistry::instance().providers();
  for (const auto& wanted : query.providers) {
    auto has = [&](const auto& p) { return p->name() == wanted; };
    if (std::none_of(providers.begin(), providers.end(), has)) {
      std::string known;
      for (const auto& p : providers) known += (known.empty() ? "" : ", ") + std::string(p->name());
      throw Error(ErrorKind::Value, "Unknown provider '" + wanted + "'; known providers: " + known);
    }
  }
}

}  // namespace

Operator::Operator(std::shared_ptr<detail::OperatorImpl> impl) : impl_(std::move(impl)) {
  if (!impl_) throw Error(ErrorKind::Internal, "Operator made from a null implementation");
}

const OperatorMetadata& Operator::metadata() const noexcept { return impl_->metadata(); }

Status Operator::supports(const GemmArguments& args) const {
  detail::Problem problem;
  detail::analyze(args, problem);
  return impl_->supports(problem);
}

void Operator::compile(const GemmArguments& args) {
  detail::Problem problem;
  detail::analyze(args, problem);
  const Status status = impl_->supports(problem);
  if (!status) throw Error(ErrorKind::Unsupported, name() + " does not support this problem: " + status.reason());
  impl_->compile(problem);
}

PrecompileResult Operator::precompile(const GemmArguments& args, int sm_count) const {
  if (sm_count < 0) {
    throw Error(ErrorKind::Value, "precompile: sm_count must not be negative (got " + std::to_string(sm_count) + ")");
  }
  detail::Problem problem;
  detail::analyze(args, problem);
  problem.described_sm_count = sm_count;
  const Status status = impl_->supports_problem(problem);
  if (!status) throw Error(ErrorKind::Unsupported, name() + " does not support this problem: " + status.reason());
  return impl_->precompile(problem);
}

void Operator::run(const GemmArguments& args, void* stream) {
  detail::Problem& problem = scratch_problem();
  detail::analyze(args, problem);
  const Status status = impl_->supports(problem);
  if (!status) throw Error(ErrorKind::Unsupported, name() + " does not support this problem: " + status.reason());
  impl_->run(problem, stream);
}

std::string Operator::generated_source(const GemmArguments& args) const {
  detail::Problem problem;
  detail::analyze(args, problem);
  return impl_->generated_source(problem);
}

std::vector<std::string> Operator::plan_notes(const GemmArguments& args) const {
  detail::Problem problem;
  detail::analyze(args, problem);
  return impl_->plan_notes(problem);
}

std::string Operator::ranking(const GemmArguments& args) const {
  detail::Problem problem;
  detail::analyze(args, problem);
  return impl_->ranking(problem);
}

namespace detail {

std::string OperatorImpl::generated_source(const Problem& problem) const {
  (void)problem;
  throw Error(ErrorKind::Unsupported, metadata_.name + " runs on the host and generates no CUDA source");
}

}  // namespace detail

namespace {

/// Every operator the query admits, supported ones first, best first; with
/// `with_ranking`, each supported one says how it ranked the problem.
std::vector<OperatorCandidate> ranked_candidates(const GemmArguments& args, const OperatorQuery& query,
                                                 bool with_ranking) {
  check_known_providers(query);
  if (query.sm_count < 0 || query.l2_bytes < 0) {
    throw Error(ErrorKind::Value, "OperatorQuery: sm_count and l2_bytes must not be negative (got " +
                                      std::to_string(query.sm_count) + " and " + std::to_string(query.l2_bytes) + ")");
  }
  if (!query.ignore_devices && (query.sm_count != 0 || query.l2_bytes != 0)) {
    throw Error(ErrorKind::Value,
                "OperatorQuery: sm_count and l2_bytes describe a GPU only with ignore_devices; "
                "otherwise the ranking reads them from the device");
  }
  detail::Problem problem;
  detail::analyze(args, problem);
  problem.described_sm_count = query.sm_count;
  problem.described_l2_bytes = query.l2_bytes;
  const int target_sm = query.target_sm ? query.target_sm : device_target_sm();
  std::vector<OperatorCandidate> candidates;
  for (const auto& provider : detail::ProviderRegistry::instance().providers()) {
    if (!query.providers.empty() &&
        std::find(query.providers.begin(), query.providers.end(), provider->name()) == query.providers.end()) {
      continue;
    }
    for (auto& impl : provider->operators(target_sm)) {
      if (query.metadata_filter && !query.metadata_filter(impl->metadata())) continue;
      Status status = query.ignore_devices ? impl->supports_problem(problem) : impl->supports(problem);
      candidates.push_back({Operator(impl), std::move(status), {}});
    }
  }
  // Supported first, then by each operator's preference for this problem.
  std::vector<int> preference;
  for (const auto& c : candidates) preference.push_back(c.op.impl()->preference(problem));
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (candidates[a].status.is_ok() != candidates[b].status.is_ok()) return candidates[a].status.is_ok();
    return preference[a] > preference[b];
  });
  std::vector<OperatorCandidate> sorted;
  for (std::size_t i : order) {
    sorted.push_back(candidates[i]);
    if (with_ranking && sorted.back().status) sorted.back().ranking = sorted.back().op.impl()->ranking(problem);
  }
  return sorted;
}

}  // namespace

std::vector<OperatorCandidate> explain_operators(const GemmArguments& args, const OperatorQuery& query) {
  return ranked_candidates(args, query, /*with_ranking=*/true);
}

std::vector<Operator> get_operators(const GemmArguments& args, const OperatorQuery& query) {
  std::vector<Operator> ops;
  for (auto& c : ranked_candidates(args, query, /*with_ranking=*/false)) {
    if (c.status) ops.push_back(c.op);
  }
  return ops;
}

int device_target_sm() { return detail::ProviderRegistry::instance().device_target_sm(); }

}  // namespace epigemm
