// Registers the built-in providers when libepigemm loads. The only place
// that lists them; the API layer knows providers only through the registry.
#include "api/operator_impl.hpp"
#include "providers/cpu_reference/cpu_reference_provider.hpp"

namespace epigemm::detail {
namespace {

struct RegisterBuiltinProviders {
  RegisterBuiltinProviders() {
    auto& registry = ProviderRegistry::instance();
    registry.add(make_cpu_reference_provider());
  }
};
const RegisterBuiltinProviders kRegisterBuiltinProviders;

}  // namespace
}  // namespace epigemm::detail
