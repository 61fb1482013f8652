// cuarray ndimage_interp.cuh: resampling at mapped coordinates (map_coordinates,
// affine_transform, zoom, shift, rotate), spline orders 0 and 1, scipy.ndimage's rules.
// After ndimage.cuh (nd_index).
//
// Interpolation modes (nd_imode): 0 reflect, 1 constant, 2 nearest, 3 mirror, 4 wrap,
// 5 grid-constant, 6 grid-wrap. A coordinate outside the input is first mapped into it
// (SciPy's map_coordinate; constant: the value cval), then the taps around it are read,
// those past the edge extended as the mode says (mirror for constant and wrap, as SciPy).

#define ND_AFF_MAX 8
struct nd_affine {
    long long rank;
    long long size;
    long long in_shape[ND_AFF_MAX];
    long long out_shape[ND_AFF_MAX];
    double m[ND_AFF_MAX * ND_AFF_MAX];
    double off[ND_AFF_MAX];
};

// SciPy's map_coordinate: -1 means "use cval".
__device__ __forceinline__ double nd_map_coord(double in, long long len, int mode) {
    if (in >= 0.0 && in <= (double)(len - 1)) return in;
    if (mode == 5) return in;  // grid-constant: interpolate with cval past the edges
    if (mode == 1) return -1.0;
    if (mode == 2) return in < 0.0 ? 0.0 : (double)(len - 1);
    if (len <= 1) return 0.0;
    if (in < 0.0) {
        switch (mode) {
        case 3: {
            const long long s2 = 2 * len - 2;
            in = s2 * (double)(long long)(-in / s2) + in;
            return in <= 1 - len ? in + s2 : -in;
        }
        case 0: {
            const long long s2 = 2 * len;
            if (in < -s2) in = s2 * (double)(long long)(-in / s2) + in;
            return in < -len ? in + s2 : -in - 1;
        }
        case 4: {
            const long long sz = len - 1;
            return in + sz * (double)((long long)(-in / sz) + 1);
        }
        default:
            return in + len * (double)((long long)((-1 - in) / len) + 1);
        }
    }
    switch (mode) {
    case 3: {
        const long long s2 = 2 * len - 2;
        in -= s2 * (double)(long long)(in / s2);
        return in >= len ? s2 - in : in;
    }
    case 0: {
        const long long s2 = 2 * len;
        in -= s2 * (double)(long long)(in / s2);
        return in >= len ? s2 - in - 1 : in;
    }
    case 4: {
        const long long sz = len - 1;
        return in - sz * (double)(long long)(in / sz);
    }
    default:
        return in - len * (double)(long long)(in / len);
    }
}

// A tap's index past the edge: reflect for reflect, periodic for grid-wrap, the edge for
// nearest, -1 (cval) for grid-constant, mirror otherwise.
__device__ __forceinline__ long long nd_tap(long long i, long long n, int mode) {
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case 0: return nd_index(i, n, 0);
    case 6: return nd_index(i, n, 4);
    case 2: return nd_index(i, n, 2);
    case 5: return -1;
    default: return nd_index(i, n, 3);
    }
}

// The interpolated value stored as SciPy does: integers rounded half away from zero and
// saturated (unsigned: negative values give 0), floats rounded.
template <typename T>
__device__ __forceinline__ T nd_interp_out(double t) {
    if constexpr (cuarray_is_same<T, bool>::value) {
        return t != 0.0;
    } else if constexpr (cuarray_is_int<T>::value) {
        const bool is_signed = T(-1) < T(0);
        const double lo = is_signed ? (double)(T)((unsigned long long)1 << (8 * sizeof(T) - 1)) : 0.0;
        const double hi = is_signed ? -lo - 1.0 : (double)(T)(~0ull);
        t = is_signed ? (t > 0 ? t + 0.5 : t - 0.5) : (t > 0 ? t + 0.5 : 0.0);
        if (t >= hi) return is_signed ? T(-lo - 1.0) : T(~0ull);
        if (t <= lo) return is_signed ? T((long long)lo) : T(0);
        return T((long long)t);
    } else {
        return T(t);
    }
}

// One output element a thread: its coordinate from `coords` (AFFINE false: rank values,
// the k-th at coords[k * size + t]) or from the affine map of its index, then the
// tensor product of the order-0 (nearest) or order-1 (linear) weights.
template <typename in_t, typename out_t, bool AFFINE, int ORDER>
__device__ __forceinline__ void nd_interp(const in_t* __restrict__ in, out_t* __restrict__ out,
                                          const double* __restrict__ coords, const nd_affine& a, int mode,
                                          double cval) {
    const int rank = (int)a.rank;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < a.size;
         t += (long long)gridDim.x * blockDim.x) {
        double c[ND_AFF_MAX];
        if constexpr (AFFINE) {
            double o[ND_AFF_MAX];
            long long rem = t;
            for (int d = rank - 1; d >= 0; --d) {
                o[d] = (double)(rem % a.out_shape[d]);
                rem /= a.out_shape[d];
            }
            // Rounded as SciPy's loop (no fused multiply-add), so that coordinates agree
            // to the last bit.
            for (int d = 0; d < rank; ++d) {
                double v = 0.0;
                for (int k = 0; k < rank; ++k) v = __dadd_rn(v, __dmul_rn(o[k], a.m[d * rank + k]));
                c[d] = __dadd_rn(v, a.off[d]);
            }
        } else {
            for (int d = 0; d < rank; ++d) c[d] = coords[d * a.size + t];
        }
        long long start[ND_AFF_MAX];
        double w1[ND_AFF_MAX];
        bool constant = false;
        for (int d = 0; d < rank; ++d) {
            const double cc = nd_map_coord(c[d], a.in_shape[d], mode);
            if (mode != 5 && cc <= -1.0) {
                constant = true;
                break;
            }
            if (ORDER == 0) {
                start[d] = (long long)floor(cc + 0.5);
                w1[d] = 0.0;
            } else {
                start[d] = (long long)floor(cc);
                w1[d] = cc - (double)start[d];
            }
        }
        double v = cval;
        if (!constant) {
            v = 0.0;
            for (int e = 0; e < (1 << (ORDER * rank)); ++e) {
                double w = 1.0;
                long long off = 0;
                bool outside = false;
                for (int d = 0; d < rank; ++d) {
                    const int k = ORDER == 0 ? 0 : (e >> (rank - 1 - d)) & 1;
                    if (ORDER == 1) w *= k ? w1[d] : 1.0 - w1[d];
                    const long long m = nd_tap(start[d] + k, a.in_shape[d], mode);
                    outside |= m < 0;
                    off = off * a.in_shape[d] + (m < 0 ? 0 : m);
                }
                v += w * (outside ? cval : nd_in<double>(in[off]));
            }
        }
        out[t] = nd_interp_out<out_t>(v);
    }
}
