//! One cell's energy over its membrane coordinates: value, gradient,
//! Hessian (dense and split into ring-banded blocks plus the gas's
//! rank-one term) and the dual-number form they are checked against (the
//! formulas are in the module documentation of [`super`]).

use pliant_core::element::VariableStencil;
use pliant_core::quantity::Bound;
use pliant_core::{Scalar, SplitHessian};

/// One bound cell: its DOFs and rest geometry.
#[derive(Debug, Clone)]
pub(super) struct CellEl {
    /// Global DOFs `x₀ y₀ x₁ y₁ …`.
    pub(super) dofs: Vec<usize>,
    /// Rest length of segment `i` (node `i` to `i+1`), m.
    pub(super) rest: Vec<f64>,
    /// Rest turning angle at node `i`, rad.
    pub(super) angle: Vec<f64>,
    /// Mean rest length of the two segments at node `i`, m.
    pub(super) hinge: Vec<f64>,
    /// Initial area, m².
    pub(super) v0: f64,
    /// Mean rest segment length, m.
    pub(super) l_mean: f64,
    pub(super) pressure: Bound,
    pub(super) param: usize,
    pub(super) ea: f64,
    pub(super) ei: f64,
}

/// `V` of a ring over local coordinates `x` (`2n`), with `∇V` into `g`.
/// The shoelace terms are taken relative to node 0, so the round-off does
/// not grow with the cell's distance from the origin.
pub(super) fn area_gradient(x: &[f64], g: &mut [f64]) -> f64 {
    let n = x.len() / 2;
    let (ox, oy) = (x[0], x[1]);
    let mut v = 0.0;
    for i in 0..n {
        let (p, q) = ((i + n - 1) % n, (i + 1) % n);
        v += (x[2 * i] - ox) * (x[2 * q + 1] - oy) - (x[2 * q] - ox) * (x[2 * i + 1] - oy);
        g[2 * i] = 0.5 * (x[2 * q + 1] - x[2 * p + 1]);
        g[2 * i + 1] = 0.5 * (x[2 * p] - x[2 * q]);
    }
    0.5 * v
}

/// `ψ(u) = u − ln(1 + u)` without cancellation for small `u` (the
/// pressure energy is `(C/ℓ̄) V₀ ψ((V − V₀)/V₀)`).
pub(super) fn psi(u: f64) -> f64 {
    if u.abs() < 1e-2 {
        // Σ_{k≥2} (−u)^k / k, to far below round-off.
        let mut term = u * u;
        let mut sum = 0.0;
        for k in 2..12 {
            sum += term / k as f64;
            term *= -u;
        }
        sum
    } else {
        u - u.ln_1p()
    }
}

/// `∂²θ/∂v²` of the polar angle `θ` of a 2-vector `v`, row-major 2×2.
fn angle_hessian(v: [f64; 2]) -> [f64; 4] {
    let r4 = (v[0] * v[0] + v[1] * v[1]).powi(2);
    let (a, b) = (2.0 * v[0] * v[1] / r4, (v[1] * v[1] - v[0] * v[0]) / r4);
    [a, b, b, -a]
}

impl CellEl {
    pub(super) fn n(&self) -> usize {
        self.rest.len()
    }
    fn pt(x: &[f64], i: usize) -> [f64; 2] {
        [x[2 * i], x[2 * i + 1]]
    }
    /// `(C/ℓ̄) (V − V₀ − V₀ ln(V/V₀))` and its first two `V` derivatives.
    pub(super) fn pressure_law(&self, c: f64, v: f64) -> (f64, f64, f64) {
        let k = c / self.l_mean;
        (
            k * self.v0 * psi((v - self.v0) / self.v0),
            k * (1.0 - self.v0 / v),
            k * self.v0 / (v * v),
        )
    }
    pub(super) fn c_of(&self, p: &[f64]) -> f64 {
        match self.pressure {
            Bound::Constant(c) => c,
            Bound::Channel(_) => p[self.param],
        }
    }
    /// Energy at local coordinates `x` with pressure constant `c`.
    pub(super) fn value(&self, x: &[f64], c: f64) -> f64 {
        let n = self.n();
        let mut e = 0.0;
        for i in 0..n {
            let (a, b) = (Self::pt(x, i), Self::pt(x, (i + 1) % n));
            let l = (b[0] - a[0]).hypot(b[1] - a[1]);
            e += 0.5 * self.ea / self.rest[i] * (l - self.rest[i]).powi(2);
            if self.ei > 0.0 {
                let z = Self::pt(x, (i + n - 1) % n);
                let (e1, e2) = ([a[0] - z[0], a[1] - z[1]], [b[0] - a[0], b[1] - a[1]]);
                let th = (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1]);
                e += 0.5 * self.ei / self.hinge[i] * (th - self.angle[i]).powi(2);
            }
        }
        let mut g = vec![0.0; 2 * n];
        let v = area_gradient(x, &mut g);
        if v.is_nan() || v <= 0.0 {
            return f64::INFINITY;
        }
        e + self.pressure_law(c, v).0
    }

    /// Gradient into `g` (`2n`).
    pub(super) fn gradient(&self, x: &[f64], c: f64, g: &mut [f64]) {
        let n = self.n();
        let v = area_gradient(x, g);
        let (_, dv, _) = self.pressure_law(c, v);
        g.iter_mut().for_each(|gi| *gi *= dv);
        for i in 0..n {
            let j = (i + 1) % n;
            let (a, b) = (Self::pt(x, i), Self::pt(x, j));
            let d = [b[0] - a[0], b[1] - a[1]];
            let l = d[0].hypot(d[1]);
            let f = self.ea / self.rest[i] * (l - self.rest[i]) / l;
            for k in 0..2 {
                g[2 * j + k] += f * d[k];
                g[2 * i + k] -= f * d[k];
            }
        }
        if self.ei > 0.0 {
            for i in 0..n {
                let (h, j) = ((i + n - 1) % n, (i + 1) % n);
                let (dth, th) = self.turning(x, h, i, j);
                let f = self.ei / self.hinge[i] * (th - self.angle[i]);
                for (node, d) in [h, i, j].into_iter().zip(dth) {
                    g[2 * node] += f * d[0];
                    g[2 * node + 1] += f * d[1];
                }
            }
        }
    }

    /// Turning angle at `i` between `h → i` and `i → j`, and its gradient
    /// with respect to the three nodes.
    fn turning(&self, x: &[f64], h: usize, i: usize, j: usize) -> ([[f64; 2]; 3], f64) {
        let (z, a, b) = (Self::pt(x, h), Self::pt(x, i), Self::pt(x, j));
        let (e1, e2) = ([a[0] - z[0], a[1] - z[1]], [b[0] - a[0], b[1] - a[1]]);
        let th = (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1]);
        let (r1, r2) = (e1[0] * e1[0] + e1[1] * e1[1], e2[0] * e2[0] + e2[1] * e2[1]);
        // ∂θ/∂e₂ = ⊥e₂/|e₂|², ∂θ/∂e₁ = −⊥e₁/|e₁|², ⊥(u, v) = (−v, u).
        let p1 = [-e1[1] / r1, e1[0] / r1];
        let p2 = [-e2[1] / r2, e2[0] / r2];
        ([p1, [-p1[0] - p2[0], -p1[1] - p2[1]], p2], th)
    }

    /// Hessian into `h` (`2n × 2n`, row-major, overwritten).
    /// The dense `2n × 2n` Hessian (row-major) into `h`.
    pub(super) fn hessian(&self, x: &[f64], c: f64, h: &mut [f64]) {
        let m = 2 * self.n();
        let h = &mut h[..m * m];
        h.fill(0.0);
        let mut g = vec![0.0; m];
        let ddv = self.hessian_parts(x, c, &mut g, &mut |a, b, blk| {
            for r in 0..2 {
                for s in 0..2 {
                    h[(2 * a + r) * m + 2 * b + s] += blk[2 * r + s];
                }
            }
        });
        // Rank-one part ∂²E/∂V² ∇V ∇Vᵀ, row by row.
        for (r, row) in h.chunks_mut(m).enumerate() {
            let s = ddv * g[r];
            for (o, gc) in row.iter_mut().zip(&g) {
                *o += s * gc;
            }
        }
    }

    /// The Hessian as [`SplitHessian`] data: the sparse part into `sparse`
    /// (the entries of `split_entries`), the rank-one gas term
    /// `∂²E/∂V² ∇V ∇Vᵀ` into `rank_one` (`[w, ∇V]`).
    pub(super) fn split_hessian(
        &self,
        x: &[f64],
        c: f64,
        sparse: &mut [f64],
        rank_one: &mut [f64],
    ) {
        let n = self.n();
        sparse.fill(0.0);
        let (w, g) = rank_one.split_at_mut(1);
        w[0] = self.hessian_parts(x, c, g, &mut |a, b, blk| {
            let d = (b + n - a) % n;
            let off = if d <= 2 { d + 2 } else { d + 2 - n };
            let at = (a * SPLIT_REACH + off) * 4;
            for (o, v) in sparse[at..at + 4].iter_mut().zip(blk) {
                *o += v;
            }
        });
    }

    /// Everything in the Hessian but the gas's rank-one term, node pair by
    /// node pair through `add(a, b, 2 × 2 block)` (pairs at most two apart
    /// along the ring); `∇V` into `g`; returns `∂²E/∂V²`.
    fn hessian_parts(
        &self,
        x: &[f64],
        c: f64,
        g: &mut [f64],
        add: &mut impl FnMut(usize, usize, &[f64; 4]),
    ) -> f64 {
        let n = self.n();
        let v = area_gradient(x, g);
        let (_, dv, ddv) = self.pressure_law(c, v);
        // ∂E/∂V ∇²V: ∂²V/∂xᵢ∂yᵢ₊₁ = ½, ∂²V/∂yᵢ∂xᵢ₊₁ = −½ (and transposes).
        let half = 0.5 * dv;
        for i in 0..n {
            let j = (i + 1) % n;
            add(i, j, &[0.0, half, -half, 0.0]);
            add(j, i, &[0.0, -half, half, 0.0]);
        }
        // Stretching: K = (EA/ℓ̄) d̂d̂ᵀ + f/ℓ (I − d̂d̂ᵀ).
        for i in 0..n {
            let j = (i + 1) % n;
            let (a, b) = (Self::pt(x, i), Self::pt(x, j));
            let d = [b[0] - a[0], b[1] - a[1]];
            let l = d[0].hypot(d[1]);
            let u = [d[0] / l, d[1] / l];
            let k = self.ea / self.rest[i];
            let t = k * (l - self.rest[i]) / l;
            let blk: [f64; 4] = std::array::from_fn(|rs| {
                let (r, s) = (rs / 2, rs % 2);
                let id = if r == s { 1.0 } else { 0.0 };
                k * u[r] * u[s] + t * (id - u[r] * u[s])
            });
            let neg = blk.map(|v| -v);
            add(i, i, &blk);
            add(j, j, &blk);
            add(i, j, &neg);
            add(j, i, &neg);
        }
        // Bending: 2c ∇θ∇θᵀ + 2c (θ − θ̄) ∇²θ with c = EI/(2ℓ̂).
        if self.ei > 0.0 {
            for i in 0..n {
                let (hh, j) = ((i + n - 1) % n, (i + 1) % n);
                let (dth, th) = self.turning(x, hh, i, j);
                let k = self.ei / self.hinge[i];
                let f = k * (th - self.angle[i]);
                let nodes = [hh, i, j];
                for (p, dp) in nodes.iter().zip(&dth) {
                    for (q, dq) in nodes.iter().zip(&dth) {
                        let blk = [
                            k * dp[0] * dq[0],
                            k * dp[0] * dq[1],
                            k * dp[1] * dq[0],
                            k * dp[1] * dq[1],
                        ];
                        add(*p, *q, &blk);
                    }
                }
                // θ = α(e₂) − α(e₁), e₁ = xᵢ − xₕ, e₂ = xⱼ − xᵢ.
                let (z, a, b) = (Self::pt(x, hh), Self::pt(x, i), Self::pt(x, j));
                let h1 = angle_hessian([a[0] - z[0], a[1] - z[1]]).map(|v| -f * v);
                let h2 = angle_hessian([b[0] - a[0], b[1] - a[1]]).map(|v| f * v);
                for (e, sides) in [(h1, [(hh, -1.0), (i, 1.0)]), (h2, [(i, -1.0), (j, 1.0)])] {
                    for &(p, sp) in &sides {
                        for &(q, sq) in &sides {
                            add(p, q, &e.map(|v| sp * sq * v));
                        }
                    }
                }
            }
        }
        ddv
    }
}

impl VariableStencil for CellEl {
    fn energy<D: Scalar>(&self, x: &[D], p: &[D]) -> D {
        let n = self.n();
        let pt = |i: usize| [x[2 * i], x[2 * i + 1]];
        let (ox, oy) = (x[0].re(), x[1].re());
        let mut e = D::from(0.0);
        let mut v = D::from(0.0);
        for i in 0..n {
            let (z, a, b) = (pt((i + n - 1) % n), pt(i), pt((i + 1) % n));
            v += ((a[0] - ox) * (b[1] - oy) - (b[0] - ox) * (a[1] - oy)) * 0.5;
            let d = [b[0] - a[0], b[1] - a[1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            e += (l - self.rest[i]) * (l - self.rest[i]) * (0.5 * self.ea / self.rest[i]);
            let e1 = [a[0] - z[0], a[1] - z[1]];
            let th = pliant_core::atan2(e1[0] * d[1] - e1[1] * d[0], e1[0] * d[0] + e1[1] * d[1]);
            e += (th - self.angle[i]) * (th - self.angle[i]) * (0.5 * self.ei / self.hinge[i]);
        }
        if v.re() <= 0.0 {
            return D::from(f64::INFINITY);
        }
        let c = match self.pressure {
            Bound::Constant(c) => D::from(c),
            Bound::Channel(_) => p[0],
        };
        e + c / self.l_mean * (v - self.v0 - (v / self.v0).ln() * self.v0)
    }
}

/// Node pairs per node in a cell's split Hessian: itself and the nodes up
/// to two away along the ring (stretching couples neighbours, bending and
/// `∇²V` neighbours of neighbours at most).
const SPLIT_REACH: usize = 5;

/// The sparse part of a ring of `n` nodes' Hessian: node `i` with node
/// `i + d` (`d = −2 … 2`, around the ring), each a 2 × 2 block; entry
/// `(i·5 + d + 2)·4 + 2r + s` is row `2i + r`, column `2(i + d) + s`. On
/// rings of three or four nodes some pairs are listed twice (they add).
/// One rank-one term, the gas: `∂²E/∂V² ∇V ∇Vᵀ`.
pub(super) fn split_entries(n: usize) -> SplitHessian {
    let mut entries = Vec::with_capacity(n * SPLIT_REACH * 4);
    for i in 0..n {
        for off in 0..SPLIT_REACH {
            let j = (i + n + off - 2) % n;
            for r in 0..2 {
                for s in 0..2 {
                    entries.push((2 * i + r, 2 * j + s));
                }
            }
        }
    }
    SplitHessian { entries, rank: 1 }
}
