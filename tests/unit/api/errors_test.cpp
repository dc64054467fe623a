// Bad input through the public API: each gives an epigemm::Error with a
// clear message (the seed's four word for word), never a crash.
#include "common/gemm_fixture.hpp"

namespace epigemm::testing {
namespace {

// The message of the Error `f` throws ("" if none).
template <class F>
std::string error_of(F&& f, ErrorKind* kind = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "";
}

class ApiErrors : public ::testing::Test {
 protected:
  std::mt19937 rng{1234};
  HostTensor A{DType::f16, {1, 8, 4}}, B{DType::f16, {1, 4, 6}};
  HostTensor C{DType::f16, {1, 8, 6}}, D{DType::f16, {1, 8, 6}}, F{DType::f16, {1, 8, 6}};
  void SetUp() override {
    A.fill_int(rng);
    B.fill_int(rng);
    C.fill_int(rng);
  }
  GemmArguments args(EpilogueArguments epi) {
    return {.A = A, .B = B, .out = D, .accumulator = DType::f32, .epilogue = std::move(epi)};
  }
};

TEST_F(ApiErrors, SeedMissingAccum) {
  ErrorKind kind{};
  const std::string msg = error_of(
      [&] { EpilogueArguments("def f(alpha, beta, C):\n    D = C * beta\n    return D\n", {{"alpha", 1.0}, {"beta", 2.0}, {"C", C}, {"D", D}}); },
      &kind);
  EXPECT_NE(msg.find("accum must be an input to the epilogue function"), std::string::npos) << msg;
}

TEST_F(ApiErrors, SeedMissingD) {
  const std::string msg = error_of([&] {
    EpilogueArguments("def f(accum, alpha, beta, C):\n    F = (accum * alpha) + (C * beta)\n    return F\n",
                      {{"alpha", 1.0}, {"beta", 2.0}, {"C", C}, {"F", F}});
  });
  EXPECT_NE(msg.find("Output node D is not found in the epilogue function."), std::string::npos) << msg;
}

TEST_F(ApiErrors, SeedSsaViolation) {
  const std::string msg = error_of([&] {
    EpilogueArguments("def fail_ssa(accum):\n    tmp = accum * 2.0\n    tmp = tmp - 1.0\n    D = tmp / 4.0\n    return D, tmp\n",
                      {{"D", D}, {"tmp", F}});
  });
  EXPECT_NE(msg.find("Variable 'tmp' cannot be defined twice."), std::string::npos) << msg;
}

TEST_F(ApiErrors, SeedMissingBindings) {
  const char* src = "def my_epi(accum, alpha, beta, C):\n    F = (accum * alpha) + (C * beta)\n    D = relu(F)\n    return D\n";
  EXPECT_EQ(error_of([&] { EpilogueArguments(src, {{"alpha", 1.0}, {"beta", 2.0}, {"C", C}}); }),
            "Argument D is not provided in the kwargs of the EpilogueArguments constructor");
  EXPECT_EQ(error_of([&] { EpilogueArguments(src, {{"beta", 2.0}, {"C", C}, {"D", D}}); }),
            "Argument alpha is not provided in the kwargs of the EpilogueArguments constructor");
}

TEST_F(ApiErrors, UnexpectedBinding) {
  ErrorKind kind{};
  const std::string msg = error_of(
      [&] { EpilogueArguments("def e(accum):\n    D = accum\n    return D\n", {{"D", D}, {"gamma", 2.0}}); }, &kind);
  EXPECT_NE(msg.find("'gamma'"), std::string::npos) << msg;
  EXPECT_EQ(kind, ErrorKind::Binding);
}

TEST_F(ApiErrors, ShapeThatDoesNotBroadcastNamesTensorAndShapes) {
  HostTensor bias(DType::f16, {7});
  const std::string msg = error_of([&] {
    EpilogueArguments("def e(accum, bias):\n    D = accum + bias\n    return D\n", {{"bias", bias}, {"D", D}});
  });
  EXPECT_NE(msg.find("bias"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(7,)"), std::string::npos) << msg;
}

TEST_F(ApiErrors, GemmShapeMismatch) {
  HostTensor Bbad(DType::f16, {1, 5, 6});
  GemmArguments a{.A = A, .B = Bbad, .out = D};
  const std::string msg = error_of([&] { get_operators(a); });
  EXPECT_NE(msg.find("K"), std::string::npos) << msg;
  HostTensor Dbad(DType::f16, {1, 8, 7});
  GemmArguments b{.A = A, .B = B, .out = Dbad};
  EXPECT_NE(error_of([&] { get_operators(b); }).find("out has shape"), std::string::npos);
}

TEST_F(ApiErrors, NullPointerAndBadSizes) {
  GemmArguments a{.A = TensorRef::host(nullptr, DType::f16, {8, 4}), .B = B, .out = D};
  EXPECT_NE(error_of([&] { get_operators(a); }).find("A is a null pointer"), std::string::npos);
  GemmArguments zero{.A = TensorRef::host(A.ref().data, DType::f16, {0, 4}), .B = B, .out = D};
  EXPECT_NE(error_of([&] { get_operators(zero); }).find("positive"), std::string::npos);
  const std::int64_t huge = std::int64_t{1} << 62;
  GemmArguments over{.A = TensorRef::host(A.ref().data, DType::f16, {huge, huge}), .B = B, .out = D};
  EXPECT_NE(error_of([&] { get_operators(over); }).find("overflow"), std::string::npos);
}

TEST_F(ApiErrors, DtypePairs) {
  HostTensor Bf(DType::bf16, {1, 4, 6});
  GemmArguments mixed{.A = A, .B = Bf, .out = D};
  EXPECT_NE(error_of([&] { get_operators(mixed); }).find("same dtype"), std::string::npos);
  GemmArguments bad_acc{.A = A, .B = B, .out = D, .accumulator = DType::i32};
  EXPECT_NE(error_of([&] { get_operators(bad_acc); }).find("accumulator"), std::string::npos);
  HostTensor Dtf32(DType::tf32, {1, 8, 6});
  GemmArguments tf32_out{.A = A, .B = B, .out = Dtf32};
  EXPECT_NE(error_of([&] { get_operators(tf32_out); }).find("tf32"), std::string::npos);
}

TEST_F(ApiErrors, OutputOverlappingInputIsRefused) {
  EpilogueArguments epi("def e(accum, C):\n    D = accum + C\n    return D\n", {{"C", D}, {"D", D}});
  const std::string msg = error_of([&] { get_operators(args(epi)); });
  EXPECT_NE(msg.find("overlaps"), std::string::npos) << msg;
}

TEST_F(ApiErrors, OutAndEpilogueDMustBeTheSameTensor) {
  EpilogueArguments epi("def e(accum):\n    D = accum\n    return D\n", {{"D", F}});
  const std::string msg = error_of([&] { get_operators(args(epi)); });
  EXPECT_NE(msg.find("same tensor"), std::string::npos) << msg;
}

TEST_F(ApiErrors, UnknownProviderAndUnsupportedRun) {
  GemmArguments a{.A = A, .B = B, .out = D};
  EXPECT_NE(error_of([&] { get_operators(a, {.providers = {"nope"}}); }).find("Unknown provider 'nope'"),
            std::string::npos);
  // A CUDA tensor is rejected by the host provider with a reason, not an exception.
  GemmArguments cuda{.A = TensorRef::cuda(A.ref().data, DType::f16, {1, 8, 4}),
                     .B = TensorRef::cuda(B.ref().data, DType::f16, {1, 4, 6}),
                     .out = TensorRef::cuda(D.ref().data, DType::f16, {1, 8, 6})};
  for (const auto& c : explain_operators(cuda, {.providers = {"cpu_reference"}})) {
    EXPECT_FALSE(c.status.is_ok());
    EXPECT_NE(c.status.reason().find("host"), std::string::npos);
  }
}

TEST_F(ApiErrors, MixedDevicesAreRefused) {
  GemmArguments a{.A = A, .B = TensorRef::cuda(B.ref().data, DType::f16, {1, 4, 6}), .out = D};
  EXPECT_NE(error_of([&] { get_operators(a); }).find("same device"), std::string::npos);
}

}  // namespace
}  // namespace epigemm::testing
