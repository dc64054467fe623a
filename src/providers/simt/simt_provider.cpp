// The tiled providers (simt, sm80): one TiledOperator per target SM (kept,
// so compiled kernels stay with it), none for host-only queries or SMs below
// the template's minimum.
#include "providers/simt/simt_provider.hpp"

#include <map>
#include <mutex>

#include "providers/simt/tiled_operator.hpp"

namespace epigemm::detail {
namespace {

class TiledProvider final : public Provider {
 public:
  explicit TiledProvider(const TiledKernel& kernel) : kernel_(kernel) {}

  std::string_view name() const override { return kernel_.provider; }

  std::vector<std::shared_ptr<OperatorImpl>> operators(int target_sm) const override {
    if (target_sm < kernel_.min_sm) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    auto& op = operators_[target_sm];
    if (!op) op = std::make_shared<TiledOperator>(kernel_, target_sm);
    return {op};
  }

 private:
  const TiledKernel& kernel_;
  mutable std::mutex mutex_;
  mutable std::map<int, std::shared_ptr<OperatorImpl>> operators_;
};

}  // namespace

std::shared_ptr<Provider> make_simt_provider() { return std::make_shared<TiledProvider>(simt_kernel()); }

std::shared_ptr<Provider> make_sm80_provider() { return std::make_shared<TiledProvider>(sm80_kernel()); }

}  // namespace epigemm::detail
