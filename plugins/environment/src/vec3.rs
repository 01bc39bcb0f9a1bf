//! Small fixed-size vector helpers over any dual scalar. 2-D models use the
//! first two components and leave the third at zero.

use pliant_core::num_dual::DualNum;

pub(crate) fn dot<T: DualNum<f64> + Copy>(a: &[T; 3], b: &[T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn dotf<T: DualNum<f64> + Copy>(a: &[T; 3], b: &[f64; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn sub<T: DualNum<f64> + Copy>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Loads coordinates `off..off+dim` of a local stencil into a 3-vector.
pub(crate) fn load<T: DualNum<f64> + Copy>(x: &[T], off: usize, dim: usize) -> [T; 3] {
    let z = T::from(0.0);
    std::array::from_fn(|a| if a < dim { x[off + a] } else { z })
}

/// Removes the component along the unit normal `n`.
pub(crate) fn tangential<T: DualNum<f64> + Copy>(v: &[T; 3], n: &[f64; 3]) -> [T; 3] {
    let vn = dotf(v, n);
    [v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]]
}

pub(crate) fn norm3(a: &[f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}
