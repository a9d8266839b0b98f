#pragma once
// Annotations that let one kernel source compile as plain C++ (cpu executor)
// and as CUDA (nvcc). GPMX_HD marks kernel bodies and helpers they call.

#if defined(__CUDACC__)
#define GPMX_HD __host__ __device__
#define GPMX_DEVICE __device__
#define GPMX_FORCEINLINE __forceinline__
#else
#define GPMX_HD
#define GPMX_DEVICE
#define GPMX_FORCEINLINE inline __attribute__((always_inline))
#endif

// Static shared memory, declared inside a kernel body. On the GPU it is a
// real __shared__ array; on the CPU the block's arena hands out the k-th
// static allocation to the k-th declaration each thread reaches, so every
// thread of the block sees the same array.
#if defined(__CUDA_ARCH__)
#define GPMX_SHARED(ctx, type, name, count) __shared__ type name[count]
#else
#define GPMX_SHARED(ctx, type, name, count) \
  type* name = (ctx).template static_shared<type, (count)>()
#endif
