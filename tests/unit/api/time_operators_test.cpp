// time_operators on host tensors: every operator timed, fastest first (more
// of them than compile threads too), the outputs correct after the rounds,
// the inputs untouched, and clear errors for an empty list, bad options and
// operators that cannot run the problem (the first one's, where several).
#include <cmath>
#include <cstring>

#include "common/gemm_fixture.hpp"
#include "epigemm/timing.hpp"

namespace epigemm::testing {
namespace {

class TimeOperators : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};
  HostGemm g{2, 12, 20, 8, DType::f16, rng};
  HostTensor C{DType::f16, {2, 12, 20}};
  HostTensor D{DType::f32, {2, 12, 20}};
  void SetUp() override {
    C.fill_int(rng);
    D.poison();
  }
  GemmArguments args() {
    EpilogueArguments epi("def epi(accum, C):\n    D = relu(accum - C)\n    return D\n", {{"C", C}, {"D", D}});
    return GemmArguments{.A = g.A, .B = g.B, .out = D, .epilogue = epi};
  }
};

std::vector<char> bytes_of(const TensorRef& t) {
  const auto* p = static_cast<const char*>(t.data);
  return {p, p + t.numel() * size_bytes(t.dtype)};
}

TEST_F(TimeOperators, TimesEveryOperatorFastestFirstAndLeavesCorrectOutputs) {
  const GemmArguments a = args();
  const std::vector<Operator> ops = get_operators(a);
  ASSERT_FALSE(ops.empty());
  const std::vector<Operator> twice{ops[0], ops[0]};
  const auto a_before = bytes_of(g.A), b_before = bytes_of(g.B), c_before = bytes_of(C);

  const std::vector<OperatorTiming> timings = time_operators(twice, a, {.rounds = 2, .warmup = 1, .iterations = 3});
  ASSERT_EQ(timings.size(), 2u);
  for (const OperatorTiming& t : timings) {
    EXPECT_EQ(t.op.name(), ops[0].name());
    EXPECT_GT(t.median_ms, 0.0);
    EXPECT_GE(t.compile_ms, 0.0);
  }
  EXPECT_LE(timings[0].median_ms, timings[1].median_ms);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return std::max(0.0, g.accum(l, m, n) - C.get({l, m, n})); });
  EXPECT_EQ(bytes_of(g.A), a_before);
  EXPECT_EQ(bytes_of(g.B), b_before);
  EXPECT_EQ(bytes_of(C), c_before);
}

TEST_F(TimeOperators, SizesTurnsByTurnMs) {
  const GemmArguments a = args();
  const std::vector<Operator> ops = get_operators(a);
  ASSERT_FALSE(ops.empty());
  // Without turn_ms a turn is `iterations` runs.
  EXPECT_EQ(time_operators({ops[0]}, a, {.rounds = 1, .warmup = 0, .iterations = 3}).front().runs_per_turn, 3);
  // A turn_ms shorter than one run keeps `iterations`.
  EXPECT_EQ(time_operators({ops[0]}, a, {.rounds = 1, .warmup = 0, .iterations = 3, .turn_ms = 1e-9})
                .front()
                .runs_per_turn,
            3);
  // 50 ms of a run that takes well under a millisecond: many runs, at most the cap.
  const OperatorTiming t =
      time_operators({ops[0]}, a, {.rounds = 1, .warmup = 0, .iterations = 1, .turn_ms = 50.0}).front();
  EXPECT_GT(t.runs_per_turn, 10);
  EXPECT_LE(t.runs_per_turn, kMaxRunsPerTurn);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return std::max(0.0, g.accum(l, m, n) - C.get({l, m, n})); });
}

TEST_F(TimeOperators, FlushL2HasNoEffectOnHostTensors) {
  const GemmArguments a = args();
  const std::vector<Operator> ops = get_operators(a);
  ASSERT_FALSE(ops.empty());
  const OperatorTiming t =
      time_operators({ops[0]}, a, {.rounds = 2, .warmup = 0, .iterations = 2, .flush_l2 = true}).front();
  EXPECT_GT(t.median_ms, 0.0);
  EXPECT_EQ(t.runs_per_turn, 2);
  g.expect_tile(D, [&](auto l, auto m, auto n) { return std::max(0.0, g.accum(l, m, n) - C.get({l, m, n})); });
}

TEST_F(TimeOperators, RejectsNoOperatorsBadOptionsAndUnsupportedOperators) {
  const GemmArguments a = args();
  const std::vector<Operator> ops = get_operators(a);
  ASSERT_FALSE(ops.empty());
  auto kind_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return std::optional<ErrorKind>(e.kind());
    }
    return std::optional<ErrorKind>();
  };
  EXPECT_EQ(kind_of([&] { time_operators({}, a); }), ErrorKind::Value);
  EXPECT_EQ(kind_of([&] { time_operators(ops, a, {.rounds = 0}); }), ErrorKind::Value);
  EXPECT_EQ(kind_of([&] { time_operators(ops, a, {.iterations = 0}); }), ErrorKind::Value);
  EXPECT_EQ(kind_of([&] { time_operators(ops, a, {.warmup = -1}); }), ErrorKind::Value);
  EXPECT_EQ(kind_of([&] { time_operators(ops, a, {.turn_ms = -1.0}); }), ErrorKind::Value);
  EXPECT_EQ(kind_of([&] { time_operators(ops, a, {.turn_ms = std::nan("")}); }), ErrorKind::Value);

  // A GPU operator judged on host tensors says why it cannot run them.
  std::vector<Operator> gpu;
  for (const OperatorCandidate& c : explain_operators(a, {.target_sm = 90, .ignore_devices = true})) {
    if (!c.status && c.op.metadata().min_sm > 0) gpu.push_back(c.op);
  }
  ASSERT_GE(gpu.size(), 2u);
  try {
    time_operators({ops[0], gpu[0]}, a);
    FAIL() << "time_operators ran an operator that does not support the problem";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find(gpu[0].name()), std::string::npos) << e.what();
  }
  // The operators compile side by side; of several that fail, the error
  // is the first one's in the list's order.
  try {
    time_operators({ops[0], gpu[1], ops[0], gpu[0]}, a);
    FAIL() << "time_operators ran operators that do not support the problem";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(gpu[1].name()), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find(gpu[0].name()), std::string::npos) << e.what();
  }
}

TEST_F(TimeOperators, TimesMoreOperatorsThanCompileThreads) {
  const GemmArguments a = args();
  const std::vector<Operator> ops = get_operators(a);
  ASSERT_FALSE(ops.empty());
  const std::vector<Operator> many(11, ops[0]);
  const std::vector<OperatorTiming> timings = time_operators(many, a, {.rounds = 1, .warmup = 0, .iterations = 2});
  ASSERT_EQ(timings.size(), many.size());
  for (const OperatorTiming& t : timings) {
    EXPECT_GT(t.median_ms, 0.0);
    EXPECT_GE(t.compile_ms, 0.0);
    EXPECT_EQ(t.runs_per_turn, 2);
  }
  g.expect_tile(D, [&](auto l, auto m, auto n) { return std::max(0.0, g.accum(l, m, n) - C.get({l, m, n})); });
}

}  // namespace
}  // namespace epigemm::testing
