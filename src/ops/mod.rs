//! Host-side orchestration of device operations: each op is a pure `plan_*` (shapes,
//! variant, index width; tested on the host) and a short `run` that picks the kernel of
//! its family and launches it on `Operand`s.

pub(crate) mod catalogue;
pub(crate) mod elementwise;
pub(crate) mod gather;
pub(crate) mod index;
pub(crate) mod launch;
pub(crate) mod matmul;
pub(crate) mod reduce;
pub(crate) mod scan;
pub(crate) mod select;
pub(crate) mod sort;

pub(crate) use crate::kernels::Operand;

/// Sorting, selection and the gathers take the real types and bool: a complex operand is
/// an error naming the operation, not a kernel that cannot compile.
pub(crate) fn real_only(op: &'static str, dtypes: &[crate::DType]) -> crate::Result<()> {
    match dtypes.iter().find(|d| d.is_complex()) {
        Some(d) => Err(crate::Error::invalid(
            op,
            format!(
                "{} arrays are not supported (complex numbers have no order here)",
                d.name()
            ),
        )),
        None => Ok(()),
    }
}
