// Printable names of the DAG's enumerations (node, load and store kinds, op
// classes), shared by the printers, the verifier's messages and the CLI.
#pragma once

#include <string_view>

#include "ir/dag.hpp"
#include "ir/op_table.hpp"

namespace epigemm::ir {

/// "acc_fetch", "constant", "load", "compute", "store".
std::string_view to_string(NodeKind kind) noexcept;
/// "unbound", "scalar_value", "scalar_tensor", "row", "column", "tile".
std::string_view to_string(LoadKind kind) noexcept;
/// "unbound", "tile", "row_reduce", "column_reduce", "scalar_reduce".
std::string_view to_string(StoreKind kind) noexcept;
/// "elementwise", "cast", "reduction".
std::string_view to_string(OpClass op_class) noexcept;

/// Whether a Store of this kind reduces (row, column or scalar reduce).
bool is_reduce_store(StoreKind kind) noexcept;

}  // namespace epigemm::ir
