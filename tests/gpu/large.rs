//! 64-bit indexing: a u8 array of 2^31 + 1000 elements (past every 32-bit offset).

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::testing::kernels::IndexWidth;
use cuarray::testing::ops::elementwise::plan;
use cuarray::{s, Device, DeviceArray};
use libtest_mimic::Trial;

const N: usize = (1 << 31) + 1000;
const BASE: u8 = 7;

fn at(a: &DeviceArray<u8>, i: usize) -> cuarray::Result<u8> {
    a.slice(s![i..i + 1])?.to_scalar()
}

fn index64(dev: &Device, rng: &mut Rng) -> TResult {
    // The host plan picks 64-bit indices for these launches.
    ensure!(
        plan(&[N], &[&[1], &[1]])?.index == IndexWidth::I64,
        "contiguous plan of 2^31+1000 uses i32"
    );
    ensure!(
        plan(&[N], &[&[1], &[-1]])?.index == IndexWidth::I64,
        "reversed plan of 2^31+1000 uses i32"
    );

    let a = DeviceArray::<u8>::full(dev, &[N], BASE)?;
    // Markers around every power-of-two boundary that a 32-bit index would break at.
    let mut marks: Vec<usize> = vec![
        0,
        1,
        255,
        (1 << 30) - 1,
        1 << 30,
        (1 << 31) - 1,
        1 << 31,
        (1 << 31) + 1,
        N - 2,
        N - 1,
    ];
    for _ in 0..6 {
        marks.push(rng.below(N));
    }
    marks.sort_unstable();
    marks.dedup();
    let value = |k: usize| 20 + k as u8;
    for (k, &p) in marks.iter().enumerate() {
        a.slice(s![p..p + 1])?
            .assign(&DeviceArray::from_slice(dev, &[value(k)])?)?;
    }
    let marked = |p: usize| marks.iter().position(|&m| m == p).map(value);
    let plain = [2usize, 1 << 29, (1 << 31) - 2, (1 << 31) + 2, N - 3];
    for &p in marks.iter().chain(&plain) {
        let want = marked(p).unwrap_or(BASE);
        let got = at(&a, p)?;
        ensure!(got == want, "a[{p}] = {got}, expected {want}");
    }

    // Contiguous, 64-bit: a + 3.
    {
        let b = (&a + 3u8)?;
        for &p in marks.iter().chain(&plain) {
            let want = marked(p).unwrap_or(BASE) + 3;
            let got = at(&b, p)?;
            ensure!(got == want, "(a + 3)[{p}] = {got}, expected {want}");
        }
        let tail = b.slice(s![-5..])?.to_host()?;
        let want: Vec<u8> = (N - 5..N).map(|p| marked(p).unwrap_or(BASE) + 3).collect();
        ensure!(
            tail == want,
            "last five of a + 3: {tail:?}, expected {want:?}"
        );
    }

    // Strided, 64-bit, negative stride: the reversed copy, copied back once in full.
    {
        let r = a.slice(s![..;-1])?.contiguous()?;
        ensure!(
            r.shape() == [N] && r.is_contiguous(),
            "reversed copy shape {:?}",
            r.shape()
        );
        let host = r.to_host()?;
        drop(r);
        let mut want = vec![BASE; N];
        for (k, &p) in marks.iter().enumerate() {
            want[N - 1 - p] = value(k);
        }
        if host != want {
            let i = host
                .iter()
                .zip(&want)
                .position(|(g, w)| g != w)
                .unwrap_or(0);
            return Err(format!(
                "reversed copy differs first at {i}: got {}, expected {}",
                host[i], want[i]
            )
            .into());
        }
    }

    // Two operands, one reversed: a + a[::-1].
    {
        let c = (&a + &a.slice(s![..;-1])?)?;
        for &p in marks.iter().chain(&plain) {
            let want = marked(p)
                .unwrap_or(BASE)
                .wrapping_add(marked(N - 1 - p).unwrap_or(BASE));
            let got = at(&c, p)?;
            ensure!(got == want, "(a + a[::-1])[{p}] = {got}, expected {want}");
        }
    }

    // 2-D transpose of the whole buffer: (8, N/8).T made contiguous.
    {
        let cols = N / 8;
        let m = a.reshape(&[8, -1])?;
        ensure!(
            m.shares_memory_with(&a) && m.shape() == [8, cols],
            "reshape to (8, -1)"
        );
        let t = m.t().contiguous()?;
        ensure!(t.shape() == [cols, 8], "transposed shape {:?}", t.shape());
        for &p in marks.iter().chain(&plain) {
            let (row, col) = (p / cols, p % cols);
            let got = t.slice(s![col, row])?.to_scalar()?;
            let want = marked(p).unwrap_or(BASE);
            ensure!(
                got == want,
                "a.reshape(8,-1).T[{col}, {row}] = {got}, expected {want}"
            );
        }
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "large/full_add_reverse_transpose/u8/index64_2p31_plus_1000".into(),
        index64,
    );
}
