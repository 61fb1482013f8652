//! [`ElementwiseKernel`]: a user's body on the N-ary elementwise template.

use super::params::{aliases, mentions, preamble, with_line, Binding, Param, Slot};
use super::{check_name, names, parse, Arg, ArgList, KernelArgs, KernelOutputs};
use crate::element::DType;
use crate::kernels::abi::Scalar;
use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
use crate::kernels::{IndexWidth, Text, MAX_OPERANDS, MAX_SCALARS};
use crate::ops::elementwise::{run_code, spec_for, Code};
use crate::{Device, Error, Result};
use std::sync::{Arc, RwLock};

const OP: &str = "ElementwiseKernel";

/// An elementwise kernel written by the user, as CuPy's `ElementwiseKernel`: typed input
/// and output parameters, a body of CUDA C statements run once per element, a name.
///
/// A call broadcasts the array arguments together (NumPy's rules), binds the placeholders
/// to their dtypes, allocates the outputs (or takes them, [`call_into`](Self::call_into))
/// and runs the body on the same template, plan and launch as the built-in operations: a
/// `z = a * x + y` kernel is as fast as `a.add(&b)`. The kernel for each combination of
/// types and layout class is compiled once (then cached in memory and on disk).
///
/// The body sees each parameter under its name (inputs read-only, outputs to assign), each
/// placeholder as a type name, `i` (the element's C-order index in the output) and `n`
/// (the element count). Outputs start uninitialised: a body assigns every output. An
/// optional preamble ([`with_preamble`](Self::with_preamble)) holds device functions.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, ElementwiseKernel};
/// let dev = Device::new(0)?;
/// let saxpy = ElementwiseKernel::new("T x, T y, float32 a", "T z", "z = a * x + y;", "saxpy")?;
/// let x = DeviceArray::<f32>::arange(&dev, 0.0, 4.0, 1.0)?;
/// let y = DeviceArray::<f32>::full(&dev, &[2, 4], 1.0)?;   // broadcasts against x
/// let z: DeviceArray<f32> = saxpy.call((&x, &y, 2.0f32))?;
/// assert_eq!(z.to_host()?, vec![1.0, 3.0, 5.0, 7.0, 1.0, 3.0, 5.0, 7.0]);
/// // The second call with the same types and layout compiles nothing.
/// let before = dev.kernel_cache_stats().compiles;
/// let _: DeviceArray<f32> = saxpy.call((&x, &y, 0.5f32))?;
/// assert_eq!(dev.kernel_cache_stats().compiles, before);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone)]
pub struct ElementwiseKernel {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    inputs: Vec<Param>,
    outputs: Vec<Param>,
    body: String,
    preamble: String,
    /// The body reads `n`: the element count is passed as one more scalar.
    uses_n: bool,
    /// Generated code by the arrays-or-scalars pattern of the inputs (bit k: input k is
    /// an array).
    code: RwLock<Vec<(u32, Code)>>,
}

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElementwiseKernel")
            .field("name", &self.inner.name)
            .field("inputs", &self.inner.inputs)
            .field("outputs", &self.inner.outputs)
            .field("body", &self.inner.body)
            .finish()
    }
}

impl ElementwiseKernel {
    /// A kernel with input parameters `in_params` (e.g. `"T x, T y, float32 a"`), output
    /// parameters `out_params` (`"T z"`), the body `operation` (`"z = a * x + y;"`) and a
    /// name (a C identifier, part of the kernel's symbol).
    ///
    /// Nothing is compiled yet: each call compiles (or finds) the kernel for its types.
    ///
    /// ```
    /// use cuarray::{Device, DeviceArray, ElementwiseKernel};
    /// // CuPy: cp.ElementwiseKernel("T x, T y", "T z", "z = x > y ? x - y : 0", "clamped_diff")
    /// let k = ElementwiseKernel::new("T x, T y", "T z", "z = x > y ? x - y : 0;", "clamped_diff")?;
    /// assert!(ElementwiseKernel::new("T x", "T y", "y = x;", "not an identifier").is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the parameter for an unknown type, a missing or
    /// duplicate name; no output; a `raw` parameter (not supported: pass the array's
    /// elements through a [`RawKernel`](crate::RawKernel)); a name that is not an
    /// identifier.
    pub fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
    ) -> Result<ElementwiseKernel> {
        Self::with_preamble(in_params, out_params, operation, name, "")
    }

    /// [`new`](Self::new) with a preamble: device functions and types placed before the
    /// kernel (after the placeholders' type names, which it may use).
    ///
    /// ```no_run
    /// let k = cuarray::ElementwiseKernel::with_preamble(
    ///     "T x", "T y", "y = cube(x);", "cube",
    ///     "__device__ float cube(float v) { return v * v * v; }",
    /// )?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_preamble(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        preamble: &str,
    ) -> Result<ElementwiseKernel> {
        check_name(OP, name)?;
        let inputs = parse(OP, name, "input parameters", in_params)?;
        let outputs = parse(OP, name, "output parameters", out_params)?;
        if outputs.is_empty() {
            return Err(Error::invalid(
                OP,
                format!("{name}: at least one output parameter is needed"),
            ));
        }
        if let Some(p) = inputs.iter().chain(&outputs).find(|p| p.raw) {
            return Err(Error::invalid(
                OP,
                format!(
                    "{name}: parameter `{}` is raw, which ElementwiseKernel does not support (use a RawKernel)",
                    p.name
                ),
            ));
        }
        if let Some(p) = outputs
            .iter()
            .find(|o| inputs.iter().any(|i| i.name == o.name))
        {
            return Err(Error::invalid(
                OP,
                format!("{name}: `{}` is both an input and an output", p.name),
            ));
        }
        if outputs.len() > MAX_OPERANDS - 1 {
            return Err(Error::invalid(
                OP,
                format!("{name}: at most {} outputs", MAX_OPERANDS - 1),
            ));
        }
        Ok(ElementwiseKernel {
            inner: Arc::new(Inner {
                name: name.to_string(),
                uses_n: mentions(operation, "n"),
                inputs,
                outputs,
                body: operation.to_string(),
                preamble: preamble.to_string(),
                code: RwLock::new(Vec::new()),
            }),
        })
    }

    /// The kernel's name.
    ///
    /// ```
    /// let k = cuarray::ElementwiseKernel::new("T x", "T y", "y = x * x;", "square")?;
    /// assert_eq!(k.name(), "square");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Runs the kernel on `args` (a tuple of arrays and scalars, one per input parameter,
    /// in order) and returns the new output array, or a tuple of them for several
    /// outputs. The array arguments broadcast together; the output's element type is the
    /// one asked for (`let z: DeviceArray<f32> = ...`), checked against the output
    /// parameter.
    ///
    /// The kernel runs on the stream of the first array argument.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, ElementwiseKernel};
    /// let dev = Device::new(0)?;
    /// let k = ElementwiseKernel::new("T x, T y", "T lo, T hi", "lo = min(x, y); hi = max(x, y);", "minmax")?;
    /// let x = DeviceArray::from_slice(&dev, &[1.0f32, 5.0])?;
    /// let y = DeviceArray::from_slice(&dev, &[3.0f32, 2.0])?;
    /// let (lo, hi): (DeviceArray<f32>, DeviceArray<f32>) = k.call((&x, &y))?; // two outputs
    /// assert_eq!((lo.to_host()?, hi.to_host()?), (vec![1.0, 2.0], vec![3.0, 5.0]));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the parameter for a wrong argument count, type
    /// or placeholder binding, or when no argument is an array;
    /// [`Error::Broadcast`] when the arrays do not broadcast together;
    /// [`Error::DeviceMismatch`] across devices; [`Error::Compile`] when the body does not
    /// compile for these types.
    pub fn call<'a, O: KernelOutputs>(&self, args: impl KernelArgs<'a>) -> Result<O> {
        let mut list = ArgList::new();
        args.push_all(&mut list);
        let mut binding = Binding::default();
        self.check_inputs(&list, &mut binding)?;
        let k = &self.inner;
        if O::DTYPES.len() != k.outputs.len() {
            return Err(Error::invalid(
                OP,
                format!(
                    "{}: the call asks for {} output(s), the kernel has {} ({})",
                    k.name,
                    O::DTYPES.len(),
                    k.outputs.len(),
                    names(&k.outputs)
                ),
            ));
        }
        for (p, &d) in k.outputs.iter().zip(O::DTYPES) {
            binding
                .bind(p, d, "an output")
                .map_err(|m| Error::invalid(OP, format!("{}: {m}", k.name)))?;
        }
        let Some((device, shape)) = super::broadcast_args(OP, &list)? else {
            return Err(Error::invalid(
                OP,
                format!(
                    "{}: no argument is an array (the outputs' shape comes from the arrays; use call_into)",
                    k.name
                ),
            ));
        };
        let outs = O::alloc(device, &shape)?;
        let mut out_list = ArgList::new();
        outs.push_all(&mut out_list);
        self.launch(device, &list, &out_list, &shape)?;
        Ok(outs)
    }

    /// Runs the kernel on `inputs` into the given `outputs` (a tuple of arrays, one per
    /// output parameter, all of one shape, to which the inputs broadcast). Inputs that
    /// share memory with an output must have the same layout (or be read before being
    /// written at the same element).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, ElementwiseKernel};
    /// let dev = Device::new(0)?;
    /// let axpy = ElementwiseKernel::new("T x, T y, T a", "T z", "z = a * x + y;", "axpy")?;
    /// let x = DeviceArray::<f64>::ones(&dev, &[3])?;
    /// let y = DeviceArray::<f64>::zeros(&dev, &[3])?;
    /// axpy.call_into((&x, &y, 2.0f64), (&y,))?;  // y = 2 x + y, in place
    /// assert_eq!(y.to_host()?, vec![2.0; 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`call`](Self::call); also an output that is a scalar, a broadcast view, or of
    /// another shape than the first output.
    pub fn call_into<'a, 'b>(
        &self,
        inputs: impl KernelArgs<'a>,
        outputs: impl KernelArgs<'b>,
    ) -> Result<()> {
        let k = &self.inner;
        let mut list = ArgList::new();
        inputs.push_all(&mut list);
        let mut out_list = ArgList::new();
        outputs.push_all(&mut out_list);
        let mut binding = Binding::default();
        self.check_inputs(&list, &mut binding)?;
        if out_list.count() != k.outputs.len() {
            return Err(Error::invalid(
                OP,
                format!(
                    "{}: {} output(s) given, the kernel has {} ({})",
                    k.name,
                    out_list.count(),
                    k.outputs.len(),
                    names(&k.outputs)
                ),
            ));
        }
        let mut shape: Option<&[usize]> = None;
        let mut device: Option<&Device> = None;
        for (p, a) in k.outputs.iter().zip(out_list.iter()) {
            let Arg::Array(a) = a else {
                return Err(Error::invalid(
                    OP,
                    format!("{}: output `{}` must be an array", k.name, p.name),
                ));
            };
            binding
                .bind(p, a.dtype, "an array")
                .map_err(|m| Error::invalid(OP, format!("{}: {m}", k.name)))?;
            a.check_writable(OP)?;
            let s = a.layout().shape();
            match shape {
                None => {
                    shape = Some(s);
                    device = Some(a.device());
                }
                Some(first) if first != s => {
                    return Err(Error::ShapeMismatch {
                        op: OP,
                        msg: format!("output `{}` differs from the first output", p.name),
                        lhs: first.to_vec(),
                        rhs: s.to_vec(),
                    })
                }
                Some(_) => {}
            }
        }
        let (Some(shape), Some(device)) = (shape, device) else {
            return Ok(());
        };
        self.launch(device, &list, &out_list, shape)
    }

    /// The kernel spec a call would use, for tests and tools: `args` gives each input's
    /// dtype and whether it is an array (else a scalar); `n` is appended when the body
    /// uses it.
    #[doc(hidden)]
    pub fn kernel_spec(
        &self,
        args: &[(DType, bool)],
        outputs: &[DType],
        variant: Variant,
        index: IndexWidth,
    ) -> ElementwiseSpec {
        let mask = args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.1)
            .fold(0u32, |m, (k, _)| m | (1 << k));
        let ins: Vec<DType> = args.iter().filter(|a| a.1).map(|a| a.0).collect();
        let mut scalars: Vec<DType> = args.iter().filter(|a| !a.1).map(|a| a.0).collect();
        if self.inner.uses_n {
            scalars.push(DType::I64);
        }
        let code = self.code(mask);
        let mut spec = spec_for(code.op, code.body, &ins, outputs, &scalars, variant, index);
        spec.preamble = code.preamble;
        spec
    }

    /// Checks the inputs' count and types against the parameters, binding placeholders.
    fn check_inputs<'s>(&'s self, list: &ArgList<'_>, binding: &mut Binding<'s>) -> Result<()> {
        let k = &self.inner;
        if list.count() != k.inputs.len() {
            return Err(Error::invalid(
                OP,
                format!(
                    "{}: {} argument(s) given, the kernel takes {} ({})",
                    k.name,
                    list.count(),
                    k.inputs.len(),
                    names(&k.inputs)
                ),
            ));
        }
        for (p, a) in k.inputs.iter().zip(list.iter()) {
            binding
                .bind(p, a.dtype(), a)
                .map_err(|m| Error::invalid(OP, format!("{}: {m}", k.name)))?;
        }
        Ok(())
    }

    /// Launches over `shape` on `device`'s stream: outputs from `outs`, array inputs
    /// broadcast to `shape`, scalars (and `n`) as scalar parameters.
    fn launch(
        &self,
        device: &Device,
        list: &ArgList<'_>,
        outs: &ArgList<'_>,
        shape: &[usize],
    ) -> Result<()> {
        let k = &self.inner;
        let mut mask = 0u32;
        let (mut narr, mut nsc) = (0, 0);
        for (j, a) in list.iter().enumerate() {
            match a {
                Arg::Array(_) => {
                    mask |= 1 << j;
                    narr += 1;
                }
                Arg::Scalar(_) => nsc += 1,
            }
        }
        nsc += k.uses_n as usize;
        if narr + k.outputs.len() > MAX_OPERANDS || nsc > MAX_SCALARS {
            return Err(Error::invalid(
                OP,
                format!(
                    "{}: {} arrays and {nsc} scalars in one kernel; at most {MAX_OPERANDS} arrays (outputs included) and {MAX_SCALARS} scalars{}",
                    k.name,
                    narr + k.outputs.len(),
                    if k.uses_n { " (`n` counts as one)" } else { "" }
                ),
            ));
        }
        let n = [Scalar::of(shape.iter().product::<usize>() as i64)];
        let after = if k.uses_n { &n[..] } else { &[] };
        let mut scalars = [Scalar::of(0u8); MAX_SCALARS];
        let (out_ops, in_ops, s) =
            super::operands(OP, device, list, outs, shape, &[], after, &mut scalars)?;
        let code = self.code(mask);
        run_code(device, &code, &out_ops, &in_ops, &scalars[..s])
    }

    /// The generated code for the inputs' array/scalar pattern `mask`.
    fn code(&self, mask: u32) -> Code {
        let k = &self.inner;
        if let Some((_, c)) = k
            .code
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|(m, _)| *m == mask)
        {
            return c.clone();
        }
        let code = generate(k, mask);
        let mut all = k.code.write().unwrap_or_else(|p| p.into_inner());
        if !all.iter().any(|(m, _)| *m == mask) {
            all.push((mask, code.clone()));
        }
        code
    }
}

/// The code of kernel `k` for the array/scalar pattern `mask`: the aliases of the user's
/// names, the body and preamble under `#line` directives.
fn generate(k: &Inner, mask: u32) -> Code {
    let (mut a, mut s) = (0, 0);
    let mut slots: Vec<(&Param, Slot)> = Vec::new();
    for (j, p) in k.inputs.iter().enumerate() {
        if mask & (1 << j) != 0 {
            slots.push((p, Slot::In(a)));
            a += 1;
        } else {
            slots.push((p, Slot::Scalar(s)));
            s += 1;
        }
    }
    slots.extend(k.outputs.iter().enumerate().map(|(j, p)| (p, Slot::Out(j))));
    let mut body = aliases(&slots);
    if k.uses_n {
        body.push_str(&format!("const long long n = (long long)s{s}; (void)n;"));
    }
    with_line(&mut body, &format!("{}.operation", k.name), &k.body);
    // CuPy's template writes `${operation};`: an operation may end without its `;`, and
    // one that has it gains an empty statement.
    body.push_str(";\n");
    let file = format!("{}.preamble", k.name);
    Code {
        op: Text::shared(format!("user_{}", k.name)),
        body: Text::shared(body),
        preamble: Text::shared(preamble(&slots, &k.preamble, &file)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;

    #[test]
    fn generated_source_binds_the_users_names() {
        let k = ElementwiseKernel::with_preamble(
            "T x, T y, float a",
            "T z",
            "z = twice(a * x) + y + n;",
            "saxpy",
            "__device__ float twice(float v) { return v + v; }",
        )
        .unwrap();
        assert!(k.inner.uses_n);
        let code = k.code(0b011);
        assert_eq!(&*code.op, "user_saxpy");
        let mut spec = spec_for(
            code.op.clone(),
            code.body.clone(),
            &[DType::F32, DType::F32],
            &[DType::F32],
            &[DType::F32, DType::I64],
            Variant::Contiguous,
            IndexWidth::I32,
        );
        spec.preamble = code.preamble.clone();
        let src = source(&spec);
        for want in [
            "typedef in0_t T;\n\n#line 1 \"saxpy.preamble\"\n__device__ float twice",
            "const in0_t& x = in0; const in1_t& y = in1; const s0_t& a = s0; out0_t& z = out0;",
            "const long long n = (long long)s1;",
            "\n#line 1 \"saxpy.operation\"\nz = twice(a * x) + y + n;\n;\n",
            "cuarray_ew_user_saxpy_f32f32_f32_f32i64_c_i32(",
        ] {
            assert!(src.contains(want), "missing {want:?} in\n{src}");
        }
        // The same pattern again: the same (shared) code.
        assert_eq!(k.code(0b011).body, code.body);
        // `a` passed as an array instead: bound to in2.
        assert!(k.code(0b111).body.contains("const in2_t& a = in2;"));
    }

    #[test]
    fn operation_without_semicolon_is_a_statement() {
        // CuPy's documentation writes operations without the final `;`.
        let k = ElementwiseKernel::new(
            "float32 x, float32 y",
            "float32 z",
            "z = (x - y) * (x - y)",
            "squared_diff",
        )
        .unwrap();
        let body = k.code(0b11).body;
        assert!(
            body.ends_with("\nz = (x - y) * (x - y)\n;\n"),
            "{}",
            body.as_str()
        );
    }

    #[test]
    fn construction_errors_name_the_parameter() {
        let e = |r: Result<ElementwiseKernel>| r.unwrap_err().to_string();
        assert!(e(ElementwiseKernel::new("T x", "", "", "k")).contains("output"));
        assert!(e(ElementwiseKernel::new("T x", "T x", "", "k")).contains("`x`"));
        assert!(e(ElementwiseKernel::new("raw T x", "T y", "", "k")).contains("raw"));
        assert!(e(ElementwiseKernel::new("T x", "T y", "", "my-kernel")).contains("identifier"));
        assert!(e(ElementwiseKernel::new("flt x", "T y", "", "k")).contains("`flt`"));
        assert!(
            !ElementwiseKernel::new("T x", "T y", "y = x; // n", "k")
                .unwrap()
                .inner
                .uses_n
        );
    }
}
