//! Statistics (NumPy's): order statistics (median, quantiles, percentiles and their
//! NaN-skipping forms), weighted averages, and the summaries built on them. The
//! NaN-skipping reductions (`nansum`, `nanmean`, ...), `ptp` and `median` are methods of
//! [`DeviceArray`](crate::DeviceArray); the functions here are re-exported at the crate's
//! root (`cuarray::quantile`, ...).

mod convolve;
mod more;
mod quantile;
mod summary;

pub use convolve::{convolve, correlate, ConvMode};
pub use more::{
    bincount_weighted, corrcoef, cov, cross, gradient, histogram2d, histogram_bin_edges,
    histogram_with, interp,
};
pub use quantile::{
    lerp, nanpercentile, nanquantile, percentile, quantile, quantile_index, QuantileMethod,
};
pub use summary::{average, digitize, ediff1d, trapezoid};

/// Every kernel of the statistics functions for element type `d` (the NVRTC tier).
#[doc(hidden)]
pub fn kernel_specs(d: crate::DType) -> Vec<crate::KernelSpec> {
    let mut v = quantile::kernel_specs(d);
    v.extend(more::kernel_specs(d));
    v
}
