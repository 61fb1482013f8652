//! NVIDIA libraries behind cuarray's operations (cuBLAS, cuSOLVER), one file each: the per-device handle
//! (a device extension, created on first use), its workspace from the memory pool, and
//! safe wrappers around the `sys` calls cuarray makes.
//!
//! Every library is found at run time by the same search as NVRTC
//! (`device::probe::require`), which names the library and every place looked when it is
//! missing. A new library is a new file here.

pub(crate) mod blas;
pub(crate) mod fft;
pub(crate) mod nccl;
pub(crate) mod solver;
