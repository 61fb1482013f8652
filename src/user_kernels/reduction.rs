//! [`ReductionKernel`]: a user's map, reduce and post-map expressions on the reduction
//! template.

use super::params::{aliases, dtype_named, preamble, with_line, Binding, Param, Slot};
use super::{check_name, names, parse, Arg, ArgList, KernelArgs};
use crate::element::{DType, Element};
use crate::kernels::abi::Scalar;
use crate::kernels::family::reduce::{Acc, ReduceSpec, Variant};
use crate::kernels::{IndexWidth, Text, TypeList, MAX_SCALARS};
use crate::ops::reduce::{plan_reduce, run_def, ReduceDef};
use crate::{DeviceArray, Error, Result};

const OP: &str = "ReductionKernel";

/// A reduction written by the user, as CuPy's `ReductionKernel`: one array input (plus
/// scalars), one output, and four expressions: `map_expr` maps each input element to the
/// accumulator, `reduce_expr` combines two accumulators `a` and `b` (associative and
/// commutative: the order of combination is not fixed), `post_map_expr` writes the output
/// from the result `a`, and `identity` is the accumulator's starting value.
///
/// It runs on the plans and template of the built-in reductions: any set of axes,
/// `keepdims`, views of any layout read in place, one launch where the built-in sum takes
/// one. The accumulator is the output's type unless [`reduce_type`](Self::reduce_type)
/// says otherwise (CuPy's `reduce_type`).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, ReductionKernel};
/// let dev = Device::new(0)?;
/// let l2 = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")?;
/// let x = DeviceArray::from_host(&dev, &[3.0f32, 4.0, 0.0, 0.0, 6.0, 8.0], &[3, 2])?;
/// let all: DeviceArray<f32> = l2.call((&x,), None, false)?;
/// assert_eq!(all.to_scalar()?, 125f32.sqrt());
/// let rows: DeviceArray<f32> = l2.call((&x,), Some(&[1]), false)?;
/// assert_eq!(rows.to_host()?, vec![5.0, 0.0, 10.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReductionKernel {
    name: String,
    input: Param,
    scalars: Vec<Param>,
    output: Param,
    acc: Option<DType>,
    user_preamble: String,
    exprs: [String; 4],
    /// The generated pieces (type-independent): op, preamble, pre, combine, post, identity.
    code: [Text; 6],
}

impl ReductionKernel {
    /// A reduction with input parameters `in_params` (one array first, e.g. `"T x"`, then
    /// any scalars), one output parameter `out_params` (`"T y"`), the expressions
    /// `map_expr` (of the input's name and scalars, e.g. `"x * x"`), `reduce_expr` (of `a`
    /// and `b`, e.g. `"a + b"`), `post_map_expr` (assigning the output from `a`, e.g. `"y
    /// = sqrt(a)"`), the `identity` of `reduce_expr` (`"0"`) and a name.
    ///
    /// ```
    /// use cuarray::{Device, DeviceArray, ReductionKernel};
    /// // CuPy: cp.ReductionKernel("T x", "T y", "abs(x)", "max(a, b)", "y = a", "0", "absmax")
    /// let absmax = ReductionKernel::new("T x", "T y", "abs(x)", "max(a, b)", "y = a", "0", "absmax")?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the parameter for unknown types, duplicate or
    /// reserved names (`a`, `b`, `i`, ...); not exactly one output; no input; a `raw`
    /// parameter; an empty expression.
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: &str,
        name: &str,
    ) -> Result<ReductionKernel> {
        check_name(OP, name)?;
        let mut inputs = parse(OP, name, "input parameters", in_params)?;
        let mut outputs = parse(OP, name, "output parameters", out_params)?;
        let bad = |m: String| Error::invalid(OP, format!("{name}: {m}"));
        if inputs.is_empty() {
            return Err(bad(
                "an input parameter (the array to reduce) is needed".into()
            ));
        }
        if outputs.len() != 1 {
            return Err(bad(format!(
                "exactly one output parameter is needed, got {}",
                names(&outputs)
            )));
        }
        if let Some(p) = inputs.iter().chain(&outputs).find(|p| p.raw) {
            return Err(bad(format!(
                "parameter `{}` is raw, which ReductionKernel does not support",
                p.name
            )));
        }
        if let Some(p) = inputs
            .iter()
            .chain(&outputs)
            .find(|p| p.name == "a" || p.name == "b")
        {
            return Err(bad(format!(
                "parameter `{}`: the names a and b are reserved for the accumulators",
                p.name
            )));
        }
        if inputs.iter().any(|i| i.name == outputs[0].name) {
            return Err(bad(format!(
                "`{}` is both an input and an output",
                outputs[0].name
            )));
        }
        if inputs.len() - 1 > MAX_SCALARS {
            return Err(bad(format!("at most {MAX_SCALARS} scalar parameters")));
        }
        for (what, e) in [
            ("map_expr", map_expr),
            ("reduce_expr", reduce_expr),
            ("post_map_expr", post_map_expr),
            ("identity", identity),
        ] {
            if e.trim().is_empty() {
                return Err(bad(format!("{what} is empty")));
            }
        }
        let input = inputs.remove(0);
        let output = outputs.remove(0);
        let mut k = ReductionKernel {
            name: name.to_string(),
            input,
            scalars: inputs,
            output,
            acc: None,
            user_preamble: String::new(),
            exprs: [map_expr, reduce_expr, post_map_expr, identity].map(String::from),
            code: std::array::from_fn(|_| Text::EMPTY),
        };
        k.generate();
        Ok(k)
    }

    /// The accumulator's type, a dtype name (`"float32"`, `"double"`...); the output's
    /// type by default.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, ReductionKernel};
    /// let dev = Device::new(0)?;
    /// // Sum f16 values in a float accumulator, as the built-in sum does.
    /// let sum = ReductionKernel::new("T x", "T y", "(float)x", "a + b", "y = (T)a", "0", "sum16")?
    ///     .reduce_type("float32")?;
    /// let x = DeviceArray::<cuarray::f16>::ones(&dev, &[4096])?;
    /// let s: DeviceArray<cuarray::f16> = sum.call((&x,), None, false)?;
    /// assert_eq!(s.to_scalar()?.to_f32(), 4096.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an unknown type name.
    pub fn reduce_type(mut self, dtype: &str) -> Result<ReductionKernel> {
        self.acc = Some(dtype_named(dtype).ok_or_else(|| {
            Error::invalid(OP, format!("{}: unknown reduce type `{dtype}`", self.name))
        })?);
        Ok(self)
    }

    /// Device functions and types placed before the kernel (after the placeholders' type
    /// names, which they may use).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, ReductionKernel};
    /// let dev = Device::new(0)?;
    /// let k = ReductionKernel::new("T x", "T y", "sq(x)", "a + b", "y = a", "0", "sumsq")?
    ///     .preamble("template <class V> __device__ V sq(V v) { return v * v; }");
    /// let x = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let s: DeviceArray<f32> = k.call((&x,), None, false)?;
    /// assert_eq!(s.to_scalar()?, 14.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn preamble(mut self, preamble: &str) -> ReductionKernel {
        self.user_preamble = preamble.to_string();
        self.generate();
        self
    }

    /// The kernel's name.
    ///
    /// ```
    /// let k = cuarray::ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", "0", "total")?;
    /// assert_eq!(k.name(), "total");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reduces the array argument of `args` (a tuple: the array, then one scalar per
    /// scalar parameter) over `axes` (all when `None`; negative axes count from the end),
    /// keeping them with extent 1 when `keepdims`. The output's element type is the one
    /// asked for, checked against the output parameter. An empty reduction gives the
    /// post-map of the identity.
    ///
    /// The kernel runs on the array's stream.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, ReductionKernel};
    /// let dev = Device::new(0)?;
    /// let count = ReductionKernel::new("T x, T t", "int64 y", "x > t ? 1 : 0", "a + b", "y = a", "0", "count_above")?;
    /// let x = DeviceArray::from_host(&dev, &[1.0f32, 5.0, 3.0, 7.0], &[2, 2])?;
    /// let per_row: DeviceArray<i64> = count.call((&x, 2.0f32), Some(&[-1]), true)?;
    /// assert_eq!(per_row.shape(), &[2, 1]);
    /// assert_eq!(per_row.to_host()?, vec![1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the parameter for a wrong argument count, type or
    /// kind, or a duplicate axis; [`Error::AxisOutOfRange`]; [`Error::Compile`] when an
    /// expression does not compile for these types.
    pub fn call<'a, U: Element>(
        &self,
        args: impl KernelArgs<'a>,
        axes: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<DeviceArray<U>> {
        let mut list = ArgList::new();
        args.push_all(&mut list);
        let err = |m: String| Error::invalid(OP, format!("{}: {m}", self.name));
        let all: Vec<&Param> = std::iter::once(&self.input).chain(&self.scalars).collect();
        if list.count() != all.len() {
            return Err(err(format!(
                "{} argument(s) given, the kernel takes {} ({})",
                list.count(),
                all.len(),
                names(&all.iter().map(|p| (*p).clone()).collect::<Vec<_>>())
            )));
        }
        let mut binding = Binding::default();
        let mut scalars = [Scalar::of(0u8); MAX_SCALARS];
        let mut input = None;
        for (k, (p, a)) in all.iter().zip(list.iter()).enumerate() {
            binding.bind(p, a.dtype(), a).map_err(err)?;
            match (k, a) {
                (0, Arg::Array(x)) => input = Some(x),
                (0, Arg::Scalar(_)) => {
                    return Err(err(format!(
                        "parameter `{}` is the array to reduce, got a scalar",
                        p.name
                    )))
                }
                (_, Arg::Scalar(s)) => scalars[k - 1] = s,
                (_, Arg::Array(_)) => {
                    return Err(err(format!(
                        "parameter `{}` is a scalar parameter, got an array",
                        p.name
                    )))
                }
            }
        }
        let Some(x) = input else {
            return Err(err("no array to reduce".into()));
        };
        binding
            .bind(&self.output, U::DTYPE, "an output")
            .map_err(err)?;
        let acc = self.acc.unwrap_or(U::DTYPE);
        let device = x.device();
        let p = plan_reduce(
            x.layout(),
            axes,
            keepdims,
            false,
            device.multiprocessor_count(),
        )?;
        let out = DeviceArray::<U>::alloc_uninit(device, &p.out_shape)?;
        let [op, preamble, pre, combine, post, identity] = self.code.clone();
        let def = ReduceDef {
            acc: Acc::of(acc),
            identity,
            preamble,
            pre,
            combine,
            combine_forward: Text::EMPTY,
            post,
        };
        x.used_by(OP, device)?;
        let input = x.operand_as(x.layout().shape())?;
        run_def(
            device,
            &op,
            &def,
            &p,
            &input,
            &out.operand()?,
            None,
            &scalars[..self.scalars.len()],
        )?;
        Ok(out)
    }

    /// The kernel spec of a one-pass reduction, for tests and tools.
    #[doc(hidden)]
    pub fn kernel_spec(
        &self,
        input: DType,
        scalars: &[DType],
        output: DType,
        variant: Variant,
        index: IndexWidth,
    ) -> ReduceSpec {
        let [op, preamble, pre, combine, post, identity] = self.code.clone();
        ReduceSpec {
            op,
            preamble,
            pre,
            input,
            extra: TypeList::new(&[]),
            output,
            scalars: TypeList::new(scalars),
            acc: Acc::of(self.acc.unwrap_or(output)),
            identity,
            combine,
            combine_forward: Text::EMPTY,
            post,
            partial_in: false,
            partial_out: false,
            finish: false,
            aux: None,
            along: None,
            variant,
            index,
        }
    }

    /// The generated pieces: the input, scalars and output bound to their generated names,
    /// each expression under a `#line` directive naming it.
    fn generate(&mut self) {
        let name = &self.name;
        let mut slots: Vec<(&Param, Slot)> = vec![(&self.input, Slot::ReduceInput)];
        slots.extend(
            self.scalars
                .iter()
                .enumerate()
                .map(|(k, p)| (p, Slot::Scalar(k))),
        );
        let ins = aliases(&slots);
        slots.push((&self.output, Slot::Out(0)));
        let pre_amble = preamble(&slots, &self.user_preamble, &format!("{name}.preamble"));
        let outs = aliases(&slots[1..]);
        let [map, reduce, post, identity] = &self.exprs;
        let mut pre = format!("{ins}a = acc_t(");
        with_line(&mut pre, &format!("{name}.map_expr"), map);
        pre.push_str(");");
        let mut combine = String::new();
        with_line(&mut combine, &format!("{name}.reduce_expr"), reduce);
        let mut post_src = outs;
        with_line(&mut post_src, &format!("{name}.post_map_expr"), post);
        post_src.push(';');
        let mut id = String::new();
        with_line(&mut id, &format!("{name}.identity"), identity);
        self.code = [
            Text::shared(format!("user_{name}")),
            Text::shared(pre_amble),
            Text::shared(pre),
            Text::shared(combine),
            Text::shared(post_src),
            Text::shared(id),
        ];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;

    #[test]
    fn generated_source() {
        let k = ReductionKernel::new(
            "T x, float32 w",
            "T y",
            "w * x * x",
            "a + b",
            "y = sqrt(a)",
            "0",
            "l2",
        )
        .unwrap();
        let [op, preamble, pre, combine, post, identity] = k.code.clone();
        let spec = ReduceSpec {
            op,
            preamble,
            pre,
            input: DType::F16,
            extra: TypeList::new(&[]),
            output: DType::F16,
            scalars: TypeList::new(&[DType::F32]),
            acc: Acc::of(DType::F32),
            identity,
            combine,
            combine_forward: Text::EMPTY,
            post,
            partial_in: false,
            partial_out: false,
            finish: false,
            aux: None,
            along: None,
            variant: Variant::Rows {
                warp: false,
                vec: 1,
                nk: 1,
                nr: 1,
            },
            index: IndexWidth::I32,
        };
        let src = source(&spec);
        for want in [
            "typedef cuarray_in0_elem_t T;\n",
            "const in0_t& x = in0; const s0_t& w = s0; ",
            "a = acc_t(\n#line 1 \"l2.map_expr\"\nw * x * x\n);",
            "return \n#line 1 \"l2.reduce_expr\"\na + b\n;",
            "const s0_t& w = s0; out0_t& y = out0; ",
            "\n#line 1 \"l2.post_map_expr\"\ny = sqrt(a)\n;",
            "cuarray_red_user_l2_f16_f16_f32_b1x1v1_i32(",
        ] {
            assert!(src.contains(want), "missing {want:?} in\n{src}");
        }
    }

    #[test]
    fn construction_errors() {
        let e = |r: Result<ReductionKernel>| r.unwrap_err().to_string();
        assert!(e(ReductionKernel::new(
            "", "T y", "x", "a + b", "y = a", "0", "k"
        ))
        .contains("input"));
        assert!(e(ReductionKernel::new(
            "T x", "T y, T z", "x", "a + b", "y = a", "0", "k"
        ))
        .contains("exactly one output"));
        assert!(e(ReductionKernel::new(
            "T a", "T y", "a", "a + b", "y = a", "0", "k"
        ))
        .contains("reserved"));
        assert!(e(ReductionKernel::new(
            "T x", "T y", "x", "a + b", "y = a", " ", "k"
        ))
        .contains("identity is empty"));
        let k = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", "0", "k").unwrap();
        assert!(k.clone().reduce_type("float64").is_ok());
        assert!(k
            .reduce_type("flaot")
            .unwrap_err()
            .to_string()
            .contains("flaot"));
    }
}
