// Development harness of the sm90 GEMM (kernels/sm90_gemm.cuh): checks several
// configurations against cuBLAS on fresh random data with poisoned outputs,
// compiles the header with NVRTC, and times it against cuBLAS, interleaved,
// with the L2 flushed. Usage: sm90_dev [--kernels DIR] [--cuda-include DIR] [--quick]
#include <chrono>
#include <cmath>
#include <random>
#include <string>

#include "dev_nvrtc.cuh"
#include "dev_problem.cuh"

namespace dev {

using bf16 = __nv_bfloat16;
using f16 = __half;
using e4m3 = __nv_fp8_e4m3;
using sm90::GemmConfig;

// Configurations (A, B majors: K/MN; tile; stages; cluster along M; staging slots).
using C256 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 128, 256, 3, 2>;
using C256c1 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 128, 256, 3, 1>;
using C256s4 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 128, 256, 4, 2, 2>;
using C128 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 128, 128, 5, 2>;
using C256bk = GemmConfig<bf16, bf16, bf16, Major::K, Major::K, 128, 256, 3, 2>;
using C256am = GemmConfig<bf16, bf16, bf16, Major::MN, Major::MN, 128, 256, 3, 2>;
using C256f16 = GemmConfig<f16, f16, f16, Major::K, Major::MN, 128, 256, 3, 2>;
using C256f32 = GemmConfig<bf16, bf16, float, Major::K, Major::MN, 128, 256, 3, 2, 4>;
using C64 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 64, 128, 6, 1>;
using C64x64 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 64, 64, 13, 1>;
using C64x64bk = GemmConfig<bf16, bf16, bf16, Major::K, Major::K, 64, 64, 13, 1>;
using C64x64f32 = GemmConfig<bf16, bf16, float, Major::K, Major::MN, 64, 64, 13, 1>;
using C128x64 = GemmConfig<bf16, bf16, bf16, Major::K, Major::MN, 128, 64, 8, 1>;
using C256fp8 = GemmConfig<e4m3, e4m3, bf16, Major::K, Major::K, 128, 256, 3, 2>;
/// Precise fp8 accumulation (promotion every k-block) on the 128x128 tiles.
using C128fp8p = GemmConfig<e4m3, e4m3, bf16, Major::K, Major::K, 128, 128, 5, 2, 0, false, 1>;
using C128c1fp8p = GemmConfig<e4m3, e4m3, bf16, Major::K, Major::K, 128, 128, 5, 1, 0, false, 1>;

/// A user epilogue exercising the (m, n) coordinates: relu(alpha*acc + rb[n] + cb[m]).
struct BiasReluEpilogue {
  float alpha;
  const float* row_bias;
  const float* col_bias;
  __device__ float operator()(float acc, int m, int n, int) const {
    return fmaxf(alpha * acc + row_bias[n] + col_bias[m], 0.f);
  }
};

struct Env {
  cublasHandle_t blas;
  cudaStream_t stream;
  int sms;
  void* flush;
  size_t flush_bytes = 256u << 20;
  std::mt19937_64 rng{std::random_device{}()};
  int failures = 0;
  double* sums;
  std::string skip;  ///< comma-separated configuration names to leave out
  bool skipped(const char* name) const {
    return ("," + skip + ",").find("," + std::string(name) + ",") != std::string::npos;
  }
};

struct Row {
  std::string what;
  double ours_tflops, blas_tflops;
};

template <class T>
double to_double(const T& v) { return static_cast<double>(static_cast<float>(v)); }

/// Host double-precision check of the cuBLAS reference (small problems only).
template <class Cfg>
double cpu_reference_error(Problem<Cfg>& pr) {
  using TA = typename Cfg::TA;
  std::vector<TA> a(pr.A.elems), b(pr.B.elems);
  std::vector<float> ref((size_t)pr.M * pr.N * pr.L);
  DEV_CHECK_CUDA(cudaMemcpy(a.data(), pr.A.ptr, a.size() * sizeof(TA), cudaMemcpyDeviceToHost));
  DEV_CHECK_CUDA(cudaMemcpy(b.data(), pr.B.ptr, b.size() * sizeof(TA), cudaMemcpyDeviceToHost));
  DEV_CHECK_CUDA(cudaMemcpy(ref.data(), pr.ref, ref.size() * 4, cudaMemcpyDeviceToHost));
  double se = 0, sr = 0;
  for (int l = 0; l < pr.L; ++l)
    for (int m = 0; m < pr.M; ++m)
      for (int n = 0; n < pr.N; ++n) {
        double acc = 0;
        for (int k = 0; k < pr.K; ++k) {
          const long ia = l * pr.A.batch_stride +
                          (Cfg::kMajorA == Major::K ? (long)m * pr.A.ld + k : (long)k * pr.A.ld + m);
          const long ib = l * pr.B.batch_stride +
                          (Cfg::kMajorB == Major::K ? (long)n * pr.B.ld + k : (long)k * pr.B.ld + n);
          acc += to_double(a[ia]) * to_double(b[ib]);
        }
        const double r = ref[((size_t)l * pr.M + m) * pr.N + n];
        se += (r - acc) * (r - acc);
        sr += acc * acc;
      }
  return std::sqrt(se / sr);
}

/// Runs Cfg once on fresh data with a poisoned output and compares with cuBLAS.
template <class Cfg, bool kBiasRelu = false>
void check(Env& env, const char* name, int M, int N, int K, int L = 1, int group = 8) {
  if (env.skipped(name)) return;
  using TD = typename Cfg::TD;
  Problem<Cfg> pr(M, N, K, L);
  pr.fill(env.rng());
  pr.reference(env.blas, env.stream);
  DEV_CHECK_CUDA(cudaMemsetAsync(pr.D.ptr, 0xFF, pr.D.elems * sizeof(TD), env.stream));
  float* rb = nullptr;
  float* cb = nullptr;
  const float alpha = 0.75f;
  if (kBiasRelu) {
    DEV_CHECK_CUDA(cudaMalloc(&rb, N * 4));
    DEV_CHECK_CUDA(cudaMalloc(&cb, M * 4));
    fill_random<<<64, 256, 0, env.stream>>>(rb, N, env.rng(), 4.f);
    fill_random<<<64, 256, 0, env.stream>>>(cb, M, env.rng(), 4.f);
  }
  if constexpr (kBiasRelu) {
    Runner<Cfg, BiasReluEpilogue> run;
    run.init(pr, group, env.sms);
    run.launch(BiasReluEpilogue{alpha, rb, cb}, env.stream);
  } else {
    Runner<Cfg, sm90::IdentityEpilogue> run;
    run.init(pr, group, env.sms);
    run.launch(sm90::IdentityEpilogue{}, env.stream);
  }
  DEV_CHECK_CUDA(cudaGetLastError());
  sync_or_die(env.stream, name);
  DEV_CHECK_CUDA(cudaMemsetAsync(env.sums, 0, 4 * sizeof(double), env.stream));
  compare_kernel<TD><<<1024, 256, 0, env.stream>>>((const TD*)pr.D.ptr, pr.ref, M, N, L, pr.ldd,
                                                   kBiasRelu, alpha, rb, cb, 0xFFFF, env.sums);
  double s[4];
  DEV_CHECK_CUDA(cudaMemcpyAsync(s, env.sums, sizeof(s), cudaMemcpyDeviceToHost, env.stream));
  DEV_CHECK_CUDA(cudaStreamSynchronize(env.stream));
  const double rel = std::sqrt(s[0] / s[1]);
  const bool ok = rel < 1e-2 && s[2] == 0 && s[3] == 0;
  std::string extra;
  if ((double)M * N * K * L <= 1e8) {
    const double cpu = cpu_reference_error(pr);
    extra = " | cuBLAS vs host double " + std::to_string(cpu);
    if (!(cpu < 1e-4)) extra += " (REFERENCE BAD)";
  }
  std::printf("check %-8s %-6s %5dx%5dx%5d L%d  rel_err %.3e  nonfinite %.0f  pad_lost %.0f  %s%s\n",
              name, kBiasRelu ? "biasrl" : "plain", M, N, K, L, rel, s[2], s[3],
              ok ? "PASS" : "FAIL", extra.c_str());
  if (!ok) env.failures++;
  if (rb) cudaFree(rb), cudaFree(cb);
}

/// Interleaved A/B timing against cuBLAS with the L2 flushed before every run.
template <class Cfg, bool kBiasRelu = false>
Row bench(Env& env, const char* name, int M, int N, int K, int iters, int group = 8) {
  if (env.skipped(name)) return Row{std::string(name) + " (skipped)", 0, 1};
  using Epi = std::conditional_t<kBiasRelu, BiasReluEpilogue, sm90::IdentityEpilogue>;
  Problem<Cfg> pr(M, N, K, 1);
  pr.fill(env.rng());
  Runner<Cfg, Epi> run;
  run.init(pr, group, env.sms);
  Epi epi{};
  float* bias = nullptr;
  if constexpr (kBiasRelu) {
    DEV_CHECK_CUDA(cudaMalloc(&bias, (M + N) * 4));
    fill_random<<<64, 256, 0, env.stream>>>(bias, M + N, env.rng(), 1.f);
    epi = BiasReluEpilogue{0.5f, bias, bias + N};
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  auto one = [&](int which) {
    if (which == 0) run.launch(epi, env.stream);
    else pr.blas(env.blas, env.stream);
  };
  for (int i = 0; i < 3; ++i) one(0), one(1);
  sync_or_die(env.stream, name);
  std::vector<float> t[2];
  for (int i = 0; i < iters; ++i) {
    for (int j = 0; j < 2; ++j) {
      const int which = j ^ (i & 1);
      DEV_CHECK_CUDA(cudaMemsetAsync(env.flush, i & 0xFF, env.flush_bytes, env.stream));
      cudaEventRecord(e0, env.stream);
      one(which);
      cudaEventRecord(e1, env.stream);
      DEV_CHECK_CUDA(cudaEventSynchronize(e1));
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      t[which].push_back(ms);
    }
  }
  DEV_CHECK_CUDA(cudaGetLastError());
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  if (bias) cudaFree(bias);
  const double flop = 2.0 * M * N * K;
  Row r;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "%-8s%s g%-2d %5dx%5dx%5d", name, kBiasRelu ? "+br" : "   ",
                group, M, N, K);
  r.what = buf;
  r.ours_tflops = flop / (median(t[0]) * 1e-3) / 1e12;
  r.blas_tflops = flop / (median(t[1]) * 1e-3) / 1e12;
  std::printf("time  %s  ours %7.1f TFLOP/s (%.3f ms)  cuBLAS %7.1f (%.3f ms)  ratio %.3f  grid %d\n",
              r.what.c_str(), r.ours_tflops, median(t[0]), r.blas_tflops, median(t[1]),
              r.ours_tflops / r.blas_tflops, run.grid);
  std::fflush(stdout);
  return r;
}

/// NVRTC: cold-compile C256 from the header, run it on 4096^3, compare and time.
void nvrtc_check(Env& env, const std::string& kernels_dir, const std::string& cuda_inc) {
  const std::string name =
      "epigemm::sm90::gemm_kernel<epigemm::sm90::GemmConfig<__nv_bfloat16, __nv_bfloat16, "
      "__nv_bfloat16, epigemm::sm90::Major::K, epigemm::sm90::Major::MN, 128, 256, 3, 2, 0>, "
      "epigemm::sm90::IdentityEpilogue>";
  NvrtcKernel k = nvrtc_build(kernels_dir, cuda_inc, "", name, true);
  std::printf("nvrtc  compile %s in %.2f s (--no-cache), cubin %zu bytes%s%s\n",
              k.ok ? "ok" : "FAILED", k.compile_s, k.cubin_bytes, k.log.empty() ? "" : ", log:\n",
              k.log.c_str());
  if (!k.ok) {
    env.failures++;
    return;
  }
  const int M = 4096, N = 4096, K = 4096;
  Problem<C256> pr(M, N, K, 1);
  pr.fill(env.rng());
  pr.reference(env.blas, env.stream);
  Runner<C256, sm90::IdentityEpilogue> run;
  run.init(pr, 8, env.sms);
  DEV_CHECK_CUDA(cudaMemsetAsync(pr.D.ptr, 0xFF, pr.D.elems * 2, env.stream));
  nvrtc_launch(k, C256::kSmemBytes, C256::kThreads, run.grid, C256::kClusterM, run.ma, run.mb,
               run.md, run.p, sm90::IdentityEpilogue{}, env.stream);
  sync_or_die(env.stream, "nvrtc kernel");
  DEV_CHECK_CUDA(cudaMemsetAsync(env.sums, 0, 4 * sizeof(double), env.stream));
  compare_kernel<bf16><<<1024, 256, 0, env.stream>>>((const bf16*)pr.D.ptr, pr.ref, M, N, 1,
                                                     pr.ldd, 0, 1.f, nullptr, nullptr, 0xFFFF,
                                                     env.sums);
  double s[4];
  DEV_CHECK_CUDA(cudaMemcpy(s, env.sums, sizeof(s), cudaMemcpyDeviceToHost));
  const double rel = std::sqrt(s[0] / s[1]);
  const bool ok = rel < 1e-2 && s[2] == 0;
  if (!ok) env.failures++;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  std::vector<float> t[2];
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 2; ++j) {
      const int which = j ^ (i & 1);
      cudaMemsetAsync(env.flush, i, env.flush_bytes, env.stream);
      cudaEventRecord(e0, env.stream);
      if (which == 0)
        nvrtc_launch(k, C256::kSmemBytes, C256::kThreads, run.grid, C256::kClusterM, run.ma, run.mb,
                     run.md, run.p, sm90::IdentityEpilogue{}, env.stream);
      else
        run.launch(sm90::IdentityEpilogue{}, env.stream);
      cudaEventRecord(e1, env.stream);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      t[which].push_back(ms);
    }
  std::printf("nvrtc  run 4096^3 rel_err %.3e nonfinite %.0f %s; nvrtc %.3f ms vs nvcc %.3f ms\n",
              rel, s[2], ok ? "PASS" : "FAIL", median(t[0]), median(t[1]));
}

}  // namespace dev

int main(int argc, char** argv) {
  using namespace dev;
  std::string kernels_dir = "kernels", cuda_inc = "/usr/local/cuda/include";
  bool quick = false;
  std::string phases = "checks,nvrtc,timing", skip;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--phases" && i + 1 < argc) phases = argv[++i];
    if (a == "--skip" && i + 1 < argc) skip = argv[++i];
    if (a == "--kernels" && i + 1 < argc) kernels_dir = argv[++i];
    else if (a == "--cuda-include" && i + 1 < argc) cuda_inc = argv[++i];
    else if (a == "--quick") quick = true;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  DEV_CHECK_CU(cuInit(0));
  DEV_CHECK_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop;
  DEV_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  Env env;
  env.sms = prop.multiProcessorCount;
  env.skip = skip;
  const auto phase = [&](const char* p) { return phases.find(p) != std::string::npos; };
  std::printf("GPU %s, %d SMs, L2 %d MB\n", prop.name, env.sms, prop.l2CacheSize >> 20);
  DEV_CHECK_CUBLAS(cublasCreate(&env.blas));
  DEV_CHECK_CUDA(cudaStreamCreate(&env.stream));
  DEV_CHECK_CUDA(cudaMalloc(&env.flush, env.flush_bytes));
  DEV_CHECK_CUDA(cudaMalloc(&env.sums, 4 * sizeof(double)));

  // ---- correctness (small and odd shapes first)
  if (phase("checks")) {
  check<C256>(env, "c256", 127, 253, 96);
  check<C256>(env, "c256", 1000, 1000, 1000);
  check<C256>(env, "c256", 256, 384, 320, 3);
  check<C256, true>(env, "c256", 127, 253, 96);
  check<C256, true>(env, "c256", 1000, 1000, 1000);
  check<C256c1>(env, "c256c1", 127, 253, 96, 2);
  check<C256c1>(env, "c256c1", 1000, 1000, 1000);
  check<C256s4>(env, "c256s4", 1000, 1000, 1000);
  check<C128>(env, "c128", 127, 253, 96, 2);
  check<C256bk>(env, "c256bk", 127, 253, 96, 2);
  check<C256bk>(env, "c256bk", 1000, 1000, 1000);
  check<C256am>(env, "c256am", 127, 253, 96, 2);
  check<C256am>(env, "c256am", 1000, 1000, 1000);
  check<C256f16>(env, "c256f16", 1000, 1000, 1000);
  check<C256f32>(env, "c256f32", 127, 253, 96);
  check<C256f32>(env, "c256f32", 1000, 1000, 1000);
  check<C64>(env, "c64", 127, 253, 96, 2);
  check<C64x64>(env, "c64x64", 127, 253, 96, 2);
  check<C64x64>(env, "c64x64", 16, 1000, 1000);
  check<C64x64bk>(env, "c64x64bk", 127, 253, 96, 2);
  check<C64x64f32>(env, "c64x64f32", 127, 253, 96);
  check<C128x64>(env, "c128x64", 127, 253, 96, 2);
  check<C256fp8>(env, "c256fp8", 127, 253, 96);
  check<C256fp8>(env, "c256fp8", 1000, 1000, 1024);
  check<C128fp8p>(env, "c128fp8p", 127, 253, 96);
  check<C128fp8p>(env, "c128fp8p", 1000, 1000, 1024);
  check<C128c1fp8p>(env, "c128c1fp8p", 1000, 1000, 1040, 2);
  const int shapes[][3] = {{16, 8192, 8192},   {128, 8192, 8192},   {4096, 4096, 4096},
                           {4096, 14336, 4096}, {8192, 8192, 8192}};
  for (auto& s : shapes) check<C256>(env, "c256", s[0], s[1], s[2]);
  check<C256s4>(env, "c256s4", 4096, 4096, 4096);
  check<C128>(env, "c128", 4096, 4096, 4096);
  check<C64>(env, "c64", 16, 8192, 8192);
  check<C64x64>(env, "c64x64", 16, 8192, 8192);
  check<C64x64bk>(env, "c64x64bk", 128, 8192, 8192);
  check<C128x64>(env, "c128x64", 128, 8192, 8192);
  }

  // ---- NVRTC
  if (phase("nvrtc")) nvrtc_check(env, kernels_dir, cuda_inc);

  // ---- timing
  std::vector<Row> rows;
  const int it = quick ? 10 : 40;
  if (phase("timing")) {
  const int big[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {4096, 14336, 4096}};
  for (auto& s : big) {
    const int n = s[0] == 4096 && s[1] == 4096 ? it * 2 : it;
    rows.push_back(bench<C256>(env, "c256", s[0], s[1], s[2], n));
    rows.push_back(bench<C256c1>(env, "c256c1", s[0], s[1], s[2], n));
    rows.push_back(bench<C256s4>(env, "c256s4", s[0], s[1], s[2], n));
    rows.push_back(bench<C128>(env, "c128", s[0], s[1], s[2], n));
  }
  rows.push_back(bench<C256, true>(env, "c256", 8192, 8192, 8192, it));
  rows.push_back(bench<C256, true>(env, "c256", 4096, 4096, 4096, it * 2));
  rows.push_back(bench<C256>(env, "c256", 8192, 8192, 8192, it, 4));
  rows.push_back(bench<C256>(env, "c256", 8192, 8192, 8192, it, 16));
  rows.push_back(bench<C256bk>(env, "c256bk", 8192, 8192, 8192, it));
  rows.push_back(bench<C256am>(env, "c256am", 4096, 4096, 4096, it * 2));
  rows.push_back(bench<C256f16>(env, "c256f16", 8192, 8192, 8192, it));
  rows.push_back(bench<C256f16>(env, "c256f16", 4096, 14336, 4096, it));
  rows.push_back(bench<C256>(env, "c256", 1024, 1024, 1024, it * 4));
  rows.push_back(bench<C128>(env, "c128", 1024, 1024, 1024, it * 4));
  rows.push_back(bench<C64>(env, "c64", 1024, 1024, 1024, it * 4));
  rows.push_back(bench<C64>(env, "c64", 16, 8192, 8192, it * 4));
  rows.push_back(bench<C64>(env, "c64", 128, 8192, 8192, it * 4));
  for (const int m : {16, 128}) {
    rows.push_back(bench<C64x64>(env, "c64x64", m, 8192, 8192, it * 4));
    rows.push_back(bench<C64x64bk>(env, "c64x64bk", m, 8192, 8192, it * 4));
    rows.push_back(bench<C128x64>(env, "c128x64", m, 8192, 8192, it * 4));
  }
  rows.push_back(bench<C256fp8>(env, "c256fp8", 8192, 8192, 8192, it));
  rows.push_back(bench<C128fp8p>(env, "c128fp8p", 8192, 8192, 8192, it));
  rows.push_back(bench<C128c1fp8p>(env, "c128c1fp8p", 8192, 8192, 8192, it));
  }

  std::printf("\n%-32s %10s %10s %7s\n", "config / shape (MxNxK)", "TFLOP/s", "cuBLAS", "ratio");
  for (const Row& r : rows)
    std::printf("%-32s %10.1f %10.1f %7.3f\n", r.what.c_str(), r.ours_tflops, r.blas_tflops,
                r.ours_tflops / r.blas_tflops);
  std::printf("(c256fp8, c128*fp8p: ours e4m3 vs cuBLAS bf16 on the widened operands)\n");
  std::printf("%s: %d check failure(s)\n", env.failures ? "FAILED" : "OK", env.failures);
  return env.failures ? 1 : 0;
}
