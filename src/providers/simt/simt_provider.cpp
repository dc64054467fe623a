// The simt provider: one SimtOperator per target SM (kept, so compiled
// kernels stay with it), none for host-only queries or SMs below 7.0.
#include "providers/simt/simt_provider.hpp"

#include <map>
#include <mutex>

#include "providers/simt/simt_device_checks.hpp"
#include "providers/simt/simt_operator.hpp"

namespace epigemm::detail {
namespace {

class SimtProvider final : public Provider {
 public:
  std::string_view name() const override { return "simt"; }

  std::vector<std::shared_ptr<OperatorImpl>> operators(int target_sm) const override {
    if (target_sm < DeviceChecks::kSimtMinSm) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    auto& op = operators_[target_sm];
    if (!op) op = std::make_shared<SimtOperator>(target_sm);
    return {op};
  }

 private:
  mutable std::mutex mutex_;
  mutable std::map<int, std::shared_ptr<OperatorImpl>> operators_;
};

}  // namespace

std::shared_ptr<Provider> make_simt_provider() { return std::make_shared<SimtProvider>(); }

}  // namespace epigemm::detail
