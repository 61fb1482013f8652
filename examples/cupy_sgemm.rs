//! A port of CuPy's `examples/gemm/sgemm.py`: MAGMA's SGEMM kernel (CuPy's
//! `examples/gemm/sgemm.cu`, unchanged, with the same `#define`s prepended as CuPy's
//! `utils.read_code`) as a `RawKernel` on column-major (Fortran-order) copies of `A` (m x k)
//! and `B` (k x n), against cuBLAS (`matmul`). As the original: the result checked against
//! `matmul` to 3 decimals, 3 dry runs, then 5 timed runs of each, each timed by CUDA
//! events around the call (including the Fortran-order copies and the allocation of `C`,
//! which the original's `sgemm` does too), and the mean reported.
//!
//! The original draws m and n in [1000, 1500) and k in [500, 3000) at random; pass
//! `--m --n --k` to fix them (`bench/compare.sh` does, with the same values for CuPy).
//! Prints `{"lib": "cuarray", "case": "cupy_example_sgemm", ...}` (the hand-written kernel)
//! and `cupy_example_sgemm_cublas`, in microseconds; exits non-zero on a wrong product.
//!
//! `cargo run --release --example cupy_sgemm [-- --m 1280 --n 1280 --k 1750]`

use cuarray::random::{Generator, HostGenerator};
use cuarray::{Device, DeviceArray, RawKernel, Result};

type A = DeviceArray<f32>;

// examples/gemm/sgemm.cu, verbatim.
const SGEMM_CU: &str = r#"
/*
Original works by:
--------------------------------------------------------
MAGMA
Copyright (c) 2017 The University of Tennessee. All rights reserved.
Licensed under modified BSD license
*/


// These parameters will be determined by utils.read_code
//#define DIM_X  ${DIM_X}
//#define DIM_Y  ${DIM_Y}
//#define BLK_M  ${BLK_M}
//#define BLK_N  ${BLK_N}
//#define BLK_K  ${BLK_K}
//#define DIM_XA  ${DIM_XA}
//#define DIM_YA  ${DIM_YA}
//#define DIM_XB  ${DIM_XB}
//#define DIM_YB  ${DIM_YB}
//#define THR_N  ${THR_N}
//#define THR_M  ${THR_M}

#define fetch(arr, col, m, n, bound) arr[min(n*col + m, bound)]


extern "C" __global__
void sgemm(
        int M, int N, int K,
        const float* A,
        const float* B,
        float * C)
{
    int idx = threadIdx.x;
    int idy = threadIdx.y;

    int idt = DIM_X * idy + idx;

    int idxA = idt % DIM_XA;
    int idyA = idt / DIM_XA;

    int idxB = idt % DIM_XB;
    int idyB = idt / DIM_XB;

    int blx = blockIdx.x;
    int bly = blockIdx.y;

    __shared__ float sA[BLK_K][BLK_M + 1];
    __shared__ float sB[BLK_N][BLK_K + 1];

    // registers for the innermost loop
    float rC[THR_N][THR_M];
    float rA[THR_M];
    float rB[THR_N];

    float ra[BLK_K / DIM_YA][BLK_M / DIM_XA];
    float rb[BLK_N / DIM_YB][BLK_K / DIM_XB];

    const float* offs_dA = A + blx * BLK_M       + idyA * M + idxA;
    int boundA = (M * (K - 1) + M) - (blx * BLK_M + idyA * M + idxA) - 1;
    const float* offs_dB = B + bly * BLK_N * K + idyB * K + idxB;
    int boundB = (K * (N - 1) + K) - (bly * BLK_N * K + idyB * K + idxB) - 1;

    int m, n, k, kk;
    
    #pragma unroll
    for (n = 0; n < THR_N; n++) {
        #pragma unroll
        for (m = 0 ; m < THR_M; m++) {
            rC[n][m] = 0;
        }
    }

    // blockwise transpose to transpose load
    #pragma unroll
    for (n = 0; n < BLK_K; n += DIM_YA) {
        #pragma unroll
        for (m = 0; m < BLK_M; m += DIM_XA) {
            sA[n + idyA][m + idxA] = fetch(offs_dA, M, m, n, boundA);
        }
    }
    // blockwise transpose to transpose load
    #pragma unroll
    for (n = 0; n < BLK_N; n += DIM_YB) {
        #pragma unroll
        for (m = 0; m < BLK_K; m += DIM_XB) {
            sB[n + idyB][m + idxB] = fetch(offs_dB, K, m, n, boundB);
        }
    }
    __syncthreads();

    for (kk = 0; kk < K - BLK_K; kk += BLK_K)
    {
        offs_dA += BLK_K * M;
        boundA -= BLK_K * M;
        offs_dB += BLK_K;
        boundB -= BLK_K;
        
        #pragma unroll
        for (n = 0; n < BLK_K / DIM_YA; n++) {
            #pragma unroll
            for (m = 0; m < BLK_M / DIM_XA; m++) {
                ra[n][m] = fetch(offs_dA, M, m * DIM_XA, n * DIM_YA, boundA);
            }
        }

        #pragma unroll
        for (n = 0; n < BLK_N / DIM_YB; n++) {
            #pragma unroll
            for (m = 0; m < BLK_K / DIM_XB; m++) {
                rb[n][m] = fetch(offs_dB, K, m * DIM_XB, n * DIM_YB, boundB);
            }
        }

        // multiply
        #pragma unroll
        for (k = 0; k < BLK_K; k++)
        {
            #pragma unroll
            for (m = 0; m < THR_M; m++) {
                rA[m] = sA[k][m * DIM_X + idx];
            }
            
            #pragma unroll
            for (n = 0; n < THR_N; n++) {
                rB[n] = sB[n * DIM_Y + idy][k];
            }

            #pragma unroll
            for (n = 0; n < THR_N; n++) {
                #pragma unroll
                for (m = 0; m < THR_M; m++) {
                    rC[n][m] += rA[m] * rB[n];
                }
            }
        }
        __syncthreads();

        // store A regs->smem
        #pragma unroll
        for (n = 0; n < BLK_K / DIM_YA; n++)
        {
            #pragma unroll
            for (m = 0; m < BLK_M / DIM_XA; m++)
            {
                sA[n * DIM_YA + idyA][m * DIM_XA + idxA] = ra[n][m];
            }
        }

        #pragma unroll
        for (n = 0; n < BLK_N / DIM_YB; n++)
        {
            #pragma unroll
            for (m = 0; m < BLK_K / DIM_XB; m++)
            {
                sB[n * DIM_YB + idyB][m * DIM_XB + idxB] = rb[n][m];
            }
        }
        __syncthreads();
    }

    // Multiply last full (BLK_K) or partial block of columns of A and
    // rows of B.
    // It's okay that m,n exceed matrix bounds as all work is in registers
    // or shared memory, and out-of-bounds rC[n][m] will not be saved later.

    kk = K - kk;
    #pragma unroll
    for (k = 0; k < kk; k++)
    {
        #pragma unroll
        for (m = 0; m < THR_M; m++) {
            rA[m] = sA[k][m * DIM_X + idx];
        }

        #pragma unroll
        for (n = 0; n < THR_N; n++) {
            rB[n] = sB[n * DIM_Y + idy][k];
        }
        
        #pragma unroll
        for (n = 0; n < THR_N; n++) {
            #pragma unroll
            for (m = 0; m < THR_M; m++) {
                rC[n][m] += rA[m] * rB[n];
            }
        }
    }

    #pragma unroll
    for (n = 0; n < THR_N; n++) {
        int coord_dCn = bly * BLK_N + n * DIM_Y + idy;
        #pragma unroll
        for (m = 0; m < THR_M; m++) {
            int coord_dCm = blx * BLK_M + m * DIM_X + idx;
            if (coord_dCm < M && coord_dCn < N) {
                C[coord_dCn * M + coord_dCm] = rC[n][m];
            }
        }
    }
}
"#;

fn arg<T: std::str::FromStr>(names: &[&str], default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| names.contains(&a.as_str()))
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// CuPy's `utils.read_code`: each parameter as a `#define` line before the code.
fn read_code(params: &[(&str, u32)]) -> String {
    let mut code = SGEMM_CU.to_string();
    for (k, v) in params {
        code = format!("#define {k} {v}\n{code}");
    }
    code
}

/// The original's `sgemm` with its default tile parameters.
fn sgemm(a: &A, b: &A) -> Result<A> {
    let (dim_x, dim_y, blk_m, blk_n, blk_k) = (16u32, 16u32, 64u32, 64u32, 4u32);
    let (dim_xa, dim_ya, dim_xb, dim_yb) = (64u32, 4u32, 4u32, 64u32);
    assert!(dim_x * dim_y == dim_xa * dim_ya && dim_xa * dim_ya == dim_xb * dim_yb);
    let (m, k) = (a.shape()[0], a.shape()[1]);
    let n = b.shape()[1];
    // Fortran order: the C-order buffer of the transpose.
    let a_f = a.t().contiguous()?;
    let b_f = b.t().contiguous()?;
    let c_f = A::empty(a.device(), &[n, m])?;
    let config = [
        ("DIM_X", dim_x),
        ("DIM_Y", dim_y),
        ("BLK_M", blk_m),
        ("BLK_N", blk_n),
        ("BLK_K", blk_k),
        ("DIM_XA", dim_xa),
        ("DIM_YA", dim_ya),
        ("DIM_XB", dim_xb),
        ("DIM_YB", dim_yb),
        ("THR_M", blk_m / dim_x),
        ("THR_N", blk_n / dim_y),
    ];
    let code = read_code(&config);
    let kern = RawKernel::new(a.device(), &code, "sgemm")?; // a memory-cache hit after the first
    let grid = ((m as u32).div_ceil(blk_m), (n as u32).div_ceil(blk_n), 1);
    let block = (dim_x, dim_y, 1);
    let shared_mem = blk_k * (blk_m + 1) * 4 + blk_n * (blk_k + 1) * 4;
    let args = (m as i32, n as i32, k as i32, &a_f, &b_f, &c_f);
    // SAFETY: `sgemm(int M, int N, int K, const float* A, const float* B, float* C)` gets three
    // i32 and three contiguous f32 arrays: A holds M*K values (Fortran order, m x k), B K*N
    // (k x n), C M*N (m x n); the kernel reads A and B only below those bounds (its `fetch`
    // clamps to them) and writes C only where row < M and column < N.
    let launched = unsafe { kern.launch(grid, block, shared_mem, args) };
    launched?;
    Ok(c_f.t()) // the m x n view of the Fortran-order C
}

fn main() {
    let mut pick = HostGenerator::new(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0),
    );
    let mut rnd = |lo: usize, hi: usize| {
        pick.integers(lo as u64, hi as u64, &[1])
            .map(|v| v[0] as usize)
            .unwrap_or(lo)
    };
    let m = arg(&["--m"], rnd(1000, 1500));
    let n = arg(&["--n"], rnd(1000, 1500));
    let k = arg(&["--k"], rnd(500, 3000));
    let dev = match Device::new(arg(&["--gpu", "-g"], 0usize)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cupy_sgemm needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev, m, n, k) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// CuPy's `utils.benchmark`: each run timed by CUDA events around the call, in ms.
fn benchmark(dev: &Device, mut f: impl FnMut() -> Result<A>, n_run: usize) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(n_run);
    for _ in 0..n_run {
        let timer = dev.timer()?;
        f()?;
        times.push(timer.stop()?.as_secs_f64() * 1e3);
    }
    Ok(times)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn run(dev: &Device, m: usize, n: usize, k: usize) -> Result<bool> {
    println!("m={m} n={n} k={k}");
    println!("start benchmarking");
    println!();
    let mut rng = Generator::new(dev, 0);
    let a = rng.uniform(-1.0f32, 1.0, &[m, k])?;
    let b = rng.uniform(-1.0f32, 1.0, &[k, n])?;

    // check correctness (assert_array_almost_equal, decimal=3)
    let diff = sgemm(&a, &b)?
        .sub(a.matmul(&b))?
        .abs()?
        .max()?
        .to_scalar()?;
    let ok = diff < 1.5e-3;
    if !ok {
        eprintln!("wrong result: max |sgemm - matmul| = {diff}");
    }

    for _ in 0..3 {
        sgemm(&a, &b)?;
    }
    let kernel_times = benchmark(dev, || sgemm(&a, &b), 5)?;
    for _ in 0..3 {
        a.matmul(&b)?;
    }
    let cublas_times = benchmark(dev, || a.matmul(&b), 5)?;

    println!("=============================Result===============================");
    println!("hand written kernel time {} ms", mean(&kernel_times));
    println!("cuBLAS              time {} ms", mean(&cublas_times));
    for (case, t) in [
        ("cupy_example_sgemm", &kernel_times),
        ("cupy_example_sgemm_cublas", &cublas_times),
    ] {
        println!(
            "{{\"lib\": \"cuarray\", \"case\": \"{case}\", \"kind\": \"wall\", \"us\": {:.1}}}",
            mean(t) * 1e3
        );
    }
    Ok(ok)
}
