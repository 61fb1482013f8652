// Host side of pageable device-to-host copies into fresh memory (docs/design/transfers-memory.md):
// first-touch page faults with 1..16 threads, transparent huge pages, MADV_POPULATE_WRITE.
// g++ -O2 -pthread host_probe.cpp
#include <sys/mman.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <chrono>
#include <thread>
#include <vector>
#include <functional>
#include <algorithm>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static const size_t G = 1ul << 30;
static void par(int t, size_t len, std::function<void(size_t, size_t)> f) {
  std::vector<std::thread> th; size_t piece = (len / t + (2 << 20) - 1) / (2 << 20) * (2 << 20);
  for (int i = 0; i < t; ++i) { size_t a = i * piece, b = std::min(len, a + piece); if (a < b) th.emplace_back(f, a, b); }
  for (auto& x : th) x.join();
}
int main() {
  char* src = (char*)aligned_alloc(2 << 20, G); memset(src, 1, G);
  for (int huge : {0, 1})
    for (int t : {1, 4, 8, 16}) {
      for (int pop : {0, 1}) {
        char* d = (char*)malloc(G + (4 << 20));
        char* a = (char*)(((size_t)d + (2 << 20) - 1) / (2 << 20) * (2 << 20));
        if (huge) madvise(a, G, MADV_HUGEPAGE);
        double t0 = now(), t1 = t0;
        if (pop) { int rc = 0; par(t, G, [&](size_t x, size_t y) { if (madvise(a + x, y - x, MADV_POPULATE_WRITE)) rc = 1; }); t1 = now(); if (rc) printf("populate failed\n"); }
        par(t, G, [&](size_t x, size_t y) { memcpy(a + x, src + x, y - x); });
        double t2 = now();
        printf("huge %d threads %2d populate %d: populate %.1f ms, copy %.1f ms, total %.1f ms = %.1f GB/s\n", huge, t, pop, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t2 - t0) * 1e3, G / (t2 - t0) / 1e9);
        free(d);
      }
    }
  // copy into memory already faulted in
  char* d = (char*)malloc(G); memset(d, 0, G);
  for (int t : {1, 4, 8, 16}) { double t0 = now(); par(t, G, [&](size_t x, size_t y) { memcpy(d + x, src + x, y - x); }); printf("warm copy threads %2d: %.1f GB/s\n", t, G / (now() - t0) / 1e9); }
}
