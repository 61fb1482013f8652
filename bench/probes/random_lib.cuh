// What the random probes share: the library's fill kernel as the random family renders it
// (kernels/philox.cuh included as is; 32-bit group indices; one instantiation per variant),
// with and without a forced number of blocks a multiprocessor.
#pragma once
#include "common.cuh"
#include "philox.cuh"
#include <cstring>

// The bits of a double, as the fill kernel takes its bounds.
static unsigned long long dbits(double d) { unsigned long long u; memcpy(&u, &d, 8); return u; }

template <int W, int G, typename T, typename D>
__global__ void __launch_bounds__(256) lib(T* out, long long n, unsigned long long group0, long long head,
                                           unsigned long long key, unsigned long long stream, unsigned long long a,
                                           unsigned long long b) {
  philox_fill<W, G, int>(out, n, group0, head, key, stream, D(a, b));
}
template <int W, int G, typename T, typename D, int MINB>
__global__ void __launch_bounds__(256, MINB) lib_lb(T* out, long long n, unsigned long long group0, long long head,
                                                    unsigned long long key, unsigned long long stream,
                                                    unsigned long long a, unsigned long long b) {
  philox_fill<W, G, int>(out, n, group0, head, key, stream, D(a, b));
}
