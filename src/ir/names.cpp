// Printable names of the DAG's enumerations. The strings are part of the
// canonical text form, so changing one changes every cache key.
#include "ir/names.hpp"

namespace epigemm::ir {

std::string_view to_string(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::AccFetch: return "acc_fetch";
    case NodeKind::Constant: return "constant";
    case NodeKind::Load: return "load";
    case NodeKind::Compute: return "compute";
    case NodeKind::Store: return "store";
  }
  return "?";
}

std::string_view to_string(LoadKind kind) noexcept {
  switch (kind) {
    case LoadKind::Unbound: return "unbound";
    case LoadKind::ScalarValue: return "scalar_value";
    case LoadKind::ScalarTensor: return "scalar_tensor";
    case LoadKind::Row: return "row";
    case LoadKind::Column: return "column";
    case LoadKind::Tile: return "tile";
  }
  return "?";
}

std::string_view to_string(StoreKind kind) noexcept {
  switch (kind) {
    case StoreKind::Unbound: return "unbound";
    case StoreKind::Tile: return "tile";
    case StoreKind::RowReduce: return "row_reduce";
    case StoreKind::ColumnReduce: return "column_reduce";
    case StoreKind::ScalarReduce: return "scalar_reduce";
  }
  return "?";
}

std::string_view to_string(OpClass op_class) noexcept {
  switch (op_class) {
    case OpClass::elementwise: return "elementwise";
    case OpClass::cast: return "cast";
    case OpClass::reduction: return "reduction";
  }
  return "?";
}

bool is_reduce_store(StoreKind kind) noexcept {
  return kind == StoreKind::RowReduce || kind == StoreKind::ColumnReduce || kind == StoreKind::ScalarReduce;
}

}  // namespace epigemm::ir
