//! Sparse formats and arithmetic against dense host references in f64: COO and the
//! conversions among CSR, CSC and COO, sort_indices / sum_duplicates / eliminate_zeros,
//! SpGEMM, +, -, multiply, scalar products, sum_axis, diagonal, power, kron, hstack,
//! vstack, bmat, random; SciPy's npz files in all three formats; the errors. f32, f64
//! and c64 with i32 and i64 indices; rectangular, empty-row and nnz = 0 matrices.

use crate::common::{gpu_trial, Rng, TResult};
use crate::sparse::{close, expect_invalid, host_dense, idx, mulc, triplets, Val};
use cuarray::sparse::{self, CooMatrix, CscMatrix, CsrMatrix, SparseIndex};
use cuarray::{Complex32, Device, DeviceArray};
use libtest_mimic::Trial;

type Dense = Vec<(f64, f64)>;

fn add(a: &Dense, b: &Dense, sign: f64) -> Dense {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x.0 + sign * y.0, x.1 + sign * y.1))
        .collect()
}

fn matmul(a: &Dense, b: &Dense, m: usize, k: usize, n: usize) -> Dense {
    let mut c = vec![(0.0, 0.0); m * n];
    for i in 0..m {
        for l in 0..k {
            for j in 0..n {
                let p = mulc(a[i * k + l], b[l * n + j]);
                c[i * n + j].0 += p.0;
                c[i * n + j].1 += p.1;
            }
        }
    }
    c
}

struct Host<T> {
    m: usize,
    n: usize,
    r: Vec<usize>,
    c: Vec<usize>,
    v: Vec<T>,
}

impl<T: Val> Host<T> {
    fn random(name: &str, m: usize, n: usize, count: usize) -> Self {
        let mut rng = Rng::for_name(name);
        let (r, c, v) = triplets::<T>(&mut rng, m, n, count);
        Host { m, n, r, c, v }
    }
    fn dense(&self) -> Dense {
        host_dense(self.m, self.n, &self.r, &self.c, &self.v)
    }
    fn coo<I: SparseIndex>(&self, dev: &Device) -> cuarray::Result<CooMatrix<T, I>> {
        CooMatrix::from_triplets(
            dev,
            &idx::<I>(&self.r),
            &idx::<I>(&self.c),
            &self.v,
            (self.m, self.n),
        )
    }
    fn csr<I: SparseIndex>(&self, dev: &Device) -> cuarray::Result<CsrMatrix<T, I>> {
        CsrMatrix::from_triplets(
            dev,
            &idx::<I>(&self.r),
            &idx::<I>(&self.c),
            &self.v,
            (self.m, self.n),
        )
    }
}

fn dense_of<T: Val>(a: &DeviceArray<T>) -> cuarray::Result<Vec<T>> {
    a.to_host()
}

/// COO construction and every conversion, the canonical-form operations.
fn formats<T: Val, I: SparseIndex>(dev: &Device, m: usize, n: usize, count: usize) -> TResult {
    let h = Host::<T>::random(&format!("sparse_ops/formats/{m}x{n}/{count}"), m, n, count);
    let want = h.dense();
    let coo = h.coo::<I>(dev)?;
    if coo.nnz() != h.v.len() || coo.shape() != (m, n) {
        return Err(format!("coo: nnz {} shape {:?}", coo.nnz(), coo.shape()).into());
    }
    close("coo to_dense", &dense_of(&coo.to_dense()?)?, &want)?;
    let (hr, hc, hv) = coo.to_host()?;
    if hr != idx::<I>(&h.r) || hc != idx::<I>(&h.c) || hv.len() != h.v.len() {
        return Err("coo to_host differs from the triplets".into());
    }
    let csr = coo.to_csr()?;
    let csc = coo.to_csc()?;
    close("coo->csr", &dense_of(&csr.to_dense()?)?, &want)?;
    close("coo->csc", &dense_of(&csc.to_dense()?)?, &want)?;
    close("csr->coo", &dense_of(&csr.to_coo()?.to_dense()?)?, &want)?;
    close("csr->csc", &dense_of(&csr.to_csc()?.to_dense()?)?, &want)?;
    close("csc->csr", &dense_of(&csc.to_csr()?.to_dense()?)?, &want)?;
    close("csc->coo", &dense_of(&csc.to_coo()?.to_dense()?)?, &want)?;
    close(
        "coo transpose",
        &dense_of(&coo.t().to_dense()?.t().contiguous()?)?,
        &want,
    )?;
    let distinct = want.iter().filter(|e| **e != (0.0, 0.0)).count();
    if !csr.has_canonical_format() || !csc.has_canonical_format() || csr.nnz() < distinct {
        return Err(format!("csr/csc from coo not canonical (nnz {})", csr.nnz()).into());
    }
    // Summing duplicates: sorted row-major, one entry per position.
    let mut s = coo.clone();
    s.sum_duplicates()?;
    let (sr, sc, _) = s.to_host()?;
    let keys: Vec<(i64, i64)> = sr
        .iter()
        .zip(&sc)
        .map(|(r, c)| (r.to_i64_wrapping(), c.to_i64_wrapping()))
        .collect();
    if !s.has_canonical_format() || keys.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!("sum_duplicates left {keys:?}").into());
    }
    close("sum_duplicates", &dense_of(&s.to_dense()?)?, &want)?;
    // from_parts of a non-canonical structure, then sort_indices and sum_duplicates.
    let p = CooMatrix::from_parts(coo.row(), coo.col(), coo.data(), (m, n))?;
    let mut sorted = p.clone();
    sorted.sort_indices()?;
    if sorted.nnz() != p.nnz() {
        return Err("sort_indices changed the number of entries".into());
    }
    close("coo sort_indices", &dense_of(&sorted.to_dense()?)?, &want)?;
    // A CSR structure with columns reversed within rows: not canonical until sorted.
    let (ip, ix, dv) = csr.to_host()?;
    let (mut rix, mut rdv) = (ix.clone(), dv.clone());
    for i in 0..m {
        let (a, b) = (
            ip[i].to_i64_wrapping() as usize,
            ip[i + 1].to_i64_wrapping() as usize,
        );
        rix[a..b].reverse();
        rdv[a..b].reverse();
    }
    let mut rev = CsrMatrix::from_parts(
        csr.indptr(),
        &DeviceArray::from_slice(dev, &rix)?,
        &DeviceArray::from_slice(dev, &rdv)?,
        (m, n),
    )?;
    let any_long = (0..m).any(|i| ip[i + 1].to_i64_wrapping() - ip[i].to_i64_wrapping() > 1);
    if rev.has_canonical_format() == any_long {
        return Err(format!(
            "reversed rows: has_canonical_format {}",
            rev.has_canonical_format()
        )
        .into());
    }
    rev.sort_indices()?;
    if rev.to_host()?.1 != ix {
        return Err("csr sort_indices did not restore the column order".into());
    }
    // eliminate_zeros: zero every other stored value.
    let zv: Vec<T> = dv
        .iter()
        .enumerate()
        .map(|(k, &v)| if k % 2 == 0 { T::of(0.0, 0.0) } else { v })
        .collect();
    let mut z = CsrMatrix::from_parts(
        csr.indptr(),
        csr.indices(),
        &DeviceArray::from_slice(dev, &zv)?,
        (m, n),
    )?;
    let want_z = z.to_dense()?.to_host()?;
    z.eliminate_zeros()?;
    if z.nnz() != dv.len() / 2 {
        return Err(format!("eliminate_zeros kept {} of {}", z.nnz(), dv.len()).into());
    }
    let wz: Dense = want_z.iter().map(|v| v.parts()).collect();
    close("eliminate_zeros", &dense_of(&z.to_dense()?)?, &wz)?;
    // COO and CSC from a dense array.
    let d = csr.to_dense()?;
    close(
        "coo from_dense",
        &dense_of(&CooMatrix::<T, I>::from_dense(&d)?.to_dense()?)?,
        &want,
    )?;
    close(
        "csc from_dense",
        &dense_of(&CscMatrix::<T, I>::from_dense(&d)?.to_dense()?)?,
        &want,
    )?;
    Ok(())
}

/// +, -, multiply, scalar products, SpGEMM, sum_axis, diagonal.
fn arithmetic<T: Val, I: SparseIndex>(dev: &Device, m: usize, n: usize, count: usize) -> TResult {
    let name = format!("sparse_ops/arith/{m}x{n}/{count}");
    let ha = Host::<T>::random(&format!("{name}/a"), m, n, count);
    let hb = Host::<T>::random(&format!("{name}/b"), m, n, count / 2);
    let p = (n + 3) / 2;
    let hc = Host::<T>::random(&format!("{name}/c"), n, p, count);
    let (wa, wb, wc) = (ha.dense(), hb.dense(), hc.dense());
    let (a, b, c) = (ha.csr::<I>(dev)?, hb.csr::<I>(dev)?, hc.csr::<I>(dev)?);
    close(
        "a + b",
        &dense_of(&(&a + &b)?.to_dense()?)?,
        &add(&wa, &wb, 1.0),
    )?;
    close(
        "a - b",
        &dense_of(&(&a - &b)?.to_dense()?)?,
        &add(&wa, &wb, -1.0),
    )?;
    let prod: Dense = wa.iter().zip(&wb).map(|(x, y)| mulc(*x, *y)).collect();
    close("multiply", &dense_of(&a.multiply(&b)?.to_dense()?)?, &prod)?;
    let s = T::of(1.5, -0.5);
    let ws: Dense = wa.iter().map(|x| mulc(*x, s.parts())).collect();
    close("a * s", &dense_of(&(&a * s)?.to_dense()?)?, &ws)?;
    close(
        "spgemm",
        &dense_of(&a.matmul_sparse(&c)?.to_dense()?)?,
        &matmul(&wa, &wc, m, n, p),
    )?;
    // The same through CSC and COO (duplicates in the COO form).
    let (ac, bc, cc) = (a.to_csc()?, b.to_csc()?, c.to_csc()?);
    close(
        "csc a + b",
        &dense_of(&(&ac + &bc)?.to_dense()?)?,
        &add(&wa, &wb, 1.0),
    )?;
    close(
        "csc spgemm",
        &dense_of(&ac.matmul_sparse(&cc)?.to_dense()?)?,
        &matmul(&wa, &wc, m, n, p),
    )?;
    close(
        "csc multiply",
        &dense_of(&ac.multiply(&bc)?.to_dense()?)?,
        &prod,
    )?;
    let (ao, bo) = (ha.coo::<I>(dev)?, hb.coo::<I>(dev)?);
    close(
        "coo a - b",
        &dense_of(&(&ao - &bo)?.to_dense()?)?,
        &add(&wa, &wb, -1.0),
    )?;
    close(
        "coo multiply",
        &dense_of(&ao.multiply(&bo)?.to_dense()?)?,
        &prod,
    )?;
    close("coo a * s", &dense_of(&(&ao * s)?.to_dense()?)?, &ws)?;
    // Sums along each axis, and the diagonal.
    let mut rows = vec![(0.0, 0.0); m];
    let mut cols = vec![(0.0, 0.0); n];
    for i in 0..m {
        for j in 0..n {
            let e = wa[i * n + j];
            rows[i] = (rows[i].0 + e.0, rows[i].1 + e.1);
            cols[j] = (cols[j].0 + e.0, cols[j].1 + e.1);
        }
    }
    close("sum_axis(1)", &a.sum_axis(1)?.to_host()?, &rows)?;
    close("sum_axis(0)", &a.sum_axis(0)?.to_host()?, &cols)?;
    close("sum_axis(-1)", &a.sum_axis(-1)?.to_host()?, &rows)?;
    close("csc sum_axis(0)", &ac.sum_axis(0)?.to_host()?, &cols)?;
    close("coo sum_axis(1)", &ao.sum_axis(1)?.to_host()?, &rows)?;
    let diag: Dense = (0..m.min(n)).map(|i| wa[i * n + i]).collect();
    close("diagonal", &a.diagonal()?.to_host()?, &diag)?;
    close("csc diagonal", &ac.diagonal()?.to_host()?, &diag)?;
    close("coo diagonal", &ao.diagonal()?.to_host()?, &diag)?;
    Ok(())
}

/// kron, hstack, vstack, bmat.
fn building<T: Val, I: SparseIndex>(dev: &Device) -> TResult {
    let ha = Host::<T>::random("sparse_ops/build/a", 4, 3, 7);
    let hb = Host::<T>::random("sparse_ops/build/b", 3, 5, 6);
    let hz = Host::<T>::random("sparse_ops/build/z", 4, 2, 0);
    let (wa, wb) = (ha.dense(), hb.dense());
    let (a, b, z) = (ha.csr::<I>(dev)?, hb.csr::<I>(dev)?, hz.csr::<I>(dev)?);
    let mut wk = vec![(0.0, 0.0); 12 * 15];
    for i in 0..4 {
        for j in 0..3 {
            for k in 0..3 {
                for l in 0..5 {
                    wk[(i * 3 + k) * 15 + j * 5 + l] = mulc(wa[i * 3 + j], wb[k * 5 + l]);
                }
            }
        }
    }
    let k = sparse::kron(&a, &b)?;
    if k.shape() != (12, 15) {
        return Err(format!("kron shape {:?}", k.shape()).into());
    }
    close("kron", &dense_of(&k.to_dense()?)?, &wk)?;
    if sparse::kron(&a, &z)?.nnz() != 0 {
        return Err("kron with an empty matrix has entries".into());
    }
    // hstack [a z] (4 x 5), vstack [a; a] (8 x 3).
    let mut wh = vec![(0.0, 0.0); 4 * 5];
    for i in 0..4 {
        for j in 0..3 {
            wh[i * 5 + j] = wa[i * 3 + j];
        }
    }
    close(
        "hstack",
        &dense_of(&sparse::hstack(&[&a, &z])?.to_dense()?)?,
        &wh,
    )?;
    let wv: Dense = wa.iter().chain(wa.iter()).copied().collect();
    close(
        "vstack",
        &dense_of(&sparse::vstack(&[&a, &a])?.to_dense()?)?,
        &wv,
    )?;
    // bmat [[a, None], [None, b]]: 7 x 8.
    let m = sparse::bmat(&[&[Some(&a), None], &[None, Some(&b)]])?;
    let mut wm = vec![(0.0, 0.0); 7 * 8];
    for i in 0..4 {
        for j in 0..3 {
            wm[i * 8 + j] = wa[i * 3 + j];
        }
    }
    for i in 0..3 {
        for j in 0..5 {
            wm[(4 + i) * 8 + 3 + j] = wb[i * 5 + j];
        }
    }
    close("bmat", &dense_of(&m.to_dense()?)?, &wm)?;
    expect_invalid("hstack rows", sparse::hstack(&[&a, &b]), "block")?;
    expect_invalid(
        "bmat empty column",
        sparse::bmat(&[&[Some(&a), None]]),
        "no block",
    )?;
    expect_invalid(
        "bmat ragged",
        sparse::bmat(&[&[Some(&a), None], &[Some(&a)]]),
        "block row 1",
    )?;
    Ok(())
}

/// random: the count, the range, one seed one matrix; power on real types.
fn random_and_power<I: SparseIndex>(dev: &Device) -> TResult {
    let a = sparse::random::<f64, I>(dev, 37, 91, 0.07, 5)?;
    let want = (0.07f64 * 37.0 * 91.0).round() as usize;
    if a.nnz() != want || !a.has_canonical_format() {
        return Err(format!("random: nnz {} want {want}", a.nnz()).into());
    }
    let v = a.data().to_host()?;
    if v.iter().any(|&x| !(0.0..1.0).contains(&x)) {
        return Err("random: a value outside [0, 1)".into());
    }
    let b = sparse::random::<f64, I>(dev, 37, 91, 0.07, 5)?;
    if b.to_host()? != a.to_host()? {
        return Err("random: one seed gave two matrices".into());
    }
    if sparse::random::<f32, I>(dev, 10, 10, 0.0, 1)?.nnz() != 0
        || sparse::random::<f32, I>(dev, 4, 5, 1.0, 1)?.nnz() != 20
    {
        return Err("random: density 0 or 1".into());
    }
    expect_invalid(
        "density",
        sparse::random::<f64, I>(dev, 3, 3, 1.5, 0),
        "density",
    )?;
    let p = a.power(2.0)?;
    let pv = p.data().to_host()?;
    let w: Dense = v.iter().map(|x| (x * x, 0.0)).collect();
    close("power", &pv, &w)?;
    Ok(())
}

/// Shape errors of the products and sums, a bad axis.
fn errors(dev: &Device) -> TResult {
    let a = CsrMatrix::<f64, i32>::from_triplets(dev, &[0], &[1], &[1.0], (2, 3))?;
    let b = CsrMatrix::<f64, i32>::from_triplets(dev, &[0], &[1], &[1.0], (3, 2))?;
    expect_invalid("a + b", &a + &b, "one shape")?;
    expect_invalid("multiply", a.multiply(&b), "one shape")?;
    expect_invalid("spgemm", a.matmul_sparse(&a), "columns")?;
    if a.matmul_sparse(&b)?.shape() != (2, 2) {
        return Err("spgemm shape".into());
    }
    match a.sum_axis(2) {
        Err(cuarray::Error::AxisOutOfRange { .. }) => {}
        other => return Err(format!("sum_axis(2): {other:?}").into()),
    }
    expect_invalid(
        "coo from_triplets",
        CooMatrix::<f64, i32>::from_triplets(dev, &[0, 2], &[0, 0], &[1.0, 2.0], (2, 2)),
        "rows[1]",
    )?;
    let r = DeviceArray::from_slice(dev, &[0i32, 1])?;
    let c = DeviceArray::from_slice(dev, &[0i32, 5])?;
    let d = DeviceArray::from_slice(dev, &[1.0f64, 2.0])?;
    expect_invalid(
        "coo from_parts",
        CooMatrix::from_parts(&r, &c, &d, (2, 2)),
        "col",
    )?;
    expect_invalid(
        "coo lengths",
        CooMatrix::from_parts(&r, &c.slice(cuarray::s![0..1])?, &d, (2, 6)),
        "one length",
    )?;
    Ok(())
}

/// A file of `tests/fixtures/sparse`.
fn fixture(name: &str) -> std::path::PathBuf {
    cuarray::testing::fixture_path(&format!("sparse/{name}"))
}

/// SciPy's files (written by tests/fixtures/sparse with scipy.sparse.save_npz) in all
/// three formats, both index widths, each loaded as i32 and as i64; our file back.
fn npz<T: Val>(dev: &Device, t: &str) -> TResult {
    // The matrix of the fixtures: 5 x 4, rows 1 and 4 empty, duplicates in the COO files.
    let (r, c) = ([0usize, 0, 2, 3, 3, 0], [1usize, 3, 0, 2, 2, 1]);
    let v: Vec<T> = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .map(|&x| {
            if t == "c64" {
                T::of(x, 0.5 * x)
            } else {
                T::of(x, 0.0)
            }
        })
        .collect();
    let want = host_dense(5, 4, &r, &c, &v);
    for fmt in ["csr", "csc", "coo"] {
        for i in ["i32", "i64"] {
            let path = fixture(&format!("{fmt}_{t}_{i}.npz"));
            let a = sparse::load_npz::<T, i32>(dev, &path)?;
            close(
                &format!("{fmt} {i} as i32"),
                &dense_of(&a.to_dense()?)?,
                &want,
            )?;
            let b = sparse::load_npz::<T, i64>(dev, &path)?;
            close(
                &format!("{fmt} {i} as i64"),
                &dense_of(&b.to_dense()?)?,
                &want,
            )?;
            if a.shape() != (5, 4) || a.nnz() != 4 {
                return Err(format!("{fmt} {i}: shape {:?} nnz {}", a.shape(), a.nnz()).into());
            }
        }
    }
    let out = std::env::temp_dir().join(format!("cuarray-sparse-{t}-{}.npz", std::process::id()));
    let a = sparse::load_npz::<T, i64>(dev, fixture(&format!("coo_{t}_i32.npz")))?;
    sparse::save_npz(&out, &a)?;
    let back = sparse::load_npz::<T, i32>(dev, &out)?;
    std::fs::remove_file(&out)?;
    close("save_npz round trip", &dense_of(&back.to_dense()?)?, &want)?;
    Ok(())
}

fn npz_edges(dev: &Device) -> TResult {
    let e = sparse::load_npz::<f64, i32>(dev, fixture("csr_empty_f64_i32.npz"))?;
    if e.shape() != (3, 2) || e.nnz() != 0 {
        return Err(format!("empty: shape {:?} nnz {}", e.shape(), e.nnz()).into());
    }
    match sparse::load_npz::<f32, i32>(dev, fixture("csr_f64_i32.npz")) {
        Err(cuarray::Error::File { .. }) => {}
        other => return Err(format!("f64 file as f32: {other:?}").into()),
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    for (m, n, count) in [
        (37, 53, 300),
        (64, 16, 500),
        (1, 1, 1),
        (5, 7, 0),
        (0, 4, 0),
        (200, 150, 3000),
    ] {
        let layout = format!("{m}x{n}_nnz{count}");
        out.push(gpu_trial(
            format!("sparse_ops/formats/f32/i32/{layout}"),
            move |d| formats::<f32, i32>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse_ops/formats/f64/i64/{layout}"),
            move |d| formats::<f64, i64>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse_ops/formats/c64/i32/{layout}"),
            move |d| formats::<Complex32, i32>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse_ops/arith/f32/i32/{layout}"),
            move |d| arithmetic::<f32, i32>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse_ops/arith/f64/i64/{layout}"),
            move |d| arithmetic::<f64, i64>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse_ops/arith/c64/i32/{layout}"),
            move |d| arithmetic::<Complex32, i32>(d, m, n, count),
        ));
    }
    out.push(gpu_trial(
        "sparse_ops/build/f64/i32/blocks",
        building::<f64, i32>,
    ));
    out.push(gpu_trial(
        "sparse_ops/build/c64/i64/blocks",
        building::<Complex32, i64>,
    ));
    out.push(gpu_trial(
        "sparse_ops/random/f64/i32/power",
        random_and_power::<i32>,
    ));
    out.push(gpu_trial(
        "sparse_ops/random/f64/i64/power",
        random_and_power::<i64>,
    ));
    out.push(gpu_trial("sparse_ops/errors/f64/i32/shapes", errors));
    out.push(gpu_trial("sparse_ops/npz/f32/both/scipy_files", |d| {
        npz::<f32>(d, "f32")
    }));
    out.push(gpu_trial("sparse_ops/npz/f64/both/scipy_files", |d| {
        npz::<f64>(d, "f64")
    }));
    out.push(gpu_trial("sparse_ops/npz/c64/both/scipy_files", |d| {
        npz::<Complex32>(d, "c64")
    }));
    out.push(gpu_trial(
        "sparse_ops/npz/f64/i32/empty_and_types",
        npz_edges,
    ));
}
