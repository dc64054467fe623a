// Registers the built-in providers when libepigemm loads. The only place
// that lists them; the API layer knows providers only through the registry.
#include "api/operator_impl.hpp"
#include "providers/cpu_reference/cpu_reference_provider.hpp"
#include "providers/simt/simt_provider.hpp"
#include "providers/sm90/sm90_provider.hpp"

namespace epigemm::detail {
namespace {

struct RegisterBuiltinProviders {
  RegisterBuiltinProviders() {
    auto& registry = ProviderRegistry::instance();
    registry.add(make_cpu_reference_provider());
    registry.add(make_simt_provider());
    registry.add(make_sm80_provider());
    registry.add(make_sm90_provider());
    registry.set_device_target_sm_query(&current_device_target_sm);
  }
};
const RegisterBuiltinProviders kRegisterBuiltinProviders;

}  // namespace
}  // namespace epigemm::detail
