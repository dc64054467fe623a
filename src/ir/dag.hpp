// The epilogue DAG: AccFetch, Constant, Load, Compute and Store nodes in a
// vector, each node's inputs earlier in the vector (so index order is a
// topological order). Passes build a new Dag rather than edit in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "epigemm/dtype.hpp"
#include "ir/op_table.hpp"

namespace epigemm::ir {

using NodeId = std::int32_t;

struct SourceLoc {
  int line = 0;    ///< 1-based; 0 = unknown
  int column = 0;  ///< 1-based
};

enum class NodeKind : std::uint8_t {
  AccFetch,  ///< the GEMM accumulator
  Constant,  ///< a literal number from the source
  Load,      ///< an epilogue parameter
  Compute,   ///< an operation of the op table
  Store,     ///< an output
};

/// How a parameter is read, from the shape and strides of what it is bound
/// to (never from its name). Unbound before the bind pass.
enum class LoadKind : std::uint8_t {
  Unbound,
  ScalarValue,   ///< a number passed by value
  ScalarTensor,  ///< a one-element tensor read from memory (may vary by batch)
  Row,           ///< varies along N only: (N,), (1, N), (L, 1, N)
  Column,        ///< varies along M only: (M, 1), (L, M, 1)
  Tile,          ///< varies along M and N: (M, N), (L, M, N)
};

/// How an output is written. Reductions reduce over the axes where the
/// output tensor has extent 1.
enum class StoreKind : std::uint8_t {
  Unbound,
  Tile,          ///< elementwise, (L, M, N) or (M, N)
  RowReduce,     ///< one value per row: (M, 1), (L, M, 1)
  ColumnReduce,  ///< one value per column: (N,), (1, N), (L, 1, N)
  ScalarReduce,  ///< one value: a one-element tensor
};

/// The same operand's kinds in the transposed problem (M and N swapped):
/// rows and columns trade places.
constexpr LoadKind transposed(LoadKind kind) noexcept {
  return kind == LoadKind::Row ? LoadKind::Column : kind == LoadKind::Column ? LoadKind::Row : kind;
}
constexpr StoreKind transposed(StoreKind kind) noexcept {
  return kind == StoreKind::RowReduce      ? StoreKind::ColumnReduce
         : kind == StoreKind::ColumnReduce ? StoreKind::RowReduce
                                           : kind;
}

struct Node {
  NodeKind kind = NodeKind::Compute;
  OpCode op = OpCode::add;      ///< Compute: the operation; Store: the reduction op if a reduce store
  std::vector<NodeId> inputs;   ///< Compute: operands; Store: the value stored
  /// Load: parameter name; Store: output name; Compute: the variable it was
  /// assigned to, if any (for printing only).
  std::string name;
  double value = 0.0;           ///< Constant
  /// AccFetch: accumulator type; Load/Store: the bound tensor's dtype (or the
  /// compute type for a ScalarValue); Compute/Constant: the compute type.
  /// DType::f32 until the type pass runs.
  DType dtype = DType::f32;
  LoadKind load_kind = LoadKind::Unbound;
  StoreKind store_kind = StoreKind::Unbound;
  /// Load: index of the parameter in Dag::params; Store: index in Dag::outputs.
  int slot = -1;
  SourceLoc loc;
};

struct Dag {
  std::string function_name;        ///< the def's name
  std::vector<std::string> params;  ///< parameters after accum, in order
  std::vector<std::string> outputs; ///< returned names, in order
  std::vector<Node> nodes;

  const Node& node(NodeId id) const { return nodes.at(static_cast<std::size_t>(id)); }
  NodeId add(Node n) {
    nodes.push_back(std::move(n));
    return static_cast<NodeId>(nodes.size() - 1);
  }
};

}  // namespace epigemm::ir
