// The binary interface between host and generated epilogues: dtype, load,
// store and reduction codes (same numbering as the host enums) and the
// operand record every kernel receives for each epilogue input and output.
// NOTE: every field is 8 bytes so the host can fill the records as raw slots.
#pragma once

// epigemm::DType, in the same order.
enum EpgDType : int {
  kEpgF32 = 0,
  kEpgTf32 = 1,
  kEpgF16 = 2,
  kEpgBf16 = 3,
  kEpgE4m3 = 4,
  kEpgE5m2 = 5,
  kEpgI8 = 6,
  kEpgU8 = 7,
  kEpgI32 = 8,
  kEpgF64 = 9,
};

// epigemm::ir::LoadKind, in the same order.
enum EpgLoadKind : int {
  kEpgLoadUnbound = 0,
  kEpgLoadScalarValue = 1,
  kEpgLoadScalarTensor = 2,
  kEpgLoadRow = 3,
  kEpgLoadColumn = 4,
  kEpgLoadTile = 5,
};

// epigemm::ir::StoreKind, in the same order.
enum EpgStoreKind : int {
  kEpgStoreUnbound = 0,
  kEpgStoreTile = 1,
  kEpgStoreRowReduce = 2,
  kEpgStoreColumnReduce = 3,
  kEpgStoreScalarReduce = 4,
};

// How a reduce store combines values.
enum EpgReduceOp : int {
  kEpgReduceNone = 0,
  kEpgReduceSum = 1,
  kEpgReduceMax = 2,
  kEpgReduceMin = 3,
  kEpgReduceAmax = 4,
};

// One epilogue operand. Element (l, m, n) lives at
// ptr + l*stride_l + m*stride_m + n*stride_n (elements); broadcast or reduced
// axes have stride 0. ScalarValue inputs use `value` and ignore the rest.
struct EpgOperand {
  void* ptr;
  double value;
  long long stride_l;
  long long stride_m;
  long long stride_n;
};

// Every input and output operand of one epilogue, inputs first. The arrays
// hold at least one record so an epilogue without inputs still compiles.
template <int NumInputs, int NumOutputs>
struct EpgParams {
  EpgOperand in[NumInputs > 0 ? NumInputs : 1];
  EpgOperand out[NumOutputs > 0 ? NumOutputs : 1];
};

// The A and B operands and extents of a GEMM, as every kernel receives them.
// A(l, m, k) = a + l*a_sl + m*a_sm + k*a_sk; B(l, k, n) likewise.
struct EpgGemmArgs {
  const void* a;
  const void* b;
  long long m, n, k, l;
  long long a_sl, a_sm, a_sk;
  long long b_sl, b_sk, b_sn;
};
