// What the driver allows while another thread captures a graph, and what the capturing
// thread itself may call, in global or thread-local capture mode. Each call's result is
// printed, then whether the capture still ends with a valid graph.
//
//   nvcc -O2 -o capture_threads capture_threads.cu -lcuda -lpthread
//   ./capture_threads global; ./capture_threads thread
#include <cuda.h>
#include <cuda_runtime.h>
#include <atomic>
#include <cstdio>
#include <thread>

static const char* name(CUresult r) {
    const char* s = nullptr;
    cuGetErrorName(r, &s);
    return s ? s : "?";
}

__global__ void bump(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1.0f;
}

struct World {
    CUcontext ctx;
    CUstream captured, other;
    CUevent done_before;  // recorded on `captured` before the capture
    float* dev;
    float* pinned;
    int n = 1 << 20;
};

// The calls one thread makes; `same` when they are made on the captured stream.
static void calls(World& w, const char* who) {
    cuCtxSetCurrent(w.ctx);
    CUresult r;
    r = cuEventQuery(w.done_before);
    printf("%s: event query (event recorded before the capture): %s\n", who, name(r));
    r = cuEventSynchronize(w.done_before);
    printf("%s: event synchronize (recorded before): %s\n", who, name(r));
    r = cuStreamSynchronize(w.other);
    printf("%s: other stream synchronize: %s\n", who, name(r));
    r = cuStreamQuery(w.other);
    printf("%s: other stream query: %s\n", who, name(r));
    CUevent e;
    cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
    r = cuEventRecord(e, w.other);
    printf("%s: event record on the other stream: %s\n", who, name(r));
    r = cuEventSynchronize(e);
    printf("%s: synchronize that event: %s\n", who, name(r));
    r = cuMemcpyHtoDAsync((CUdeviceptr)w.dev, w.pinned, 4096, w.other);
    printf("%s: pinned h2d on the other stream: %s\n", who, name(r));
    CUdeviceptr p = 0;
    r = cuMemAlloc(&p, 1 << 20);
    printf("%s: cuMemAlloc: %s\n", who, name(r));
    if (r == CUDA_SUCCESS) cuMemFree(p);
    r = cuMemAllocAsync(&p, 1 << 20, w.other);
    printf("%s: cuMemAllocAsync on the other stream: %s\n", who, name(r));
    if (r == CUDA_SUCCESS) cuMemFreeAsync(p, w.other);
    r = cuCtxSynchronize();
    printf("%s: context synchronize: %s\n", who, name(r));
    cuEventDestroy(e);
}

int main(int argc, char** argv) {
    World w;
    bool global = argc < 2 || argv[1][0] == 'g';
    CUstreamCaptureMode mode =
        global ? CU_STREAM_CAPTURE_MODE_GLOBAL : CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    printf("capture mode: %s\n", global ? "global" : "thread-local");
    cuInit(0);
    CUdevice d;
    cuDeviceGet(&d, 0);
    cuDevicePrimaryCtxRetain(&w.ctx, d);
    cuCtxSetCurrent(w.ctx);
    cuStreamCreate(&w.captured, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&w.other, CU_STREAM_NON_BLOCKING);
    cuEventCreate(&w.done_before, CU_EVENT_DISABLE_TIMING);
    cudaMalloc(&w.dev, w.n * sizeof(float));
    cudaMallocHost(&w.pinned, w.n * sizeof(float));
    for (int round = 0; round < 3; ++round) {
        const char* who = round == 0   ? "other thread"
                          : round == 1 ? "capturing thread"
                                       : "capturing thread, relaxed";
        bump<<<w.n / 256, 256, 0, w.captured>>>(w.dev, w.n);
        cuEventRecord(w.done_before, w.captured);
        cuStreamSynchronize(w.captured);
        CUresult r = cuStreamBeginCapture(w.captured, mode);
        printf("\n-- round %d (%s), begin capture: %s\n", round, who, name(r));
        bump<<<w.n / 256, 256, 0, w.captured>>>(w.dev, w.n);
        if (round == 0) {
            std::thread t([&] { calls(w, who); });
            t.join();
        } else if (round == 1) {
            calls(w, who);
        } else {
            // The capturing thread in relaxed mode: waits for an event recorded before.
            CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
            cuThreadExchangeStreamCaptureMode(&m);
            printf("%s: relaxed event query: %s\n", who, name(cuEventQuery(w.done_before)));
            printf("%s: relaxed event synchronize: %s\n", who,
                   name(cuEventSynchronize(w.done_before)));
            cuThreadExchangeStreamCaptureMode(&m);
        }
        bump<<<w.n / 256, 256, 0, w.captured>>>(w.dev, w.n);
        CUgraph g = nullptr;
        r = cuStreamEndCapture(w.captured, &g);
        printf("%s: end capture: %s (graph %s)\n", who, name(r), g ? "made" : "none");
        if (g) {
            CUgraphExec x;
            r = cuGraphInstantiate(&x, g, 0);
            printf("%s: instantiate: %s\n", who, name(r));
            if (r == CUDA_SUCCESS) {
                r = cuGraphLaunch(x, w.captured);
                printf("%s: launch: %s\n", who, name(r));
                cuGraphExecDestroy(x);
            }
            cuGraphDestroy(g);
        }
        r = cuCtxSynchronize();
        printf("%s: synchronize after: %s\n", who, name(r));
        r = cuEventSynchronize(w.done_before);
        printf("%s: event synchronize after: %s\n", who, name(r));
    }
    return 0;
}
