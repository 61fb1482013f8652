//! Launch geometry and index-width choice. Pure host code.

use crate::kernels::{IndexWidth, BLOCK};

/// Largest element count or offset handled with 32-bit indices. Kept well below
/// `i32::MAX` so that `i + 4 * grid * block` in the grid-stride loops cannot overflow.
pub(crate) const I32_LIMIT: usize = 1 << 30;

/// Blocks for `n` work items with no cap: one item per thread, the hardware schedules
/// the blocks (best for streaming kernels whose threads each do one vector or two).
pub(crate) fn grid_uncapped(n: usize) -> u32 {
    n.div_ceil(BLOCK as usize).clamp(1, i32::MAX as usize) as u32
}

/// Blocks for `n` work items: enough to cover `n` with one item per thread, at most one
/// resident wave (`resident` = multiprocessors x blocks per multiprocessor of the kernel);
/// grid-stride loops do the rest.
pub(crate) fn grid_for(n: usize, resident: u32) -> u32 {
    let want = n.div_ceil(BLOCK as usize).max(1);
    let cap = (resident as usize).max(1);
    want.min(cap) as u32
}

/// The index width for `size` elements whose operands reach at most `max_extent`
/// elements from their first element (in either direction).
pub(crate) fn index_width(size: usize, max_extent: usize) -> IndexWidth {
    if size <= I32_LIMIT && max_extent <= I32_LIMIT {
        IndexWidth::I32
    } else {
        IndexWidth::I64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids() {
        assert_eq!(grid_for(0, 132), 1);
        assert_eq!(grid_for(1000, 132), 4);
        assert_eq!(grid_for(1 << 28, 132 * 8), 132 * 8);
    }

    #[test]
    fn widths() {
        assert_eq!(index_width(1000, 1000), IndexWidth::I32);
        assert_eq!(index_width(1 << 30, 10), IndexWidth::I32);
        assert_eq!(index_width((1 << 30) + 1, 10), IndexWidth::I64);
        assert_eq!(index_width(10, 1 << 31), IndexWidth::I64);
    }
}
