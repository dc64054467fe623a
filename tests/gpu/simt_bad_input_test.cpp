// Bad input on the GPU path: host memory in a tensor marked cuda, pointers
// not aligned to their element, overlapping outputs, tensors on a device
// that is not the current one, host tensors, and reductions into dtypes the
// simt provider does not reduce into. Each gives a reason or an Error.
#include "gpu/gpu_problem.hpp"

namespace epigemm::testing {
namespace {

class SimtBadInput : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  static Status simt_status(const runtime::Driver& driver, const GemmArguments& args) {
    auto candidates = explain_operators(args, simt_query(driver));
    EXPECT_EQ(candidates.size(), 1u);
    return candidates.at(0).status;
  }

  /// A small valid device problem: D = accum + C.
  static void build(GpuProblem& p) {
    p.add_ab(DType::f16, DType::f16, 1, 16, 24, 8);
    p.set_source("def epi(accum, C):\n    D = accum + C\n    return D\n");
    p.add("C", DType::f16, {16, 24});
    p.add("D", DType::f16, {16, 24}, {}, true);
  }
};

TEST_F(SimtBadInput, HostPointerInACudaTensorIsRefusedWithAReason) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  build(p);
  std::vector<std::uint16_t> host(16 * 24);
  GemmArguments args = p.args(true, DType::f32, DType::f32);
  auto bindings = args.epilogue->bindings();
  bindings.at("C") = Binding(TensorRef::cuda(host.data(), DType::f16, {16, 24}));
  const std::string source = args.epilogue->source();
  args.epilogue.emplace(source, bindings);
  const Status s = simt_status(*driver, args);
  ASSERT_FALSE(s);
  EXPECT_NE(s.reason().find("C is a host pointer"), std::string::npos) << s.reason();
  EXPECT_TRUE(get_operators(args, simt_query(*driver)).empty());
}

TEST_F(SimtBadInput, PointerNotAlignedToItsElementIsRefused) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  p.add("A", DType::f16, {16, 8}, {}, false, 1);  // odd byte address
  p.add("B", DType::f16, {8, 24});
  p.set_source("def epi(accum):\n    D = accum\n    return D\n");
  p.add("D", DType::f32, {16, 24}, {}, true);
  const Status s = simt_status(*driver, p.args(true, DType::f32, DType::f32));
  ASSERT_FALSE(s);
  EXPECT_NE(s.reason().find("A's pointer"), std::string::npos) << s.reason();
  EXPECT_NE(s.reason().find("not aligned"), std::string::npos) << s.reason();
}

TEST_F(SimtBadInput, OutputOverlappingAnInputIsAnError) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  build(p);
  GemmArguments args = p.args(true, DType::f32, DType::f32);
  auto bindings = args.epilogue->bindings();
  TensorRef d = bindings.at("D").tensor();
  d.data = static_cast<char*>(bindings.at("C").tensor().data) + 2 * 24;  // D starts on C's second row
  bindings.at("D") = Binding(d);
  args.out = d;
  const std::string source = args.epilogue->source();
  args.epilogue.emplace(source, bindings);
  EXPECT_THROW(explain_operators(args, simt_query(*driver)), Error);
}

TEST_F(SimtBadInput, TensorsOnAnotherDeviceAreRefused) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  build(p);
  GemmArguments args = p.args(true, DType::f32, DType::f32);
  // Same pointers, labelled as another device: either that device does not
  // exist, or it is not the current one; both must be reasons, not crashes.
  auto relabel = [](TensorRef t) {
    t.device_index = 1;
    return t;
  };
  auto bindings = args.epilogue->bindings();
  for (auto& [name, b] : bindings) {
    if (b.is_tensor()) b = Binding(relabel(b.tensor()));
  }
  args.A = relabel(args.A);
  args.B = relabel(args.B);
  args.out = relabel(args.out);
  const std::string source = args.epilogue->source();
  args.epilogue.emplace(source, bindings);
  const Status s = simt_status(*driver, args);
  ASSERT_FALSE(s);
  const bool one_device = driver->device_count() == 1;
  EXPECT_NE(s.reason().find(one_device ? "CUDA device(s)" : "current device is cuda:0"), std::string::npos)
      << s.reason();
}

TEST_F(SimtBadInput, HostTensorsAreForOtherProviders) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  build(p);
  const Status s = simt_status(*driver, p.args(false, DType::f32, DType::f32));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.reason(), "A is a host tensor; the simt provider needs CUDA tensors");
}

TEST_F(SimtBadInput, ReductionIntoANarrowDTypeIsRefusedAndRunThrows) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem p(*driver, rng);
  p.add_ab(DType::f16, DType::f16, 1, 16, 24, 8);
  p.set_source("def epi(accum):\n    D = accum\n    s = sum(accum)\n    return D, s\n");
  p.add("D", DType::f16, {16, 24}, {}, true);
  p.add("s", DType::f16, {16, 1}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  const Status s = simt_status(*driver, args);
  ASSERT_FALSE(s);
  EXPECT_NE(s.reason().find("reduction output 's' is f16"), std::string::npos) << s.reason();
  auto candidates = explain_operators(args, simt_query(*driver));
  try {
    candidates.at(0).op.run(args);
    ADD_FAILURE() << "run() of an unsupported problem did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  }
}

}  // namespace
}  // namespace epigemm::testing
