//! Small 3-vector helpers, generic over the scalar type so that the same
//! code serves plain `f64` evaluation and the dual-number fallback.

use pliant_core::num_dual::DualNum;

/// A scalar the rod's generic code runs on: `f64` or a num-dual number.
pub trait Scalar: DualNum<f64> + Copy {}
impl<T: DualNum<f64> + Copy> Scalar for T {}

/// A 3-vector.
pub type V3<D> = [D; 3];

/// `a · b`.
#[inline]
pub fn dot<D: Scalar>(a: &V3<D>, b: &V3<D>) -> D {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
#[inline]
pub fn cross<D: Scalar>(a: &V3<D>, b: &V3<D>) -> V3<D> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a + b`.
#[inline]
pub fn add<D: Scalar>(a: &V3<D>, b: &V3<D>) -> V3<D> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
#[inline]
pub fn sub<D: Scalar>(a: &V3<D>, b: &V3<D>) -> V3<D> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s a`.
#[inline]
pub fn scale<D: Scalar>(s: D, a: &V3<D>) -> V3<D> {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `|a|`.
#[inline]
pub fn norm<D: Scalar>(a: &V3<D>) -> D {
    dot(a, a).sqrt()
}

/// `a / |a|`.
#[inline]
pub fn unit<D: Scalar>(a: &V3<D>) -> V3<D> {
    scale(norm(a).recip(), a)
}

/// A constant vector in the scalar type `D`.
#[inline]
pub fn lift<D: Scalar>(a: &[f64; 3]) -> V3<D> {
    [D::from(a[0]), D::from(a[1]), D::from(a[2])]
}

/// The part of `v` perpendicular to the unit vector `t`, normalized.
pub fn perp_unit(t: &[f64; 3], v: &[f64; 3]) -> [f64; 3] {
    unit(&sub(v, &scale(dot(t, v), t)))
}

/// `atan2(y, x)` for any scalar type, with the derivative of `atan(y/x)`
/// taken on the better-conditioned side (num-dual's own `atan2`
/// differentiates `y/x`, which loses accuracy where `x ≈ 0`).
pub fn atan2<D: Scalar>(y: D, x: D) -> D {
    let angle = y.re().atan2(x.re());
    let r = if x.re().abs() >= y.re().abs() {
        (y / x).atan()
    } else {
        -(x / y).atan()
    };
    // Same derivatives; shift the real part onto the right branch.
    r + (angle - r.re())
}
