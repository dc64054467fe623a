// Builds a whole GEMM problem on the host for one catalog epilogue and one
// dtype combination: A, B and every epilogue operand as owned host tensors
// filled with small random integers, and the GemmArguments that bind them.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/host_tensor.hpp"
#include "epigemm/epigemm.hpp"
#include "nvrtc/epilogue_catalog.hpp"

namespace epigemm::testing {

struct HostCatalogProblem {
  std::int64_t L, M, N, K;
  std::vector<std::unique_ptr<HostTensor>> owned;
  std::map<std::string, HostTensor*> tensors;  ///< by operand name, plus "A" and "B"
  GemmArguments args;

  HostCatalogProblem(const EpilogueCase& c, const DTypeCombo& combo, std::int64_t l, std::int64_t m,
                     std::int64_t n, std::int64_t k, std::mt19937& rng)
      : L(l), M(m), N(n), K(k) {
    HostTensor& a = add("A", combo.a, {L, M, K});
    HostTensor& b = add("B", combo.b, {L, K, N});
    a.fill_int(rng);
    b.fill_int(rng);
    std::map<std::string, Binding> bindings;
    for (const CatalogOperand& op : c.operands) {
      if (op.shape == OperandShape::scalar) {
        bindings.emplace(op.name, Binding(op.value));
        continue;
      }
      HostTensor& t = add(op.name, op.dtype, operand_dims(op.shape, L, M, N));
      t.fill_int(rng, op.dtype == DType::u8 ? 0 : -2, 2);
      bindings.emplace(op.name, Binding(t.ref()));
    }
    args.A = a.ref();
    args.B = b.ref();
    args.out = tensors.at("D")->ref();
    args.accumulator = combo.accumulator;
    args.compute = combo.compute;
    args.epilogue.emplace(c.source, std::move(bindings));
  }

  HostTensor& add(const std::string& name, DType dtype, Dims dims) {
    owned.push_back(std::make_unique<HostTensor>(dtype, dims));
    tensors[name] = owned.back().get();
    return *owned.back();
  }
};

}  // namespace epigemm::testing
