//! The scalar type element energies are written in.
//!
//! An element's energy is one generic function over `D: Scalar`: pliant
//! evaluates it with `f64` for values and with num-dual's dual numbers for
//! the derivatives it is not given analytically.

use num_dual::DualNum;

/// A scalar an energy can be evaluated in: `f64` or a num-dual number
/// (anything implementing `DualNum<f64> + Copy`).
pub trait Scalar: DualNum<f64> + Copy {}
impl<T: DualNum<f64> + Copy> Scalar for T {}

/// `atan2(y, x)` for any scalar, with the derivative of `atan(y/x)` taken on
/// the better-conditioned side (num-dual's own `atan2` differentiates `y/x`,
/// which loses accuracy where `x ≈ 0`).
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
