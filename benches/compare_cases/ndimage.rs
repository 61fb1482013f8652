//! Image processing cases of the peer comparison (`cuarray::ndimage` against
//! `cupyx.scipy.ndimage`; PyTorch has no counterpart): f32 images of 4096 x 4096 (2048 x
//! 2048 for the distance transform and zoom) from the quasi-random `rand_matrix` values in
//! [-0.5, 0.5). Bytes: the input read once and the output written once.

use super::{device_case, rand_matrix, Case};
use cuarray::ndimage::{self, Mode};
use cuarray::{Device, DeviceArray};

/// A timed call.
type Run<'a> = Box<dyn Fn() -> cuarray::Result<()> + 'a>;

pub(super) fn ndimage_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let side = 4096usize;
    let n = side * side;
    let rw = (2 * n * 4) as f64;
    let img_cases = [
        "ndimage_gaussian_f32_4096^2_s3",
        "ndimage_uniform_f32_4096^2_9",
        "ndimage_sobel_f32_4096^2",
        "ndimage_median_f32_4096^2_5x5",
        "ndimage_maximum_f32_4096^2_7x7",
        "ndimage_rotate30_order1_f32_4096^2",
        "ndimage_map_coordinates_order1_f32_2^22",
        "ndimage_binary_erosion_4096^2_3x3",
        "ndimage_label_4096^2_d0.3",
        "ndimage_center_of_mass_f32_4096^2_1000labels",
    ];
    if img_cases.iter().any(|c| filter(c)) {
        let img = rand_matrix::<f32>(dev, &[side, side]);
        let r = Mode::Reflect;
        let run: [(&str, Run<'_>); 5] = [
            (
                img_cases[0],
                Box::new(|| ndimage::gaussian_filter(&img, &[3.0], &[0], r, 4.0).map(drop)),
            ),
            (
                img_cases[1],
                Box::new(|| ndimage::uniform_filter(&img, &[9], r, 0).map(drop)),
            ),
            (
                img_cases[2],
                Box::new(|| ndimage::sobel(&img, 0, r).map(drop)),
            ),
            (
                img_cases[3],
                Box::new(|| ndimage::median_filter(&img, &[5], r).map(drop)),
            ),
            (
                img_cases[4],
                Box::new(|| ndimage::maximum_filter(&img, &[7], r).map(drop)),
            ),
        ];
        for (name, f) in run {
            if filter(name) {
                cases.push(device_case(dev, name, rw, f));
            }
        }
        if filter(img_cases[5]) {
            cases.push(device_case(dev, img_cases[5], rw, || {
                ndimage::rotate(&img, 30.0, (1, 0), false, 1, Mode::Constant(0.0)).map(drop)
            }));
        }
        if filter(img_cases[6]) {
            let m = 1usize << 22;
            let c =
                ((&rand_matrix::<f64>(dev, &[2, m]) + 0.5).unwrap() * (side as f64 - 1.0)).unwrap();
            cases.push(device_case(
                dev,
                img_cases[6],
                (m * (16 + 4)) as f64,
                || ndimage::map_coordinates(&img, &c, 1, Mode::Constant(0.0)).map(drop),
            ));
        }
        if filter(img_cases[7]) || filter(img_cases[8]) {
            // Density 0.3: values below -0.2.
            let mask = img.lt(-0.2f32).unwrap();
            if filter(img_cases[7]) {
                cases.push(device_case(dev, img_cases[7], (2 * n) as f64, || {
                    ndimage::binary_erosion(&mask, None, 1).map(drop)
                }));
            }
            if filter(img_cases[8]) {
                cases.push(device_case(dev, img_cases[8], (n + 4 * n) as f64, || {
                    ndimage::label(&mask, None).map(drop)
                }));
            }
        }
        if filter(img_cases[9]) {
            // 1000 labels of consecutive rows' pixels.
            let labels = (&DeviceArray::<i32>::arange(dev, 0, n as i32, 1).unwrap()
                / n.div_ceil(1000) as i32)
                .unwrap()
                .add(1)
                .unwrap()
                .reshape(&[side as isize, side as isize])
                .unwrap();
            let index: Vec<i32> = (1..=1000).collect();
            cases.push(device_case(dev, img_cases[9], (n * 8) as f64, || {
                ndimage::center_of_mass(&img, &labels, &index).map(drop)
            }));
        }
    }
    let small = 2048usize;
    if filter("ndimage_edt_2048^2") {
        let mask = rand_matrix::<f32>(dev, &[small, small])
            .gt(-0.45f32)
            .unwrap();
        cases.push(device_case(
            dev,
            "ndimage_edt_2048^2",
            (small * small * 9) as f64,
            || ndimage::distance_transform_edt(&mask, None).map(drop),
        ));
    }
    for order in [1usize, 3] {
        let name = format!("ndimage_zoom2_order{order}_f32_2048^2");
        if filter(&name) {
            let img = rand_matrix::<f32>(dev, &[small, small]);
            cases.push(device_case(
                dev,
                &name,
                (small * small * 4 * 5) as f64,
                || ndimage::zoom(&img, &[2.0], order, Mode::Constant(0.0)).map(drop),
            ));
        }
    }
}
