// What the stand-alone probes share: error checks, timing and the report line.
// CUDA events around each repetition, median of `reps` after 5 warm-ups (as
// benches/compare.rs).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <functional>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

static float time_us(std::function<void()> f, int reps = 30) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000); }
  std::sort(t.begin(), t.end()); CK(cudaGetLastError()); return t[t.size() / 2];
}
static void report(const char* name, double bytes, float us) { printf("%-52s %9.2f us %8.1f GB/s\n", name, us, bytes / us / 1e3); }
