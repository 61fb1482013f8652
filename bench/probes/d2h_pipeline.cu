// Where a staged device-to-host copy of 1 GiB into a fresh `Vec` spends its time: the
// library's pipeline (two page-locked slots of 32 MiB, the copy engine filling one while
// 16 host threads copy the other out) against its parts, and with the destination's pages
// populated ahead (madvise MADV_POPULATE_WRITE, one kernel call a range instead of a trap a
// page). Wall time, median of 5, a fresh allocation each repetition where it says fresh.
//   host-only   the 32 pieces copied from a slot by the pool, no transfer
//   populate    MADV_POPULATE_WRITE over the fresh GiB by the pool
//   pipeline    as the library: transfer piece i while the pool copies piece i - 1
//   pop+pipe    populate, then pipeline (both counted)
//   pipe+popN   pipeline where each worker populates its part of piece i + N (N pieces ahead)
//               before copying its part of piece i
// nvcc -O2 -arch=sm_90 -o d2h_pipeline d2h_pipeline.cu -lpthread
#include "probe.h"
#include <sys/mman.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static const size_t G = 1ul << 30, SLOT = 32ul << 20, PIECES = G / SLOT;
static const int T = 16;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

// T workers that spin (yielding) on a generation counter; run(f) calls f(i) on each.
struct Pool {
  std::vector<std::thread> th;
  std::atomic<long> gen{0};
  std::atomic<int> done{0};
  std::atomic<bool> stop{false};
  std::function<void(int)> job;
  Pool() {
    for (int i = 0; i < T; ++i)
      th.emplace_back([this, i] {
        long seen = 0;
        for (;;) {
          long g;
          while ((g = gen.load(std::memory_order_acquire)) == seen) {
            if (stop.load()) return;
            std::this_thread::yield();
          }
          seen = g;
          job(i);
          done.fetch_add(1, std::memory_order_release);
        }
      });
  }
  void run(std::function<void(int)> f) {
    job = std::move(f);
    done.store(0);
    gen.fetch_add(1, std::memory_order_release);
    while (done.load(std::memory_order_acquire) < T) std::this_thread::yield();
  }
  ~Pool() { stop.store(true); for (auto& t : th) t.join(); }
};

static char* fresh() {
  char* p = (char*)aligned_alloc(2 << 20, G);
  madvise(p, G, MADV_HUGEPAGE);
  return p;
}
static void populate(char* p, size_t len) {
  if (len && madvise(p, len, MADV_POPULATE_WRITE) != 0) { perror("MADV_POPULATE_WRITE"); exit(1); }
}

int main() {
  for (const char* f : {"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/defrag"}) {
    std::ifstream in(f); std::string s; std::getline(in, s); printf("%s: %s\n", f, s.c_str());
  }
  printf("uname: "); fflush(stdout); (void)!system("uname -r; nproc; numactl -H 2>/dev/null | head -3");
  char* d; CK(cudaMalloc(&d, G)); CK(cudaMemset(d, 1, G)); CK(cudaDeviceSynchronize());
  char* slot[2]; CK(cudaMallocHost(&slot[0], SLOT)); CK(cudaMallocHost(&slot[1], SLOT));
  memset(slot[0], 3, SLOT); memset(slot[1], 3, SLOT);
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t ev[2]; CK(cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming));
  char* existing = (char*)malloc(G); memset(existing, 2, G);
  Pool pool;
  const size_t part = SLOT / T;
  auto copy_piece = [&](char* dst, size_t i) {
    const char* src = slot[i % 2];
    pool.run([=](int w) { memcpy(dst + i * SLOT + w * part, src + w * part, part); });
  };
  auto pipeline = [&](char* dst, int ahead) {
    if (ahead > 0)
      pool.run([=](int w) { for (int j = 0; j < ahead; ++j) populate(dst + j * SLOT + w * part, part); });
    for (size_t i = 0; i <= PIECES; ++i) {
      if (i < PIECES) {
        CK(cudaMemcpyAsync(slot[i % 2], d + i * SLOT, SLOT, cudaMemcpyDeviceToHost, s));
        CK(cudaEventRecord(ev[i % 2], s));
      }
      if (i > 0) {
        CK(cudaEventSynchronize(ev[(i - 1) % 2]));
        const size_t k = i - 1;
        const char* src = slot[k % 2];
        pool.run([=](int w) {
          if (ahead > 0 && k + ahead < PIECES) populate(dst + (k + ahead) * SLOT + w * part, part);
          memcpy(dst + k * SLOT + w * part, src + w * part, part);
        });
      }
    }
  };
  const int reps = 5;
  auto timeit = [&](const char* name, bool want_fresh, std::function<void(char*)> f) {
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {
      char* p = want_fresh ? fresh() : existing;
      double a = now();
      f(p);
      double b = now();
      if (r) t.push_back(b - a);
      if (want_fresh) free(p);
    }
    printf("%-24s %7.2f ms  %6.1f GB/s\n", name, median(t) * 1e3, G / median(t) / 1e9);
  };
  timeit("pinned DMA alone", false, [&](char*) { CK(cudaMemcpyAsync(slot[0], d, SLOT, cudaMemcpyDeviceToHost, s)); for (size_t i = 1; i < PIECES; ++i) CK(cudaMemcpyAsync(slot[i % 2], d + i * SLOT, SLOT, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s)); });
  timeit("host-only existing", false, [&](char* p) { for (size_t i = 0; i < PIECES; ++i) copy_piece(p, i); });
  timeit("host-only fresh", true, [&](char* p) { for (size_t i = 0; i < PIECES; ++i) copy_piece(p, i); });
  timeit("populate fresh", true, [&](char* p) { pool.run([=](int w) { populate(p + w * (G / T), G / T); }); });
  timeit("touch fresh", true, [&](char* p) { pool.run([=](int w) { for (size_t o = w * (G / T); o < (w + 1) * (G / T); o += 4096) p[o] = 0; }); });
  timeit("pipeline existing", false, [&](char* p) { pipeline(p, 0); });
  timeit("pipeline fresh", true, [&](char* p) { pipeline(p, 0); });
  timeit("pop+pipe fresh", true, [&](char* p) { pool.run([=](int w) { populate(p + w * (G / T), G / T); }); pipeline(p, 0); });
  for (int ahead : {1, 2, 4})
  {
    char name[32]; snprintf(name, sizeof name, "pipe+pop%d fresh", ahead);
    timeit(name, true, [&](char* p) { pipeline(p, ahead); });
  }
  {
    char* p = fresh(); pool.run([=](int w) { populate(p + w * (G / T), G / T); });
    char cmd[96]; snprintf(cmd, sizeof cmd, "grep -E 'AnonHugePages' /proc/%d/smaps_rollup", (int)getpid());
    (void)!system(cmd);
    free(p);
  }
  return 0;
}
