//! cuarray's side of the peer comparison (`bench/compare.sh` runs it beside
//! `bench/peers.py`): each case timed with CUDA events after warm-up, median of many,
//! printed as one JSON object per line. Also measures the ceilings in the same run: the
//! device-to-device copy bandwidth and a bare cudarc kernel launch.
//!
//! Cases: the fixed-size cases below (sorting and indexing among them: `sort_f32_2^26`,
//! `argsort_f32_2^26`, `argsort_rows_f32_4096x4096`, `masked_select_f32_2^26`,
//! `take_f32_2^26`, `index_rows_f32_2^20x64`, `index_put_rows_f32_2^20x64`,
//! `index_points_f32_8192^2_2^22`, `topk_f32_2^24_k100`, `searchsorted_f32_2^20_in_2^24`, `isin_i32_2^24_in_2^20`, `unique_counts_i32_2^24`; random numbers: `uniform_f32_2^28`,
//! `normal_f32_2^28`, `exponential_f32_2^28`, `integers_i32_2^28`, `uniform_f32_1000_wall`,
//! `gamma_f32_2^24`, `poisson_i64_2^24`, `binomial_i64_2^24`, `beta_f32_2^24`,
//! `choice_p_i64_2^24_of_1000`, `choice_noreplace_i64_2^20_of_2^24`; a user
//! `ElementwiseKernel`, saxpy, beside the built-in add: `user_saxpy_f32_2^28`,
//! `user_saxpy_f32_1000_wall`); fusion and CUDA graphs (the 16-step chain of 32 ops on
//! 1000 f32 unfused, fused, and each in a graph; the host cost of a fused call without its
//! launch; `a * b + c` on 2^28 f32 fused and unfused); a size sweep `add_f32_2^K` and `sum_f32_2^K` for
//! K = 10, 12, ..., 28 (the K = 28 points are the `add_f32_2^28` and `sum_f32_2^28`
//! cases; more repetitions at small sizes, where one repetition is a few microseconds
//! and, host overhead included, the rate measured is what a caller gets for one call),
//! and back to back (`add_f32_2^K_x20`, `sum_f32_2^K_x20` for K = 20, 24: 20 calls between
//! one pair of events, the time a call);
//! matrix-vector products (memory-bound: bytes = the matrix); complex numbers
//! (`mul_c64_2^24`, `abs_c64_2^24`, `sum_c64_2^24`, `matmul_c64_4096`); pageable host <-> device
//! transfers of 16 MiB and 1 GiB, timed as wall time around the call and the wait for the GPU
//! (kind "wall", with a byte count, so GB/s is reported), `d2h_pageable_into_*` into a `Vec`
//! already written (`to_host_into`; cuarray only).
//!
//! FFTs: `fft_c64_2^24`, `fft2_c64_8192x8192`, `rfft_f32_2^24`, `fft_c64_4096x4096_rows`,
//! `fft_c64_1024_wall` beside `bare_cufft_c2c_1024_wall` (cuarray's host overhead).
//! Linear algebra (cuSOLVER): `solve_f64_4096x64` (one 4096 x 4096 system, 64 right-hand
//! sides), `cholesky_f64_4096`, `svd_f32_2048`, `eigh_f32_2048`,
//! `solve_batched_f32_10000x8x8` (10,000 systems of 8 x 8, one right-hand side each), each
//! with the error check (one read of the info array) as PyTorch does it; and, for
//! choosing routines, the same without the check (`_ex`), `Xgetrf`'s other algorithm
//! (`_alg1`), the triangular solves of `Xgetrs` (`_getrs`) and other diagonal blocks
//! (`_nb128`, `_nb512`) instead of 256, and the other SVD routines (`_polar`, checked and redone where it fails;
//! `_qr`; the default is the Jacobi method).
//! Contractions and the third round's linear algebra (`benches/compare_cases/linalg_more.rs`):
//! `einsum_ij_jk_f32_512x1024x768`, `einsum_bhqd_bhkd_f32_32x16x512x64`,
//! `tensordot_f32_64x128x256_256x128x96`, `kron_f32_64^2`, `eig_f64_2048`,
//! `lu_factor_f64_4096`, `solve_triangular_f64_4096x64`, `svd_c64_2048`, `eigh_c64_2048`,
//! `expm_f64_1024`.
//!
//! Sparse (cuSPARSE): `spmv_csr_f32_2^22x16` (a CSR matrix of 2^22 rows with 16 entries
//! per row in columns `(i + j 2^18) mod 2^22`, times a vector), `spmm_csr_f32_2^22x16_k16`
//! (the same matrix times a dense 2^22 x 16 matrix), `spgemm_csr_f32_2^18x8` (the matrix
//! of 2^18 rows with 8 entries per row in columns `(i + j 2^15) mod 2^18`, squared) and
//! `cg_poisson_f64_1024^2_500it` (500 iterations of `sparse::linalg::cg` on the 5-point
//! Laplacian of a 1024 x 1024 grid, tolerance 0 so that every iteration runs);
//! `gmres_poisson_f64_256^2` and `eigsh_k6_f64_65536` (`benches/compare_cases/sparse_solvers.rs`).
//!
//! Image processing (`benches/compare_cases/ndimage.rs`): `ndimage_gaussian_f32_4096^2_s3`,
//! `ndimage_uniform_f32_4096^2_9`, `ndimage_sobel_f32_4096^2`, `ndimage_median_f32_4096^2_5x5`,
//! `ndimage_maximum_f32_4096^2_7x7`, `ndimage_rotate30_order1_f32_4096^2`,
//! `ndimage_map_coordinates_order1_f32_2^22`, `ndimage_binary_erosion_4096^2_3x3`,
//! `ndimage_label_4096^2_d0.3`, `ndimage_center_of_mass_f32_4096^2_1000labels`,
//! `ndimage_edt_2048^2`, `ndimage_zoom2_order1_f32_2048^2`, `ndimage_zoom2_order3_f32_2048^2`.
//!
//! Signal processing (`benches/compare_cases/signal.rs`): `sig_fftconvolve_f32_2^22x2^12`,
//! `sig_oaconvolve_f32_2^22x2^12`, `sig_convolve_f32_2^22x63`, `sig_convolve2d_f32_4096^2x5x5`,
//! `sig_lfilter_o2_f32_256x16384`, `sig_sosfilt_4sec_f32_256x16384`, `sig_medfilt_f32_2^22_k7`,
//! `sig_welch_f32_2^22_nperseg4096`, `sig_stft_f32_2^22_nperseg1024`.
//!
//! `cargo bench --bench compare [-- FILTER]`; without a GPU it prints one line and exits 0.

#[path = "compare_cases/signal.rs"]
mod signal_cases;

use cuarray::{Device, DeviceArray};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};

#[path = "compare_cases/fft.rs"]
mod fft_rows;
#[path = "compare_cases/linalg_more.rs"]
mod linalg_more_cases;
#[path = "compare_cases/linalg.rs"]
mod linalg_rows;
#[path = "compare_cases/ndimage.rs"]
mod ndimage_cases;
#[path = "compare_cases/random.rs"]
mod random_rows;
#[path = "compare_cases/sorting.rs"]
mod sorting_rows;
#[path = "compare_cases/sparse.rs"]
mod sparse_rows;
#[path = "compare_cases/sparse_solvers.rs"]
mod sparse_solver_cases;
#[path = "compare_cases/special_stats.rs"]
mod special_stats_rows;
use std::time::{Duration, Instant};

struct Case {
    name: String,
    /// Bytes that must cross device memory (inputs read once, outputs written once), or,
    /// for transfers, the bytes moved between host and device; negative: a flop count.
    bytes: f64,
    median: Duration,
    /// "device" (CUDA events) or "wall" (host clock per call, back to back).
    kind: &'static str,
}

fn report(c: &Case) {
    let us = c.median.as_secs_f64() * 1e6;
    let gbps = if c.bytes > 0.0 {
        c.bytes / c.median.as_secs_f64() / 1e9
    } else {
        0.0
    };
    let tflops = if c.bytes < 0.0 {
        -c.bytes / c.median.as_secs_f64() / 1e12
    } else {
        0.0
    };
    let bytes = c.bytes.max(0.0) as u64;
    println!(
        "{{\"lib\": \"cuarray\", \"case\": \"{}\", \"kind\": \"{}\", \"us\": {us:.3}, \"gbps\": {gbps:.1}, \"tflops\": {tflops:.2}, \"bytes\": {bytes}}}",
        c.name, c.kind
    );
}

const REPS: usize = 30;

fn device_case(
    dev: &Device,
    name: &str,
    bytes: f64,
    f: impl FnMut() -> cuarray::Result<()>,
) -> Case {
    device_case_reps(dev, name, bytes, 5, REPS, f)
}

fn device_case_reps(
    dev: &Device,
    name: &str,
    bytes: f64,
    warmup: usize,
    reps: usize,
    mut f: impl FnMut() -> cuarray::Result<()>,
) -> Case {
    let t = dev.time(warmup, reps, &mut f).expect("timed case failed");
    Case {
        name: name.into(),
        bytes,
        median: t.median(),
        kind: "device",
    }
}

/// Repetitions of the sweep's 2^k case: 30 at 2^28, four times more for each factor 4
/// smaller, at most 1000 (same in `bench/peers.py`).
fn sweep_reps(k: u32) -> usize {
    (REPS << (28 - k)).min(1000)
}

/// The size sweep below 2^28 (the 2^28 points are the fixed cases of the same names).
fn sweep_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    for k in (10..28).step_by(2) {
        let n = 1usize << k;
        let name = format!("add_f32_2^{k}");
        if filter(&name) {
            let a = DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0).unwrap();
            let b = DeviceArray::<f32>::full(dev, &[n], 1.5).unwrap();
            cases.push(device_case_reps(
                dev,
                &name,
                (3 * n * 4) as f64,
                10,
                sweep_reps(k),
                || (&a + &b).map(drop),
            ));
        }
    }
    for k in (10..28).step_by(2) {
        let n = 1usize << k;
        let name = format!("sum_f32_2^{k}");
        if filter(&name) {
            let a = rand_matrix::<f32>(dev, &[n]);
            cases.push(device_case_reps(
                dev,
                &name,
                (n * 4) as f64,
                10,
                sweep_reps(k),
                || a.sum().map(drop),
            ));
        }
    }
    // Back to back: 20 calls queued between one pair of events, the time a call. This is
    // what a loop of calls gets, where each launch may overlap the end of the one before;
    // the cases above time one call between events, which no launch can overlap.
    for k in [20u32, 24] {
        let n = 1usize << k;
        let a = (filter(&format!("add_f32_2^{k}_x20")) || filter(&format!("sum_f32_2^{k}_x20")))
            .then(|| rand_matrix::<f32>(dev, &[n]));
        let Some(a) = a else { continue };
        let b = DeviceArray::<f32>::full(dev, &[n], 1.5).unwrap();
        let mut per_call =
            |name: String, bytes: usize, f: &mut dyn FnMut() -> cuarray::Result<()>| {
                if filter(&name) {
                    let mut c =
                        device_case_reps(dev, &name, bytes as f64, 10, sweep_reps(k) / 4, || {
                            (0..BACK_TO_BACK).try_for_each(|_| f())
                        });
                    c.median /= BACK_TO_BACK as u32;
                    cases.push(c);
                }
            };
        per_call(format!("add_f32_2^{k}_x20"), 3 * n * 4, &mut || {
            (&a + &b).map(drop)
        });
        per_call(format!("sum_f32_2^{k}_x20"), n * 4, &mut || {
            a.sum().map(drop)
        });
    }
}

/// Calls a repetition of the back-to-back cases (`*_x20`) queues between its events.
const BACK_TO_BACK: usize = 20;

/// Matrix-vector products of an 8192 x 8192 matrix: memory-bound, bytes = the matrix.
fn matvec_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let side = 8192usize;
    if filter("matvec_f32_8192x8192") || filter("vecmat_f32_8192x8192") {
        let (a, v) = (
            rand_matrix::<f32>(dev, &[side, side]),
            rand_matrix::<f32>(dev, &[side]),
        );
        let bytes = (side * side * 4) as f64;
        if filter("matvec_f32_8192x8192") {
            cases.push(device_case(dev, "matvec_f32_8192x8192", bytes, || {
                a.matmul(&v).map(drop)
            }));
        }
        if filter("vecmat_f32_8192x8192") {
            cases.push(device_case(dev, "vecmat_f32_8192x8192", bytes, || {
                v.matmul(&a).map(drop)
            }));
        }
    }
    if filter("matvec_f64_8192x8192") {
        let (a, v) = (
            rand_matrix::<f64>(dev, &[side, side]),
            rand_matrix::<f64>(dev, &[side]),
        );
        cases.push(device_case(
            dev,
            "matvec_f64_8192x8192",
            (side * side * 8) as f64,
            || a.matmul(&v).map(drop),
        ));
    }
}

/// Wall time of one call of `f` and the wait for the GPU after it (2 warm-ups, median
/// of 7); what `f` returns is dropped outside the timed region.
fn transfer_case<R>(
    dev: &Device,
    name: &str,
    bytes: f64,
    mut f: impl FnMut() -> cuarray::Result<R>,
) -> Case {
    for _ in 0..2 {
        drop(f().unwrap());
    }
    let mut runs = Vec::new();
    for _ in 0..7 {
        dev.synchronize().unwrap();
        let t = Instant::now();
        let r = f().unwrap();
        dev.synchronize().unwrap();
        runs.push(t.elapsed());
        drop(r);
    }
    runs.sort();
    Case {
        name: name.into(),
        bytes,
        median: runs[runs.len() / 2],
        kind: "wall",
    }
}

/// Page-locked transfers of 1 GiB of f32 (`from_pinned`, `to_pinned`), device time.
fn pinned_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let n = 1usize << 28;
    let bytes = (n * 4) as f64;
    if !(filter("h2d_pinned_1GiB") || filter("d2h_pinned_1GiB")) {
        return;
    }
    let mut host = cuarray::PinnedBuffer::from_slice(dev, &vec![1.5f32; n]).unwrap();
    if filter("h2d_pinned_1GiB") {
        cases.push(device_case(dev, "h2d_pinned_1GiB", bytes, || {
            DeviceArray::from_pinned(dev, &host, &[n]).map(drop)
        }));
    }
    if filter("d2h_pinned_1GiB") {
        let a = DeviceArray::from_pinned(dev, &host, &[n]).unwrap();
        cases.push(device_case(dev, "d2h_pinned_1GiB", bytes, || {
            a.to_pinned(&mut host)
        }));
    }
}

/// Pageable transfers of 16 MiB and 1 GiB of f32: `from_slice` of a `Vec`, `to_host` into
/// a new one, and (`d2h_pageable_into_`, cuarray only) `to_host_into` a `Vec` written before.
fn transfer_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    for (n, size) in [(1usize << 22, "16MiB"), (1 << 28, "1GiB")] {
        let (h2d, d2h, into) = (
            format!("h2d_pageable_{size}"),
            format!("d2h_pageable_{size}"),
            format!("d2h_pageable_into_{size}"),
        );
        if !(filter(&h2d) || filter(&d2h) || filter(&into)) {
            continue;
        }
        let bytes = (n * 4) as f64;
        let mut host = vec![1.5f32; n];
        if filter(&h2d) {
            cases.push(transfer_case(dev, &h2d, bytes, || {
                DeviceArray::from_slice(dev, &host)
            }));
        }
        let a = DeviceArray::from_slice(dev, &host).unwrap();
        if filter(&into) {
            cases.push(transfer_case(dev, &into, bytes, || {
                a.to_host_into(&mut host)
            }));
        }
        drop(host);
        if filter(&d2h) {
            cases.push(transfer_case(dev, &d2h, bytes, || a.to_host()));
        }
    }
}

fn wall_case(dev: &Device, name: &str, mut f: impl FnMut() -> cuarray::Result<()>) -> Case {
    let iters = 2000;
    for _ in 0..200 {
        f().unwrap();
    }
    dev.synchronize().unwrap();
    let mut runs = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..iters {
            f().unwrap();
        }
        dev.synchronize().unwrap();
        runs.push(t.elapsed() / iters);
    }
    runs.sort();
    Case {
        name: name.into(),
        bytes: 0.0,
        median: runs[runs.len() / 2],
        kind: "wall",
    }
}

/// The ceilings, measured with cudarc directly: device-to-device copy bandwidth and the
/// wall time of a bare launch of a 1000-element add kernel.
fn ceilings(filter: &dyn Fn(&str) -> bool) -> Vec<Case> {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let mut out = Vec::new();
    if filter("copy_f32_2^28") {
        let n = 1usize << 28;
        let src = stream.alloc_zeros::<f32>(n).unwrap();
        let mut dst = stream.alloc_zeros::<f32>(n).unwrap();
        let start = ctx
            .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap();
        let stop = ctx
            .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap();
        let mut times = Vec::new();
        for r in 0..(REPS + 5) {
            start.record(&stream).unwrap();
            stream.memcpy_dtod(&src, &mut dst).unwrap();
            stop.record(&stream).unwrap();
            let ms = start.elapsed_ms(&stop).unwrap();
            if r >= 5 {
                times.push(Duration::from_secs_f64(ms as f64 / 1e3));
            }
        }
        times.sort();
        out.push(Case {
            name: "copy_f32_2^28".into(),
            bytes: (2 * n * 4) as f64,
            median: times[times.len() / 2],
            kind: "device",
        });
    }
    if filter("bare_cudarc_launch_add_1000") {
        let src = r#"extern "C" __global__ void add(float* o, const float* a, const float* b, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = a[i] + b[i]; }"#;
        let ptx = cudarc::nvrtc::compile_ptx(src).unwrap();
        let m = ctx.load_module(ptx).unwrap();
        let f = m.load_function("add").unwrap();
        let n = 1000i32;
        let a = stream.alloc_zeros::<f32>(1000).unwrap();
        let b = stream.alloc_zeros::<f32>(1000).unwrap();
        let mut o = stream.alloc_zeros::<f32>(1000).unwrap();
        let cfg = LaunchConfig::for_num_elems(1000);
        let mut launch = || {
            let mut l = stream.launch_builder(&f);
            l.arg(&mut o).arg(&a).arg(&b).arg(&n);
            // SAFETY: the arguments match the kernel's signature; all buffers hold 1000 floats.
            unsafe { l.launch(cfg) }.unwrap();
        };
        for _ in 0..200 {
            launch();
        }
        stream.synchronize().unwrap();
        let mut runs = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..2000 {
                launch();
            }
            stream.synchronize().unwrap();
            runs.push(t.elapsed() / 2000);
        }
        runs.sort();
        out.push(Case {
            name: "bare_cudarc_launch_add_1000".into(),
            bytes: 0.0,
            median: runs[3],
            kind: "wall",
        });
    }
    out
}

fn reduce_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let n = 1usize << 28;
    if filter("sum_f32_2^28") || filter("argmax_f32_2^28") {
        let a = rand_matrix::<f32>(dev, &[n]);
        if filter("sum_f32_2^28") {
            cases.push(device_case(dev, "sum_f32_2^28", (n * 4) as f64, || {
                a.sum().map(drop)
            }));
        }
        if filter("argmax_f32_2^28") {
            cases.push(device_case(dev, "argmax_f32_2^28", (n * 4) as f64, || {
                a.argmax().map(drop)
            }));
        }
    }
    if filter("cumsum_f32_2^28") {
        let a = rand_matrix::<f32>(dev, &[n]);
        cases.push(device_case(
            dev,
            "cumsum_f32_2^28",
            (2 * n * 4) as f64,
            || a.cumsum(0).map(drop),
        ));
    }
    let axis_cases = [
        "sum_axis1_16384^2",
        "sum_axis0_16384^2",
        "max_axis1_16384^2",
    ];
    if axis_cases.iter().any(|c| filter(c)) {
        let m = rand_matrix::<f32>(dev, &[16384, 16384]);
        if filter("sum_axis1_16384^2") {
            cases.push(device_case(
                dev,
                "sum_axis1_16384^2",
                (n * 4) as f64,
                || m.sum_axis(1).map(drop),
            ));
        }
        if filter("sum_axis0_16384^2") {
            cases.push(device_case(
                dev,
                "sum_axis0_16384^2",
                (n * 4) as f64,
                || m.sum_axis(0).map(drop),
            ));
        }
        if filter("max_axis1_16384^2") {
            cases.push(device_case(
                dev,
                "max_axis1_16384^2",
                (n * 4) as f64,
                || m.max_axis(1).map(drop),
            ));
        }
    }
    if filter("sum_f32_1000_wall") {
        let a = rand_matrix::<f32>(dev, &[1000]);
        cases.push(wall_case(dev, "sum_f32_1000_wall", || a.sum().map(drop)));
    }
}

/// A saxpy `ElementwiseKernel` (`z = a * x + y`, f32) beside the built-in `add` of the
/// same operands: GB/s on 2^28 elements, wall time per call on 1000.
fn user_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let saxpy =
        cuarray::ElementwiseKernel::new("T x, T y, float32 a", "T z", "z = a * x + y;", "saxpy")
            .unwrap();
    let call = |x: &DeviceArray<f32>, y: &DeviceArray<f32>| {
        saxpy.call::<DeviceArray<f32>>((x, y, 2.0f32)).map(drop)
    };
    if filter("user_saxpy_f32_2^28") {
        let n = 1usize << 28;
        let (x, y) = (
            DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0).unwrap(),
            DeviceArray::<f32>::full(dev, &[n], 1.5).unwrap(),
        );
        cases.push(device_case(
            dev,
            "user_saxpy_f32_2^28",
            (3 * n * 4) as f64,
            || call(&x, &y),
        ));
    }
    if filter("user_saxpy_f32_1000_wall") {
        let (x, y) = (
            DeviceArray::<f32>::full(dev, &[1000], 1.0).unwrap(),
            DeviceArray::<f32>::full(dev, &[1000], 2.0).unwrap(),
        );
        cases.push(wall_case(dev, "user_saxpy_f32_1000_wall", || call(&x, &y)));
    }
}

/// Fusion and CUDA graphs. The 16-step chain `x = x * 1.0001 + 0.5` (32 ops) on 1000 f32:
/// unfused (32 kernels a call), fused (one kernel), the fused kernel in a graph (one
/// replay per call), the unfused chain in a graph (32 nodes); wall time per call, back to
/// back. The host work of a second call of the fused chain without the launch (lookup of
/// the traced tree's code, plan, output, arguments: the trace-and-cache cost). `a * b + c`
/// on 2^28 f32, fused and unfused (bytes: the 4 arrays either way).
fn fusion_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let chain = cuarray::fuse(|x: cuarray::Expr<f32>| {
        let mut y = x;
        for _ in 0..16 {
            y = y * 1.0001 + 0.5;
        }
        y
    });
    let unfused = |x: &DeviceArray<f32>| -> cuarray::Result<DeviceArray<f32>> {
        let mut y = (&(x * 1.0001f32)? + 0.5f32)?;
        for _ in 1..16 {
            y = (&(&y * 1.0001f32)? + 0.5f32)?;
        }
        Ok(y)
    };
    let x = DeviceArray::<f32>::full(dev, &[1000], 1.0).unwrap();
    if filter("chain16_unfused_f32_1000_wall") {
        cases.push(wall_case(dev, "chain16_unfused_f32_1000_wall", || {
            unfused(&x).map(drop)
        }));
    }
    if filter("chain16_fused_f32_1000_wall") {
        cases.push(wall_case(dev, "chain16_fused_f32_1000_wall", || {
            chain.call(&x).map(drop)
        }));
    }
    if filter("chain16_fused_graph_f32_1000_wall") {
        let y = DeviceArray::<f32>::zeros(dev, &[1000]).unwrap();
        chain.call_into(&y, &x).unwrap();
        let g = dev.capture(|| chain.call_into(&y, &x)).unwrap();
        cases.push(wall_case(dev, "chain16_fused_graph_f32_1000_wall", || {
            g.launch()
        }));
    }
    if filter("chain16_unfused_graph_f32_1000_wall") {
        let y = DeviceArray::<f32>::zeros(dev, &[1000]).unwrap();
        let g = dev.capture(|| y.assign(&unfused(&x)?)).unwrap();
        cases.push(wall_case(
            dev,
            "chain16_unfused_graph_f32_1000_wall",
            || g.launch(),
        ));
    }
    if filter("fused_second_call_host_1000_wall") {
        chain.call(&x).unwrap();
        cases.push(wall_case(dev, "fused_second_call_host_1000_wall", || {
            cuarray::testing::without_launch(|| chain.call(&x).map(drop))
        }));
    }
    let n = 1usize << 28;
    if filter("fma_fused_f32_2^28") || filter("fma_unfused_f32_2^28") {
        let a = DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0).unwrap();
        let b = DeviceArray::<f32>::full(dev, &[n], 1.5).unwrap();
        let c = DeviceArray::<f32>::full(dev, &[n], 0.25).unwrap();
        let fma = cuarray::fuse(
            |a: cuarray::Expr<f32>, b: cuarray::Expr<f32>, c: cuarray::Expr<f32>| a * b + c,
        );
        let bytes = (4 * n * 4) as f64;
        if filter("fma_fused_f32_2^28") {
            cases.push(device_case(dev, "fma_fused_f32_2^28", bytes, || {
                fma.call(&a, &b, &c).map(drop)
            }));
        }
        if filter("fma_unfused_f32_2^28") {
            cases.push(device_case(dev, "fma_unfused_f32_2^28", bytes, || {
                (&(&a * &b)? + &c).map(drop)
            }));
        }
    }
}

fn rand_matrix<T: cuarray::GemmElement>(dev: &Device, shape: &[usize]) -> DeviceArray<T> {
    let n: usize = shape.iter().product();
    let x = DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0).unwrap();
    let y = (&x * 0.618034f32).unwrap();
    let frac = (&y - &y.floor().unwrap()).unwrap();
    (&frac - 0.5f32)
        .unwrap()
        .astype::<T>()
        .unwrap()
        .reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
        .unwrap()
}

fn matmul_case<T: cuarray::GemmElement>(
    dev: &Device,
    name: &str,
    batch: usize,
    m: usize,
    cases: &mut Vec<Case>,
) {
    let shape: Vec<usize> = if batch > 1 {
        vec![batch, m, m]
    } else {
        vec![m, m]
    };
    let (a, b) = (rand_matrix::<T>(dev, &shape), rand_matrix::<T>(dev, &shape));
    let flops = 2.0 * (batch * m * m * m) as f64;
    let mut c = device_case(dev, name, 0.0, || a.matmul(&b).map(drop));
    c.bytes = -flops; // negative: a flop count, reported as TFLOP/s
    cases.push(c);
}

fn matmul_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    if filter("matmul_f32_8192") {
        matmul_case::<f32>(dev, "matmul_f32_8192", 1, 8192, cases);
    }
    if filter("matmul_tf32_8192") {
        dev.set_tf32(true);
        matmul_case::<f32>(dev, "matmul_tf32_8192", 1, 8192, cases);
        dev.set_tf32(false);
    }
    if filter("matmul_f16_8192") {
        matmul_case::<half::f16>(dev, "matmul_f16_8192", 1, 8192, cases);
    }
    if filter("matmul_f16_8192_normal") {
        // Standard-normal inputs (each library's own generator): their products switch
        // more bits than the golden-ratio inputs above, so the GPU's power limit holds it
        // to a lower clock, and the kernel cuBLAS picks matters more.
        let mut rng = cuarray::random::Generator::new(dev, 5);
        let a = rng.standard_normal::<half::f16>(&[8192, 8192]).unwrap();
        let b = rng.standard_normal::<half::f16>(&[8192, 8192]).unwrap();
        let mut c = device_case(dev, "matmul_f16_8192_normal", 0.0, || {
            a.matmul(&b).map(drop)
        });
        c.bytes = -2.0 * 8192f64.powi(3);
        cases.push(c);
    }
    if filter("matmul_bf16_8192") {
        matmul_case::<half::bf16>(dev, "matmul_bf16_8192", 1, 8192, cases);
    }
    if filter("matmul_f64_4096") {
        matmul_case::<f64>(dev, "matmul_f64_4096", 1, 4096, cases);
    }
    if filter("bmm_f32_512x256") {
        matmul_case::<f32>(dev, "bmm_f32_512x256", 512, 256, cases);
    }
    if filter("matmul_f32_64_wall") {
        let (a, b) = (
            rand_matrix::<f32>(dev, &[64, 64]),
            rand_matrix::<f32>(dev, &[64, 64]),
        );
        cases.push(wall_case(dev, "matmul_f32_64_wall", || {
            a.matmul(&b).map(drop)
        }));
    }
}

/// Complex numbers: an elementwise product of two c64 arrays of 2^24 (bytes: two inputs
/// and the output), `abs` into f32 and a sum, and a c64 matrix product of 4096 (cgemm;
/// 8 real flops per complex multiply-add).
fn complex_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    use cuarray::Complex32;
    let parts = |shape: &[usize]| -> DeviceArray<Complex32> {
        let re = rand_matrix::<f32>(dev, shape);
        let im = (&re * -0.75f32).unwrap();
        cuarray::complex(&re, &im.flip(0).unwrap()).unwrap()
    };
    let n = 1usize << 24;
    if filter("mul_c64_2^24") || filter("abs_c64_2^24") || filter("sum_c64_2^24") {
        let (a, b) = (parts(&[n]), parts(&[n]).flip(0).unwrap().copy().unwrap());
        if filter("mul_c64_2^24") {
            cases.push(device_case(dev, "mul_c64_2^24", (3 * n * 8) as f64, || {
                (&a * &b).map(drop)
            }));
        }
        if filter("abs_c64_2^24") {
            cases.push(device_case(dev, "abs_c64_2^24", (n * 12) as f64, || {
                a.abs().map(drop)
            }));
        }
        if filter("sum_c64_2^24") {
            cases.push(device_case(dev, "sum_c64_2^24", (n * 8) as f64, || {
                a.sum().map(drop)
            }));
        }
    }
    if filter("matmul_c64_4096") {
        let m = 4096usize;
        let (a, b) = (parts(&[m, m]), parts(&[m, m]));
        let mut c = device_case(dev, "matmul_c64_4096", 0.0, || a.matmul(&b).map(drop));
        c.bytes = -8.0 * (m * m * m) as f64;
        cases.push(c);
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let filter =
        move |name: &str| args.is_empty() || args.iter().any(|a| name.contains(a.as_str()));
    let dev = match cuarray::testing::gpu() {
        Ok(d) => d,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    let mut cases: Vec<Case> = ceilings(&filter);
    let n = 1usize << 28;
    let big = |f: f32| DeviceArray::<f32>::full(&dev, &[n], f).unwrap();
    if filter("add_f32_2^28") || filter("exp_f32_2^28") {
        let (a, b) = (
            DeviceArray::<f32>::arange(&dev, 0.0, n as f32, 1.0).unwrap(),
            big(1.5),
        );
        if filter("add_f32_2^28") {
            cases.push(device_case(
                &dev,
                "add_f32_2^28",
                (3 * n * 4) as f64,
                || (&a + &b).map(drop),
            ));
        }
        if filter("exp_f32_2^28") {
            let small = (&a * 1e-9f32).unwrap();
            cases.push(device_case(
                &dev,
                "exp_f32_2^28",
                (2 * n * 4) as f64,
                || small.exp().map(drop),
            ));
        }
    }
    // The elementwise catalogue, 2^26 f32 (one input, or two for arctan2 and hypot).
    let m = 1usize << 26;
    let catalogue = ["arctan2", "log10", "cbrt", "hypot"];
    if catalogue.iter().any(|op| filter(&format!("{op}_f32_2^26"))) {
        let x = (&DeviceArray::<f32>::arange(&dev, 0.0, m as f32, 1.0).unwrap() * 1e-6f32)
            .unwrap()
            .add(0.5f32)
            .unwrap();
        let y = DeviceArray::<f32>::full(&dev, &[m], 1.5).unwrap();
        for op in catalogue {
            let name = format!("{op}_f32_2^26");
            if !filter(&name) {
                continue;
            }
            let ins = if matches!(op, "arctan2" | "hypot") {
                2
            } else {
                1
            };
            let (x, y) = (&x, &y);
            let run = move || match op {
                "arctan2" => x.arctan2(y).map(drop),
                "log10" => x.log10().map(drop),
                "cbrt" => x.cbrt().map(drop),
                _ => x.hypot(y).map(drop),
            };
            cases.push(device_case(&dev, &name, ((ins + 1) * m * 4) as f64, run));
        }
    }
    user_cases(&dev, &filter, &mut cases);
    fusion_cases(&dev, &filter, &mut cases);
    special_stats_rows::special_cases(&dev, &filter, &mut cases);
    special_stats_rows::stats_cases(&dev, &filter, &mut cases);
    ndimage_cases::ndimage_cases(&dev, &filter, &mut cases);
    signal_cases::signal_cases(&dev, &filter, &mut cases);
    let side = 8192usize;
    let m2 = (side * side) as f64;
    let square_cases = [
        "add_broadcast_8192x8192+8192x1",
        "add_transposed_8192x8192",
        "transpose_copy_8192x8192",
    ];
    if square_cases.iter().any(|c| filter(c)) {
        let m = DeviceArray::<f32>::arange(&dev, 0.0, m2 as f32, 1.0)
            .unwrap()
            .reshape(&[side as isize, side as isize])
            .unwrap();
        let col = DeviceArray::<f32>::full(&dev, &[side, 1], 2.0).unwrap();
        let other = DeviceArray::<f32>::full(&dev, &[side, side], 3.0).unwrap();
        if filter("add_broadcast_8192x8192+8192x1") {
            cases.push(device_case(
                &dev,
                "add_broadcast_8192x8192+8192x1",
                2.0 * m2 * 4.0 + side as f64 * 4.0,
                || (&m + &col).map(drop),
            ));
        }
        if filter("add_transposed_8192x8192") {
            let mt = m.t();
            cases.push(device_case(
                &dev,
                "add_transposed_8192x8192",
                3.0 * m2 * 4.0,
                || (&mt + &other).map(drop),
            ));
        }
        if filter("transpose_copy_8192x8192") {
            let mt = m.t();
            cases.push(device_case(
                &dev,
                "transpose_copy_8192x8192",
                2.0 * m2 * 4.0,
                || mt.contiguous().map(drop),
            ));
        }
    }
    if filter("copy_kernel_f32_2^28") {
        let a = big(1.0);
        cases.push(device_case(
            &dev,
            "copy_kernel_f32_2^28",
            (2 * n * 4) as f64,
            || a.copy().map(drop),
        ));
    }
    reduce_cases(&dev, &filter, &mut cases);
    sorting_rows::sort_cases(&dev, &filter, &mut cases);
    random_rows::random_cases(&dev, &filter, &mut cases);
    fft_rows::fft_cases(&dev, &filter, &mut cases);
    matmul_cases(&dev, &filter, &mut cases);
    complex_cases(&dev, &filter, &mut cases);
    matvec_cases(&dev, &filter, &mut cases);
    linalg_rows::linalg_cases(&dev, &filter, &mut cases);
    linalg_more_cases::linalg_more_cases(&dev, &filter, &mut cases);
    sparse_rows::sparse_cases(&dev, &filter, &mut cases);
    sparse_solver_cases::sparse_solver_cases(&dev, &filter, &mut cases);
    sweep_cases(&dev, &filter, &mut cases);
    transfer_cases(&dev, &filter, &mut cases);
    pinned_cases(&dev, &filter, &mut cases);
    if filter("pool_cycle_4KiB_wall") {
        cases.push(wall_case(&dev, "pool_cycle_4KiB_wall", || {
            cuarray::DeviceBuffer::new(&dev, 4096).map(drop)
        }));
    }
    if filter("add_f32_1000_wall") {
        let (a, b) = (
            DeviceArray::<f32>::full(&dev, &[1000], 1.0).unwrap(),
            DeviceArray::<f32>::full(&dev, &[1000], 2.0).unwrap(),
        );
        cases.push(wall_case(&dev, "add_f32_1000_wall", || (&a + &b).map(drop)));
    }
    for c in &cases {
        report(c);
    }
    let copy = cases
        .iter()
        .find(|c| c.name.starts_with("copy_"))
        .map(|c| c.bytes / c.median.as_secs_f64() / 1e9);
    let launch = cases
        .iter()
        .find(|c| c.name.starts_with("bare_"))
        .map(|c| c.median);
    println!(
        "{:<36} {:>10} {:>10} {:>10}",
        "case", "us", "GB/s", "ceiling"
    );
    for c in &cases {
        let us = c.median.as_secs_f64() * 1e6;
        let (gbps, frac) = if c.bytes < 0.0 {
            (
                format!("{:.1} TF", -c.bytes / c.median.as_secs_f64() / 1e12),
                String::new(),
            )
        } else if c.bytes > 0.0 && c.kind == "wall" {
            // A transfer: host <-> device, not bounded by the device copy.
            (
                format!("{:.1}", c.bytes / c.median.as_secs_f64() / 1e9),
                String::new(),
            )
        } else if c.bytes > 0.0 {
            let g = c.bytes / c.median.as_secs_f64() / 1e9;
            (
                format!("{g:.0}"),
                copy.map(|cp| format!("{:.0}% copy", 100.0 * g / cp))
                    .unwrap_or_default(),
            )
        } else {
            (
                "-".into(),
                launch
                    .map(|l| format!("{:.2}x bare", c.median.as_secs_f64() / l.as_secs_f64()))
                    .unwrap_or_default(),
            )
        };
        println!("{:<36} {:>10.2} {:>10} {:>10}", c.name, us, gbps, frac);
    }
}
