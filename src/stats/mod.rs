//! Statistics (NumPy's): order statistics (median, quantiles, percentiles and their
//! NaN-skipping forms), weighted averages, and the summaries built on them. The
//! NaN-skipping reductions (`nansum`, `nanmean`, ...), `ptp` and `median` are methods of
//! [`DeviceArray`](crate::DeviceArray); the functions here are re-exported at the crate's
//! root (`cuarray::quantile`, ...).

mod quantile;
mod summary;

pub use quantile::{
    lerp, nanpercentile, nanquantile, percentile, quantile, quantile_index, QuantileMethod,
};
pub use summary::{average, digitize, ediff1d, trapezoid};

#[doc(hidden)]
pub use quantile::kernel_specs;
