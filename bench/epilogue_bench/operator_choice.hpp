// Picks the epigemm operator a benchmark row runs: the best sm90 operator,
// or, when the sm90 provider cannot run the problem (or is not there), the
// best other GPU operator, with a note saying why.
#pragma once

#include <optional>
#include <string>

#include "epigemm/epigemm.hpp"

namespace epigemm::bench {

struct OperatorChoice {
  std::optional<Operator> op;  ///< empty when no GPU operator supports the problem
  std::string note;            ///< empty when an sm90 operator was chosen
};

/// `pin`: when not empty, only operators whose name contains it.
/// `fp8_accumulation`: when not empty ("fast" or "precise"), only operators
/// whose metadata says they accumulate fp8 so, or say nothing about it.
OperatorChoice choose_operator(const GemmArguments& args, int target_sm, const std::string& pin,
                               const std::string& fp8_accumulation = "");

}  // namespace epigemm::bench
