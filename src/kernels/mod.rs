//! The kernel library: families of kernel templates, source generation, NVRTC
//! compilation and caching.
//!
//! Each family (`family/`) owns a spec type that names one kernel completely (op body,
//! element types, layout variant, index width) and renders it into CUDA source: the
//! embedded headers of `kernels/`, then one generated `extern "C"` wrapper. [`nvrtc`]
//! compiles that source to CUBIN for the device's architecture; the cache keeps compiled
//! kernels in memory per device and on disk.
//!
//! The public items are [`KernelSpec`] (an opaque kernel, for [`Device::prewarm`]) and
//! [`CacheStats`]; the rest is documented for maintainers.
//!
//! [`Device::prewarm`]: crate::Device::prewarm

pub(crate) mod abi;
pub(crate) mod cache;
mod emit;
pub(crate) mod family;
pub(crate) mod nvrtc;
mod operand;
pub(crate) mod sources;
mod text;

pub use cache::CacheStats;
pub use cache::{cache_key, DiskCache};
pub(crate) use operand::Operand;
pub(crate) use text::Text;

use crate::element::DType;
use crate::{Device, Result};
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

/// Threads per block of every kernel but the tiled scan.
pub(crate) const BLOCK: u32 = 256;

/// One family of kernels: a spec type that determines one compiled kernel.
///
/// The rendered source is `common.cuh`, `ops.cuh`, then [`headers`](Family::headers) in
/// order (each followed by a newline), then [`render`](Family::render)'s wrapper, which
/// defines [`symbol`](Family::symbol) with `__launch_bounds__(block_threads())`.
pub(crate) trait Family: Clone + Eq + Hash + Debug + Send + Sync + 'static {
    /// The family's template headers in `kernels/`, in include order.
    fn headers(&self) -> &'static [&'static str];
    /// The `extern "C"` symbol, unique per spec.
    fn symbol(&self) -> String;
    /// Appends the wrapper (type names and the `extern "C"` kernel) to `src`.
    fn render(&self, src: &mut String);
    /// Threads per block the kernel is compiled for and launched with.
    fn block_threads(&self) -> u32 {
        BLOCK
    }
    /// Whether the kernel starts with `cuarray_dependent_entry()` (every wrapper the
    /// crate renders does), so that it may be launched while the grid before it runs.
    fn dependent_launch(&self) -> bool {
        true
    }
}

/// The full source of `spec`'s kernel. Pure: no CUDA call.
pub(crate) fn source<F: Family>(spec: &F) -> String {
    let mut src = String::with_capacity(8192);
    for header in ["common.cuh", "ops.cuh"].iter().chain(spec.headers()) {
        src.push_str(sources::get(header));
        src.push('\n');
    }
    spec.render(&mut src);
    src
}

/// One kernel of any family, type-erased: what [`Device::prewarm`] takes.
///
/// Obtain a ready set from [`common_specs`](crate::common_specs).
///
/// [`Device::prewarm`]: crate::Device::prewarm
#[derive(Clone)]
pub struct KernelSpec(Arc<dyn AnyKernel>);

/// A family's spec with its type erased.
trait AnyKernel: Send + Sync + Debug {
    fn symbol(&self) -> String;
    fn source(&self) -> String;
    fn load(&self, device: &Device) -> Result<()>;
}

impl<F: Family> AnyKernel for F {
    fn symbol(&self) -> String {
        Family::symbol(self)
    }
    fn source(&self) -> String {
        source(self)
    }
    fn load(&self, device: &Device) -> Result<()> {
        cache::kernel(device, self).map(drop)
    }
}

impl KernelSpec {
    pub(crate) fn new<F: Family>(spec: F) -> KernelSpec {
        KernelSpec(Arc::new(spec))
    }

    /// The kernel's `extern "C"` symbol, e.g. `cuarray_ew_add_f32f32_f32_v4_i32`.
    ///
    /// ```
    /// let specs = cuarray::common_specs();
    /// assert!(specs.iter().all(|s| s.symbol().starts_with("cuarray_")));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn symbol(&self) -> String {
        self.0.symbol()
    }

    /// The kernel's full CUDA source.
    #[doc(hidden)]
    pub fn source(&self) -> String {
        self.0.source()
    }
}

/// The symbol and source of any family's spec, for tests and tools (the family trait
/// itself is internal).
pub trait Render {
    /// The kernel's `extern "C"` symbol.
    fn symbol(&self) -> String;
    /// The kernel's full CUDA source.
    fn source(&self) -> String;
}

impl<S: Clone + Into<KernelSpec>> Render for S {
    fn symbol(&self) -> String {
        self.clone().into().0.symbol()
    }
    fn source(&self) -> String {
        self.clone().into().0.source()
    }
}

impl Debug for KernelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Device {
    /// Compiles (or loads from the disk cache) each kernel of `specs` now, so that their
    /// first use later costs nothing. See [`common_specs`](crate::common_specs) for a ready
    /// set.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// dev.prewarm(&cuarray::common_specs())?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LibraryNotFound`](crate::Error::LibraryNotFound) without NVRTC;
    /// [`Error::Compile`](crate::Error::Compile) with NVRTC's log when a kernel does not
    /// compile; [`Error::Cuda`](crate::Error::Cuda) when the driver cannot load one.
    pub fn prewarm(&self, specs: &[KernelSpec]) -> Result<()> {
        specs.iter().try_for_each(|s| s.0.load(self))
    }
}

/// The integer type kernels index with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// 32-bit (`int`): chosen only when every offset provably fits.
    I32,
    /// 64-bit (`long long`).
    I64,
}

impl IndexWidth {
    /// The CUDA spelling.
    pub const fn cuda_type(self) -> &'static str {
        match self {
            IndexWidth::I32 => "int",
            IndexWidth::I64 => "long long",
        }
    }
    /// Short name for symbols.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            IndexWidth::I32 => "i32",
            IndexWidth::I64 => "i64",
        }
    }
}

/// Most operands of one kernel: inputs + outputs.
pub(crate) const MAX_OPERANDS: usize = 8;
/// Most scalar parameters of one kernel (a fused expression's constants and scalar
/// arguments are scalar parameters too).
pub(crate) const MAX_SCALARS: usize = 16;
/// Most collapsed dimensions a strided kernel indexes.
pub const MAX_DIMS: usize = 16;

/// Longest [`TypeList`]: operands or scalar parameters of one kernel.
const MAX_LIST: usize = if MAX_OPERANDS > MAX_SCALARS {
    MAX_OPERANDS
} else {
    MAX_SCALARS
};

/// A short list of dtypes, stored inline (no allocation on the hot path).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeList {
    len: u8,
    items: [DType; MAX_LIST],
}

impl TypeList {
    /// A list from a slice (at most [`MAX_SCALARS`] entries, and [`MAX_OPERANDS`] for
    /// operands).
    ///
    /// # Panics
    /// When `types` is longer than that (a programming error in a caller that checked
    /// its operand or scalar count).
    #[track_caller]
    pub fn new(types: &[DType]) -> TypeList {
        assert!(types.len() <= MAX_LIST, "too many kernel operands");
        let mut items = [DType::Bool; MAX_LIST];
        items[..types.len()].copy_from_slice(types);
        TypeList {
            len: types.len() as u8,
            items,
        }
    }
    /// The types.
    pub fn as_slice(&self) -> &[DType] {
        &self.items[..self.len as usize]
    }
    /// Number of types.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Debug for TypeList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
