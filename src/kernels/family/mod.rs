//! The kernel families, one file each. A family is a spec type (everything that
//! determines one compiled kernel, including its own layout variants) implementing the
//! crate's `Family` trait: the template headers it needs, its `extern "C"` symbol, the
//! wrapper it renders and its block size.
//!
//! A new family is a new file here: a spec type, its `Family` impl, a
//! `From<Spec> for KernelSpec` impl (so that it can be prewarmed and tested), and its
//! template header in `kernels/`.

pub mod elementwise;
pub mod gather;
pub mod gemm;
pub mod random;
pub mod raw;
pub mod reduce;
pub mod scan;
pub mod select;
pub mod sort;
