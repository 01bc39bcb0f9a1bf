//! 3-vectors as `[D; 3]`, generic over the scalar (`f64` or a dual number),
//! so one formula serves values, analytic derivatives and the dual-number
//! fallback. Every energy uses these helpers; 2-D models are embedded in the
//! `z = 0` plane by the engine, so energies are written in 3-D only.
//!
//! (nalgebra's `Vector3<D>` would need `D: ComplexField` for norms, which a
//! generic `DualNum` scalar does not give; plain arrays also keep every
//! operation's order explicit, which keeps results bitwise reproducible.)

use crate::scalar::Scalar;

/// A 3-vector.
pub type V3<D> = [D; 3];

/// Components `off..off + 3` of a stencil vector.
#[inline]
pub fn load<D: Scalar>(x: &[D], off: usize) -> V3<D> {
    [x[off], x[off + 1], x[off + 2]]
}

/// `a · b`.
#[inline]
pub fn dot<D: Scalar>(a: &V3<D>, b: &V3<D>) -> D {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a · b` with a constant `b`.
#[inline]
pub fn dot_f<D: Scalar>(a: &V3<D>, b: &[f64; 3]) -> D {
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

/// The part of `v` perpendicular to the constant unit normal `n`.
#[inline]
pub fn tangential<D: Scalar>(v: &V3<D>, n: &[f64; 3]) -> V3<D> {
    let vn = dot_f(v, n);
    [v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]]
}

/// The part of `v` perpendicular to the unit vector `t`, normalized.
pub fn perp_unit<D: Scalar>(t: &V3<D>, v: &V3<D>) -> V3<D> {
    unit(&sub(v, &scale(dot(t, v), t)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    #[test]
    fn identities_hold_for_f64_and_duals() {
        let a = [0.3, -1.2, 2.0];
        let b = [1.5, 0.25, -0.7];
        let c = cross(&a, &b);
        assert!(dot(&c, &a).abs() < 1e-14 && dot(&c, &b).abs() < 1e-14);
        assert!((norm(&unit(&a)) - 1.0).abs() < 1e-15);
        let t = tangential(&a, &[0.0, 0.0, 1.0]);
        assert_eq!(t, [0.3, -1.2, 0.0]);
        // d|a + s b|/ds at s = 0 is a·b/|a|.
        let v: V3<Dual64> = std::array::from_fn(|k| Dual64::new(a[k], b[k]));
        assert!((norm(&v).eps - dot(&a, &b) / norm(&a)).abs() < 1e-14);
        let p = perp_unit(&unit(&a), &b);
        assert!(dot(&p, &a).abs() < 1e-14 && (norm(&p) - 1.0).abs() < 1e-15);
        assert_eq!(load(&[9.0, 1.0, 2.0, 3.0], 1), [1.0, 2.0, 3.0]);
        let back = add(&a, &sub(&b, &a));
        assert!((0..3).all(|k| (back[k] - b[k]).abs() < 1e-15));
        assert_eq!(dot_f(&a, &b), dot(&a, &b));
        assert_eq!(lift::<f64>(&a), a);
    }
}
