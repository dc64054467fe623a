// choose_operator: ask for sm90 operators first, then fall back to any GPU
// provider, keeping the sm90 provider's own reason for the row's note.
#include "operator_choice.hpp"

namespace epigemm::bench {
namespace {

OperatorQuery make_query(int target_sm, const std::string& pin, const std::string& fp8_accumulation, bool sm90_only) {
  OperatorQuery query;
  query.target_sm = target_sm;
  if (sm90_only) query.providers = {"sm90"};
  query.metadata_filter = [pin, fp8_accumulation](const OperatorMetadata& md) {
    if (md.provider == "cpu_reference") return false;  // host memory only; never a GPU benchmark
    if (!fp8_accumulation.empty()) {
      const auto it = md.extra.find("fp8_accumulation");
      if (it != md.extra.end() && it->second != fp8_accumulation) return false;
    }
    return pin.empty() || md.name.find(pin) != std::string::npos;
  };
  return query;
}

/// Why no candidate of the query supports the problem.
std::string rejection(const std::vector<OperatorCandidate>& candidates, const std::string& what) {
  if (candidates.empty()) return what + " has no operators for this target";
  std::string reason = candidates.front().op.name() + ": " + candidates.front().status.reason();
  if (candidates.size() > 1) reason += " (and " + std::to_string(candidates.size() - 1) + " more)";
  return reason;
}

}  // namespace

OperatorChoice choose_operator(const GemmArguments& args, int target_sm, const std::string& pin,
                               const std::string& fp8_accumulation) {
  OperatorChoice choice;
  const OperatorQuery sm90 = make_query(target_sm, pin, fp8_accumulation, true);
  std::vector<Operator> ops = get_operators(args, sm90);
  if (!ops.empty()) {
    choice.op = ops.front();
    return choice;
  }
  const std::string why_not_sm90 = rejection(explain_operators(args, sm90), "the sm90 provider");
  const OperatorQuery any = make_query(target_sm, pin, fp8_accumulation, false);
  ops = get_operators(args, any);
  if (!ops.empty()) {
    choice.op = ops.front();
    choice.note = "sm90 unavailable (" + why_not_sm90 + "); ran the best other operator";
    return choice;
  }
  choice.note = "no GPU operator: sm90: " + why_not_sm90 + "; others: " +
                rejection(explain_operators(args, any), "no GPU provider");
  return choice;
}

}  // namespace epigemm::bench
