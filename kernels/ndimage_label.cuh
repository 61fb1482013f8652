// cuarray ndimage_label.cuh: connected components, the Euclidean distance transform and
// the per-label measurements of cuarray::ndimage. After ndimage.cuh (nd_geom).

// ---- connected components: union-find with atomicMin links ----------------------------
// Every element's parent starts as itself (background: -1); each element is united with
// its neighbours before it in raster order (the structure's first half); a union links the
// larger root under the smaller, so a component's root is its first element in raster
// order, and the labels (1 + the count of roots before it) follow SciPy's numbering.

__device__ __forceinline__ int nd_find(const int* p, int x) {
    const volatile int* vp = p;
    int y = vp[x];
    while (y != x) {
        x = y;
        y = vp[x];
    }
    return x;
}

__device__ __forceinline__ void nd_union(int* p, int a, int b) {
    while (true) {
        a = nd_find(p, a);
        b = nd_find(p, b);
        if (a == b) return;
        if (a > b) {
            const int t = a;
            a = b;
            b = t;
        }
        const int old = atomicMin(&p[b], a);
        if (old == b) return;
        b = old;
    }
}

// STEP 0: parents from the mask; 1: unions with earlier neighbours of the structure `st`
// (3^rank elements); 2: every parent its root; 3: roots flagged (1) in `flag`; 4: labels
// from the flags' inclusive sums `csum`.
template <int STEP>
__device__ __forceinline__ void nd_label(const bool* __restrict__ mask, int* p, const bool* __restrict__ st,
                                         int* __restrict__ out, const long long* __restrict__ csum,
                                         const nd_geom& g) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.size;
         t += (long long)gridDim.x * blockDim.x) {
        const int i = (int)t;
        if constexpr (STEP == 0) {
            p[i] = mask[i] ? i : -1;
        } else if constexpr (STEP == 1) {
            if (!mask[i]) continue;
            const int rank = (int)g.rank;
            long long idx[ND_MAX_RANK];
            long long rem = t;
            for (int d = rank - 1; d >= 0; --d) {
                idx[d] = rem % g.shape[d];
                rem /= g.shape[d];
            }
            // The structure's elements before its centre: offsets before i in raster order.
            const long long half = g.wsize / 2;
            for (long long e = 0; e < half; ++e) {
                if (!st[e]) continue;
                long long rest = e;
                long long off = 0;
                long long stride = 1;
                bool inside = true;
                for (int d = rank - 1; d >= 0; --d) {
                    const long long k = rest % 3 - 1;
                    rest /= 3;
                    const long long c = idx[d] + k;
                    inside &= c >= 0 && c < g.shape[d];
                    off += k * stride;
                    stride *= g.shape[d];
                }
                if (inside && mask[t + off]) nd_union(p, i, (int)(t + off));
            }
        } else if constexpr (STEP == 2) {
            if (p[i] >= 0) p[i] = nd_find(p, i);
        } else if constexpr (STEP == 3) {
            out[i] = p[i] == i ? 1 : 0;
        } else {
            out[i] = p[i] >= 0 ? (int)csum[p[i]] : 0;
        }
    }
}

// ---- exact Euclidean distance transform (Felzenszwalb-Huttenlocher) --------------------
// One thread a line of the (outer, n, inner) array `f` of squared distances: f(x) becomes
// min over q of f(q) + s2 (x - q)^2 (the lower envelope of parabolas; infinite values
// are no sites). `v`, `z` and `h` are n, n + 1 and n scratch values of each line: in
// dynamic shared memory when `shared` (each block's blockDim.x lines: the z of every line,
// then the h, then the v), else the t-th of `vb`, `zb` and `hb` in global memory.
// The first pass reads the mask as 0 / 1 values: 0 is a site (distance 0), anything else
// infinitely far.
__device__ __forceinline__ void nd_edt(double* f, long long outer, long long n, long long inner, double s2,
                                       bool first, bool shared, int* vb, double* zb, double* hb) {
    extern __shared__ __align__(16) unsigned char nd_smem[];
    const double inf = 1.0 / 0.0;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < outer * inner;
         t += (long long)gridDim.x * blockDim.x) {
        const long long o = t / inner, i = t % inner;
        double* line = f + o * n * inner + i;
        int* v;
        double* z;
        double* h;
        if (shared) {
            double* zs = reinterpret_cast<double*>(nd_smem);
            z = zs + threadIdx.x * (n + 1);
            h = zs + blockDim.x * (n + 1) + threadIdx.x * n;
            v = reinterpret_cast<int*>(zs + blockDim.x * (2 * n + 1)) + threadIdx.x * n;
        } else {
            v = vb + t * n;
            z = zb + t * (n + 1);
            h = hb + t * n;
        }
        int k = -1;
        for (long long q = 0; q < n; ++q) {
            double fq = line[q * inner];
            if (first) fq = fq != 0.0 ? inf : 0.0;
            if (fq == inf) continue;
            const double dq = (double)q;
            double s = -inf;
            while (k >= 0) {
                const double dv = (double)v[k];
                s = ((fq + s2 * dq * dq) - (h[k] + s2 * dv * dv)) / (2.0 * s2 * (dq - dv));
                if (s <= z[k]) --k;
                else break;
            }
            ++k;
            v[k] = (int)q;
            h[k] = fq;
            z[k] = k == 0 ? -inf : s;
            z[k + 1] = inf;
        }
        if (k < 0) {
            if (first) {
                for (long long q = 0; q < n; ++q) line[q * inner] = inf;
            }
            continue;
        }
        int j = 0;
        for (long long q = 0; q < n; ++q) {
            while (z[j + 1] < (double)q) ++j;
            const double d = (double)q - (double)v[j];
            line[q * inner] = s2 * d * d + h[j];
        }
    }
}

// ---- per-label measurements --------------------------------------------------------
// `lut[label]` is the label's slot (-1: not measured; labels outside 0..nlut neither).
// WHAT 0: a0 += 1, a1 += v; 1: a0 += (v - aux0)^2; 2: a0 = min, a1 = max; 3: p0 = the
// first index of v == aux0, p1 of v == aux1; 4: a0 += v, a1[slot * rank + d] += v x_d.

__device__ __forceinline__ void nd_atomic_min(double* a, double v) {
    unsigned long long* p = reinterpret_cast<unsigned long long*>(a);
    unsigned long long old = *p;
    while (v < __longlong_as_double((long long)old)) {
        const unsigned long long assumed = old;
        old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(v));
        if (old == assumed) break;
    }
}

__device__ __forceinline__ void nd_atomic_max(double* a, double v) {
    unsigned long long* p = reinterpret_cast<unsigned long long*>(a);
    unsigned long long old = *p;
    while (v > __longlong_as_double((long long)old)) {
        const unsigned long long assumed = old;
        old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(v));
        if (old == assumed) break;
    }
}

template <typename in_t, int WHAT>
__device__ __forceinline__ void nd_measure(const in_t* __restrict__ in, const int* __restrict__ labels,
                                           const int* __restrict__ lut, long long nlut, double* a0, double* a1,
                                           unsigned long long* p0, unsigned long long* p1,
                                           const double* __restrict__ aux0, const double* __restrict__ aux1,
                                           const nd_geom& g) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.size;
         t += (long long)gridDim.x * blockDim.x) {
        const int l = labels[t];
        if (l < 0 || l >= nlut) continue;
        const int s = lut[l];
        if (s < 0) continue;
        const double v = nd_in<double>(in[t]);
        if constexpr (WHAT == 0) {
            atomicAdd(&a0[s], 1.0);
            atomicAdd(&a1[s], v);
        } else if constexpr (WHAT == 1) {
            const double d = v - aux0[s];
            atomicAdd(&a0[s], d * d);
        } else if constexpr (WHAT == 2) {
            nd_atomic_min(&a0[s], v);
            nd_atomic_max(&a1[s], v);
        } else if constexpr (WHAT == 3) {
            if (v == aux0[s]) atomicMin(&p0[s], (unsigned long long)t);
            if (v == aux1[s]) atomicMin(&p1[s], (unsigned long long)t);
        } else {
            const int rank = (int)g.rank;
            atomicAdd(&a0[s], v);
            long long rem = t;
            for (int d = rank - 1; d >= 0; --d) {
                atomicAdd(&a1[s * rank + d], v * (double)(rem % g.shape[d]));
                rem /= g.shape[d];
            }
        }
    }
}
