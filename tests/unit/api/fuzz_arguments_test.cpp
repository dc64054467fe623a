// Random GEMM arguments through the public API: valid problems (extents
// that are and are not multiples of the tiles, every operand class, row- and
// column-major, padded and batch-shared operands, the benchmark's
// epilogues with their tensors bound), half of them with one fault (an
// extent of 0, -1 or past int64, a dtype or accumulator that does not go, a
// negative, zero, huge or missing stride, a misaligned or null pointer, a
// wrong rank, a vector bound in the wrong shape, a name left unbound, an
// output over an input). Every provider's supports() (sm90's and sm80's
// plans included, on CUDA views of unused addresses: nothing is read or run)
// must answer, or the call throw epigemm::Error; where an sm90 or sm80
// operator accepts, it must generate its kernel's source. Nothing else: no
// other exception, no crash, and under the sanitizers of scripts/test.sh no
// undefined behaviour.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "epigemm/epigemm.hpp"

namespace epigemm::testing {
namespace {

constexpr int kIterations = 20000;

/// An epilogue, its tensor parameters' and extra outputs' usual shape
/// classes (see ArgumentFuzzer::shape_of), and its scalars.
struct FuzzEpilogue {
  std::string source;
  std::map<std::string, int> tensors;
  std::vector<std::string> scalars;
};

const std::vector<FuzzEpilogue> kEpilogues = {
    {"", {}, {}},
    {"def epi(accum, alpha, beta, C):\n    D = alpha * accum + beta * C\n    return D\n", {{"C", 0}},
     {"alpha", "beta"}},
    {"def epi(accum, alpha, C):\n    F = accum * alpha + C * 2.0\n    D = relu(F)\n    return D, F\n",
     {{"C", 0}, {"F", 0}}, {"alpha"}},
    {"def epi(accum, bias):\n    D = gelu(accum + bias)\n    return D\n", {{"bias", 1}}, {}},
    {"def epi(accum, alpha, row_bias, col_bias):\n    D = accum * alpha + row_bias + col_bias\n    return D\n",
     {{"row_bias", 1}, {"col_bias", 2}}, {"alpha"}},
    {"def epi(accum, scale):\n    D = accum * scale\n    amax = amax(D)\n    return D, amax\n", {{"amax", 3}},
     {"scale"}},
    {"def epi(accum, C):\n    D = accum + C\n    s = sum(D)\n    m = max(accum)\n    return D, s, m\n",
     {{"C", 0}, {"s", 1}, {"m", 2}}, {}},
};

struct OperandClass {
  DType a, b, accumulator;
  std::vector<DType> d;  ///< output dtypes that go with it
};

const std::vector<OperandClass> kClasses = {
    {DType::f16, DType::f16, DType::f32, {DType::f16, DType::f32, DType::bf16, DType::e4m3}},
    {DType::f16, DType::f16, DType::f16, {DType::f16}},
    {DType::bf16, DType::bf16, DType::f32, {DType::bf16, DType::f32, DType::e4m3}},
    {DType::f32, DType::f32, DType::f32, {DType::f32}},
    {DType::tf32, DType::tf32, DType::f32, {DType::f32, DType::bf16}},
    {DType::e4m3, DType::e4m3, DType::f32, {DType::bf16, DType::e4m3, DType::f32}},
    {DType::e5m2, DType::e4m3, DType::f32, {DType::f16}},
    {DType::i8, DType::i8, DType::i32, {DType::i32, DType::f32, DType::i8}},
    {DType::u8, DType::u8, DType::i32, {DType::i32}},
};

const DType kDTypes[] = {DType::f16, DType::bf16, DType::f32, DType::tf32, DType::e4m3, DType::e5m2,
                         DType::i8,  DType::u8,   DType::i32, DType::f64};

class ArgumentFuzzer {
 public:
  explicit ArgumentFuzzer(unsigned seed) : rng_(seed) {}

  int pick(std::size_t n) { return std::uniform_int_distribution<int>(0, static_cast<int>(n) - 1)(rng_); }
  bool chance(int one_in) { return pick(static_cast<std::size_t>(one_in)) == 0; }

  /// A problem with epilogue `e`, valid or (half the time) with one fault.
  GemmArguments arguments(const FuzzEpilogue& e, bool on_cuda) {
    static const std::int64_t extents[] = {1, 2, 7, 16, 33, 64, 100, 127, 128, 129, 192, 256, 300, 384, 1000, 4096};
    regions_ = 0;
    on_cuda_ = on_cuda;
    const int fault = chance(2) ? 1 + pick(12) : 0;
    L_ = chance(3) ? 1 + pick(3) : 1;
    M_ = extents[pick(std::size(extents))];
    N_ = extents[pick(std::size(extents))];
    K_ = extents[pick(std::size(extents))];
    batched_ = L_ > 1 || chance(2);
    if (fault == 1) {
      static const std::int64_t odd[] = {0, -1, std::int64_t{1} << 40, std::int64_t{1} << 62, INT64_MAX};
      (chance(3) ? M_ : chance(2) ? N_ : K_) = odd[pick(std::size(odd))];
    }
    const OperandClass& c = kClasses[pick(kClasses.size())];
    DType a = c.a, b = c.b, d = c.d[pick(c.d.size())];
    GemmArguments args{.accumulator = c.accumulator};
    if (fault == 2) (chance(3) ? a : chance(2) ? b : d) = kDTypes[pick(std::size(kDTypes))];
    if (fault == 3) (chance(2) ? args.accumulator : args.compute) = kDTypes[pick(std::size(kDTypes))];
    args.A = tensor(a, dims(M_, K_), false);
    args.B = tensor(b, dims(K_, N_), false);
    args.out = tensor(d, dims(M_, N_), true);
    TensorRef* operands[] = {&args.A, &args.B, &args.out};
    TensorRef& hit = *operands[pick(3)];
    if (fault == 4) hit.strides = junk_strides(hit.rank());
    if (fault == 5) hit.data = static_cast<char*>(hit.data) + (chance(2) ? 1 : size_bytes(hit.dtype));
    if (fault == 6) hit.data = nullptr;
    if (fault == 7) hit.shape = chance(2) ? Dims{hit.shape[hit.rank() - 1]} : Dims{1, 1, 1, 1};
    if (fault == 8) {  // the output over an input
      args.out.data = args.A.data;
      args.out.strides = {};
    }
    if (e.source.empty()) return args;

    std::map<std::string, Binding> bindings{{"D", Binding(args.out)}};
    for (const std::string& name : e.scalars) bindings.emplace(name, Binding(chance(10) ? -0.0 : 1.5));
    for (const auto& [name, usual] : e.tensors) {
      const int shape = fault == 9 && chance(2) ? pick(6) : usual;
      const bool output = e.source.find(", " + name) > e.source.find("return");
      const DType dtype = fault == 10 ? kDTypes[pick(std::size(kDTypes))] : output && usual > 0 ? DType::f32 : d;
      bindings.emplace(name, Binding(tensor(dtype, shape_of(shape), output)));
    }
    if (fault == 11) bindings.erase(std::next(bindings.begin(), pick(bindings.size())));
    if (fault == 12 && !e.scalars.empty()) bindings.insert_or_assign(e.scalars[0], Binding(tensor(d, {M_, N_}, false)));
    args.epilogue.emplace(e.source, std::move(bindings));
    return args;
  }

 private:
  Dims dims(std::int64_t rows, std::int64_t cols) const { return batched_ ? Dims{L_, rows, cols} : Dims{rows, cols}; }

  /// 0: a full tile; 1: a row vector (N); 2: a column vector (M, 1); 3: a
  /// scalar tensor; 4, 5: shapes that do not broadcast as such.
  Dims shape_of(int kind) const {
    switch (kind) {
      case 0: return dims(M_, N_);
      case 1: return Dims{N_};
      case 2: return Dims{M_, 1};
      case 3: return Dims{1};
      case 4: return Dims{M_ + 1};
      default: return Dims{N_, M_, 2};
    }
  }

  /// A view of `shape` at its own 64 GiB of addresses: row-major, column-
  /// major in the last two axes, rows padded, or (inputs) a shared batch.
  TensorRef tensor(DType dtype, Dims shape, bool output) {
    Dims strides;
    const int r = shape.size();
    bool small = true;  // strides computed from the extents stay far from overflow
    for (int i = 0; i < r; ++i) small = small && shape[i] > 0 && shape[i] < (std::int64_t{1} << 20);
    const int layout = r >= 2 && small ? pick(4) : 0;
    if (layout == 1) {  // column-major in the last two axes
      for (int i = 0; i < r; ++i) strides.push_back(1);
      strides[r - 1] = shape[r - 2];
      if (r == 3) strides[0] = shape[1] * shape[2];
    } else if (layout >= 2) {  // rows padded to a multiple of 64 elements, or by one
      for (int i = 0; i < r; ++i) strides.push_back(1);
      const std::int64_t cols = shape[r - 1];
      strides[r - 2] = layout == 2 ? (cols + 63) / 64 * 64 : cols + 1;
      if (r == 3) strides[0] = strides[1] * shape[1];
      if (r == 3 && !output && chance(3)) strides[0] = 0;  // one batch for all
    }
    const auto at = static_cast<std::uintptr_t>(++regions_) << 36;
    const void* data = reinterpret_cast<const void*>(at);
    return on_cuda_ ? TensorRef::cuda(data, dtype, shape, strides) : TensorRef::host(data, dtype, shape, strides);
  }

  Dims junk_strides(int rank) {
    static const std::int64_t values[] = {-1, 0, 3, std::int64_t{1} << 40, INT64_MAX};
    Dims s;
    for (int i = 0; i < rank; ++i) s.push_back(chance(2) ? 1 : values[pick(std::size(values))]);
    if (chance(4)) s.push_back(1);  // one too many
    return s;
  }

  std::mt19937 rng_;
  std::uintptr_t regions_ = 0;
  bool on_cuda_ = false, batched_ = false;
  std::int64_t L_ = 1, M_ = 1, N_ = 1, K_ = 1;
};

TEST(ArgumentFuzz, EveryProviderAnswersOrThrowsAnError) {
  ArgumentFuzzer fuzz(20261130);
  const OperatorQuery queries[] = {{.providers = {"cpu_reference"}},
                                   {.target_sm = 90, .providers = {"sm90", "simt"}},
                                   {.target_sm = 80, .providers = {"sm80", "simt"}}};
  int runnable = 0, refused = 0, errors = 0, sources = 0;
  for (int i = 0; i < kIterations; ++i) {
    const FuzzEpilogue& e = kEpilogues[fuzz.pick(kEpilogues.size())];
    const int q = fuzz.pick(std::size(queries));
    SCOPED_TRACE("iteration " + std::to_string(i) + ", query " + std::to_string(q) + "\n" + e.source);
    try {
      const GemmArguments args = fuzz.arguments(e, q != 0);
      int generated = 0;
      for (const OperatorCandidate& c : explain_operators(args, queries[q])) {
        EXPECT_TRUE(c.status || !c.status.reason().empty()) << c.op.name() << " refused without a reason";
        // Without a GPU the GPU providers refuse for want of a driver after
        // every other check: their plans and code generation still run here.
        const bool ok = c.status || c.status.reason().find("cannot run here") != std::string::npos;
        if (!ok) {
          ++refused;
          continue;
        }
        ++runnable;
        if (q == 0 || generated == 2) continue;  // two kernel sources per problem keep the test quick
        ++generated;
        try {
          EXPECT_FALSE(c.op.generated_source(args).empty()) << c.op.name();
          ++sources;
        } catch (const Error& err) {
          ADD_FAILURE() << c.op.name() << " accepted the problem but could not generate its kernel: " << err.what();
        }
      }
    } catch (const Error& err) {
      ++errors;
      EXPECT_FALSE(std::string(err.what()).empty());
    } catch (const std::exception& err) {
      ADD_FAILURE() << "not an epigemm::Error: " << err.what();
    }
  }
  // The draw reaches every side: operators that take the problem (and
  // generate kernels for it), ones that refuse it, and errors.
  const std::string counts = std::to_string(runnable) + " runnable, " + std::to_string(sources) +
                             " kernel sources, " + std::to_string(refused) + " refused, " + std::to_string(errors) +
                             " errors";
  EXPECT_GT(runnable, kIterations / 2) << counts;
  EXPECT_GT(sources, kIterations / 4) << counts;
  EXPECT_GT(refused, kIterations) << counts;
  EXPECT_GT(errors, kIterations / 10) << counts;
}

}  // namespace
}  // namespace epigemm::testing
