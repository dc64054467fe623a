// Runtime tests that need a GPU; each skips with the driver's reason where
// none exists. Covers device properties, pointer checks, buffers, the
// loader's memory cache and launches (plain, >48 KB shared memory, cluster),
// a rejected cached image, CUDA errors by name, and events.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "epigemm/error.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/l2_flush.hpp"
#include "support/env.hpp"
#include "unit/support/test_env.hpp"

namespace epigemm::runtime {
namespace {

using test_util::rng;
using test_util::TempDir;

constexpr char kFaultVar[] = "EPIGEMM_TEST_FAULT_CHILD";

const Driver& driver_or_skip() {
  Status why = Status::ok();
  const Driver* d = Driver::get(&why);
  if (d == nullptr) throw std::runtime_error(why.reason());
  return *d;
}

#define REQUIRE_GPU()                                          \
  do {                                                         \
    Status why_ = Driver::status();                            \
    if (!why_.is_ok()) GTEST_SKIP() << why_.reason();          \
  } while (0)

constexpr char kKernels[] = R"(
namespace gt {
template <int Bias>
__global__ void axpb(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + float(Bias);
}
// Reverses `n` ints through dynamic shared memory of n * 4 bytes.
__global__ void reverse_smem(int* data, int n) {
  extern __shared__ int buffer[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buffer[i] = data[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = buffer[n - 1 - i];
}
__global__ void write_far(int* p) { p[threadIdx.x] = 1; }
}  // namespace gt
)";

LaunchConfig launch_config(Dim3 grid, Dim3 block, unsigned shared_bytes = 0, Dim3 cluster = {}) {
  LaunchConfig c;
  c.grid = grid;
  c.block = block;
  c.shared_bytes = shared_bytes;
  c.cluster = cluster;
  return c;
}

/// `text` to compile for sm_`sm`, its kernel named by `expression`.
KernelSource source_of(std::string text, const std::string& expression, int sm) {
  KernelSource s;
  s.source = std::move(text);
  s.name_expression = expression;
  s.arch = arch_name(sm);
  s.file_name = "gpu_runtime_test.cu";
  return s;
}

/// kKernels' kernel `expression`; `tag` makes the source (and its key) unique.
KernelSource source_for(const std::string& expression, int sm, const std::string& tag) {
  return source_of(std::string(kKernels) + "// " + tag + "\n", expression, sm);
}

TEST(GpuRuntime, DeviceInfoIsSane) {
  REQUIRE_GPU();
  const DeviceInfo& info = device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.sm, 70);
  EXPECT_EQ(info.sm, info.cc_major * 10 + info.cc_minor);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GE(info.smem_per_block_optin, info.smem_per_block);
  EXPECT_GT(info.l2_bytes, 0);
  EXPECT_GT(info.total_memory, std::size_t{1} << 30);
  EXPECT_EQ(&device_info(0), &info) << "not cached";
  EXPECT_THROW(device_info(driver_or_skip().device_count()), Error);
}

TEST(GpuRuntime, BuffersAndPointerInfo) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  ContextGuard guard(d, 0);
  const std::string data = test_util::random_bytes(1 << 16);
  DeviceBuffer buf(d, 0, data.size());
  buf.upload(data.data(), data.size());
  std::string back(data.size(), '\0');
  buf.download(back.data(), back.size());
  EXPECT_EQ(back, data);
  const unsigned word = static_cast<unsigned>(rng()());
  buf.fill_words(word);
  d.check(d.ctx_synchronize(), "synchronising");
  std::vector<unsigned> words(data.size() / 4);
  buf.download(words.data(), data.size());
  for (unsigned w : words) ASSERT_EQ(w, word);
  EXPECT_THROW(buf.upload(data.data(), data.size(), 1), Error);

  const PointerInfo dev = d.pointer_info(buf.data());
  EXPECT_TRUE(dev.is_device);
  EXPECT_EQ(dev.device, 0);
  EXPECT_EQ(dev.memory_type, CU_MEMORYTYPE_DEVICE);
  EXPECT_TRUE(d.pointer_info(static_cast<char*>(buf.data()) + 100).is_device);
  const PointerInfo host = d.pointer_info(data.data());
  EXPECT_FALSE(host.is_device);
  EXPECT_EQ(host.device, -1);
  int on_stack = 0;
  EXPECT_FALSE(d.pointer_info(&on_stack).is_device);
  EXPECT_FALSE(d.pointer_info(nullptr).is_device);
}

TEST(GpuRuntime, LoaderCompilesLoadsCachesAndLaunches) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  const int sm = device_info(0).sm;
  TempDir dir;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  const std::string tag = std::to_string(rng()());
  const std::uint64_t key = rng()();
  int calls = 0;
  auto make = [&] {
    ++calls;
    return source_for("gt::axpb<3>", sm, tag);
  };
  EXPECT_FALSE(loader.find(key, 0));
  const LoadedKernel k = loader.get(key, 0, make);
  const LoadedKernel again = loader.get(key, 0, make);
  EXPECT_EQ(calls, 1) << "a warm get() rebuilt the source";
  EXPECT_EQ(k.function, again.function);
  ASSERT_TRUE(loader.find(key, 0));
  EXPECT_EQ(loader.find(key, 0)->function, k.function);

  const int n = 1000 + static_cast<int>(rng()() % 5000);
  std::vector<float> x(static_cast<std::size_t>(n));
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (auto& v : x) v = dist(rng());
  const float a = dist(rng());
  DeviceBuffer xb(d, 0, x.size() * 4), yb(d, 0, x.size() * 4);
  xb.upload(x.data(), x.size() * 4);
  yb.fill_bytes(0xff);
  ContextGuard guard(d, 0);
  CUdeviceptr yp = yb.address(), xp = xb.address();
  float a_arg = a;
  int n_arg = n;
  void* params[] = {&yp, &xp, &a_arg, &n_arg};
  d.launch(k.function, launch_config({static_cast<unsigned>((n + 127) / 128)}, {128}), params);
  d.check(d.ctx_synchronize(), "running axpb");
  std::vector<float> y(x.size());
  yb.download(y.data(), y.size() * 4);
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[static_cast<std::size_t>(i)], std::fma(a, x[static_cast<std::size_t>(i)], 3.0f)) << i;

  // A second loader (as in a new process) finds the cubin on disk.
  KernelLoader fresh(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  EXPECT_TRUE(fresh.compile(source_for("gt::axpb<3>", sm, tag)).from_disk_cache);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(fresh.get(key, 0, make).function, nullptr);
  const auto t1 = std::chrono::steady_clock::now();
  constexpr int kLookups = 100000;
  for (int i = 0; i < kLookups; ++i) ASSERT_EQ(fresh.get(key, 0, make).function, fresh.find(key, 0)->function);
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("[timing] disk-cache get with module load: %.3f ms; warm get+find: %.1f ns\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::nano>(t2 - t1).count() / kLookups);
}

TEST(GpuRuntime, LargeDynamicSharedMemory) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  const DeviceInfo& info = device_info(0);
  const int n = std::min(info.smem_per_block_optin, 200 * 1024) / 4;
  ASSERT_GT(n * 4, 48 * 1024);
  KernelLoader loader(KernelLoaderSettings{.cache_dir = {}, .use_disk_cache = false, .dump_dir = {}});
  KernelSource src = source_for("gt::reverse_smem", info.sm, std::to_string(rng()()));
  const LoadedKernel plain = loader.get(1, 0, [&] { return src; });
  src.dynamic_shared_bytes = n * 4;
  const LoadedKernel big = loader.get(2, 0, [&] { return src; });

  std::vector<int> data(static_cast<std::size_t>(n));
  for (auto& v : data) v = static_cast<int>(rng()());
  DeviceBuffer buf(d, 0, data.size() * 4);
  buf.upload(data.data(), data.size() * 4);
  ContextGuard guard(d, 0);
  CUdeviceptr p = buf.address();
  int n_arg = n;
  void* params[] = {&p, &n_arg};
  const LaunchConfig config = launch_config({1}, {256}, static_cast<unsigned>(n * 4));
  try {
    d.launch(plain.function, config, params);
    FAIL() << "launched with " << n * 4 << " bytes of shared memory without opting in";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Cuda);
    EXPECT_NE(e.message().find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << e.message();
  }
  d.launch(big.function, config, params);
  d.check(d.ctx_synchronize(), "running reverse_smem");
  std::vector<int> back(data.size());
  buf.download(back.data(), back.size() * 4);
  for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(back[i], data[data.size() - 1 - i]) << i;
}

TEST(GpuRuntime, ClusterLaunch) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  const DeviceInfo& info = device_info(0);
  if (!info.cluster_launch || info.sm < 90) GTEST_SKIP() << "no thread-block clusters on sm_" << info.sm;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = {}, .use_disk_cache = false, .dump_dir = {}});
  const KernelSource src =
      source_of("extern \"C\" __global__ void ranks(unsigned* out) {\n"
                "  unsigned r, n; asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n"
                "  asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(n));\n"
                "  if (threadIdx.x == 0) out[blockIdx.x] = r * 100 + n; }\n",
                "ranks", info.sm);
  const LoadedKernel k = loader.get(3, 0, [&] { return src; });
  const unsigned blocks = 8, cluster = 2;
  DeviceBuffer out(d, 0, blocks * 4);
  out.fill_bytes(0xff);
  ContextGuard guard(d, 0);
  CUdeviceptr p = out.address();
  void* params[] = {&p};
  d.launch(k.function, launch_config({blocks}, {32}, 0, {cluster}), params);
  d.check(d.ctx_synchronize(), "running the cluster kernel");
  std::vector<unsigned> got(blocks);
  out.download(got.data(), blocks * 4);
  for (unsigned b = 0; b < blocks; ++b) EXPECT_EQ(got[b], (b % cluster) * 100 + cluster) << b;
}

TEST(GpuRuntime, ProgrammaticDependentLaunchSeesThePreviousKernelsWrites) {
  // The first kernel lets its dependent start at once, then writes late (each
  // block sleeps first); the second, launched with a programmatic dependency
  // (plain, then in 2x1 clusters: both launch attributes together), reads
  // those writes after griddepcontrol.wait.
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  const DeviceInfo& info = device_info(0);
  if (!info.programmatic_launch) GTEST_SKIP() << "no programmatic dependent launch here (sm_" << info.sm << ")";
  KernelLoader loader(KernelLoaderSettings{.cache_dir = {}, .use_disk_cache = false, .dump_dir = {}});
  const KernelSource src =
      source_of("extern \"C\" __global__ void late_writer(unsigned* data, unsigned salt) {\n"
                "  asm volatile(\"griddepcontrol.launch_dependents;\" ::: \"memory\");\n"
                "  const long long start = clock64();\n"
                "  while (clock64() - start < 2000000) {}\n"
                "  data[blockIdx.x * blockDim.x + threadIdx.x] = (blockIdx.x * blockDim.x + threadIdx.x) * 3u + salt; }\n"
                "extern \"C\" __global__ void waiting_reader(const unsigned* data, unsigned* out) {\n"
                "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
                "  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  out[i] = data[i] + 7u; }\n",
                "late_writer", info.sm);
  const LoadedKernel writer = loader.get(11, 0, [&] { return src; });
  CUfunction reader = nullptr;
  d.check(d.module_get_function(&reader, writer.module, "waiting_reader"), "finding waiting_reader");
  const unsigned blocks = 64, threads = 128, n = blocks * threads;
  DeviceBuffer data(d, 0, n * 4), out(d, 0, n * 4);
  ContextGuard guard(d, 0);
  for (const unsigned cluster : {1u, 2u}) {
    SCOPED_TRACE("cluster " + std::to_string(cluster));
    unsigned salt = static_cast<unsigned>(rng()()) % 1000u + 1u;
    data.fill_bytes(0);
    out.fill_bytes(0xff);
    CUdeviceptr pd = data.address(), po = out.address();
    void* writer_params[] = {&pd, &salt};
    void* reader_params[] = {&pd, &po};
    d.launch(writer.function, launch_config({blocks}, {threads}), writer_params);
    LaunchConfig dependent = launch_config({blocks}, {threads}, 0, {cluster});
    dependent.programmatic_dependency = true;
    d.launch(reader, dependent, reader_params);
    d.check(d.ctx_synchronize(), "running the dependent pair");
    std::vector<unsigned> got(n);
    out.download(got.data(), n * 4);
    int bad = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (got[i] != i * 3u + salt + 7u && bad++ < 3) ADD_FAILURE() << "element " << i << ": got " << got[i];
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST(GpuRuntime, CachedImageTheDriverRejectsIsRecompiled) {
  REQUIRE_GPU();
  const int sm = device_info(0).sm;
  TempDir dir;
  KernelLoader loader(KernelLoaderSettings{.cache_dir = dir.path(), .use_disk_cache = true, .dump_dir = {}});
  const KernelSource src = source_for("gt::axpb<5>", sm, std::to_string(rng()()));
  const CompiledKernel compiled = loader.compile(src);
  // A well-formed cache file whose payload is not a loadable image.
  CacheEntry junk;
  junk.image = test_util::random_bytes(4096);
  junk.name_expressions = {src.name_expression};
  junk.lowered_names = {compiled.lowered_name};
  loader.disk_cache().store(compiled.key, junk);
  const LoadedKernel k = loader.get(rng()(), 0, [&] { return src; });
  EXPECT_NE(k.function, nullptr);
  const CacheRead r = loader.disk_cache().read(compiled.key);
  ASSERT_EQ(r.state, CacheLookup::hit);
  EXPECT_EQ(r.entry.image, compiled.image) << "the rejected file was not replaced";
}

TEST(GpuRuntime, TensorMapOccupancyAndCapture) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  ContextGuard guard(d, 0);
  const cuuint64_t rows = 256, cols = 512;
  DeviceBuffer buf(d, 0, rows * cols * 2);
  CUtensorMap map{};
  const cuuint64_t dims[] = {cols, rows};
  const cuuint64_t strides[] = {cols * 2};
  const cuuint32_t box[] = {64, 64};
  const cuuint32_t element_strides[] = {1, 1};
  d.check(d.tensor_map_encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, buf.data(), dims, strides, box,
                                    element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
          "encoding a tensor map");
  KernelLoader loader(KernelLoaderSettings{.cache_dir = {}, .use_disk_cache = false, .dump_dir = {}});
  const LoadedKernel k =
      loader.get(4, 0, [&] { return source_for("gt::axpb<1>", device_info(0).sm, std::to_string(rng()())); });
  int blocks = 0;
  d.check(d.occupancy_max_active_blocks(&blocks, k.function, 128, 0), "querying occupancy");
  EXPECT_GT(blocks, 0);
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  d.check(d.stream_is_capturing(nullptr, &capturing), "querying stream capture");
  EXPECT_EQ(capturing, CU_STREAM_CAPTURE_STATUS_NONE);
}

TEST(GpuRuntime, EventsTime) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  ContextGuard guard(d, 0);
  Event start(d), stop(d);
  DeviceBuffer buf(d, 0, 64 << 20);
  start.record();
  buf.fill_bytes(1);
  stop.record();
  stop.synchronize();
  EXPECT_GE(Event::elapsed_ms(start, stop), 0.0f);
}

// The flush reads its whole buffer: no device streams 4x its L2 from memory
// faster than 20 TB/s, so a kernel that skipped the reads would finish too
// soon. Runs on a non-blocking stream, after its own fill on that stream.
TEST(GpuRuntime, L2FlushReadsItsWholeBuffer) {
  REQUIRE_GPU();
  const Driver& d = driver_or_skip();
  ContextGuard guard(d, 0);
  const std::size_t bytes = L2Flush::default_bytes(device_info(0));
  CUstream stream = nullptr;
  d.check(d.stream_create(&stream, CU_STREAM_NON_BLOCKING), "creating a stream");
  {
    const L2Flush flush(d, 0, bytes, stream);
    EXPECT_EQ(flush.bytes(), bytes);
    EXPECT_EQ(L2Flush(d, 0, 100, stream).bytes(), 112u) << "rounded up to 16 bytes";
    Event start(d), stop(d);
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      start.record(stream);
      flush.run(stream);
      stop.record(stream);
      stop.synchronize();
      ms.push_back(Event::elapsed_ms(start, stop));
    }
    std::sort(ms.begin(), ms.end());
    EXPECT_GT(ms[2], static_cast<double>(bytes) / 20e12 * 1e3) << "median of 5 flushes of " << bytes << " bytes";
  }
  d.check(d.stream_synchronize(stream), "waiting for the flushes");
  d.check(d.stream_destroy(stream), "destroying the stream");
}

// Runs only when spawned: an out-of-bounds write must surface as an Error
// naming CUDA_ERROR_ILLEGAL_ADDRESS (it poisons the context, hence a child).
TEST(GpuFaultChild, IllegalAddressIsNamed) {
  if (!env::get(kFaultVar)) GTEST_SKIP() << "helper for GpuRuntime.IllegalAddressSurfacesByName";
  const Driver& d = driver_or_skip();
  KernelLoader loader(KernelLoaderSettings{.cache_dir = {}, .use_disk_cache = false, .dump_dir = {}});
  const LoadedKernel k = loader.get(9, 0, [&] { return source_for("gt::write_far", device_info(0).sm, "fault"); });
  ContextGuard guard(d, 0);
  CUdeviceptr p = 0x10;  // unmapped
  void* params[] = {&p};
  try {
    d.launch(k.function, launch_config({1}, {32}), params);
    d.check(d.ctx_synchronize(), "running write_far");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Cuda);
    EXPECT_NE(e.message().find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("running write_far"), std::string::npos) << e.message();
  }
}

TEST(GpuRuntime, IllegalAddressSurfacesByName) {
  REQUIRE_GPU();
  const pid_t child = test_util::spawn_self("GpuFaultChild.IllegalAddressIsNamed", {{kFaultVar, "1"}});
  ASSERT_GT(child, 0);
  EXPECT_EQ(test_util::wait_child(child), 0);
}

}  // namespace
}  // namespace epigemm::runtime
