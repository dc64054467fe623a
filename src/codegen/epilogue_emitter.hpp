// The epilogue code generator: a bound, typed DAG -> CUDA C++ that any GPU
// kernel can include. It emits the traits struct `EpgEpilogue` (per input its
// load kind and dtype, per output its store kind, dtype and reduce op) and
// the functions `epilogue_apply` and `epilogue_for_each_reduce`.
#pragma once

#include <string>
#include <string_view>

#include "epigemm/dtype.hpp"
#include "epigemm/error.hpp"
#include "ir/dag.hpp"

namespace epigemm::codegen {

/// What a kernel needs to know about an epilogue besides its source.
struct EpilogueSummary {
  int num_inputs = 0;   ///< Dag::params.size()
  int num_outputs = 0;  ///< Dag::outputs.size()
  int num_reduce = 0;   ///< outputs with a reduce store
};

/// Counts inputs, outputs and reduce outputs.
EpilogueSummary summarize(const ir::Dag& dag);

/// Whether the generator can emit this DAG for this accumulator and compute
/// type; the reason otherwise (e.g. "compute type i8 is not supported by
/// the CUDA epilogue generator").
Status can_emit(const ir::Dag& dag, DType accumulator, DType compute);

/// CUDA C++ defining, in this order:
///   struct EpgEpilogue { using Acc, Compute, Params; kNumInputs, kNumOutputs,
///     kNumReduce; kInLoadKind[], kInDType[], kOutStoreKind[], kOutDType[],
///     kOutReduceOp[], kOutReduceSlot[]; static apply(ctx, acc);
///     static for_each_reduce(visitor); };
///   template <class Ctx> void epilogue_apply(Ctx& ctx, EpgEpilogue::Acc acc);
///   template <class V> void epilogue_for_each_reduce(V& visitor);
/// The caller's Ctx provides `template <int I> Compute load()`,
/// `template <int J, class V> void store(V)` (V is Compute, or Acc when the
/// output stores the accumulator as it is) and `template <int J> void
/// reduce(Compute)`. The visitor provides `template <int J> void visit()`,
/// called once per reduce output. Needs kernels/epilogue_ops.cuh included
/// first. Throws Error(ErrorKind::Unsupported) when can_emit() says no.
std::string emit_epilogue(const ir::Dag& dag, DType accumulator, DType compute);

/// The kernels' spelling of a dtype: "kEpgF16", ...
std::string_view device_dtype_name(DType dtype) noexcept;
/// The C++ type a compute type computes in: "float" (f32, f16, bf16) or "double".
std::string_view device_compute_type(DType compute) noexcept;
/// The C++ type of an accumulator: "float", "__half", "int" or "double".
std::string_view device_accumulator_type(DType accumulator) noexcept;

}  // namespace epigemm::codegen
