// Captures one Operator::run into a CUDA graph and replays it with new data
// in the same buffers, comparing every replay with cpu_reference: shared by
// the simt and sm90 hot-loop tests.
#pragma once

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include "gpu/gpu_problem.hpp"

namespace epigemm::testing {

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
    const auto sym = [lib](auto& fn, const char* name) {
      fn = reinterpret_cast<std::decay_t<decltype(fn)>>(dlsym(lib, name));
    };
    sym(begin_capture, "cuStreamBeginCapture_v2");
    sym(end_capture, "cuStreamEndCapture");
    sym(instantiate, "cuGraphInstantiateWithFlags");
    sym(launch, "cuGraphLaunch");
    sym(exec_destroy, "cuGraphExecDestroy");
    sym(destroy, "cuGraphDestroy");
    return begin_capture && end_capture && instantiate && launch && exec_destroy && destroy;
  }
};

/// Runs `op` once (compiling outside the capture), captures a second run on
/// a new stream, and replays the graph three times, each on fresh inputs
/// and newly poisoned outputs, comparing with cpu_reference (f32 accumulator
/// and compute). `run_on_stream_first`: the first run goes to the new stream
/// (so that what an operator keeps per stream exists before the capture).
inline void expect_graph_replays_match_reference(const runtime::Driver& driver, GpuProblem& p, Operator& op,
                                                 const GemmArguments& args, bool run_on_stream_first = false) {
  GraphApi graph_api;
  ASSERT_TRUE(graph_api.load()) << "libcuda lacks the graph API";
  CUstream stream = nullptr;
  driver.check(driver.stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  op.run(args, run_on_stream_first ? stream : nullptr);
  driver.check(driver.ctx_synchronize(), "first run");

  driver.check(graph_api.begin_capture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "beginning capture");
  op.run(args, stream);
  CUgraph graph = nullptr;
  driver.check(graph_api.end_capture(stream, &graph), "ending capture (run() must not synchronise or allocate)");
  CUgraphExec exec = nullptr;
  driver.check(graph_api.instantiate(&exec, graph, 0), "instantiating the graph");

  for (int replay = 0; replay < 3; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    p.refresh_inputs();
    p.poison_outputs(static_cast<unsigned char>(0xFF - replay));
    driver.check(driver.ctx_synchronize(), "uploading inputs");
    driver.check(graph_api.launch(exec, stream), "launching the graph");
    driver.check(driver.stream_synchronize(stream), "waiting for the graph");
    p.run_reference_once(DType::f32, DType::f32);
    p.compare_outputs("graph replay");
  }
  graph_api.exec_destroy(exec);
  graph_api.destroy(graph);
  driver.stream_destroy(stream);
}

}  // namespace epigemm::testing
