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

/// Runs `f` with every kernel launch of the calling thread skipped: everything an
/// operation does on the host (checks, planning, allocation, kernel lookup, arguments)
/// runs, the driver's launch does not. For measuring cuarray's own host cost per call.
pub fn without_launch<R>(f: impl FnOnce() -> R) -> R {
    crate::kernels::abi::without_launch(f)
}
