//! Formatting. `Debug` and `Display` show dtype, shape and device without touching the
//! GPU; values are printed only through an explicit host copy
//! ([`DeviceArray::to_host_string`]).

use super::DeviceArray;
use crate::element::Element;
use crate::Result;
use std::fmt;

impl<T: Element> fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceArray<{}>(shape={:?}, strides={:?}, device={})",
            T::DTYPE,
            self.shape(),
            self.strides(),
            self.device()
        )
    }
}

impl<T: Element> fmt::Display for DeviceArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceArray<{}>{:?} on {}",
            T::DTYPE,
            self.shape(),
            self.device()
        )
    }
}

/// Arrays with more elements than this print with `...` (as NumPy's default threshold).
const THRESHOLD: usize = 1000;
/// Elements kept at each end of an elided axis.
const EDGE: usize = 3;

impl<T: Element> DeviceArray<T> {
    /// Copies the array to the host and formats its values as nested lists, eliding the
    /// middle of long axes when the array has more than 1000 elements (as NumPy does).
    ///
    /// # Errors
    /// As [`to_host`](DeviceArray::to_host).
    ///
    /// # Transfers and synchronization
    /// One device-to-host copy of the whole array, as [`to_host`](DeviceArray::to_host).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.to_host_string()?, "[[1, 2],\n [3, 4]]");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn to_host_string(&self) -> Result<String> {
        let values = self.to_host()?;
        Ok(format_values(&values, self.shape()))
    }
}

/// Formats row-major `values` of `shape` as nested lists.
pub(crate) fn format_values<T: Element>(values: &[T], shape: &[usize]) -> String {
    let elide = values.len() > THRESHOLD;
    let mut out = String::new();
    fmt_rec(&mut out, values, shape, 0, elide);
    out
}

fn fmt_rec<T: Element>(out: &mut String, values: &[T], shape: &[usize], depth: usize, elide: bool) {
    if shape.is_empty() {
        values[0].write_value(out);
        return;
    }
    let n = shape[0];
    let inner: usize = shape[1..].iter().product();
    let sep = if shape.len() > 1 {
        format!(",{}{}", "\n".repeat(shape.len() - 1), " ".repeat(depth + 1))
    } else {
        ", ".to_string()
    };
    out.push('[');
    let mut first = true;
    for i in 0..n {
        if elide && n > 2 * EDGE && i >= EDGE && i < n - EDGE {
            if i == EDGE {
                out.push_str(&sep);
                out.push_str("...");
            }
            continue;
        }
        if !first {
            out.push_str(&sep);
        }
        first = false;
        fmt_rec(
            out,
            &values[i * inner..(i + 1) * inner],
            &shape[1..],
            depth + 1,
            elide,
        );
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::format_values;

    #[test]
    fn nested_and_elided() {
        assert_eq!(format_values(&[6.0f32; 5], &[5]), "[6, 6, 6, 6, 6]");
        assert_eq!(format_values(&[1, 2, 3, 4], &[2, 2]), "[[1, 2],\n [3, 4]]");
        assert_eq!(format_values(&[7], &[]), "7");
        assert_eq!(format_values::<i32>(&[], &[0]), "[]");
        let v: Vec<i32> = (0..2000).collect();
        assert_eq!(
            format_values(&v, &[2000]),
            "[0, 1, 2, ..., 1997, 1998, 1999]"
        );
        let s = format_values(&v, &[2, 1000]);
        assert!(
            s.starts_with("[[0, 1, 2, ..., 997, 998, 999],\n [1000,"),
            "{s}"
        );
    }
}
