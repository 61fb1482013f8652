//! Host-side orchestration of device operations: each op is a pure `plan_*` (shapes,
//! variant, index width; tested on the host) and a short launch.

pub mod catalogue;
pub mod elementwise;
pub(crate) mod launch;
pub mod matmul;
pub mod reduce;
pub mod scan;
