//! Every setting that changes how cuarray runs (never what it computes), in one place.
//!
//! Two kinds of knobs exist:
//!
//! - **Functions** set process-wide choices of algorithm and size limits at run time.
//!   They take effect for operations queued afterwards, on every device and thread; the
//!   defaults are the measured best choices, so programs normally leave them alone. They
//!   exist for benchmarks that compare the alternatives, and for tests that exercise
//!   every path.
//! - **Environment variables** are read from the process environment, most of them once
//!   (the first time they matter), so set them before the program starts or before its
//!   first GPU operation.
//!
//! No knob changes results beyond floating-point rounding: each picks between ways of
//! computing the same thing.
//!
//! # Functions
//!
//! | knob | default | valid values | set with |
//! | --- | --- | --- | --- |
//! | products run by cuarray's own kernel up to | [`SMALL_GEMM_FLOPS`] (2^18 multiply-adds) | any `usize`; 0 sends every product to cuBLAS | [`set_small_gemm_limit`] |
//! | diagonal block size of a checked `solve` | [`DEFAULT_SOLVE_BLOCK`] (256) | any `u32`; 0 takes cuSOLVER's `Xgetrs` | [`set_solve_block`] |
//! | routine of a large single SVD | [`SvdAlgorithm::Auto`] | the [`SvdAlgorithm`] variants | [`set_svd_algorithm`] |
//! | iterations between convergence checks of the sparse solvers | [`DEFAULT_SOLVER_CHECK_INTERVAL`] (10) | any `usize` (0 counts as 1) | [`set_solver_check_interval`] |
//! | algorithm of cuSOLVER's `Xgetrf` (LU) | 0 (`CUSOLVER_ALG_0`) | 0 or 1 (`CUSOLVER_ALG_1`); any other value counts as 0 | [`set_getrf_algorithm`] |
//!
//! # Environment variables
//!
//! | variable | default | valid values | effect |
//! | --- | --- | --- | --- |
//! | `CUARRAY_CUDA_LIB_DIR` | unset | folders, `:`-separated | searched first for NVRTC, cuBLAS, cuFFT, cuSOLVER and NCCL ([`cuda_lib_dirs`]) |
//! | `CUDA_PATH`, `CUDA_HOME` | unset | a CUDA installation folder | their `lib64` is searched after `CUARRAY_CUDA_LIB_DIR` |
//! | `CUARRAY_CACHE` | on | `off` or `0` turns it off | the kernel disk cache; kernels are still cached in memory when it is off ([`disk_cache_enabled`]) |
//! | `CUARRAY_CACHE_DIR` | `$XDG_CACHE_HOME/cuarray/kernels`, else `~/.cache/cuarray/kernels` | a folder (empty counts as unset) | where the disk cache keeps compiled kernels ([`disk_cache_dir`]) |
//! | `CUARRAY_DUMP_KERNELS` | unset | a folder | the generated source of each compiled kernel is written there as `<name>.cu` ([`dump_kernels_dir`]) |
//! | `CUARRAY_DEPENDENT_LAUNCH` | on | `0` or `off` turns it off | kernels that wait for the kernel before them may start while it ends (compute capability 9.0 and later); off launches every kernel plainly ([`dependent_launch`]) |
//! | `CUARRAY_RANDOM_BLOCKS_PER_SM` | 16 | 1 to 64 (others: the default) | the grid of the random generators, in blocks per multiprocessor ([`random_blocks_per_sm`]) |
//! | `CUARRAY_SORT_ROWS` | per row length | `threads,items[,min_blocks]`: threads 32, 128, 256 or 512, items 1 to 64, min blocks 0 to 8 | the block shape sorting rows of 2049 to 4096 elements ([`sort_rows`]) |
//! | `CUARRAY_SORT_PASS` | per key type | as `CUARRAY_SORT_ROWS` | the block shape of the one-sweep radix passes of large sorts ([`sort_pass`]) |
//! | `CUARRAY_SORT_VARIANT` | per key and value size | 0 to 255 (variant bits) | the code variant of the radix passes ([`sort_variant`]) |
//! | `CUARRAY_SORT_HIST` | 32 | 1 to 32 (others: the default) | copies of each bin in the sort's histogram kernel ([`sort_hist_copies`]) |
//! | `CUARRAY_SORT_CLEAR` | 1 | 0 or 1 | whether the histogram kernel zeroes the passes' look-back words (1) or a memset does (0) ([`sort_clear`]) |
//! | `CUARRAY_SORT_AHEAD` | a quarter of the resident blocks | any `u32`; 0: no prefetch | how many tiles ahead a radix pass asks L2 for its input ([`sort_ahead`]) |
//! | `CUARRAY_RENDEZVOUS_TIMEOUT` | 300 | seconds, a positive number (others: the default) | how long [`nccl::init_from_env`](crate::nccl::init_from_env) waits for the other ranks: rank 0 for every rank to fetch the id, the others for rank 0's listener ([`rendezvous_timeout`]) |
//! | `CUARRAY_RENDEZVOUS_RETRY_MS` | 100 | 1 to 60000 milliseconds (others: the default) | the pause between two attempts to reach rank 0, and between two checks for a new connection on rank 0 ([`rendezvous_retry`]) |
//! | `CUARRAY_REQUIRE_GPU` | unset | `1` | tests and examples: a missing GPU fails instead of skipping ([`require_gpu`]) |
//!
//! The `CUARRAY_SORT_*` variables are for measuring alternatives; their defaults were
//! measured as the best on recent GPUs.
//!
//! `CUARRAY_NCCL_ID` is not read by cuarray: it is the variable the multi-process examples
//! (see [`nccl::Comm::from_id`](crate::nccl::Comm::from_id)) pass an
//! [`nccl::Id`](crate::nccl::Id) through, from rank 0 to the others.
//!
//! ```
//! use cuarray::tuning;
//! tuning::set_small_gemm_limit(0); // every matrix product through cuBLAS
//! assert_eq!(tuning::small_gemm_limit(), 0);
//! tuning::set_small_gemm_limit(tuning::SMALL_GEMM_FLOPS); // back to the default
//! assert_eq!(tuning::svd_algorithm(), tuning::SvdAlgorithm::Auto);
//! ```

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

// ---- functions ------------------------------------------------------------------------

/// Multiply-adds (batch x m x n x k) up to which a matrix product runs as one kernel of
/// cuarray's rather than a cuBLAS call, by default: 2^18, a 64 x 64 x 64 product. Products
/// whose inner dimension `k` exceeds 1024 never take that kernel (it walks `k` in one thread).
pub const SMALL_GEMM_FLOPS: usize = 1 << 18;

static SMALL_GEMM_LIMIT: AtomicUsize = AtomicUsize::new(SMALL_GEMM_FLOPS);

/// The number of multiply-adds (batch x m x n x k) up to which a matrix product runs as
/// cuarray's own kernel instead of a cuBLAS call; default [`SMALL_GEMM_FLOPS`].
///
/// ```
/// assert!(cuarray::tuning::small_gemm_limit() <= usize::MAX);
/// ```
pub fn small_gemm_limit() -> usize {
    SMALL_GEMM_LIMIT.load(Ordering::Relaxed)
}

/// Sets the number of multiply-adds up to which matrix products run as cuarray's own
/// kernel (see [`small_gemm_limit`]): any value; 0 sends every product to cuBLAS, and
/// [`SMALL_GEMM_FLOPS`] restores the default.
///
/// ```
/// use cuarray::tuning;
/// tuning::set_small_gemm_limit(0);
/// assert_eq!(tuning::small_gemm_limit(), 0);
/// tuning::set_small_gemm_limit(tuning::SMALL_GEMM_FLOPS);
/// ```
pub fn set_small_gemm_limit(flops: usize) {
    SMALL_GEMM_LIMIT.store(flops, Ordering::Relaxed)
}

/// The default diagonal block size of a checked `solve`'s blocked triangular solves.
pub const DEFAULT_SOLVE_BLOCK: u32 = 256;

/// The default of [`solver_check_interval`]: the residual norm of `sparse::linalg::cg`
/// is read back to the host every 10 iterations, so 9 of 10 iterations queue their work
/// without waiting for the device, at the cost of at most 9 iterations more than needed.
pub const DEFAULT_SOLVER_CHECK_INTERVAL: usize = 10;

static SOLVER_CHECK_INTERVAL: AtomicUsize = AtomicUsize::new(DEFAULT_SOLVER_CHECK_INTERVAL);

/// Iterations between the convergence checks of the iterative solvers of
/// `sparse::linalg` (each check reads one residual norm back to the host); default
/// [`DEFAULT_SOLVER_CHECK_INTERVAL`], at least 1.
///
/// ```
/// assert!(cuarray::tuning::solver_check_interval() >= 1);
/// ```
pub fn solver_check_interval() -> usize {
    SOLVER_CHECK_INTERVAL.load(Ordering::Relaxed).max(1)
}

/// Sets the iterations between convergence checks of the sparse solvers (see
/// [`solver_check_interval`]); 0 counts as 1 (a check every iteration).
///
/// ```
/// use cuarray::tuning;
/// tuning::set_solver_check_interval(1);
/// assert_eq!(tuning::solver_check_interval(), 1);
/// tuning::set_solver_check_interval(tuning::DEFAULT_SOLVER_CHECK_INTERVAL);
/// ```
pub fn set_solver_check_interval(k: usize) {
    SOLVER_CHECK_INTERVAL.store(k, Ordering::Relaxed)
}

static SOLVE_BLOCK: AtomicU32 = AtomicU32::new(DEFAULT_SOLVE_BLOCK);

/// The diagonal block size with which a checked `solve` of one large system (n of 1024
/// and more) runs its triangular solves as matrix products by the inverted diagonal
/// blocks; 0 means cuSOLVER's `Xgetrs` instead. Default [`DEFAULT_SOLVE_BLOCK`].
///
/// ```
/// assert!(cuarray::tuning::solve_block() <= u32::MAX);
/// ```
pub fn solve_block() -> u32 {
    SOLVE_BLOCK.load(Ordering::Relaxed)
}

/// Sets the diagonal block size of a checked `solve`'s triangular solves (see
/// [`solve_block`]): any value, 0 for cuSOLVER's `Xgetrs`; [`DEFAULT_SOLVE_BLOCK`]
/// restores the default.
///
/// ```
/// use cuarray::tuning;
/// tuning::set_solve_block(0);
/// assert_eq!(tuning::solve_block(), 0);
/// tuning::set_solve_block(tuning::DEFAULT_SOLVE_BLOCK);
/// ```
pub fn set_solve_block(nb: u32) {
    SOLVE_BLOCK.store(nb, Ordering::Relaxed)
}

/// How the SVD of a matrix that is not one of many small ones is computed. Whatever the
/// choice, a matrix where it fails (cuSOLVER's info not zero) is redone by the QR method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SvdAlgorithm {
    /// The default: the polar decomposition in f64, with its result checked, for matrices
    /// with vectors, economy size or square, both sides at least 512 (f32 ones
    /// included); `Jacobi` otherwise. (Measured on an H200, f32 2048 x 2048 Gaussian:
    /// `gesvdj` 213 ms, `gesvd` 341 ms, the polar decomposition through f64 85 ms.)
    #[default]
    Auto,
    /// cuSOLVER's `gesvdj` (Jacobi method).
    Jacobi,
    /// cuSOLVER's `Xgesvdp` (polar decomposition), economy size or square only; waits for
    /// the GPU. Its accuracy depends on the condition number: `linalg::svd` checks its
    /// results (`U S Vh = A`, orthonormal factors) and redoes failures by the Jacobi
    /// method.
    Polar,
    /// cuSOLVER's `Xgesvd` (QR iteration).
    Qr,
}

static SVD_ALGORITHM: AtomicU32 = AtomicU32::new(0);

/// The routine of large single SVDs; default [`SvdAlgorithm::Auto`].
///
/// ```
/// use cuarray::tuning::{svd_algorithm, SvdAlgorithm};
/// assert_eq!(svd_algorithm(), SvdAlgorithm::Auto);
/// ```
pub fn svd_algorithm() -> SvdAlgorithm {
    match SVD_ALGORITHM.load(Ordering::Relaxed) {
        1 => SvdAlgorithm::Jacobi,
        2 => SvdAlgorithm::Polar,
        3 => SvdAlgorithm::Qr,
        _ => SvdAlgorithm::Auto,
    }
}

/// Chooses the routine of large single SVDs (see [`SvdAlgorithm`]);
/// [`SvdAlgorithm::Auto`] restores the default.
///
/// ```no_run
/// use cuarray::tuning::{set_svd_algorithm, SvdAlgorithm};
/// set_svd_algorithm(SvdAlgorithm::Jacobi);
/// // ... SVDs by gesvdj ...
/// set_svd_algorithm(SvdAlgorithm::Auto);
/// ```
pub fn set_svd_algorithm(a: SvdAlgorithm) {
    let code = match a {
        SvdAlgorithm::Auto => 0,
        SvdAlgorithm::Jacobi => 1,
        SvdAlgorithm::Polar => 2,
        SvdAlgorithm::Qr => 3,
    };
    SVD_ALGORITHM.store(code, Ordering::Relaxed)
}

static GETRF_ALGORITHM: AtomicU32 = AtomicU32::new(0);

/// The algorithm of cuSOLVER's LU factorisation `Xgetrf`: 0 (`CUSOLVER_ALG_0`, the
/// default) or 1 (`CUSOLVER_ALG_1`).
///
/// ```
/// assert!(cuarray::tuning::getrf_algorithm() <= 1);
/// ```
pub fn getrf_algorithm() -> u32 {
    GETRF_ALGORITHM.load(Ordering::Relaxed)
}

/// Chooses the algorithm of cuSOLVER's `Xgetrf`: 1 for `CUSOLVER_ALG_1`, 0 (or any other
/// value) for `CUSOLVER_ALG_0`, the default.
///
/// ```
/// use cuarray::tuning;
/// tuning::set_getrf_algorithm(1);
/// assert_eq!(tuning::getrf_algorithm(), 1);
/// tuning::set_getrf_algorithm(0);
/// ```
pub fn set_getrf_algorithm(alg: u32) {
    GETRF_ALGORITHM.store(u32::from(alg == 1), Ordering::Relaxed)
}

// ---- environment variables ------------------------------------------------------------

/// The value of `var`, where set and not empty.
fn env_os(var: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(var).filter(|v| !v.is_empty())
}

/// `var` parsed (surrounding blanks ignored), where set and valid.
fn env_parse<T: std::str::FromStr>(var: &str) -> Option<T> {
    std::env::var(var).ok().and_then(|v| v.trim().parse().ok())
}

/// True where `var` is `0` or `off` (any case).
fn env_off(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v.trim() == "0" || v.trim().eq_ignore_ascii_case("off"))
}

/// The folders of `CUARRAY_CUDA_LIB_DIR` (`:`-separated, as `PATH`), searched before every
/// other place for NVRTC, cuBLAS, cuFFT, cuSOLVER and NCCL; empty when unset. Read at each
/// library search.
///
/// ```
/// let first_places: Vec<std::path::PathBuf> = cuarray::tuning::cuda_lib_dirs();
/// ```
pub fn cuda_lib_dirs() -> Vec<PathBuf> {
    std::env::var_os("CUARRAY_CUDA_LIB_DIR")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default()
}

/// Whether compiled kernels are kept on disk: true unless `CUARRAY_CACHE` is `off` or `0`.
/// Read when a device is first opened.
///
/// ```
/// let on: bool = cuarray::tuning::disk_cache_enabled();
/// ```
pub fn disk_cache_enabled() -> bool {
    !env_off("CUARRAY_CACHE")
}

/// The folder of the kernel disk cache: `CUARRAY_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/cuarray/kernels`, else `~/.cache/cuarray/kernels` (empty values count
/// as unset); `None` when none of these is set. Whether the cache is used at all is
/// [`disk_cache_enabled`].
///
/// ```
/// if let Some(dir) = cuarray::tuning::disk_cache_dir() {
///     println!("kernels are cached in {}", dir.display());
/// }
/// ```
pub fn disk_cache_dir() -> Option<PathBuf> {
    if let Some(d) = env_os("CUARRAY_CACHE_DIR") {
        Some(PathBuf::from(d))
    } else if let Some(d) = env_os("XDG_CACHE_HOME") {
        Some(PathBuf::from(d).join("cuarray/kernels"))
    } else {
        Some(PathBuf::from(env_os("HOME")?).join(".cache/cuarray/kernels"))
    }
}

/// The folder given by `CUARRAY_DUMP_KERNELS`, where the generated source of each kernel
/// compiled from then on is written as `<name>.cu`; `None` (the default) writes nothing.
/// Read at each compilation.
///
/// ```
/// let dump = cuarray::tuning::dump_kernels_dir();
/// ```
pub fn dump_kernels_dir() -> Option<PathBuf> {
    std::env::var_os("CUARRAY_DUMP_KERNELS").map(PathBuf::from)
}

/// Whether kernels that wait for the kernel before them themselves are launched so that
/// they may start while it ends (programmatic dependent launch, compute capability 9.0 and
/// later): true unless `CUARRAY_DEPENDENT_LAUNCH` is `0` or `off`. Read once.
///
/// ```
/// let overlapped: bool = cuarray::tuning::dependent_launch();
/// ```
pub fn dependent_launch() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| !env_off("CUARRAY_DEPENDENT_LAUNCH"))
}

/// The grid of the random generators' kernels, in blocks per multiprocessor (their
/// grid-stride loops do the rest): `CUARRAY_RANDOM_BLOCKS_PER_SM` where it is 1 to 64,
/// else 16. Read once. (H200, 2^28 f32: 16 blocks give uniform 3053 GB/s, normal 1726,
/// integers 1972, against 2632, 1492 and 1655 with one trip per thread; 4, 8 and 32
/// come within 2% of 16.)
///
/// ```
/// assert!((1..=64).contains(&cuarray::tuning::random_blocks_per_sm()));
/// ```
pub fn random_blocks_per_sm() -> u32 {
    static CAP: OnceLock<u32> = OnceLock::new();
    *CAP.get_or_init(|| {
        env_parse::<u32>("CUARRAY_RANDOM_BLOCKS_PER_SM")
            .filter(|k| (1..=64).contains(k))
            .unwrap_or(16)
    })
}

/// A sort kernel's block shape: threads per block, elements per thread, and the least
/// number of blocks per multiprocessor the kernel is compiled for (0: no bound).
pub type SortShape = (u16, u8, u8);

/// `threads,items[,min_blocks]` from `var`, where valid: threads 32, 128, 256 or 512,
/// items 1 to 64, min blocks 0 to 8.
fn sort_shape(var: &str) -> Option<SortShape> {
    let v = std::env::var(var).ok()?;
    let mut it = v.split(',').map(|x| x.trim().parse::<u16>().ok());
    let (t, i, m) = (it.next()??, it.next()??, it.next().flatten().unwrap_or(0));
    ([32, 128, 256, 512].contains(&t) && (1..=64).contains(&i) && m <= 8)
        .then_some((t, i as u8, m as u8))
}

/// The block shape of the kernel sorting rows of 2049 to 4096 elements, from
/// `CUARRAY_SORT_ROWS` (`threads,items[,min_blocks]`, see [`SortShape`]), for
/// measurements; `None` (the default, when unset or invalid): cuarray's choice per row
/// length. Read once.
///
/// ```
/// assert_eq!(cuarray::tuning::sort_rows(), None); // unless CUARRAY_SORT_ROWS is set
/// ```
pub fn sort_rows() -> Option<SortShape> {
    static T: OnceLock<Option<SortShape>> = OnceLock::new();
    *T.get_or_init(|| sort_shape("CUARRAY_SORT_ROWS"))
}

/// The block shape of the one-sweep radix passes of large sorts, from `CUARRAY_SORT_PASS`
/// (as [`sort_rows`]), for measurements; `None` (the default): cuarray's choice per key
/// type. Read once.
///
/// ```
/// assert_eq!(cuarray::tuning::sort_pass(), None); // unless CUARRAY_SORT_PASS is set
/// ```
pub fn sort_pass() -> Option<SortShape> {
    static T: OnceLock<Option<SortShape>> = OnceLock::new();
    *T.get_or_init(|| sort_shape("CUARRAY_SORT_PASS"))
}

/// The code variant bits of the radix passes, from `CUARRAY_SORT_VARIANT` (0 to 255), for
/// measurements; `None` (the default): cuarray's choice per key and value size. Read once.
///
/// ```
/// let forced: Option<u8> = cuarray::tuning::sort_variant();
/// ```
pub fn sort_variant() -> Option<u8> {
    static V: OnceLock<Option<u8>> = OnceLock::new();
    *V.get_or_init(|| env_parse("CUARRAY_SORT_VARIANT"))
}

/// The copies of each bin in the sort's histogram kernel, from `CUARRAY_SORT_HIST` (1 to
/// 32), for measurements; `None` (the default: 32, one a lane). Read once.
///
/// ```
/// let copies: Option<u8> = cuarray::tuning::sort_hist_copies();
/// ```
pub fn sort_hist_copies() -> Option<u8> {
    static C: OnceLock<Option<u8>> = OnceLock::new();
    *C.get_or_init(|| env_parse::<u8>("CUARRAY_SORT_HIST").filter(|c| (1..=32).contains(c)))
}

/// Whether the sort's histogram kernel zeroes the radix passes' look-back words (`true`)
/// or a memset before it does (`false`), from `CUARRAY_SORT_CLEAR` (0 or 1, any other
/// number counts as 1), for measurements; `None` (the default: the kernel zeroes them).
/// Read once.
///
/// ```
/// let clear: Option<bool> = cuarray::tuning::sort_clear();
/// ```
pub fn sort_clear() -> Option<bool> {
    static C: OnceLock<Option<bool>> = OnceLock::new();
    *C.get_or_init(|| env_parse::<u8>("CUARRAY_SORT_CLEAR").map(|c| c != 0))
}

/// How many tiles ahead of its own each block of a radix pass asks L2 for the input of,
/// from `CUARRAY_SORT_AHEAD` (0: no prefetch), for measurements; `None` (the default: a
/// quarter of the blocks resident on the GPU). Read once.
///
/// ```
/// let ahead: Option<u32> = cuarray::tuning::sort_ahead();
/// ```
pub fn sort_ahead() -> Option<u32> {
    static A: OnceLock<Option<u32>> = OnceLock::new();
    *A.get_or_init(|| env_parse("CUARRAY_SORT_AHEAD"))
}

/// The default of [`rendezvous_timeout`]: 300 s.
pub const RENDEZVOUS_TIMEOUT: Duration = Duration::from_secs(300);

/// How long the TCP rendezvous of [`nccl::init_from_env`](crate::nccl::init_from_env)
/// waits: rank 0 for every other rank to fetch the NCCL id, the others for rank 0 to
/// answer. `CUARRAY_RENDEZVOUS_TIMEOUT` in seconds (a positive number, fractions
/// allowed), else [`RENDEZVOUS_TIMEOUT`]. Read at each call.
///
/// ```
/// assert!(cuarray::tuning::rendezvous_timeout() > std::time::Duration::ZERO);
/// ```
pub fn rendezvous_timeout() -> Duration {
    env_parse::<f64>("CUARRAY_RENDEZVOUS_TIMEOUT")
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map_or(RENDEZVOUS_TIMEOUT, Duration::from_secs_f64)
}

/// The pause between two attempts of a rank to reach rank 0 in the rendezvous of
/// [`nccl::init_from_env`](crate::nccl::init_from_env) (and between two checks of rank 0
/// for a new connection): `CUARRAY_RENDEZVOUS_RETRY_MS` where it is 1 to 60000, else
/// 100 ms. Read at each call.
///
/// ```
/// assert!(cuarray::tuning::rendezvous_retry() >= std::time::Duration::from_millis(1));
/// ```
pub fn rendezvous_retry() -> Duration {
    Duration::from_millis(
        env_parse::<u64>("CUARRAY_RENDEZVOUS_RETRY_MS")
            .filter(|ms| (1..=60_000).contains(ms))
            .unwrap_or(100),
    )
}

/// Whether tests and examples must find a GPU (`CUARRAY_REQUIRE_GPU=1`): then a missing
/// GPU is a failure instead of a skip. Read at each call.
///
/// ```
/// if !cuarray::tuning::require_gpu() { /* a machine without a GPU may skip */ }
/// ```
pub fn require_gpu() -> bool {
    std::env::var("CUARRAY_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svd_algorithm_round_trips() {
        for a in [
            SvdAlgorithm::Jacobi,
            SvdAlgorithm::Polar,
            SvdAlgorithm::Qr,
            SvdAlgorithm::Auto,
        ] {
            set_svd_algorithm(a);
            assert_eq!(svd_algorithm(), a);
        }
    }

    #[test]
    fn getrf_algorithm_is_zero_or_one() {
        set_getrf_algorithm(7);
        assert_eq!(getrf_algorithm(), 0);
        set_getrf_algorithm(1);
        assert_eq!(getrf_algorithm(), 1);
        set_getrf_algorithm(0);
    }
}
