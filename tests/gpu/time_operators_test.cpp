// time_operators on device tensors: the device's first candidates timed by
// CUDA events on a caller's stream, fastest first, the outputs those runs
// leave correct and nothing but them written; turns sized by turn_ms; runs
// behind L2 flushes; a capturing stream is refused.
#include <algorithm>
#include <set>

#include "epigemm/timing.hpp"
#include "gpu/graph_replay.hpp"

namespace epigemm::testing {
namespace {

TEST(TimeOperatorsGpu, TimesCandidatesOnAStreamAndLeavesCorrectOutputs) {
  EPIGEMM_REQUIRE_GPU(driver);
  std::mt19937 rng{std::random_device{}()};
  GpuProblem p(*driver, rng);
  const std::int64_t M = 320, N = 264, K = 200;
  p.add_ab(DType::bf16, DType::bf16, 1, M, N, K);
  p.set_source("def epi(accum, alpha, C):\n    F = accum * alpha + C\n    D = relu(F)\n    return D, F\n");
  p.scalar("alpha", 0.5);
  p.add("C", DType::bf16, {M, N});
  p.add("D", DType::bf16, {M, N}, {}, true);
  p.add("F", DType::f32, {M, N}, {}, true);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);

  std::vector<Operator> ops = get_operators(args);
  ASSERT_FALSE(ops.empty());
  if (ops.size() > 3) ops.erase(ops.begin() + 3, ops.end());
  std::multiset<std::string> names;
  for (const Operator& op : ops) names.insert(op.name());

  CUstream stream = nullptr;
  driver->check(driver->stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  p.poison_outputs(0xA5, stream);
  const std::vector<OperatorTiming> timings =
      time_operators(ops, args, {.rounds = 2, .warmup = 1, .iterations = 4}, stream);
  driver->check(driver->stream_synchronize(stream), "waiting for the timed runs");

  ASSERT_EQ(timings.size(), ops.size());
  std::multiset<std::string> timed;
  for (std::size_t i = 0; i < timings.size(); ++i) {
    timed.insert(timings[i].op.name());
    EXPECT_GT(timings[i].median_ms, 0.0) << timings[i].op.name();
    EXPECT_LT(timings[i].median_ms, 1000.0) << timings[i].op.name();
    EXPECT_GE(timings[i].compile_ms, 0.0);
    EXPECT_EQ(timings[i].runs_per_turn, 4);
    if (i > 0) {
      EXPECT_LE(timings[i - 1].median_ms, timings[i].median_ms);
    }
  }
  EXPECT_EQ(timed, names);
  p.run_reference_once(DType::f32, DType::f32);
  p.compare_outputs("after time_operators");
  p.expect_only_outputs_written(0xA5, "time_operators");

  // 20 ms turns of a run of tens of microseconds: many runs each.
  p.poison_outputs(0x5A, stream);
  const OperatorTiming sized =
      time_operators({ops[0]}, args, {.rounds = 1, .warmup = 1, .iterations = 2, .turn_ms = 20.0}, stream).front();
  driver->check(driver->stream_synchronize(stream), "waiting for the sized turn");
  // Runs slowed past 2 ms each (under compute-sanitizer) fit too few to tell.
  if (sized.median_ms < 2.0) {
    EXPECT_GT(sized.runs_per_turn, 2) << "median " << sized.median_ms << " ms";
  }
  EXPECT_LE(sized.runs_per_turn, kMaxRunsPerTurn);
  p.compare_outputs("after a turn sized by turn_ms");

  // With flush_l2 a flush precedes each timed run (outside its time): the
  // outputs are the same, and nothing else is written.
  p.poison_outputs(0x3C, stream);
  const std::vector<OperatorTiming> flushed =
      time_operators(ops, args, {.rounds = 1, .warmup = 1, .iterations = 3, .flush_l2 = true}, stream);
  driver->check(driver->stream_synchronize(stream), "waiting for the flushed runs");
  ASSERT_EQ(flushed.size(), ops.size());
  for (const OperatorTiming& t : flushed) {
    EXPECT_GT(t.median_ms, 0.0) << t.op.name();
    EXPECT_EQ(t.runs_per_turn, 3);
  }
  p.compare_outputs("after runs behind L2 flushes");
  p.expect_only_outputs_written(0x3C, "time_operators with flush_l2");

  // A stream capturing a graph would only record the runs: refused.
  GraphApi graph_api;
  ASSERT_TRUE(graph_api.load()) << "libcuda lacks the graph API";
  driver->check(graph_api.begin_capture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "beginning capture");
  bool refused = false;
  try {
    time_operators(ops, args, {}, stream);
  } catch (const Error& e) {
    refused = e.kind() == ErrorKind::Value && std::string(e.what()).find("capturing") != std::string::npos;
  }
  CUgraph graph = nullptr;
  driver->check(graph_api.end_capture(stream, &graph), "ending capture");
  if (graph != nullptr) graph_api.destroy(graph);
  EXPECT_TRUE(refused) << "time_operators accepted a capturing stream";
  driver->stream_destroy(stream);
}

}  // namespace
}  // namespace epigemm::testing
