//! Signal processing with SciPy's names and conventions (`scipy.signal`, as
//! `cupyx.scipy.signal`): filter design on the host ([`get_window`], [`firwin`],
//! [`butter`]).

mod design;

pub use design::{butter, firwin, get_window, BType, Window};
