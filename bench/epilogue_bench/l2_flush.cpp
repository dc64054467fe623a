// L2Flush: the read kernel is PTX text JIT-compiled by the driver when the
// benchmark starts (the benchmark itself is plain C++), one 16-byte load per
// thread and trip of a grid-stride loop, the XOR of everything kept alive by a
// store that never happens.
#include "l2_flush.hpp"

#include <cstdint>

#include "cuda_check.hpp"

namespace epigemm::bench {
namespace {

constexpr const char* kFlushPtx = R"(
.version 7.0
.target sm_70
.address_size 64

.visible .entry epg_bench_l2_flush(.param .u64 buffer, .param .u64 vectors, .param .u64 sink)
{
  .reg .pred p;
  .reg .b32 r<10>;
  .reg .b64 rd<8>;
  ld.param.u64 rd1, [buffer];
  ld.param.u64 rd2, [vectors];
  ld.param.u64 rd3, [sink];
  mov.u32 r1, %ctaid.x;
  mov.u32 r2, %ntid.x;
  mov.u32 r3, %tid.x;
  mov.u32 r4, %nctaid.x;
  mul.wide.u32 rd4, r1, r2;
  cvt.u64.u32 rd5, r3;
  add.u64 rd4, rd4, rd5;
  mul.wide.u32 rd6, r4, r2;
  mov.u32 r5, 0;
LOOP:
  setp.ge.u64 p, rd4, rd2;
  @p bra DONE;
  shl.b64 rd7, rd4, 4;
  add.u64 rd7, rd1, rd7;
  ld.global.v4.u32 {r6, r7, r8, r9}, [rd7];
  xor.b32 r5, r5, r6;
  xor.b32 r5, r5, r7;
  xor.b32 r5, r5, r8;
  xor.b32 r5, r5, r9;
  add.u64 rd4, rd4, rd6;
  bra LOOP;
DONE:
  setp.ne.u32 p, r5, 0x12345678;
  @p bra END;
  st.global.u32 [rd3], r5;
END:
  ret;
}
)";

constexpr unsigned kBlocks = 1056;
constexpr unsigned kThreads = 512;

}  // namespace

L2Flush::L2Flush(std::size_t bytes) : buffer_(bytes), sink_(sizeof(std::uint32_t)) {
  BENCH_CUDA(cudaMemset(buffer_.data(), 0x5a, bytes));
  BENCH_CUDA(cudaLibraryLoadData(&library_, kFlushPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  BENCH_CUDA(cudaLibraryGetKernel(&kernel_, library_, "epg_bench_l2_flush"));
}

L2Flush::~L2Flush() {
  if (library_ != nullptr) cudaLibraryUnload(library_);
}

void L2Flush::run(cudaStream_t stream) {
  void* buffer = buffer_.data();
  std::uint64_t vectors = buffer_.bytes() / 16;
  void* sink = sink_.data();
  void* args[] = {&buffer, &vectors, &sink};
  BENCH_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(kBlocks), dim3(kThreads), args, 0, stream));
}

}  // namespace epigemm::bench
