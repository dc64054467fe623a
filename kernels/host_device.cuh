// EPG_HOST_DEVICE marks the plain integer code of the kernels' headers that the
// host compiles too: the provider (launch parameters) and the unit tests.
#pragma once

#if defined(__CUDACC__)
#define EPG_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define EPG_HOST_DEVICE inline
#endif
