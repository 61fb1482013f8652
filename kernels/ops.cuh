// cuarray ops.cuh: the functions that op bodies call, one per operation.
// Conventions: see kernels/README.md. Arguments arrive as their element types
// (cuarray_f16/bf16 convert to float); results are converted to the output type by the
// assignment in the generated body, so integer results wrap as in NumPy.

template <class T> struct cuarray_is_int { static constexpr bool value = false; };
template <> struct cuarray_is_int<int> { static constexpr bool value = true; };
template <> struct cuarray_is_int<unsigned int> { static constexpr bool value = true; };
template <> struct cuarray_is_int<long long> { static constexpr bool value = true; };
template <> struct cuarray_is_int<unsigned long long> { static constexpr bool value = true; };

template <class A, class B>
__device__ __forceinline__ auto cuarray_add(A a, B b) { return a + b; }

template <class A, class B>
__device__ __forceinline__ auto cuarray_sub(A a, B b) { return a - b; }

template <class A, class B>
__device__ __forceinline__ auto cuarray_mul(A a, B b) { return a * b; }

// Floats: IEEE division. Integers: NumPy's floor division (rounds toward minus
// infinity), and 0 for a division by zero, as NumPy returns.
template <class A, class B>
__device__ __forceinline__ auto cuarray_div(A a, B b) -> decltype(a / b) {
    typedef decltype(a / b) R;
    if constexpr (cuarray_is_int<R>::value) {
        if (b == 0) return R(0);
        R q = R(a) / R(b);
        if ((R(a) % R(b) != 0) && ((R(a) < R(0)) != (R(b) < R(0)))) q -= R(1);
        return q;
    } else {
        return a / b;
    }
}
