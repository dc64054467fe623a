// run() in a hot loop: it can be captured into a CUDA graph and replayed
// (with new data in the same buffers), and a warm run of a known problem
// class compiles and loads nothing.
#include <dlfcn.h>

#include "gpu/gpu_problem.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::testing {
namespace {

/// The graph entry points of libcuda, which the library's Driver does not need.
struct GraphApi {
  decltype(&::cuStreamBeginCapture) begin_capture = nullptr;
  decltype(&::cuStreamEndCapture) end_capture = nullptr;
  decltype(&::cuGraphInstantiateWithFlags) instantiate = nullptr;
  decltype(&::cuGraphLaunch) launch = nullptr;
  decltype(&::cuGraphExecDestroy) exec_destroy = nullptr;
  decltype(&::cuGraphDestroy) destroy = nullptr;

  bool load() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (lib == nullptr) return false;
    begin_capture = reinterpret_cast<decltype(begin_capture)>(dlsym(lib, "cuStreamBeginCapture_v2"));
    end_capture = reinterpret_cast<decltype(end_capture)>(dlsym(lib, "cuStreamEndCapture"));
    instantiate = reinterpret_cast<decltype(instantiate)>(dlsym(lib, "cuGraphInstantiateWithFlags"));
    launch = reinterpret_cast<decltype(launch)>(dlsym(lib, "cuGraphLaunch"));
    exec_destroy = reinterpret_cast<decltype(exec_destroy)>(dlsym(lib, "cuGraphExecDestroy"));
    destroy = reinterpret_cast<decltype(destroy)>(dlsym(lib, "cuGraphDestroy"));
    return begin_capture && end_capture && instantiate && launch && exec_destroy && destroy;
  }
};

class SimtGraph : public ::testing::Test {
 protected:
  std::mt19937 rng{std::random_device{}()};

  /// An epilogue with a row reduction, so the capture holds both kernels.
  static void build(GpuProblem& p, std::int64_t M, std::int64_t N, std::int64_t K) {
    p.add_ab(DType::f16, DType::f16, 2, M, N, K);
    p.set_source("def epi(accum, C, alpha):\n    F = accum * alpha + C\n    D = relu(F)\n    s = sum(F)\n"
                 "    return D, F, s\n");
    p.scalar("alpha", 0.5);
    p.add("C", DType::bf16, {2, M, N});
    p.add("D", DType::f16, {2, M, N}, {}, true);
    p.add("F", DType::f32, {2, M, N}, {}, true);
    p.add("s", DType::f32, {2, M, 1}, {}, true);
  }
};

TEST_F(SimtGraph, CapturedRunReplaysWithNewDataInTheSameBuffers) {
  EPIGEMM_REQUIRE_GPU(driver);
  GraphApi graph_api;
  ASSERT_TRUE(graph_api.load()) << "libcuda lacks the graph API";
  GpuProblem p(*driver, rng);
  build(p, 70, 53, 40);
  const GemmArguments args = p.args(true, DType::f32, DType::f32);
  Operator op = p.simt_operator(args);
  op.run(args);  // first run compiles and loads outside the capture
  driver->check(driver->ctx_synchronize(), "first run");

  CUstream stream = nullptr;
  driver->check(driver->stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  driver->check(graph_api.begin_capture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "beginning capture");
  op.run(args, stream);
  CUgraph graph = nullptr;
  driver->check(graph_api.end_capture(stream, &graph), "ending capture (run() must not synchronise or allocate)");
  CUgraphExec exec = nullptr;
  driver->check(graph_api.instantiate(&exec, graph, 0), "instantiating the graph");

  for (int replay = 0; replay < 3; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    p.refresh_inputs();
    p.poison_outputs(static_cast<unsigned char>(0xFF - replay));
    driver->check(driver->ctx_synchronize(), "uploading inputs");
    driver->check(graph_api.launch(exec, stream), "launching the graph");
    driver->check(driver->stream_synchronize(stream), "waiting for the graph");
    p.run_reference_once(DType::f32, DType::f32);
    p.compare_outputs("graph replay");
  }
  graph_api.exec_destroy(exec);
  graph_api.destroy(graph);
  driver->stream_destroy(stream);
}

TEST_F(SimtGraph, WarmRunOfAKnownClassLoadsNothing) {
  EPIGEMM_REQUIRE_GPU(driver);
  GpuProblem first(*driver, rng);
  build(first, 30, 20, 10);
  first.run_and_compare();
  const std::size_t loaded = runtime::KernelLoader::instance().loaded_count();
  // Other buffers and other extents: the same class, so the same kernel.
  GpuProblem second(*driver, rng);
  build(second, 91, 17, 33);
  second.run_and_compare();
  EXPECT_EQ(runtime::KernelLoader::instance().loaded_count(), loaded);
}

}  // namespace
}  // namespace epigemm::testing
