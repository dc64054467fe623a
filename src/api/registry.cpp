// The process-wide provider registry.
#include <algorithm>
#include <mutex>

#include "api/operator_impl.hpp"

namespace epigemm::detail {
namespace {

struct RegistryState {
  std::mutex mutex;
  std::vector<std::shared_ptr<Provider>> providers;
  int (*device_query)() = nullptr;
};

RegistryState& state() {
  static RegistryState s;
  return s;
}

}  // namespace

ProviderRegistry& ProviderRegistry::instance() {
  static ProviderRegistry registry;
  return registry;
}

void ProviderRegistry::add(std::shared_ptr<Provider> provider) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto same_name = [&](const std::shared_ptr<Provider>& p) { return p->name() == provider->name(); };
  s.providers.erase(std::remove_if(s.providers.begin(), s.providers.end(), same_name), s.providers.end());
  s.providers.push_back(std::move(provider));
}

std::vector<std::shared_ptr<Provider>> ProviderRegistry::providers() const {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.providers;
}

void ProviderRegistry::set_device_target_sm_query(int (*query)()) {
  auto& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.device_query = query;
}

int ProviderRegistry::device_target_sm() const {
  int (*query)() = nullptr;
  {
    auto& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    query = s.device_query;
  }
  return query ? query() : 0;
}

}  // namespace epigemm::detail
