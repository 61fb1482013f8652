//! [`RawKernel`] and [`RawModule`]: a user's whole CUDA source, launched with an explicit
//! geometry.

use super::params::{dtype_named, idents, is_ident, strip_comments};
use super::{Arg, ArgList, KernelArgs};
use crate::array::same_device;
use crate::element::DType;
use crate::kernels::abi::KernelArgs as LaunchArgs;
use crate::kernels::cache::kernel;
use crate::kernels::family::raw::RawSpec;
use crate::kernels::Text;
use crate::{Device, Error, Result};

const OP: &str = "RawKernel";

/// What a parameter of a raw kernel takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// A pointer to elements of the dtype (`None`: a type cuarray does not know, any
    /// array).
    Pointer(Option<DType>),
    /// A scalar of the dtype.
    Scalar(DType),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct RawParam {
    name: String,
    decl: String,
    kind: Kind,
}

/// A CUDA source holding any number of `extern "C" __global__` functions, as CuPy's
/// `RawModule`; [`get_function`](Self::get_function) gives each as a [`RawKernel`].
///
/// The source is compiled by NVRTC after cuarray's `common.cuh` and `ops.cuh`, so it may
/// use `cuarray_f16` and `cuarray_bf16` (16-bit floats converting to and from `float`)
/// and cuarray's device functions without CUDA headers. Each function is compiled and
/// cached (in memory and on disk) on its first use; with the disk cache on, the other
/// functions of the same source load from it.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, RawModule};
/// let dev = Device::new(0)?;
/// let m = RawModule::new(&dev, r#"
///     extern "C" __global__ void fill(float* p, float v, unsigned long long n) {
///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
///         if (i < n) p[i] = v;
///     }
///     extern "C" __global__ void twice(float* p, unsigned long long n) {
///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
///         if (i < n) p[i] *= 2.0f;
///     }"#)?;
/// let a = DeviceArray::<f32>::zeros(&dev, &[1000])?;
/// // SAFETY: each kernel touches p[i] for i < n only, and n = 1000 is the length of `a`.
/// unsafe {
///     m.get_function("fill")?.launch((4, 1, 1), (256, 1, 1), 0, (&a, 1.5f32, 1000u64))?;
///     m.get_function("twice")?.launch((4, 1, 1), (256, 1, 1), 0, (&a, 1000u64))?;
/// }
/// assert_eq!(a.to_host()?, vec![3.0; 1000]);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RawModule {
    device: Device,
    source: Text,
}

impl RawModule {
    /// A module of `source` for `device` (whose stream its kernels launch on).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, RawModule};
    /// let dev = Device::new(0)?;
    /// let m = RawModule::new(&dev, r#"
    ///     extern "C" __global__ void zero(float* p, unsigned long long n) {
    ///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    ///         if (i < n) p[i] = 0.0f;
    ///     }"#)?; // nothing compiled yet
    /// let zero = m.get_function("zero")?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// None yet (the functions compile when taken); the `Result` leaves room for checks.
    pub fn new(device: &Device, source: &str) -> Result<RawModule> {
        Ok(RawModule {
            device: device.clone(),
            source: Text::shared(source),
        })
    }

    /// The `extern "C" __global__` function `name`, compiled (or loaded from the cache).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, RawModule};
    /// let dev = Device::new(0)?;
    /// let m = RawModule::new(&dev, r#"extern "C" __global__ void noop() {}"#)?;
    /// let k = m.get_function("noop")?; // compiled here
    /// assert!(m.get_function("missing").is_err());
    /// // SAFETY: the kernel takes no parameters and touches no memory.
    /// unsafe { k.launch((1, 1, 1), (32, 1, 1), 0, ())? };
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`RawKernel::new`].
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        RawKernel::from_text(&self.device, self.source.clone(), name)
    }
}

/// One `extern "C" __global__` function of a CUDA source written by the user, as CuPy's
/// `RawKernel`, launched with an explicit grid, block, dynamic shared memory and
/// arguments.
///
/// The function's parameter list is read from the source: each argument's kind is checked
/// at the launch against it (an array for a pointer of the same element type, a scalar of
/// exactly the parameter's type), with an error naming the parameter. Arrays must be
/// C-contiguous; the kernel receives the address of their first element.
///
/// cuarray checks the arguments, not what the kernel does with them: indexing past an
/// array corrupts device memory or fails the launch, reported by the next call that waits
/// for the GPU, as with any CUDA kernel. That is why [`launch`](Self::launch) is an
/// `unsafe fn` (see its `# Safety` section).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, RawKernel};
/// let dev = Device::new(0)?;
/// let k = RawKernel::new(&dev, r#"
///     extern "C" __global__ void iota(long long* out, unsigned long long n) {
///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
///         if (i < n) out[i] = (long long)i;
///     }"#, "iota")?;
/// let out = DeviceArray::<i64>::zeros(&dev, &[1000])?;
/// // SAFETY: the kernel writes out[i] for i < n only, and n = 1000 is the length of `out`.
/// unsafe { k.launch((4, 1, 1), (256, 1, 1), 0, (&out, 1000u64))? };
/// assert_eq!(out.to_host()?[999], 999);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RawKernel {
    device: Device,
    spec: RawSpec,
    params: Vec<RawParam>,
}

impl RawKernel {
    /// The function `name` of `source`, compiled now (or loaded from the kernel cache), for
    /// `device`, whose stream [`launch`](Self::launch) uses.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, RawKernel};
    /// let dev = Device::new(0)?;
    /// let k = RawKernel::new(&dev, r#"
    ///     extern "C" __global__ void scale(float* p, float s, unsigned long long n) {
    ///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    ///         if (i < n) p[i] *= s;
    ///     }"#, "scale")?; // parameters read from the source: (array f32, f32, u64)
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the source defines no `__global__` function `name`,
    /// or a parameter has a type cuarray cannot pass (a reference, a struct);
    /// [`Error::Compile`] with NVRTC's log (line numbers of `source`) when it does not
    /// compile; [`Error::Cuda`] when the function is not in the compiled module (declare
    /// it `extern "C"`).
    pub fn new(device: &Device, source: &str, name: &str) -> Result<RawKernel> {
        Self::from_text(device, Text::shared(source), name)
    }

    fn from_text(device: &Device, source: Text, name: &str) -> Result<RawKernel> {
        if !is_ident(name) {
            return Err(Error::invalid(
                OP,
                format!("kernel name `{name}` is not a C identifier"),
            ));
        }
        let params = signature(&source, name).map_err(|m| Error::invalid(OP, m))?;
        let spec = RawSpec {
            source,
            name: Text::shared(name),
        };
        kernel(device, &spec)?;
        Ok(RawKernel {
            device: device.clone(),
            spec,
            params,
        })
    }

    /// The function's name.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, RawKernel};
    /// let dev = Device::new(0)?;
    /// let k = RawKernel::new(&dev, r#"extern "C" __global__ void noop() {}"#, "noop")?;
    /// assert_eq!(k.name(), "noop");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Launches the kernel on the stream of the device handle it was made with: `grid`
    /// blocks of `block` threads (x, y, z), `shared_mem_bytes` of dynamic shared memory
    /// (`extern __shared__`), and `args` (a tuple of arrays and scalars, one per
    /// parameter). Returns once the launch is queued.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, RawKernel};
    /// let dev = Device::new(0)?;
    /// let k = RawKernel::new(&dev, r#"
    ///     extern "C" __global__ void scale(float* p, float s, unsigned long long n) {
    ///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    ///         if (i < n) p[i] *= s;
    ///     }"#, "scale")?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1000])?;
    /// // SAFETY: the kernel takes (float*, float, unsigned long long) and touches p[i] for
    /// // i < n only; `a` holds n = 1000 f32.
    /// unsafe { k.launch((4, 1, 1), (256, 1, 1), 0, (&a, 3.0f32, 1000u64))? }; // 4 blocks of 256 threads
    /// assert_eq!(a.to_host()?, vec![3.0; 1000]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the parameter for a wrong argument count, kind or
    /// type, or an array that is not C-contiguous; [`Error::DeviceMismatch`] for an array
    /// of another device; [`Error::Cuda`] when the driver refuses the geometry (e.g. more
    /// than 1024 threads per block, or more shared memory than the device has).
    ///
    /// # Safety
    /// The kernel is the caller's code, run as it is written. cuarray checks the arguments
    /// against the parameter list read from the source (their count, each array's element
    /// type for a pointer of a known type, each scalar's exact type), but not what the
    /// kernel does with them, as cudarc's launch does not. The caller must make sure that:
    /// - every access the kernel makes through a pointer stays within the array passed
    ///   for it, for this grid and block (e.g. a length argument is at most the array's
    ///   length), and a pointer of a type cuarray does not know gets an array whose
    ///   element type the kernel expects;
    /// - the kernel uses no more dynamic shared memory (`extern __shared__`) than
    ///   `shared_mem_bytes`;
    /// - an array the kernel writes is not an array also read or written by work on
    ///   another stream that is not ordered with this launch, and is not shared through
    ///   another view the kernel reads expecting the old values.
    pub unsafe fn launch<'a>(
        &self,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_mem_bytes: u32,
        args: impl KernelArgs<'a>,
    ) -> Result<()> {
        // SAFETY: the caller's obligations of `launch` are those of `launch_on`.
        unsafe { self.launch_on(&self.device, grid, block, shared_mem_bytes, args) }
    }

    /// [`launch`](Self::launch) on the stream of `device` (a handle of the same device,
    /// e.g. [`Stream::device`](crate::Stream::device)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, RawKernel};
    /// let dev = Device::new(0)?;
    /// let k = RawKernel::new(&dev, r#"
    ///     extern "C" __global__ void scale(float* p, float s, unsigned long long n) {
    ///         unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    ///         if (i < n) p[i] *= s;
    ///     }"#, "scale")?;
    /// let side = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&side.device(), &[1000])?; // written on `side`
    /// // SAFETY: the kernel touches p[i] for i < n only, `a` holds n = 1000 f32, and
    /// // `a` is used on `side` only.
    /// unsafe { k.launch_on(&side.device(), (4, 1, 1), (256, 1, 1), 0, (&a, 3.0f32, 1000u64))? };
    /// side.synchronize()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`launch`](Self::launch); [`Error::DeviceMismatch`] when `device` is another
    /// device.
    ///
    /// # Safety
    /// As [`launch`](Self::launch), for work ordered on `device`'s stream.
    pub unsafe fn launch_on<'a>(
        &self,
        device: &Device,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_mem_bytes: u32,
        args: impl KernelArgs<'a>,
    ) -> Result<()> {
        same_device(OP, device, &self.device)?;
        let mut list = ArgList::new();
        args.push_all(&mut list);
        let name = &*self.spec.name;
        if list.count() != self.params.len() {
            let decl: Vec<&str> = self.params.iter().map(|p| p.decl.as_str()).collect();
            return Err(Error::invalid(
                OP,
                format!(
                    "{name}: {} argument(s) given, the kernel takes {} ({})",
                    list.count(),
                    self.params.len(),
                    decl.join(", ")
                ),
            ));
        }
        let mut la = LaunchArgs::new();
        for (p, a) in self.params.iter().zip(list.iter()) {
            let bad = |got: String| {
                Error::invalid(
                    OP,
                    format!("{name}: parameter `{}` is `{}`, got {got}", p.name, p.decl),
                )
            };
            match (&p.kind, a) {
                (Kind::Pointer(d), Arg::Array(x)) => {
                    if d.is_some_and(|d| d != x.dtype) {
                        return Err(bad(format!("{a} of {}", a.dtype())));
                    }
                    if !x.layout().is_c_contiguous() {
                        return Err(Error::invalid(
                            OP,
                            format!(
                                "{name}: the array for `{}` is not C-contiguous (strides {:?}); pass a.contiguous()",
                                p.name,
                                x.layout().strides()
                            ),
                        ));
                    }
                    x.used_by(OP, device)?;
                    la.ptr(x.operand_as(x.layout().shape())?.ptr());
                }
                (Kind::Scalar(d), Arg::Scalar(s)) if *d == s.dtype => {
                    la.scalar(&s);
                }
                _ => return Err(bad(format!("{a} of {}", a.dtype()))),
            }
        }
        let f = kernel(device, &self.spec)?;
        debug_assert_eq!(la.len(), self.params.len());
        // SAFETY: one argument per parameter of the function's declaration, read from its
        // source: a device pointer (8 bytes) for each pointer parameter, the exact scalar
        // type for each scalar parameter. The pointers address the first element of live,
        // C-contiguous arrays borrowed for the call; what the kernel does with them is
        // the user's code, whose accesses the caller vouches for (see `launch`'s Safety).
        unsafe { la.launch_with(device, &f, grid, block, shared_mem_bytes) }
    }
}

/// The parameters of the `__global__` function `name` in `source`.
fn signature(source: &str, name: &str) -> std::result::Result<Vec<RawParam>, String> {
    let code = strip_comments(source);
    let mut from = 0;
    while let Some(at) = code[from..].find(name).map(|k| k + from) {
        from = at + name.len();
        let before_ok = code[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let rest = code[from..].trim_start();
        if !before_ok || !rest.starts_with('(') {
            continue;
        }
        // The declaration's head: back to the previous `;`, `}` or `{`.
        let head_start = code[..at].rfind([';', '}', '{']).map_or(0, |k| k + 1);
        if !idents(&code[head_start..at]).any(|w| w == "__global__") {
            continue;
        }
        let open = code.len() - rest.len();
        let mut depth = 0;
        let mut close = None;
        for (k, c) in code[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let close = close.ok_or_else(|| format!("{name}: unbalanced parentheses"))?;
        return params(name, &code[open + 1..close]);
    }
    Err(format!(
        "no __global__ function `{name}` in the source (declare it extern \"C\" __global__ void {name}(...))"
    ))
}

/// The parameters of a declaration's list.
fn params(kernel: &str, list: &str) -> std::result::Result<Vec<RawParam>, String> {
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (k, decl) in list.split(',').enumerate() {
        let decl = decl.split('=').next().unwrap_or("").trim().to_string();
        let stars = decl.matches('*').count();
        if decl.contains('&') || decl.contains('[') || decl.contains('<') {
            return Err(format!(
                "{kernel}: parameter {} (`{decl}`) cannot be passed from cuarray (pointers and scalars only)",
                k + 1
            ));
        }
        let words: Vec<&str> = idents(&decl)
            .filter(|w| {
                !matches!(
                    *w,
                    "const" | "volatile" | "__restrict__" | "__restrict" | "restrict"
                )
            })
            .collect();
        // The last word names the parameter unless the declaration leaves it unnamed.
        let (ty_words, pname) = match words.split_last() {
            Some((last, rest)) if !rest.is_empty() && dtype_named(&words.join(" ")).is_none() => {
                (rest.to_vec(), last.to_string())
            }
            _ => (words.clone(), format!("#{}", k + 1)),
        };
        let dtype = dtype_named(&ty_words.join(" "));
        let kind = match (stars, dtype) {
            (1, d) => Kind::Pointer(d),
            (0, Some(d)) => Kind::Scalar(d),
            (0, None) => {
                return Err(format!(
                    "{kernel}: parameter `{pname}` (`{decl}`) has a type cuarray cannot pass; use a pointer or a scalar of an element type"
                ))
            }
            _ => Kind::Pointer(None),
        };
        out.push(RawParam {
            name: pname,
            decl,
            kind,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_signature() {
        let src = r#"
            // void transpose(int x) is not this one
            __device__ float helper(float v) { return v; }
            extern "C" __global__ void transpose(float* __restrict__ out,
                                                 const float* in, /* rows */ int rows,
                                                 unsigned long long cols, cuarray_f16 *h, Foo* any) {}
        "#;
        let p = signature(src, "transpose").unwrap();
        let kinds: Vec<(&str, &Kind)> = p.iter().map(|p| (p.name.as_str(), &p.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                ("out", &Kind::Pointer(Some(DType::F32))),
                ("in", &Kind::Pointer(Some(DType::F32))),
                ("rows", &Kind::Scalar(DType::I32)),
                ("cols", &Kind::Scalar(DType::U64)),
                ("h", &Kind::Pointer(Some(DType::F16))),
                ("any", &Kind::Pointer(None)),
            ]
        );
        assert!(signature(src, "helper")
            .unwrap_err()
            .contains("no __global__"));
        assert!(signature(src, "missing").is_err());
        assert!(signature("extern \"C\" __global__ void k(void) {}", "k")
            .unwrap()
            .is_empty());
        assert!(signature("__global__ void k(float& r) {}", "k")
            .unwrap_err()
            .contains("cannot be passed"));
        assert!(signature("__global__ void k(Foo f) {}", "k")
            .unwrap_err()
            .contains("`f`"));
        let unnamed = signature("__global__ void k(int, float*) {}", "k").unwrap();
        assert_eq!(unnamed[0].kind, Kind::Scalar(DType::I32));
        assert_eq!(unnamed[1].kind, Kind::Pointer(Some(DType::F32)));
    }
}
