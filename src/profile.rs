//! NVTX ranges (feature `nvtx`): each operation, transfer and matrix product shows in
//! Nsight Systems under its name (`cuarray::add`, `cuarray::from_host`, ...). Without
//! the feature a range compiles to nothing.

/// An open NVTX range, closed on drop.
pub(crate) struct Range(());

/// Opens the range `cuarray::<name>` on the calling thread.
#[inline(always)]
pub(crate) fn range(name: &'static str) -> Range {
    #[cfg(feature = "nvtx")]
    nvtx::range_push!("cuarray::{name}");
    #[cfg(not(feature = "nvtx"))]
    let _ = name;
    Range(())
}

impl Drop for Range {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(feature = "nvtx")]
        nvtx::range_pop!();
    }
}
