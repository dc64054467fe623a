// The rules for a call in the epilogue language: messages for an unknown
// function and a wrong number of arguments, and which keyword names each
// function accepts for which argument.
#pragma once

#include <string>
#include <string_view>

#include "ir/op_table.hpp"

namespace epigemm::frontend {

/// "Unknown function 'relux'; did you mean 'relu'?" (up to three close
/// names), or a pointer to the function reference when none is close.
std::string unknown_function_message(std::string_view name);

/// "relu takes 1 argument (2 given)", "leaky_relu takes 1 or 2 arguments
/// (3 given)"; for max/min with two or more arguments, a pointer to
/// maximum/minimum.
std::string arity_message(const ir::OpInfo& info, int given);

/// The argument index that keyword `keyword` names for `info`, or -1. The
/// accepted keywords: leaky_relu(x, negative_slope= | slope=),
/// elu(x, alpha=), clamp(x, min= | lo=, max= | hi=); only for arguments the
/// op table gives the function.
int keyword_argument_index(const ir::OpInfo& info, std::string_view keyword);

/// The keywords `info` accepts, as "'slope', 'negative_slope'", or empty.
std::string accepted_keywords(const ir::OpInfo& info);

}  // namespace epigemm::frontend
