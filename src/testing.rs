//! Helpers for cuarray's own test harnesses and benches (not part of the stable API).

use crate::Device;

/// How `DeviceArray::to_device_via` moves data (each route is tested on one GPU).
pub use crate::array::PeerRoute;

/// Whether GPU tests must run (`CUARRAY_REQUIRE_GPU=1`, see
/// [`tuning::require_gpu`](crate::tuning::require_gpu)): then a missing GPU is a failure.
pub fn gpu_required() -> bool {
    crate::tuning::require_gpu()
}

/// Device 0 when a GPU and NVRTC are usable, else the reason they are not.
///
/// # Errors
/// The reason, as text, when no GPU or NVRTC is usable or device 0 cannot be opened.
pub fn gpu() -> Result<Device, String> {
    if let Some(reason) = crate::unavailable_reason() {
        return Err(reason);
    }
    Device::new(0).map_err(|e| e.to_string())
}

/// True when libnvrtc can be loaded (the NVRTC-only test tier runs then).
pub fn nvrtc_available() -> bool {
    crate::kernels::nvrtc::version().is_ok()
}

/// Sets the size (multiply-adds) up to which matrix products run as cuarray's own kernel
/// instead of a cuBLAS call; 0 sends every product to cuBLAS. For tests of both paths; the
/// same as [`tuning::set_small_gemm_limit`](crate::tuning::set_small_gemm_limit).
pub fn set_small_gemm_limit(flops: usize) {
    crate::tuning::set_small_gemm_limit(flops)
}

/// Sets torchrun's variables for a job of one rank (`RANK=0`, `WORLD_SIZE=1`,
/// `LOCAL_RANK=0`, `MASTER_ADDR=127.0.0.1`, `MASTER_PORT=29500`) where they are unset, so
/// that an example of [`nccl::init_from_env`](crate::nccl::init_from_env) runs alone (a
/// single rank opens no port). Call it before other threads start.
pub fn single_rank_env() {
    for (k, v) in [
        ("RANK", "0"),
        ("WORLD_SIZE", "1"),
        ("LOCAL_RANK", "0"),
        ("MASTER_ADDR", "127.0.0.1"),
        ("MASTER_PORT", "29500"),
    ] {
        if std::env::var_os(k).is_none() {
            std::env::set_var(k, v);
        }
    }
}

/// Runs `f` with every kernel launch of the calling thread skipped: everything an
/// operation does on the host (checks, planning, allocation, kernel lookup, arguments)
/// runs, the driver's launch does not. For measuring cuarray's own host cost per call.
pub fn without_launch<R>(f: impl FnOnce() -> R) -> R {
    crate::kernels::abi::without_launch(f)
}

/// The kernel library's internals that the test binaries drive directly: NVRTC, the kernel
/// families' specs, the disk cache.
pub mod kernels {
    pub use crate::kernels::{cache_key, DiskCache, IndexWidth, Render, TypeList, MAX_DIMS};

    /// NVRTC: its version, the compile options for an architecture, compilation.
    pub mod nvrtc {
        pub use crate::kernels::nvrtc::{compile, options, version};
    }

    /// The kernel families' specs and variants.
    pub mod family {
        /// Elementwise kernels.
        pub mod elementwise {
            pub use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
        }
        /// Reductions.
        pub mod reduce {
            pub use crate::kernels::family::reduce::{ReduceSpec, Variant};
        }
        /// Scans.
        pub mod scan {
            pub use crate::kernels::family::scan::{ScanSpec, Variant};
        }
        /// Raw (user) kernels.
        pub mod raw {
            pub use crate::kernels::family::raw::RawSpec;
        }
        /// cuarray's own small matrix products.
        pub mod gemm {
            pub use crate::kernels::family::gemm::GemmSpec;
        }
        /// Gathers and scatters.
        pub mod gather {
            pub use crate::kernels::family::gather::specs_for;
        }
        /// Selection (masks, nonzero).
        pub mod select {
            pub use crate::kernels::family::select::specs_for;
        }
        /// Sorting.
        pub mod sort {
            pub use crate::kernels::family::sort::specs_for;
        }
        /// Image processing (line passes and n-d windows).
        pub mod ndimage {
            pub use crate::kernels::family::ndimage::specs_for;
        }
        /// Signal processing's direct convolutions.
        pub mod signal {
            pub use crate::kernels::family::signal::specs_for;
        }
        /// Random numbers.
        pub mod random {
            pub use crate::kernels::family::random::specs_for;
        }
    }
}

/// The operations' plans and op catalogue, for host tests of their choices.
pub mod ops {
    /// The elementwise ops and their kernel bodies.
    pub mod catalogue {
        pub use crate::ops::catalogue::{
            BinaryOp, OpClass, UnaryOp, ARANGE_F_BODY, ARANGE_I_BODY, CAST_BODY, CLIP_BODY,
            COMPLEX_BODY, COPY_BODY, EYE_BODY, FILL_BODY, ISCLOSE_BODY, LINSPACE_BODY,
            NAN_TO_NUM_BODY, WHERE_BODY,
        };
    }
    /// The elementwise plan: layout variant, vector width, index width.
    pub mod elementwise {
        pub use crate::ops::elementwise::{plan, refine, spec_for, vector_width};
    }
    /// Reductions.
    pub mod reduce {
        pub use crate::ops::catalogue::{all_nan_def, not_nan_count_def, ReduceOp};
    }
    /// Scans.
    pub mod scan {
        pub use crate::ops::scan::scan_spec;
    }
    /// Matrix products.
    pub mod matmul {
        pub use crate::ops::matmul::matvec_def;
    }
}

/// The kernel bodies of the FFT helpers (tests render them with the elementwise family).
pub mod fft {
    pub use crate::fft::plan::{FFTFREQ_BODY, FFT_SCALE_BODY, RFFTFREQ_BODY};
}

/// The special functions' kernels, for the NVRTC tier.
pub mod special {
    pub use crate::special::table::kernel_specs;
}

/// The array layer's own elementwise kernels (unravel_index, ravel_multi_index, ...), for
/// the NVRTC tier.
pub mod array {
    pub use crate::array::kernel_specs;
}

/// The linear algebra kernels (eigenvectors of real matrices made complex), for the NVRTC
/// tier.
pub mod linalg {
    pub use crate::linalg::kernel_specs;
}

/// The statistics kernels (quantile indices and interpolation), for the NVRTC tier.
pub mod stats {
    pub use crate::stats::kernel_specs;
}

/// A file under the repository's `tests/fixtures/`: found in the crate's source tree, or
/// (a test binary run elsewhere, from a copy of the repository root) under the working
/// directory.
pub fn fixture_path(relative: &str) -> std::path::PathBuf {
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let dir = if built.is_dir() {
        built
    } else {
        std::path::PathBuf::from("tests/fixtures")
    };
    dir.join(relative)
}
