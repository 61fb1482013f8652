//! NumPy files: `.npy` and `.npz` round trips for every element type and layout, files laid
//! out byte for byte as NumPy writes them (C and Fortran order, little- and big-endian,
//! version 1.0 headers padded to 64 bytes), and the errors for wrong types and bad files.

use crate::common::{
    add_gpu, check_eq, dname, each_dtype, ensure, gpu_trial, HostNd, Rng, TElem, TResult,
};
use cuarray::{s, Device, DeviceArray, Error};
use libtest_mimic::Trial;
use std::path::PathBuf;

/// A fresh path in the system's temporary folder, named after the trial.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuarray-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir.join(name.replace('/', "_"))
}

/// A `.npy` file as NumPy 1.x/2.x writes it: magic, version 1.0, the header dict padded
/// with spaces to a multiple of 64 bytes and ended by a newline, then the data bytes.
fn numpy_file(descr: &str, fortran: bool, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let fo = if fortran { "True" } else { "False" };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': {fo}, 'shape': {shape_text}, }}");
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    assert!(out.len().is_multiple_of(64));
    out.extend_from_slice(data);
    out
}

/// Save and load of a strided view, a 0-d array and an empty array, for one type; the
/// file's bytes after the header are the values in C order.
fn round_trip<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = format!("round_trip_{}", dname::<T>());
    let h = HostNd::<T>::random(rng, &[7, 13]);
    let view = h.upload(dev)?.slice(s![1..;2, ..;-3])?;
    let want = h.slice(&[(Some(1), None, 2), (None, None, -3)]);
    let path = temp(&format!("{name}.npy"));
    cuarray::save_npy(&path, &view)?;
    let back = cuarray::load_npy::<T>(dev, &path)?;
    ensure!(
        back.shape() == want.shape.as_slice(),
        "shape {:?} != {:?}",
        back.shape(),
        want.shape
    );
    check_eq("npy round trip", &back.to_host()?, &want.data)?;
    let bytes = std::fs::read(&path)?;
    ensure!(bytes.starts_with(b"\x93NUMPY"), "magic");
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize + 10;
    ensure!(
        header.is_multiple_of(64),
        "header of {header} bytes is not 64-aligned"
    );
    let size = std::mem::size_of::<T>();
    ensure!(
        bytes.len() - header == want.data.len() * size,
        "data length"
    );

    let scalar = DeviceArray::full(dev, (), h.data[5])?;
    cuarray::save_npy(&path, &scalar)?;
    let back = cuarray::load_npy::<T>(dev, &path)?;
    ensure!(back.shape().is_empty(), "0-d shape {:?}", back.shape());
    check_eq("0-d", &back.to_host()?, &[h.data[5]])?;

    let empty = DeviceArray::<T>::zeros(dev, &[0, 4])?;
    cuarray::save_npy(&path, &empty)?;
    let back = cuarray::load_npy::<T>(dev, &path)?;
    ensure!(back.shape() == [0, 4], "empty shape {:?}", back.shape());
    std::fs::remove_file(&path)?;
    Ok(())
}

/// Files written as NumPy writes them: C order, Fortran order, big-endian; 1-d and 3-d.
fn numpy_layouts(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<f64>::random(rng, &[3, 4, 5]);
    let le: Vec<u8> = h.data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let path = temp("numpy_layouts.npy");

    std::fs::write(&path, numpy_file("<f8", false, &h.shape, &le))?;
    check_eq(
        "C order",
        &cuarray::load_npy::<f64>(dev, &path)?.to_host()?,
        &h.data,
    )?;

    // Fortran order: the bytes are the transpose's values in C order.
    let t = h.t();
    let f_bytes: Vec<u8> = t.data.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&path, numpy_file("<f8", true, &h.shape, &f_bytes))?;
    let a = cuarray::load_npy::<f64>(dev, &path)?;
    ensure!(
        a.shape() == [3, 4, 5] && a.is_contiguous(),
        "Fortran shape {:?}",
        a.shape()
    );
    check_eq("Fortran order", &a.to_host()?, &h.data)?;

    let be: Vec<u8> = h.data.iter().flat_map(|v| v.to_be_bytes()).collect();
    std::fs::write(&path, numpy_file(">f8", false, &h.shape, &be))?;
    check_eq(
        "big-endian",
        &cuarray::load_npy::<f64>(dev, &path)?.to_host()?,
        &h.data,
    )?;

    let v: Vec<i16> = (0..11).map(|i| (i * 997 - 4000) as i16).collect();
    let be: Vec<u8> = v.iter().flat_map(|x| x.to_be_bytes()).collect();
    std::fs::write(&path, numpy_file(">i2", true, &[11], &be))?;
    check_eq(
        "big-endian 1-d i16",
        &cuarray::load_npy::<i16>(dev, &path)?.to_host()?,
        &v,
    )?;

    std::fs::write(&path, numpy_file("|b1", false, &[3], &[1, 0, 1]))?;
    check_eq(
        "bool",
        &cuarray::load_npy::<bool>(dev, &path)?.to_host()?,
        &[true, false, true],
    )?;
    std::fs::remove_file(&path)?;
    Ok(())
}

/// A file of another type, a truncated file, a bool byte of 2, a missing file: each an
/// `Error::File` naming the problem, never reinterpreted bits.
fn errors(dev: &Device) -> TResult {
    let path = temp("errors.npy");
    let a = DeviceArray::from_host(dev, &[1.0f32, 2.0, 3.0], &[3])?;
    cuarray::save_npy(&path, &a)?;
    for (what, r) in [
        (
            "f64 from <f4",
            cuarray::load_npy::<f64>(dev, &path).map(|_| ()),
        ),
        (
            "i32 from <f4",
            cuarray::load_npy::<i32>(dev, &path).map(|_| ()),
        ),
    ] {
        match r {
            Err(Error::File { msg, .. }) => {
                ensure!(
                    msg.contains("<f4"),
                    "{what}: message {msg:?} does not name the file's type"
                )
            }
            other => return Err(format!("{what}: expected Error::File, got {other:?}").into()),
        }
    }
    let bytes = std::fs::read(&path)?;
    std::fs::write(&path, &bytes[..bytes.len() - 2])?;
    ensure!(
        matches!(
            cuarray::load_npy::<f32>(dev, &path),
            Err(Error::File { .. })
        ),
        "truncated file"
    );
    std::fs::write(&path, numpy_file("|b1", false, &[2], &[1, 2]))?;
    ensure!(
        matches!(
            cuarray::load_npy::<bool>(dev, &path),
            Err(Error::File { .. })
        ),
        "bool byte 2"
    );
    std::fs::write(&path, b"not a numpy file at all")?;
    ensure!(
        matches!(
            cuarray::load_npy::<f32>(dev, &path),
            Err(Error::File { .. })
        ),
        "not a .npy file"
    );
    std::fs::remove_file(&path)?;
    let missing = cuarray::load_npy::<f32>(dev, temp("missing.npy"));
    ensure!(matches!(missing, Err(Error::File { .. })), "missing file");
    Ok(())
}

/// `.npz`: one type through `savez`/`load_npz`, mixed types through the writer and reader,
/// a missing name.
fn npz(dev: &Device, rng: &mut Rng) -> TResult {
    let path = temp("arrays.npz");
    let x = HostNd::<f32>::random(rng, &[5, 3]);
    let y = HostNd::<f32>::random(rng, &[17]);
    let (dx, dy) = (x.upload(dev)?, y.upload(dev)?);
    cuarray::savez(&path, &[("x", &dx.t()), ("y", &dy)])?;
    let back = cuarray::load_npz::<f32>(dev, &path)?;
    ensure!(
        back.len() == 2 && back[0].0 == "x" && back[1].0 == "y",
        "names"
    );
    check_eq("npz x", &back[0].1.to_host()?, &x.t().data)?;
    check_eq("npz y", &back[1].1.to_host()?, &y.data)?;

    let steps = DeviceArray::from_host(dev, &[12i64], ())?;
    let mut w = cuarray::NpzWriter::create(&path)?;
    w.add("weights", &dx)?;
    w.add("steps", &steps)?;
    w.finish()?;
    let mut r = cuarray::NpzReader::open(&path)?;
    ensure!(r.names() == ["weights", "steps"], "names {:?}", r.names());
    check_eq(
        "mixed steps",
        &r.load::<i64>(dev, "steps")?.to_host()?,
        &[12],
    )?;
    check_eq(
        "mixed weights",
        &r.load::<f32>(dev, "weights")?.to_host()?,
        &x.data,
    )?;
    ensure!(
        matches!(r.load::<f32>(dev, "steps"), Err(Error::File { .. })),
        "wrong type"
    );
    ensure!(
        matches!(r.load::<f32>(dev, "bias"), Err(Error::File { .. })),
        "missing name"
    );
    std::fs::remove_file(&path)?;
    Ok(())
}

/// The fixtures written by NumPy (`tests/fixtures/make_npy_fixtures.py`), embedded in the
/// test binary so that it runs wherever it is copied.
const FIXTURES: &[(&str, &[u8])] = &[
    (
        "bool_2x2.npy",
        include_bytes!("../fixtures/npy/bool_2x2.npy"),
    ),
    ("c8.npy", include_bytes!("../fixtures/npy/c8.npy")),
    ("f2.npy", include_bytes!("../fixtures/npy/f2.npy")),
    (
        "f32_c_2x3.npy",
        include_bytes!("../fixtures/npy/f32_c_2x3.npy"),
    ),
    (
        "f32_empty_0x3.npy",
        include_bytes!("../fixtures/npy/f32_empty_0x3.npy"),
    ),
    ("f64_0d.npy", include_bytes!("../fixtures/npy/f64_0d.npy")),
    (
        "f64_fortran_2x3.npy",
        include_bytes!("../fixtures/npy/f64_fortran_2x3.npy"),
    ),
    (
        "i4_big_endian.npy",
        include_bytes!("../fixtures/npy/i4_big_endian.npy"),
    ),
    (
        "mixed_compressed.npz",
        include_bytes!("../fixtures/npy/mixed_compressed.npz"),
    ),
    (
        "pair_f64.npz",
        include_bytes!("../fixtures/npy/pair_f64.npz"),
    ),
];

/// The path of a fixture, written from the binary's copy into a folder of this process.
fn fixture(name: &str) -> PathBuf {
    let bytes = FIXTURES
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
        .1;
    let dir = std::env::temp_dir().join(format!("cuarray-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder for the fixtures");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("a fixture written");
    path
}

/// Files written by NumPy itself (not by this crate or by a header built here): C and
/// Fortran order, big-endian, complex, bool, f16, 0-d, empty, and `.npz` archives stored
/// and deflate-compressed, each with the values the generating script spells out.
fn numpy_fixtures(dev: &Device) -> TResult {
    use cuarray::{f16, Complex32};

    let a = cuarray::load_npy::<f32>(dev, fixture("f32_c_2x3.npy"))?;
    ensure!(a.shape() == [2, 3], "f32 shape {:?}", a.shape());
    ensure!(
        a.to_host()? == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5],
        "f32 values {:?}",
        a.to_host()?
    );

    let f = cuarray::load_npy::<f64>(dev, fixture("f64_fortran_2x3.npy"))?;
    ensure!(f.shape() == [2, 3], "fortran shape {:?}", f.shape());
    ensure!(
        f.to_host()? == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "fortran values in C order {:?}",
        f.to_host()?
    );
    ensure!(
        f.slice(s![.., 1])?.to_host()? == [2.0, 5.0],
        "fortran column"
    );

    let i = cuarray::load_npy::<i32>(dev, fixture("i4_big_endian.npy"))?;
    ensure!(
        i.to_host()? == [1, -2, 300_000, i32::MIN],
        "big-endian values {:?}",
        i.to_host()?
    );

    let c = cuarray::load_npy::<Complex32>(dev, fixture("c8.npy"))?;
    let want = [
        Complex32::new(1.0, 2.0),
        Complex32::new(-0.5, 0.0),
        Complex32::new(-0.0, -3.25),
    ];
    ensure!(c.to_host()? == want, "complex64 values {:?}", c.to_host()?);

    let b = cuarray::load_npy::<bool>(dev, fixture("bool_2x2.npy"))?;
    ensure!(b.shape() == [2, 2], "bool shape {:?}", b.shape());
    ensure!(
        b.to_host()? == [true, false, false, true],
        "bool values {:?}",
        b.to_host()?
    );

    let h = cuarray::load_npy::<f16>(dev, fixture("f2.npy"))?;
    let want: Vec<f16> = [1.0f32, 0.5, -2.0, 65504.0]
        .into_iter()
        .map(f16::from_f32)
        .collect();
    ensure!(h.to_host()? == want, "f16 values {:?}", h.to_host()?);

    let z = cuarray::load_npy::<f64>(dev, fixture("f64_0d.npy"))?;
    ensure!(z.ndim() == 0, "0-d shape {:?}", z.shape());
    ensure!(z.to_scalar()? == 2.5, "0-d value");

    let e = cuarray::load_npy::<f32>(dev, fixture("f32_empty_0x3.npy"))?;
    ensure!(e.shape() == [0, 3], "empty shape {:?}", e.shape());
    ensure!(e.to_host()?.is_empty(), "empty values");

    // The element type is checked against the header, never reinterpreted.
    ensure!(
        matches!(
            cuarray::load_npy::<f64>(dev, fixture("f32_c_2x3.npy")),
            Err(Error::File { .. })
        ),
        "f32 file loaded as f64"
    );

    let pair = cuarray::load_npz::<f64>(dev, fixture("pair_f64.npz"))?;
    ensure!(
        pair.len() == 2 && pair[0].0 == "x" && pair[1].0 == "y",
        "npz names"
    );
    ensure!(pair[0].1.to_host()? == [0.0, 1.0, 2.0, 3.0], "npz x");
    ensure!(
        pair[1].1.shape() == [1, 2],
        "npz y shape {:?}",
        pair[1].1.shape()
    );
    ensure!(pair[1].1.to_host()? == [1.5, -1.5], "npz y");

    let mut r = cuarray::NpzReader::open(fixture("mixed_compressed.npz"))?;
    ensure!(
        r.names() == ["steps", "w"],
        "compressed names {:?}",
        r.names()
    );
    let steps = r.load::<i64>(dev, "steps")?;
    ensure!(
        steps.ndim() == 0 && steps.to_scalar()? == 12,
        "compressed steps"
    );
    let w = r.load::<f32>(dev, "w")?;
    ensure!(
        w.shape() == [2, 2] && w.to_host()? == [1.0; 4],
        "compressed w"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    fn per_dtype<T: TElem>(out: &mut Vec<Trial>) {
        add_gpu(
            out,
            format!("files/npy_round_trip/{}", dname::<T>()),
            round_trip::<T>,
        );
    }
    each_dtype!(per_dtype(out));
    add_gpu(out, "files/numpy_layouts/f64".into(), numpy_layouts);
    out.push(gpu_trial("files/errors/f32", errors));
    add_gpu(out, "files/npz/mixed".into(), npz);
    out.push(gpu_trial("files/numpy_fixtures/mixed", numpy_fixtures));
}
