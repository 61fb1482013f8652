// cuarray ndimage_interp.cuh: resampling at mapped coordinates (map_coordinates,
// affine_transform, zoom, shift, rotate), spline orders 0 to 5 (from 2 on, of the
// prefiltered f64 coefficients), scipy.ndimage's rules.
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

// SciPy's B-spline weights of `order` at x (get_spline_interpolation_weights): w[0..=order]
// for the taps from the start index on.
template <int ORDER>
__device__ __forceinline__ void nd_spline_weights(double x, double* w) {
    x -= floor((ORDER & 1) ? x : x + 0.5);
    double y = x, z = 1.0 - x, t;
    if constexpr (ORDER == 0) {
        w[0] = 1.0;
        return;
    } else if constexpr (ORDER == 1) {
        w[0] = 1.0 - x;
    } else if constexpr (ORDER == 2) {
        w[1] = 0.75 - x * x;
        y = 0.5 - x;
        w[0] = 0.5 * y * y;
    } else if constexpr (ORDER == 3) {
        w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
        w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
        w[0] = z * z * z / 6.0;
    } else if constexpr (ORDER == 4) {
        t = x * x;
        w[2] = t * (t * 0.25 - 0.625) + 115.0 / 192.0;
        y = 1.0 + x;
        w[1] = y * (y * (y * (5.0 - y) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
        w[3] = z * (z * (z * (5.0 - z) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
        y = 0.5 - x;
        t = y * y;
        w[0] = t * t / 24.0;
    } else {
        t = y * y;
        w[2] = t * (t * (0.25 - y / 12.0) - 0.5) + 0.55;
        t = z * z;
        w[3] = t * (t * (0.25 - z / 12.0) - 0.5) + 0.55;
        y += 1.0;
        w[1] = y * (y * (y * (y * (y / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
        z += 1.0;
        w[4] = z * (z * (z * (z * (z / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
        y = 1.0 - x;
        t = y * y;
        w[0] = y * t * t / 120.0;
    }
    w[ORDER] = 1.0;
    for (int i = 0; i < ORDER; ++i) w[ORDER] -= w[i];
}

// One output element a thread: its coordinate from `coords` (AFFINE false: rank values,
// the k-th at coords[k * size + t]) or from the affine map of its index, moved by `shift`
// (the padding of a prefiltered input), then the tensor product of the B-spline weights
// of ORDER over the ORDER + 1 taps of each axis. RANK > 0: the rank is RANK (compile-time,
// so that the per-axis arrays and the taps unroll into registers); 0: `a.rank`.
// The element index type of nd_interp: 32-bit unsigned for the rank-specialised kernels
// (whose input and output the host keeps below 2^31 elements), 64-bit for the rest.
template <bool NARROW> struct nd_interp_index { typedef long long type; };
template <> struct nd_interp_index<true> { typedef unsigned int type; };

template <typename in_t, typename out_t, bool AFFINE, int ORDER, int RANK>
__device__ __forceinline__ void nd_interp(const in_t* __restrict__ in, out_t* __restrict__ out,
                                          const double* __restrict__ coords, const nd_affine& a, int mode,
                                          double cval, double shift) {
    typedef typename nd_interp_index<(RANK > 0)>::type I;
    constexpr int RM = RANK > 0 ? RANK : ND_AFF_MAX;
    const int rank = RANK > 0 ? RANK : (int)a.rank;
    int taps = 1;
#pragma unroll
    for (int d = 0; d < rank; ++d) taps *= ORDER + 1;
    I st[RM];
    st[rank - 1] = 1;
#pragma unroll
    for (int d = rank - 2; d >= 0; --d) st[d] = st[d + 1] * (I)a.in_shape[d + 1];
    const I size = (I)a.size;
    for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < size; t += (I)gridDim.x * (I)blockDim.x) {
        double c[RM];
        if constexpr (AFFINE) {
            double o[RM];
            I rem = t;
#pragma unroll
            for (int d = rank - 1; d > 0; --d) {
                o[d] = (double)(rem % (I)a.out_shape[d]);
                rem /= (I)a.out_shape[d];
            }
            o[0] = (double)rem;  // t < size: the first index is what remains
            // Rounded as SciPy's loop (no fused multiply-add), so that coordinates agree
            // to the last bit.
#pragma unroll
            for (int d = 0; d < rank; ++d) {
                double v = 0.0;
#pragma unroll
                for (int k = 0; k < rank; ++k) v = __dadd_rn(v, __dmul_rn(o[k], a.m[d * rank + k]));
                c[d] = __dadd_rn(v, a.off[d]);
            }
        } else {
#pragma unroll
            for (int d = 0; d < rank; ++d) c[d] = coords[d * a.size + (long long)t];
        }
        long long start[RM];
        double wts[RM][ORDER + 1];
        bool constant = false;
#pragma unroll
        for (int d = 0; d < rank; ++d) {
            const double cc = nd_map_coord(c[d] + shift, a.in_shape[d], mode);
            constant |= mode != 5 && cc <= -1.0;
            start[d] = (long long)floor((ORDER & 1) ? cc : cc + 0.5) - ORDER / 2;
            nd_spline_weights<ORDER>(cc, wts[d]);
        }
        double v = cval;
        if (!constant) {
            v = 0.0;
#pragma unroll
            for (int e = 0; e < taps; ++e) {
                double w = 1.0;
                I off = 0;
                bool outside = false;
                int rest = e;
#pragma unroll
                for (int d = rank - 1; d >= 0; --d) {
                    const int k = rest % (ORDER + 1);
                    rest /= ORDER + 1;
                    w *= wts[d][k];
                    const long long m = nd_tap(start[d] + k, a.in_shape[d], mode);
                    outside |= m < 0;
                    off += (I)(m < 0 ? 0 : m) * st[d];
                }
                v += w * (outside ? cval : nd_in<double>(in[off]));
            }
        }
        out[t] = nd_interp_out<out_t>(v);
    }
}
