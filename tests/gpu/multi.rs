//! More than one GPU: `to_device` (each route, on one device and across two), arrays of
//! two devices in one operation, and NCCL collectives, point-to-point transfers and the
//! barrier (a group of one device on any GPU machine; groups over every device, and one
//! thread per device, with two or more; the TCP rendezvous of `nccl::rendezvous::init`
//! with one thread per device, on any number of GPUs).
//!
//! Trials that need two devices are registered ignored, with one line saying so, when
//! fewer are present; NCCL trials likewise when NCCL cannot be loaded (unless
//! `CUARRAY_REQUIRE_GPU=1`, where a missing NCCL fails them with the search's message).

use crate::common::{
    add_gpu, check_eq, check_rel, dname, each_dtype, ensure, gpu_trial, gpu_trial_exclusive, Rng,
    TElem, TResult, Val,
};
use cuarray::nccl::rendezvous::{self, EnvConfig};
use cuarray::nccl::{self, Comm, Id, NcclElement, ReduceOp};
use cuarray::testing::PeerRoute;
use cuarray::{s, Device, DeviceArray, Error};
use libtest_mimic::Trial;

/// The awkward size most trials use (odd, not a multiple of any vector width).
const N: usize = 1003;

const ROUTES: [PeerRoute; 3] = [PeerRoute::Same, PeerRoute::Peer, PeerRoute::Staged];

/// Every device, when there are at least two.
fn two_or_more() -> Result<Vec<Device>, String> {
    let n = cuarray::device_count().map_err(|e| e.to_string())?;
    if n < 2 {
        return Err(format!("{n} device(s) present, 2 needed"));
    }
    (0..n)
        .map(|i| Device::new(i).map_err(|e| e.to_string()))
        .collect()
}

/// Runs `f` with every device; fails (the trial is registered ignored unless a GPU is
/// required) with fewer than two.
fn with_devices(f: impl FnOnce(&[Device]) -> TResult) -> TResult {
    match two_or_more() {
        Ok(devs) => f(&devs),
        Err(reason) => Err(format!("needs two GPUs: {reason}").into()),
    }
}

fn nccl_ready() -> TResult {
    nccl::version()?;
    Ok(())
}

// ---- to_device ---------------------------------------------------------------------------

fn to_device_same<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let data: Vec<T> = rng.vec(37 * 29);
    let a = DeviceArray::from_host(dev, &data, &[37, 29])?;
    let t_want: Vec<T> = (0..29)
        .flat_map(|j| (0..37).map(move |i| (i, j)))
        .map(|(i, j)| data[i * 29 + j])
        .collect();
    for route in ROUTES {
        let b = a.to_device_via(dev, route)?;
        ensure!(
            b.shape() == [37, 29] && b.is_contiguous() && b.device() == dev,
            "{route:?}: shape {:?}",
            b.shape()
        );
        ensure!(!b.shares_memory_with(&a), "{route:?}: not a copy");
        check_eq(&format!("{route:?} contiguous"), &b.to_host()?, &data)?;
        // A transposed view arrives contiguous, in logical order.
        let bt = a.t().to_device_via(dev, route)?;
        ensure!(
            bt.shape() == [29, 37] && bt.is_contiguous(),
            "{route:?}: transposed shape"
        );
        check_eq(&format!("{route:?} transposed"), &bt.to_host()?, &t_want)?;
        // Empty and 0-d arrays.
        let e = DeviceArray::<T>::from_host(dev, &[], &[0, 3])?.to_device_via(dev, route)?;
        ensure!(
            e.shape() == [0, 3],
            "{route:?}: empty shape {:?}",
            e.shape()
        );
        let z = a.slice(s![3, 4])?.to_device_via(dev, route)?;
        check_eq(
            &format!("{route:?} 0-d"),
            &z.to_host()?,
            &[data[3 * 29 + 4]],
        )?;
    }
    // The public entry point on one device is a copy.
    let b = a.to_device(dev)?;
    ensure!(
        !b.shares_memory_with(&a),
        "to_device on the same device shares memory"
    );
    check_eq("to_device same device", &b.to_host()?, &data)?;
    Ok(())
}

fn to_device_other_stream(dev: &Device) -> TResult {
    let s = dev.new_stream()?;
    let on = s.device();
    // A long chain on the device's stream, then the copy to the other stream at once:
    // the copy must see the chain's result.
    let mut a = DeviceArray::<f32>::zeros(dev, &[1 << 22])?;
    for _ in 0..20 {
        a = (&a + 1.0f32)?;
    }
    for route in ROUTES {
        let b = a.to_device_via(&on, route)?;
        ensure!(
            b.device().stream() == s,
            "{route:?}: result not on the stream"
        );
        let host = (&b * 1.0f32)?.to_host()?;
        ensure!(
            host.iter().all(|&x| x == 20.0),
            "{route:?}: copy raced the writes before it"
        );
    }
    Ok(())
}

fn to_device_across(dev: &Device) -> TResult {
    with_devices(|devs| {
        let other = &devs[1];
        let mut rng = Rng::for_name("multi/to_device/across_devices");
        let data: Vec<f32> = rng.vec(300 * 701);
        let a = DeviceArray::from_host(dev, &data, &[300, 701])?;
        let t_want: Vec<f32> = (0..701)
            .flat_map(|j| (0..300).map(move |i| (i, j)))
            .map(|(i, j)| data[i * 701 + j])
            .collect();
        let auto = a.to_device(other)?;
        ensure!(auto.device() == other, "result on {:?}", auto.device());
        check_eq("auto route", &auto.to_host()?, &data)?;
        for route in [PeerRoute::Peer, PeerRoute::Staged] {
            let b = a.to_device_via(other, route)?;
            ensure!(b.device().ordinal() == 1, "{route:?}: on {:?}", b.device());
            check_eq(&format!("{route:?} there"), &b.to_host()?, &data)?;
            let back = b.t().to_device_via(dev, route)?;
            ensure!(
                back.device() == dev,
                "{route:?}: back on {:?}",
                back.device()
            );
            check_eq(
                &format!("{route:?} transposed back"),
                &back.to_host()?,
                &t_want,
            )?;
            // Ordering without the host: work queued on the source, the copy, work on
            // the destination, one wait at the end.
            let mut x = DeviceArray::<f32>::zeros(dev, &[1 << 22])?;
            for _ in 0..20 {
                x = (&x + 1.0f32)?;
            }
            let y = (&x.to_device_via(other, route)? * 2.0f32)?;
            drop(x);
            let host = y.to_host()?;
            ensure!(
                host.iter().all(|&v| v == 40.0),
                "{route:?}: ordering across devices"
            );
        }
        Ok(())
    })
}

fn mixed_devices(dev: &Device) -> TResult {
    with_devices(|devs| {
        let a = DeviceArray::<f32>::ones(dev, &[4, 4])?;
        let b = DeviceArray::<f32>::ones(&devs[1], &[4, 4])?;
        let cases: [(&str, cuarray::Result<DeviceArray<f32>>); 3] = [
            ("add", &a + &b),
            ("matmul", a.matmul(&b)),
            ("where", cuarray::where_(&a.gt(0.0f32)?, &a, &b)),
        ];
        for (what, r) in cases {
            match r {
                Err(e @ Error::DeviceMismatch { .. }) => {
                    let msg = e.to_string();
                    ensure!(
                        msg.contains("cuda:0") && msg.contains("cuda:1"),
                        "{what}: message {msg:?}"
                    );
                }
                other => {
                    return Err(format!("{what}: expected DeviceMismatch, got {other:?}").into())
                }
            }
        }
        // Moving one operand first makes it work.
        let c = (&a + &b.to_device(dev)?)?;
        check_eq("after to_device", &c.to_host()?, &[2.0f32; 16])?;
        Ok(())
    })
}

// ---- NCCL: host references ---------------------------------------------------------------

/// Well-conditioned data for reductions: floats in [1, 2), integers small (negative
/// ones wrap in unsigned types, as NCCL's sums do).
fn data<T: TElem>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| match T::INT {
            None => T::from_val(Val::F(rng.range(1.0, 2.0))),
            Some(_) => T::from_val(Val::I(rng.int(-50, 50) as i128)),
        })
        .collect()
}

/// The reduction of one element over the ranks' values, as NCCL computes it up to
/// rounding (floats in f64, integers wrapping).
fn combine<T: TElem>(op: ReduceOp, xs: &[T]) -> T {
    let n = xs.len();
    match xs[0].val() {
        Val::F(_) => {
            let v: Vec<f64> = xs
                .iter()
                .map(|x| match x.val() {
                    Val::F(f) => f,
                    _ => unreachable!(),
                })
                .collect();
            T::from_val(Val::F(match op {
                ReduceOp::Sum => v.iter().sum(),
                ReduceOp::Prod => v.iter().product(),
                ReduceOp::Max => v.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                ReduceOp::Min => v.iter().cloned().fold(f64::INFINITY, f64::min),
                ReduceOp::Avg => v.iter().sum::<f64>() / n as f64,
            }))
        }
        _ => {
            let v: Vec<i128> = xs
                .iter()
                .map(|x| match x.val() {
                    Val::I(i) => i,
                    _ => unreachable!(),
                })
                .collect();
            T::from_val(Val::I(match op {
                ReduceOp::Sum => v.iter().fold(0i128, |a, b| a.wrapping_add(*b)),
                ReduceOp::Prod => v.iter().fold(1i128, |a, b| a.wrapping_mul(*b)),
                ReduceOp::Max => *v.iter().max().unwrap_or(&0),
                ReduceOp::Min => *v.iter().min().unwrap_or(&0),
                // Integer averages are only checked with one rank (the identity).
                ReduceOp::Avg => v[0],
            }))
        }
    }
}

fn reference<T: TElem>(op: ReduceOp, per_rank: &[Vec<T>]) -> Vec<T> {
    (0..per_rank[0].len())
        .map(|i| combine(op, &per_rank.iter().map(|r| r[i]).collect::<Vec<_>>()))
        .collect()
}

/// Tolerance: exact for integers; floats are summed in another order than the reference.
fn tol<T: TElem>() -> f64 {
    if T::INT.is_some() {
        0.0
    } else {
        T::REL_TOL.max(1e-6)
    }
}

const OPS: [ReduceOp; 5] = [
    ReduceOp::Sum,
    ReduceOp::Prod,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::Avg,
];

/// Every collective over `comms` (one per device, driven from this thread in groups),
/// each rank with its own random data, against host references.
fn collectives<T: TElem + NcclElement>(comms: &[Comm], rng: &mut Rng) -> TResult {
    let world = comms.len();
    let what = |op: &str| format!("{op} over {world} rank(s)");
    for n in [1usize, N, 64 * 1024 + 3] {
        let host: Vec<Vec<T>> = (0..world).map(|_| data(rng, n)).collect();
        let upload = || -> cuarray::Result<Vec<DeviceArray<T>>> {
            comms
                .iter()
                .zip(&host)
                .map(|(c, h)| DeviceArray::from_slice(c.device(), h))
                .collect()
        };
        for op in OPS {
            if op == ReduceOp::Avg && T::INT.is_some() && world > 1 {
                continue;
            }
            let mut a = upload()?;
            nccl::group(|| {
                for (c, x) in comms.iter().zip(&mut a) {
                    c.all_reduce(x, op)?;
                }
                Ok(())
            })?;
            let want = reference(op, &host);
            for (r, x) in a.iter().enumerate() {
                check_rel(
                    &format!("{} all_reduce {} n={n} rank {r}", what(""), op.name()),
                    &x.to_host()?,
                    &want,
                    tol::<T>(),
                )?;
            }
        }
        // broadcast from the last rank.
        let root = world - 1;
        let mut a = upload()?;
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&mut a) {
                c.broadcast(x, root)?;
            }
            Ok(())
        })?;
        for (r, x) in a.iter().enumerate() {
            check_eq(
                &format!("{} broadcast n={n} rank {r}", what("")),
                &x.to_host()?,
                &host[root],
            )?;
        }
        // reduce (max) into rank 0; the others keep their input.
        let mut a = upload()?;
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&mut a) {
                c.reduce(x, ReduceOp::Max, 0)?;
            }
            Ok(())
        })?;
        check_eq(
            &format!("{} reduce max n={n} root", what("")),
            &a[0].to_host()?,
            &reference(ReduceOp::Max, &host),
        )?;
        for r in 1..world {
            check_eq(
                &format!("reduce n={n} rank {r} input"),
                &a[r].to_host()?,
                &host[r],
            )?;
        }
        // all_gather: concatenation in rank order.
        let a = upload()?;
        let mut g = Vec::new();
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&a) {
                g.push(c.all_gather(x)?);
            }
            Ok(())
        })?;
        let cat: Vec<T> = host.concat();
        for (r, x) in g.iter().enumerate() {
            ensure!(x.shape() == [n * world], "all_gather shape {:?}", x.shape());
            check_eq(
                &format!("{} all_gather n={n} rank {r}", what("")),
                &x.to_host()?,
                &cat,
            )?;
        }
        // reduce_scatter: rank r gets block r of the sum, with (world * n) inputs.
        let big: Vec<Vec<T>> = (0..world).map(|_| data(rng, world * n)).collect();
        let a: Vec<DeviceArray<T>> = comms
            .iter()
            .zip(&big)
            .map(|(c, h)| DeviceArray::from_host(c.device(), h, &[world * n]))
            .collect::<cuarray::Result<_>>()?;
        let mut outs = Vec::new();
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&a) {
                outs.push(c.reduce_scatter(x, ReduceOp::Sum)?);
            }
            Ok(())
        })?;
        let full = reference(ReduceOp::Sum, &big);
        for (r, x) in outs.iter().enumerate() {
            ensure!(x.shape() == [n], "reduce_scatter shape {:?}", x.shape());
            check_rel(
                &format!("{} reduce_scatter n={n} rank {r}", what("")),
                &x.to_host()?,
                &full[r * n..(r + 1) * n],
                tol::<T>(),
            )?;
        }
    }
    Ok(())
}

/// Each rank's rows of `per_rank` (row-major, `cols` wide) uploaded as `(rows, cols)`.
fn upload_rows<T: TElem>(
    comms: &[Comm],
    per_rank: &[Vec<T>],
    cols: usize,
) -> cuarray::Result<Vec<DeviceArray<T>>> {
    comms
        .iter()
        .zip(per_rank)
        .map(|(c, h)| DeviceArray::from_host(c.device(), h, &[h.len() / cols, cols]))
        .collect()
}

/// Send and receive around a ring, all_to_all, gather and scatter over `comms` (one per
/// device, driven from this thread, each step in one group), each rank with its own
/// random data, against host references; empty arrays included.
fn point_to_point<T: TElem + NcclElement>(comms: &[Comm], rng: &mut Rng) -> TResult {
    let world = comms.len();
    const COLS: usize = 3;
    for n in [0usize, 1, N] {
        let what = |op: &str, r: usize| format!("{op} over {world} rank(s) n={n} rank {r}");
        // A ring: rank r sends to r + 1 and receives from r - 1.
        let host: Vec<Vec<T>> = (0..world).map(|_| data(rng, n * COLS)).collect();
        let a = upload_rows(comms, &host, COLS)?;
        let mut b: Vec<DeviceArray<T>> = comms
            .iter()
            .map(|c| DeviceArray::zeros(c.device(), &[n, COLS]))
            .collect::<cuarray::Result<_>>()?;
        nccl::group(|| {
            for (r, (c, y)) in comms.iter().zip(&mut b).enumerate() {
                c.send(&a[r], (r + 1) % world)?;
                c.recv(y, (r + world - 1) % world)?;
            }
            Ok(())
        })?;
        for (r, y) in b.iter().enumerate() {
            check_eq(
                &what("send/recv", r),
                &y.to_host()?,
                &host[(r + world - 1) % world],
            )?;
        }
        // all_to_all: block i of rank r's result is block r of rank i's input.
        let big: Vec<Vec<T>> = (0..world).map(|_| data(rng, world * n * COLS)).collect();
        let a = upload_rows(comms, &big, COLS)?;
        let mut outs = Vec::new();
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&a) {
                outs.push(c.all_to_all(x)?);
            }
            Ok(())
        })?;
        let block = n * COLS;
        for (r, y) in outs.iter().enumerate() {
            ensure!(
                y.shape() == [world * n, COLS],
                "all_to_all shape {:?}",
                y.shape()
            );
            let want: Vec<T> = big
                .iter()
                .flat_map(|h| h[r * block..(r + 1) * block].iter().copied())
                .collect();
            check_eq(&what("all_to_all", r), &y.to_host()?, &want)?;
        }
        // gather into the last rank: the inputs concatenated in rank order.
        let root = world - 1;
        let a = upload_rows(comms, &host, COLS)?;
        let mut outs = Vec::new();
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&a) {
                outs.push(c.gather(x, root)?);
            }
            Ok(())
        })?;
        for (r, y) in outs.iter().enumerate() {
            match y {
                Some(y) if r == root => {
                    ensure!(
                        y.shape() == [world * n, COLS],
                        "gather shape {:?}",
                        y.shape()
                    );
                    check_eq(&what("gather", r), &y.to_host()?, &host.concat())?;
                }
                None if r != root => {}
                _ => return Err(format!("gather: rank {r} got {:?}", y.is_some()).into()),
            }
        }
        // scatter from rank 0: rank r gets block r of rank 0's input (the others' inputs
        // are not read).
        let a = upload_rows(comms, &big, COLS)?;
        let mut outs = Vec::new();
        nccl::group(|| {
            for (c, x) in comms.iter().zip(&a) {
                outs.push(c.scatter(x, 0)?);
            }
            Ok(())
        })?;
        for (r, y) in outs.iter().enumerate() {
            ensure!(y.shape() == [n, COLS], "scatter shape {:?}", y.shape());
            check_eq(
                &what("scatter", r),
                &y.to_host()?,
                &big[0][r * block..(r + 1) * block],
            )?;
        }
    }
    Ok(())
}

fn group_of_one<T: TElem + NcclElement>(dev: &Device, rng: &mut Rng) -> TResult {
    nccl_ready()?;
    let comms = Comm::new_group(std::slice::from_ref(dev))?;
    ensure!(
        comms.len() == 1 && comms[0].rank() == 0 && comms[0].world_size() == 1,
        "{:?}",
        comms
    );
    collectives::<T>(&comms, rng)?;
    point_to_point::<T>(&comms, rng)?;
    comms[0].barrier()?;
    // Shapes: a 2-D input gathers along its first axis; reduce_scatter of a 0-d array is
    // an error.
    let x = DeviceArray::from_host(dev, &data::<T>(rng, 12), &[4, 3])?;
    ensure!(comms[0].all_gather(&x)?.shape() == [4, 3], "2-D all_gather");
    let z = DeviceArray::from_host(dev, &data::<T>(rng, 1), &[])?;
    ensure!(comms[0].all_gather(&z)?.shape() == [1], "0-d all_gather");
    ensure!(
        comms[0].reduce_scatter(&z, ReduceOp::Sum).is_err(),
        "0-d reduce_scatter"
    );
    Ok(())
}

fn nccl_errors(dev: &Device) -> TResult {
    nccl_ready()?;
    let comm = Comm::new_group(std::slice::from_ref(dev))?.remove(0);
    let a = DeviceArray::<f32>::ones(dev, &[6, 4])?;
    // A non-contiguous array is refused, naming the fix.
    let mut t = a.t();
    match comm.all_reduce(&mut t, ReduceOp::Sum) {
        Err(e @ Error::InvalidArgument { .. }) => {
            ensure!(e.to_string().contains("contiguous()"), "message {e}")
        }
        other => return Err(format!("transposed all_reduce gave {other:?}").into()),
    }
    let mut b = a.copy()?;
    ensure!(
        matches!(
            comm.broadcast(&mut b, 1),
            Err(Error::InvalidArgument { .. })
        ),
        "root 1 of 1 accepted"
    );
    ensure!(
        matches!(
            comm.reduce(&mut b, ReduceOp::Sum, 3),
            Err(Error::InvalidArgument { .. })
        ),
        "reduce root 3 of 1 accepted"
    );
    let mut wrong = DeviceArray::<f32>::zeros(dev, &[5])?;
    ensure!(
        matches!(
            comm.all_gather_into(&a, &mut wrong),
            Err(Error::ShapeMismatch { .. })
        ),
        "all_gather_into a wrong size accepted"
    );
    ensure!(
        matches!(
            comm.reduce_scatter_into(&a, &mut wrong, ReduceOp::Sum),
            Err(Error::ShapeMismatch { .. })
        ),
        "reduce_scatter_into a wrong size accepted"
    );
    ensure!(
        matches!(Comm::new_group(&[]), Err(Error::InvalidArgument { .. })),
        "empty group accepted"
    );
    ensure!(
        matches!(
            Comm::new_group(&[dev.clone(), dev.clone()]),
            Err(Error::InvalidArgument { .. })
        ),
        "a device twice accepted"
    );
    // Point-to-point and the collectives built on it check their arguments alike.
    ensure!(
        matches!(comm.send(&a, 1), Err(Error::InvalidArgument { .. })),
        "send to peer 1 of 1 accepted"
    );
    ensure!(
        matches!(comm.recv(&mut a.t(), 0), Err(Error::InvalidArgument { .. })),
        "recv into a transposed array accepted"
    );
    ensure!(
        matches!(comm.gather(&a, 2), Err(Error::InvalidArgument { .. })),
        "gather to root 2 of 1 accepted"
    );
    ensure!(
        matches!(comm.scatter(&a, 1), Err(Error::InvalidArgument { .. })),
        "scatter from root 1 of 1 accepted"
    );
    let z = DeviceArray::<f32>::ones(dev, &[])?;
    ensure!(
        matches!(comm.all_to_all(&z), Err(Error::ShapeMismatch { .. })),
        "0-d all_to_all accepted"
    );
    ensure!(
        matches!(comm.scatter(&z, 0), Err(Error::ShapeMismatch { .. })),
        "0-d scatter accepted"
    );
    let inside = nccl::group(|| comm.barrier());
    match inside {
        Err(e @ Error::InvalidArgument { .. }) => {
            ensure!(e.to_string().contains("nccl::group"), "message {e}")
        }
        other => return Err(format!("barrier inside a group gave {other:?}").into()),
    }
    // An error inside a group closes the group and comes back.
    let r: cuarray::Result<()> = nccl::group(|| {
        comm.all_reduce(&mut a.t(), ReduceOp::Sum)?;
        Ok(())
    });
    ensure!(r.is_err(), "group swallowed an error");
    // The communicator still works after that.
    let mut c = a.copy()?;
    comm.all_reduce(&mut c, ReduceOp::Sum)?;
    check_eq("after errors", &c.to_host()?, &[1.0f32; 24])?;
    comm.check_async_error()?;
    Ok(())
}

fn from_id_one_rank(dev: &Device) -> TResult {
    nccl_ready()?;
    let id = Id::new()?;
    let again: Id = id.to_hex().parse()?;
    ensure!(again == id, "hex round trip");
    let comm = Comm::from_id(&again, 0, 1, dev)?;
    ensure!(comm.rank() == 0 && comm.world_size() == 1, "{comm:?}");
    let mut a = DeviceArray::<f64>::arange(dev, 0.0, 10.0, 1.0)?;
    comm.all_reduce(&mut a, ReduceOp::Sum)?;
    check_eq(
        "from_id all_reduce",
        &a.to_host()?,
        &(0..10).map(f64::from).collect::<Vec<_>>(),
    )?;
    ensure!(
        matches!(
            Comm::from_id(&id, 1, 1, dev),
            Err(Error::InvalidArgument { .. })
        ),
        "rank 1 of 1 accepted"
    );
    // On a stream of its own: the collective runs there.
    let s = dev.new_stream()?;
    let comm2 = Comm::from_id(&Id::new()?, 0, 1, &s.device())?;
    let mut b = DeviceArray::<f32>::ones(&s.device(), &[N])?;
    comm2.all_reduce(&mut b, ReduceOp::Max)?;
    check_eq("on a stream", &b.to_host()?, &[1.0f32; N])?;
    Ok(())
}

fn group_of_all<T: TElem + NcclElement>(_dev: &Device, rng: &mut Rng) -> TResult {
    with_devices(|devs| {
        nccl_ready()?;
        let comms = Comm::new_group(devs)?;
        collectives::<T>(&comms, rng)?;
        point_to_point::<T>(&comms, rng)
    })
}

fn one_thread_per_device(_dev: &Device) -> TResult {
    with_devices(|devs| {
        nccl_ready()?;
        let id = Id::new()?;
        let world = devs.len();
        let hex = id.to_string();
        let handles: Vec<_> = devs
            .iter()
            .cloned()
            .enumerate()
            .map(|(rank, dev)| {
                let hex = hex.clone();
                std::thread::spawn(move || -> cuarray::Result<Vec<f32>> {
                    let id: Id = hex.parse()?;
                    let comm = Comm::from_id(&id, rank, world, &dev)?;
                    let mut a = DeviceArray::<f32>::full(&dev, &[N], (rank + 1) as f32)?;
                    comm.all_reduce(&mut a, ReduceOp::Sum)?;
                    let mut b = DeviceArray::<f32>::full(&dev, &[N], rank as f32)?;
                    comm.broadcast(&mut b, world - 1)?;
                    let g = comm.all_gather(&DeviceArray::<f32>::full(&dev, &[], rank as f32)?)?;
                    comm.barrier()?;
                    let p2p = p2p_one_rank(&comm)?;
                    comm.barrier()?;
                    let mut out = a.to_host()?;
                    out.extend(b.to_host()?);
                    out.extend(g.to_host()?);
                    out.extend(p2p);
                    Ok(out)
                })
            })
            .collect();
        let total = (world * (world + 1) / 2) as f32;
        for (rank, h) in handles.into_iter().enumerate() {
            let mut want = vec![total; N];
            want.extend(vec![(world - 1) as f32; N]);
            want.extend((0..world).map(|r| r as f32));
            want.extend(p2p_one_rank_want(rank, world));
            let got = h.join().map_err(|_| format!("rank {rank} panicked"))??;
            check_eq(&format!("rank {rank}"), &got, &want)?;
        }
        Ok(())
    })
}

/// One rank's part of a ring exchange, an all_to_all, a gather into rank 0 and a scatter
/// from the last rank, with values that name their source; the results concatenated
/// (what [`p2p_one_rank_want`] predicts).
fn p2p_one_rank(comm: &Comm) -> cuarray::Result<Vec<f32>> {
    let (dev, rank, world) = (comm.device(), comm.rank(), comm.world_size());
    let mine = DeviceArray::<f32>::full(dev, &[N], rank as f32)?;
    let mut left = DeviceArray::<f32>::zeros(dev, &[N])?;
    nccl::group(|| {
        comm.send(&mine, (rank + 1) % world)?;
        comm.recv(&mut left, (rank + world - 1) % world)
    })?;
    let codes: Vec<f32> = (0..world).map(|j| (100 * rank + j) as f32).collect();
    let codes = DeviceArray::from_slice(dev, &codes)?;
    let swapped = comm.all_to_all(&codes)?;
    let gathered = comm.gather(&DeviceArray::<f32>::full(dev, &[], rank as f32)?, 0)?;
    let part = comm.scatter(&codes, world - 1)?;
    let mut out = left.to_host()?;
    out.extend(swapped.to_host()?);
    if let Some(g) = gathered {
        out.extend(g.to_host()?);
    }
    out.extend(part.to_host()?);
    Ok(out)
}

/// What [`p2p_one_rank`] returns on `rank` of `world`.
fn p2p_one_rank_want(rank: usize, world: usize) -> Vec<f32> {
    let mut want = vec![((rank + world - 1) % world) as f32; N];
    want.extend((0..world).map(|i| (100 * i + rank) as f32));
    if rank == 0 {
        want.extend((0..world).map(|r| r as f32));
    }
    want.push((100 * (world - 1) + rank) as f32);
    want
}

/// `nccl::init` (the rendezvous over TCP on this host, then `ncclCommInitRank`), one
/// thread per device (one device: a single rank, no TCP), then collectives over it.
fn rendezvous_threads(_dev: &Device) -> TResult {
    nccl_ready()?;
    let world = cuarray::device_count()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let handles: Vec<_> = (0..world)
        .map(|rank| {
            std::thread::spawn(move || -> cuarray::Result<Vec<f32>> {
                let cfg = EnvConfig {
                    rank,
                    world_size: world,
                    local_rank: rank,
                    master_addr: "127.0.0.1".into(),
                    master_port: port,
                };
                let comm = rendezvous::init(&cfg)?;
                assert_eq!((comm.rank(), comm.world_size()), (rank, world));
                assert_eq!(comm.device().ordinal(), rank);
                let mut a = DeviceArray::<f32>::full(comm.device(), &[N], 1.0)?;
                comm.all_reduce(&mut a, ReduceOp::Sum)?;
                comm.barrier()?;
                let mut out = a.to_host()?;
                out.extend(p2p_one_rank(&comm)?);
                Ok(out)
            })
        })
        .collect();
    for (rank, h) in handles.into_iter().enumerate() {
        let mut want = vec![world as f32; N];
        want.extend(p2p_one_rank_want(rank, world));
        let got = h.join().map_err(|_| format!("rank {rank} panicked"))??;
        check_eq(&format!("rank {rank}"), &got, &want)?;
    }
    Ok(())
}

/// 1 GiB: all_reduce (sum) over every device (one included) and, with two devices, a
/// peer copy each way; checked on the devices (exact integers), one bool back each.
fn large(dev: &Device) -> TResult {
    nccl_ready()?;
    let n = 1usize << 28; // 1 GiB of i32
    let count = cuarray::device_count()?;
    let devs: Vec<Device> = (0..count)
        .map(Device::new)
        .collect::<cuarray::Result<_>>()?;
    let comms = Comm::new_group(&devs)?;
    let mut xs: Vec<DeviceArray<i32>> = devs
        .iter()
        .map(|d| DeviceArray::<i32>::arange(d, 0, n as i32, 1))
        .collect::<cuarray::Result<_>>()?;
    nccl::group(|| {
        for (c, x) in comms.iter().zip(&mut xs) {
            c.all_reduce(x, ReduceOp::Sum)?;
        }
        Ok(())
    })?;
    for (d, x) in devs.iter().zip(&xs) {
        let want = (&DeviceArray::<i32>::arange(d, 0, n as i32, 1)? * count as i32)?;
        ensure!(
            cuarray::array_equal(x, &want)?,
            "all_reduce of 1 GiB on {d:?}"
        );
    }
    if count >= 2 {
        let a = &xs[0];
        let b = a.to_device(&devs[1])?;
        let back = b.to_device(dev)?;
        ensure!(
            cuarray::array_equal(a, &back)?,
            "1 GiB peer copy there and back"
        );
    }
    Ok(())
}

// ---- registration ------------------------------------------------------------------------

macro_rules! each_nccl_dtype {
    ($f:ident ( $($args:expr),* )) => {{
        $f::<f32>($($args),*);
        $f::<f64>($($args),*);
        $f::<half::f16>($($args),*);
        $f::<half::bf16>($($args),*);
        $f::<i8>($($args),*);
        $f::<u8>($($args),*);
        $f::<i32>($($args),*);
        $f::<u32>($($args),*);
        $f::<i64>($($args),*);
        $f::<u64>($($args),*);
    }};
}

fn register_to_device<T: TElem>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!("multi/to_device/same_device/{}/37x29", dname::<T>()),
        to_device_same::<T>,
    );
}

/// Marks `t` ignored unless `run`.
fn only_if(run: bool, t: Trial) -> Trial {
    if run {
        t
    } else {
        t.with_ignored_flag(true)
    }
}

fn register_nccl<T: TElem + NcclElement>(out: &mut Vec<Trial>, two: bool) {
    // NCCL trials run alone: NCCL forbids queuing work on two communicators of one device
    // from two threads at once, and collectives of two multi-GPU groups queued
    // concurrently could reach the GPUs' streams in opposite orders and wait for each
    // other.
    let name = format!("multi/nccl/group_of_one/{}/{N}", dname::<T>());
    let seed = name.clone();
    out.push(gpu_trial_exclusive(name, move |dev| {
        group_of_one::<T>(dev, &mut Rng::for_name(&seed))
    }));
    let name = format!("multi/nccl/group_of_all/{}/{N}", dname::<T>());
    let seed = name.clone();
    out.push(only_if(
        two,
        gpu_trial_exclusive(name, move |dev| {
            group_of_all::<T>(dev, &mut Rng::for_name(&seed))
        }),
    ));
}

pub fn trials(out: &mut Vec<Trial>) {
    // Two-device trials are ignored with fewer devices, GPU required or not: a one-GPU
    // machine cannot run them. NCCL trials are ignored without NCCL unless a GPU is
    // required (then they fail with the library search's message).
    let count = cuarray::device_count().unwrap_or(0);
    let two = count >= 2;
    if !two && cuarray::is_available() {
        eprintln!("multi-GPU trials skipped: {count} device(s) present, 2 needed");
    }
    let nccl_ok = nccl::is_available() || cuarray::testing::gpu_required();
    if !nccl_ok && cuarray::is_available() {
        let reason = nccl::version().err().map(|e| e.to_string());
        eprintln!("NCCL trials skipped: {}", reason.unwrap_or_default());
    }
    each_dtype!(register_to_device(out));
    out.push(gpu_trial(
        "multi/to_device/other_stream/f32/2p22",
        to_device_other_stream,
    ));
    out.push(only_if(
        two,
        gpu_trial(
            "multi/to_device/across_devices/f32/300x701",
            to_device_across,
        ),
    ));
    out.push(only_if(
        two,
        gpu_trial("multi/mixed_devices/f32/4x4", mixed_devices),
    ));
    let mut nccl_trials = Vec::new();
    each_nccl_dtype!(register_nccl(&mut nccl_trials, two));
    nccl_trials.push(gpu_trial_exclusive(
        "multi/nccl/errors/f32/6x4",
        nccl_errors,
    ));
    nccl_trials.push(gpu_trial_exclusive(
        "multi/nccl/from_id_one_rank/f64/10",
        from_id_one_rank,
    ));
    nccl_trials.push(only_if(
        two,
        gpu_trial_exclusive(
            "multi/nccl/one_thread_per_device/f32/1003",
            one_thread_per_device,
        ),
    ));
    nccl_trials.push(gpu_trial_exclusive(
        "multi/nccl/rendezvous_threads/f32/1003",
        rendezvous_threads,
    ));
    nccl_trials.push(gpu_trial_exclusive("multi/nccl/large/i32/1GiB", large));
    out.extend(nccl_trials.into_iter().map(|t| only_if(nccl_ok, t)));
}
