//! CUDA graphs: [`Device::capture`] records the GPU work of a closure once, and
//! [`Graph::launch`] replays it with one driver call.
//!
//! ```no_run
//! use cuarray::{Device, DeviceArray};
//! let dev = Device::new(0)?;
//! let x = DeviceArray::<f32>::ones(&dev, &[1024])?;
//! let double = dev.capture(|| x.mul_assign(2.0))?; // recorded once
//! for _ in 0..3 {
//!     double.launch()?; // replayed
//! }
//! assert_eq!(x.to_host()?, vec![8.0; 1024]);
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! A graph removes the host's cost of launching each kernel (a few microseconds each),
//! not the GPU's: each replayed kernel still costs about a microsecond of GPU time, so a
//! chain of small operations is best [fused](crate::fuse) first, then captured.
//!
//! # What a replay does
//! Exactly the kernels the closure launched, on the same memory: the closure runs once,
//! at the capture; its host code (loops, conditions, shapes) is frozen then. Inputs are
//! the arrays the closure read: write new values into them (in place, outside the graph:
//! `x.assign(&new)?`, or a copy from the host) and launch again. Results are read from
//! arrays that existed before the capture (written with `call_into`, `assign`, the
//! `*_assign` methods); arrays made inside the closure live in the graph's own memory
//! and are rewritten by every replay.
//!
//! # Memory
//! Arrays allocated during the capture come from a pool private to the graph (as
//! PyTorch's graphs): their memory is never handed to other arrays while the graph
//! lives, so a replay never writes memory that something else owns, even after those
//! arrays are dropped. Every buffer the captured work touches is kept alive by the
//! graph. The private pool shows in [`Device::memory_stats`] and goes back to the driver
//! when the graph is dropped; replays allocate nothing.
//!
//! # What a capture refuses
//! Operations that would wait for the GPU or move data between host and device
//! (`to_host`, `to_scalar`, `from_host`, `synchronize`, `Event::synchronize`, timers),
//! random numbers (a replay would repeat them), cuBLAS matrix products, new streams and
//! `free_all_blocks` return [`Error::Capture`] before CUDA sees them: the capture ends
//! cleanly, the error is returned by `capture`, and the device stays usable. So does an
//! error returned by the closure, or a panic in it.
//!
//! # Other threads
//! A capture belongs to the thread that calls `capture`. While it lasts, other threads'
//! operations on the same device return [`Error::Capture`] before CUDA sees them (work
//! they queued on the captured stream would be recorded into the graph instead of
//! running); they may retry once the capture is over. An operation another thread began
//! before the capture finishes queuing first: the capture waits for it. Waiting for
//! pinned transfers queued before the capture, and work on other devices, go on as
//! usual (the capture is thread-local to CUDA).

use crate::device::{DeviceBuffer, GraphPool};
use crate::{Device, Error, Result};
use cudarc::driver::sys;
use std::sync::{Arc, Mutex};

/// A captured, instantiated CUDA graph (from [`Device::capture`]): replay it with
/// [`launch`](Graph::launch).
///
/// `Send` and `Sync` (launches are serialised by an internal lock). Dropping a graph
/// waits for the device when it held private memory, then frees that memory.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[1024])?;
/// let step = dev.capture(|| {
///     x.mul_assign(0.5)?;
///     x.add_assign(1.0)
/// })?; // two kernels, recorded once
/// step.launch()?; // x = 0.5 x + 1, with one driver call
/// assert_eq!(x.to_host()?, vec![1.5; 1024]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Graph {
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
    /// The device, bound to the captured stream.
    device: Device,
    lock: Mutex<()>,
    nodes: usize,
    /// Dropped after the graph itself (fields drop after `Drop::drop`).
    pool: Option<Arc<GraphPool>>,
    retained: Vec<Arc<DeviceBuffer>>,
}

// SAFETY: the graph handles are only used under `lock` (launch) or with `&mut self`
// (drop); the CUDA driver's objects may be used from any thread when access is serialised.
unsafe impl Send for Graph {}
// SAFETY: as above.
unsafe impl Sync for Graph {}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Graph({} nodes on {:?}, {} bytes of private memory, {} buffers kept)",
            self.nodes,
            self.device,
            self.private_bytes(),
            self.retained.len()
        )
    }
}

impl Graph {
    /// Replays the captured work on the captured stream. Returns once the replay is
    /// queued: like any operation, it does not wait for the GPU.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let x = DeviceArray::<f32>::ones(&dev, &[4])?;
    /// let graph = dev.capture(|| x.mul_assign(2.0))?; // recorded, not run
    /// graph.launch()?;
    /// graph.launch()?;
    /// assert_eq!(x.to_host()?, vec![4.0; 4]); // two replays
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Cuda`] when the driver refuses the launch.
    pub fn launch(&self) -> Result<()> {
        // CUDA does not take a graph launch into a capture.
        let _queuing = self.device.check_capture("graph launch")?;
        let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.device.bind()?;
        // SAFETY: `exec` is a live executable graph of this device's context, whose
        // every buffer is alive (retained or in the private pool); the stream is the
        // device's.
        unsafe { sys::cuGraphLaunch(self.exec, self.device.cu_stream()) }
            .result()
            .map_err(Error::cuda("graph launch"))
    }

    /// Number of nodes (kernels, copies, fills) of the graph.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let (x, y) = (DeviceArray::<f32>::ones(&dev, &[8])?, DeviceArray::<f32>::zeros(&dev, &[8])?);
    /// let f = fuse(|x: Expr<f32>| (x * 2.0 + 1.0).sqrt());
    /// let graph = dev.capture(|| f.call_into(&y, &x))?;
    /// assert_eq!(graph.node_count(), 1); // one fused kernel
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// Bytes of the graph's private memory (the arrays allocated during its capture).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let (x, y) = (DeviceArray::<f32>::ones(&dev, &[1000])?, DeviceArray::<f32>::zeros(&dev, &[1000])?);
    /// let graph = dev.capture(|| y.assign(&(&x * 2.0)?))?; // `&x * 2.0` is allocated in the capture
    /// assert!(graph.private_bytes() >= 1000 * 4);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn private_bytes(&self) -> usize {
        self.pool.as_ref().map_or(0, |p| p.bytes())
    }

    /// The device (bound to the captured stream) the graph replays on.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let x = DeviceArray::<f32>::ones(&dev, &[4])?;
    /// let graph = dev.capture(|| x.add_assign(1.0))?;
    /// graph.launch()?;
    /// graph.device().synchronize()?; // waits for the replay
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        let _ = self.device.bind();
        // SAFETY: both handles are owned by this graph and destroyed once; a replay still
        // running finishes first (the driver frees an executable graph in flight on
        // completion), and the memory it uses is freed only after the device is idle
        // (`GraphPool`'s drop) or in stream order (retained buffers).
        unsafe {
            let _ = sys::cuGraphExecDestroy(self.exec);
            let _ = sys::cuGraphDestroy(self.graph);
        }
    }
}

/// Ends the capture on drop if the closure panicked (or on any early return), so that the
/// stream never stays capturing.
struct Capturing<'a> {
    device: &'a Device,
    done: bool,
}

/// What ending a capture gives: the graph (or the driver's error), its pool, the buffers
/// its work touched.
type Ended = (
    std::result::Result<sys::CUgraph, cudarc::driver::DriverError>,
    Option<Arc<GraphPool>>,
    Vec<Arc<DeviceBuffer>>,
);

impl Capturing<'_> {
    fn end(&mut self) -> Ended {
        self.done = true;
        let _ = self.device.bind();
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is capturing (begun by `capture`); `graph` is an out-parameter.
        let r = unsafe { sys::cuStreamEndCapture(self.device.cu_stream(), &mut graph) }.result();
        let (pool, retained) = self.device.end_capture_state();
        (r.map(|_| graph), pool, retained)
    }
}

impl Drop for Capturing<'_> {
    fn drop(&mut self) {
        if !self.done {
            if let (Ok(g), _, _) = self.end() {
                destroy(g);
            }
        }
    }
}

fn destroy(g: sys::CUgraph) {
    if !g.is_null() {
        // SAFETY: a graph returned by cuStreamEndCapture, destroyed once.
        let _ = unsafe { sys::cuGraphDestroy(g) };
    }
}

/// The graph's nodes, or a memory node's refusal.
fn check_nodes(g: sys::CUgraph) -> Result<usize> {
    let mut n = 0usize;
    // SAFETY: a live graph; a null array asks for the count.
    unsafe { sys::cuGraphGetNodes(g, std::ptr::null_mut(), &mut n) }
        .result()
        .map_err(Error::cuda("reading a graph's nodes"))?;
    let mut nodes = vec![std::ptr::null_mut(); n];
    if n > 0 {
        // SAFETY: `nodes` holds `n` entries.
        unsafe { sys::cuGraphGetNodes(g, nodes.as_mut_ptr(), &mut n) }
            .result()
            .map_err(Error::cuda("reading a graph's nodes"))?;
    }
    for &node in &nodes[..n] {
        let mut t = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        // SAFETY: a node of the live graph; `t` is an out-parameter.
        unsafe { sys::cuGraphNodeGetType(node, &mut t) }
            .result()
            .map_err(Error::cuda("reading a graph node's type"))?;
        if matches!(
            t,
            sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_ALLOC
                | sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_FREE
        ) {
            return Err(Error::Capture {
                op: "capture",
                msg: "the captured work allocates or frees stream-ordered memory (a memory \
                      node), which a replay cannot repeat safely; allocate outside the capture"
                    .into(),
            });
        }
    }
    Ok(n)
}

impl Device {
    /// Captures the GPU work `f` queues on this handle's stream into a [`Graph`], which
    /// [`Graph::launch`] replays with one driver call. `f` runs once, now; it borrows the
    /// arrays it uses, whose buffers the graph keeps alive.
    ///
    /// ```no_run
    /// use cuarray::{fuse, Device, DeviceArray, Expr};
    /// let dev = Device::new(0)?;
    /// let x = DeviceArray::<f32>::zeros(&dev, &[1000])?;
    /// let y = DeviceArray::<f32>::zeros(&dev, &[1000])?;
    /// let step = fuse(|x: Expr<f32>| x * 1.0001 + 0.5);
    /// let graph = dev.capture(|| -> cuarray::Result<()> {
    ///     step.call_into(&y, &x)?;          // y = f(x), into an array made before
    ///     Ok(())
    /// })?;
    /// for k in 0..10 {
    ///     x.assign(&DeviceArray::full(&dev, &[1000], k as f32)?)?;   // new input, in place
    ///     graph.launch()?;                   // y = f(x) again
    /// }
    /// assert_eq!(y.to_host()?[0], 9.0 * 1.0001 + 0.5);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// See the [module documentation](crate::graph) for what a replay does, where the
    /// memory of arrays made inside the closure comes from, and what a capture refuses.
    ///
    /// # Errors
    /// [`Error::Capture`] for an operation not allowed inside a capture (see above), a
    /// capture already under way on the device, work queued on another stream of the
    /// device during the capture, or captured work CUDA rejects; the error `f` returns;
    /// [`Error::Cuda`] when the driver fails. In every case the capture is over and the
    /// device usable.
    pub fn capture(&self, f: impl FnOnce() -> Result<()>) -> Result<Graph> {
        if self.capturing() {
            return Err(Error::Capture {
                op: "capture",
                msg: "a capture is already under way on this device (captures do not nest; \
                      launch a finished graph inside a capture instead)"
                    .into(),
            });
        }
        crate::ops::reduce::prepare_capture(self)?;
        self.bind()?;
        self.begin_capture_state(Arc::new(GraphPool::new(self)))?;
        // SAFETY: the stream belongs to this device's context, current on this thread.
        let begun = unsafe {
            sys::cuStreamBeginCapture_v2(
                self.cu_stream(),
                // Thread-local: other threads may still wait for their own events (in
                // global mode any thread's event query invalidates the capture);
                // their work on this device is refused above CUDA (`check_capture`).
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )
        }
        .result();
        if let Err(e) = begun {
            drop(self.end_capture_state());
            return Err(Error::cuda("beginning a graph capture")(e));
        }
        let mut capturing = Capturing {
            device: self,
            done: false,
        };
        let result = f();
        let (graph, pool, retained) = capturing.end();
        let graph = match (result, graph) {
            (Err(e), g) => {
                if let Ok(g) = g {
                    destroy(g);
                }
                return Err(e);
            }
            (Ok(()), Err(e)) => {
                return Err(Error::Capture {
                    op: "capture",
                    msg: format!(
                        "CUDA invalidated the capture ({e}): an operation in the closure is not \
                         allowed in a graph"
                    ),
                })
            }
            (Ok(()), Ok(g)) => g,
        };
        let nodes = match check_nodes(graph) {
            Ok(n) => n,
            Err(e) => {
                destroy(graph);
                return Err(e);
            }
        };
        let mut exec: sys::CUgraphExec = std::ptr::null_mut();
        // SAFETY: a live graph; `exec` is an out-parameter; flags 0 (no auto-free: the
        // graph has no memory nodes).
        let made = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result();
        if let Err(e) = made {
            destroy(graph);
            return Err(Error::cuda("instantiating a graph")(e));
        }
        let g = Graph {
            exec,
            graph,
            device: self.clone(),
            lock: Mutex::new(()),
            nodes,
            pool,
            retained,
        };
        // SAFETY: a live executable graph and the device's stream. The upload moves the
        // first launch's setup here.
        unsafe { sys::cuGraphUpload(g.exec, self.cu_stream()) }
            .result()
            .map_err(Error::cuda("uploading a graph"))?;
        Ok(g)
    }
}
