//! The raw family: a whole CUDA source written by the user and the name of one
//! `extern "C" __global__` function in it (`RawKernel`, `RawModule`).
//!
//! The rendered source is cuarray's `common.cuh` and `ops.cuh` (so that `cuarray_f16`,
//! `cuarray_bf16` and the `cuarray_*` device functions are there without CUDA headers),
//! then a `#line 1 "<name>.cu"` directive and the user's source unchanged, so that
//! NVRTC's messages give the user's own line numbers. The arguments are whatever the
//! function declares; the launch geometry is the caller's.

use crate::kernels::{Family, KernelSpec, Text};

/// One function of a user's CUDA source.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawSpec {
    /// The whole source.
    pub source: Text,
    /// The `extern "C"` function to load from it.
    pub name: Text,
}

impl From<RawSpec> for KernelSpec {
    fn from(spec: RawSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl Family for RawSpec {
    fn headers(&self) -> &'static [&'static str] {
        &[]
    }

    fn symbol(&self) -> String {
        self.name.to_string()
    }

    /// A user's kernel may touch memory before anything waits for the grid before it.
    fn dependent_launch(&self) -> bool {
        false
    }

    fn render(&self, src: &mut String) {
        src.push_str("#line 1 \"");
        src.push_str(&self.name);
        src.push_str(".cu\"\n");
        src.push_str(&self.source);
        src.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_sources_are_launched_plainly() {
        // A user's kernel may touch memory before anything waits for the grid before it.
        let spec = RawSpec {
            source: "extern \"C\" __global__ void k(float* p) { p[0] = 1.0f; }".into(),
            name: "k".into(),
        };
        assert!(!spec.dependent_launch());
    }

    #[test]
    fn raw_spec_example() {
        use crate::kernels::family::raw::RawSpec;
        use crate::kernels::Render;
        let spec = RawSpec {
            source: "extern \"C\" __global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }".into(),
            name: "fill".into(),
        };
        assert_eq!(Render::symbol(&spec), "fill");
        assert!(spec.source().contains("#line 1 \"fill.cu\"\nextern \"C\""));
    }
}
