// The sm90 provider: builds its operators once (so compiled kernels and
// cached tensor maps stay with them) and offers them for target_sm 90 only.
#include "providers/sm90/sm90_provider.hpp"

#include <mutex>

#include "providers/sm90/sm90_operator.hpp"

namespace epigemm::detail {
namespace {

class Sm90Provider final : public Provider {
 public:
  std::string_view name() const override { return "sm90"; }

  std::vector<std::shared_ptr<OperatorImpl>> operators(int target_sm) const override {
    if (target_sm != 90) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    if (operators_.empty()) {
      for (const Sm90TileConfig& config : sm90_tile_configs()) {
        operators_.push_back(std::make_shared<Sm90Operator>(config));
      }
    }
    return operators_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<OperatorImpl>> operators_;
};

}  // namespace

std::shared_ptr<Provider> make_sm90_provider() { return std::make_shared<Sm90Provider>(); }

}  // namespace epigemm::detail
