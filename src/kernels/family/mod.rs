//! The kernel families, one file each. A family is a spec type (everything that
//! determines one compiled kernel, including its own layout variants) implementing the
//! crate's `Family` trait: the template headers it needs, its `extern "C"` symbol, the
//! wrapper it renders and its block size.
//!
//! A new family is a new file here: a spec type, its `Family` impl, a
//! `From<Spec> for KernelSpec` impl (so that it can be prewarmed and tested), and its
//! template header in `kernels/`.

pub(crate) mod elementwise;
pub(crate) mod gather;
pub(crate) mod gemm;
pub(crate) mod ndimage;
pub(crate) mod random;
pub(crate) mod raw;
pub(crate) mod reduce;
pub(crate) mod scan;
pub(crate) mod select;
pub(crate) mod signal;
pub(crate) mod softmax;
pub(crate) mod sort;
