// gpufleet's STREAM kernels (BabelStream's Copy and Triad on doubles, one
// element per thread). Compiled by nvcc (--fatbin) or hipcc (--genco) when
// CMake finds one, embedded in the binary and loaded at run time through
// the driver / module API (kernel_module.h). Plain CUDA C++ that hipcc
// compiles as HIP unchanged; no headers needed by either compiler.
//
// The parameter order is part of the contract with KernelModule::Launch.

extern "C" __global__ void gpufleet_stream_copy(const double* __restrict__ a,
                                                double* __restrict__ c, unsigned long long n) {
  unsigned long long i =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i];
}

extern "C" __global__ void gpufleet_stream_triad(double* __restrict__ a,
                                                 const double* __restrict__ b,
                                                 const double* __restrict__ c, double scalar,
                                                 unsigned long long n) {
  unsigned long long i =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + scalar * c[i];
}
