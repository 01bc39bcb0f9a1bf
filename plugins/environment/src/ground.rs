//! Contact and friction of nodes with a rigid plane `n·x = n·o` (an incline
//! is a tilted plane). The signed distance is `d = n·(x − o)` (m, positive
//! outside). One energy per set of contact nodes:
//!
//! `E = E_n(d) + D_f(x, x_prev)`.
//!
//! Normal laws ([`NormalLaw`]):
//! - `quadratic`: `k Q(−d)`, the C² one-sided quadratic of the cable paper
//!   (§II-C), `k` in N/m, smoothing width `ε` in m.
//! - `log_exp`: `k (ln(1 + e^{−K d})/K)²`, `K = 15/δ` (MAT-DiSMech eq. 25).
//! - `spring_damper`: the snake paper's ground (eq. 3), `F = K_g s + B_g ṡ`
//!   while penetrating (`s = −d`), written as the potential
//!   `K_g ∫₀^s a σ dσ + (B_g/h) ∫₀^s a (σ − s_prev) dσ` with a contact switch
//!   `a(σ) = clamp(σ/ε, 0, 1)` smoothed over `ε`.
//!
//! Friction ([`Friction`]) uses the normal force of the previous step,
//! `N_{k−1} = −∂E_n/∂d (x_{k−1}) ≥ 0` (elastic part), so it is a dissipation
//! potential whose history derivatives are exact:
//! - `lagged_quadratic` (cable paper §II-C): `D = N_{k−1} Δᵀ W Δ`, `Δ` the
//!   tangential displacement over the step, `W = μ P + (μ_a − μ) t tᵀ`
//!   (μ in 1/m: a tunable roughness weight, as in the paper). It is a drag
//!   whose force `2 μ N Δ` grows with the displacement per step; it has no
//!   stick limit. (With implicit midpoint the evaluation point is half a step
//!   away, and the energy is scaled by `dt/h = 2` to keep the same force.)
//! - `smooth_coulomb` (MAT-DiSMech eq. 23): `D = N_{k−1} h μ̄ Φ(s)`,
//!   `Φ'(s) = tanh(K₂ s/2) = 2/(1 + e^{−K₂ s}) − 1`, `K₂ = 15/ν` (ν the slip
//!   velocity, m/s), `s = ‖A u‖/μ̄` the μ-weighted tangential speed with
//!   `A² = μ² P + (μ_a² − μ²) t tᵀ` and `μ̄ = max(μ, μ_a)`. Isotropic: force
//!   `−μ N γ û` exactly as eq. 23.
//! - `per_axis_coulomb` (snake paper eq. 4 as written,
//!   `F = −N (μ_x sign(ẋ), μ_y sign(ẏ))`): each tangential axis has its own
//!   smooth Coulomb law, `D = N_{k−1} h (μ_a Φ(u·t) + μ Φ(u·b))` with
//!   `b = n × t` and `Φ` as above. Unlike `smooth_coulomb`, whose force is
//!   `μ N` in total, the two components saturate independently: a point
//!   sliding along `t` still gets the full `μ N` across it at the slightest
//!   sideways motion (up to `√(μ² + μ_a²) N` in all).
//!
//! Anisotropy (snake paper eq. 4, `μ_x ≠ μ_y`): `μ_a` applies along an axis
//! `t` and `μ` across it. The axis is either a per-node body axis (`axes`:
//! the tangential direction of `x_b − x_a` of two nodes at the previous
//! step) or one fixed direction of the world (`axis`, projected onto the
//! plane), as eq. 4 writes it in the ground frame's X and Y. Where a node
//! pair is degenerate (`x_b − x_a` normal to the plane or zero), the
//! lagged-quadratic and smooth Coulomb laws fall back to isotropic `μ` for
//! that step and the per-axis law applies no friction. In 2-D the plane's
//! only tangential direction is the axis's, so `μ_a` is the coefficient
//! (the per-axis law's `b` points out of the plane and carries no motion).

use pliant_core::geometry::{Drawing, Shape};
use pliant_core::penalty::{
    coulomb_potential, coulomb_potential_d, log_exp, log_exp_d, one_sided_quadratic,
    one_sided_quadratic_d, ramp_integral, ramp_integral_d, softplus,
};
use pliant_core::region::Selector;
use pliant_core::vec3::{dot, dot_f, load, norm, sub, tangential};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};

fn default_smoothing() -> f64 {
    1e-4
}

/// Normal contact law.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "law", rename_all = "snake_case", deny_unknown_fields)]
pub enum NormalLaw {
    /// `k Q(−d)`: stiffness `k` (N/m), smoothing width `smoothing` (m).
    Quadratic {
        /// N/m.
        stiffness: f64,
        /// m.
        #[serde(default = "default_smoothing")]
        smoothing: f64,
    },
    /// `k (ln(1 + e^{−K d})/K)²`, `K = 15/δ`: stiffness (N/m), `delta` δ (m).
    LogExp {
        /// N/m.
        stiffness: f64,
        /// m.
        delta: f64,
    },
    /// Spring–damper ground: `stiffness` K_g (N/m), `damping` B_g (N·s/m).
    SpringDamper {
        /// N/m.
        stiffness: f64,
        /// N·s/m.
        damping: f64,
        /// Contact switch width, m.
        #[serde(default = "default_smoothing")]
        smoothing: f64,
    },
}

/// Friction model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum Friction {
    /// Cable paper §II-C: `N_{k−1} μ ‖Δ_t‖²`; μ in 1/m.
    LaggedQuadratic {
        /// Across the body axis (or isotropic), 1/m.
        mu: f64,
        /// Along the body axis, 1/m (needs `axes` or `axis`).
        #[serde(default)]
        mu_axis: Option<f64>,
    },
    /// MAT-DiSMech eq. 23 with the normal force of the previous step.
    SmoothCoulomb {
        /// Coefficient across the body axis (or isotropic).
        mu: f64,
        /// Coefficient along the body axis (needs `axes` or `axis`).
        #[serde(default)]
        mu_axis: Option<f64>,
        /// Slip velocity ν (m/s): `K₂ = 15/ν`.
        slip_velocity: f64,
    },
    /// Snake paper eq. 4 as written: a smooth Coulomb law on each of the
    /// two tangential axes separately (needs `axes` or `axis`).
    PerAxisCoulomb {
        /// Coefficient across the axis (eq. 4's `μ_y` when the axis is X).
        mu: f64,
        /// Coefficient along the axis (eq. 4's `μ_x`).
        mu_axis: f64,
        /// Slip velocity ν (m/s): `K₂ = 15/ν`.
        slip_velocity: f64,
    },
}

/// Which friction law a [`Law`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    None,
    LaggedQuadratic,
    SmoothCoulomb,
    PerAxisCoulomb,
}

/// `b = n × t`, the tangential direction across the axis `t` (unit when
/// `t` is a unit vector in the plane of the unit normal `n`).
fn across<T: Scalar>(n: &[f64; 3], t: &[T; 3]) -> [T; 3] {
    [
        t[2] * n[1] - t[1] * n[2],
        t[0] * n[2] - t[2] * n[0],
        t[1] * n[0] - t[0] * n[1],
    ]
}

/// Resolved law constants (plain data shared by the generic and analytic paths).
#[derive(Debug, Clone, Copy)]
struct Law {
    normal: NormalLaw,
    friction: Kind,
    mu: f64,
    mu_axis: f64,
    k2: f64,
    /// The world axis of `mu_axis` (unit, tangential), when not per node.
    axis: Option<[f64; 3]>,
}

impl Law {
    /// Normal energy as a function of `d`, `d_prev` (generic).
    fn normal_energy<T: Scalar>(&self, d: T, dp: T, h: f64) -> T {
        match self.normal {
            NormalLaw::Quadratic {
                stiffness,
                smoothing,
            } => one_sided_quadratic(-d, smoothing) * stiffness,
            NormalLaw::LogExp { stiffness, delta } => log_exp(d, 15.0 / delta) * stiffness,
            NormalLaw::SpringDamper {
                stiffness,
                damping,
                smoothing,
            } => {
                let z = T::from(0.0);
                ramp_integral(-d, z, smoothing) * stiffness
                    + ramp_integral(-d, -dp, smoothing) * (damping / h)
            }
        }
    }
    /// `(E_n, ∂E_n/∂d, ∂²E_n/∂d²)` at fixed `d_prev`.
    fn normal_d(&self, d: f64, dp: f64, h: f64) -> (f64, f64, f64) {
        match self.normal {
            NormalLaw::Quadratic {
                stiffness: k,
                smoothing,
            } => {
                let (q, q1, q2) = one_sided_quadratic_d(-d, smoothing);
                (k * q, -k * q1, k * q2)
            }
            NormalLaw::LogExp {
                stiffness: k,
                delta,
            } => {
                let (e, e1, e2) = log_exp_d(d, 15.0 / delta);
                (k * e, k * e1, k * e2)
            }
            NormalLaw::SpringDamper {
                stiffness,
                damping,
                smoothing,
            } => {
                let (a, a1, a2) = ramp_integral_d(-d, 0.0, smoothing);
                let (b, b1, b2) = ramp_integral_d(-d, -dp, smoothing);
                let c = damping / h;
                (
                    stiffness * a + c * b,
                    -(stiffness * a1 + c * b1),
                    stiffness * a2 + c * b2,
                )
            }
        }
    }
    /// Elastic normal force magnitude `−∂E_n/∂d ≥ 0` at distance `d` (generic).
    fn normal_force<T: Scalar>(&self, d: T) -> T {
        match self.normal {
            NormalLaw::Quadratic {
                stiffness,
                smoothing: eps,
            } => {
                let s = -d;
                let r = s.re();
                if r <= 0.0 {
                    T::from(0.0)
                } else if r < eps {
                    s * s * (stiffness / (2.0 * eps))
                } else {
                    (s - 0.5 * eps) * stiffness
                }
            }
            NormalLaw::LogExp { stiffness, delta } => {
                let k1 = 15.0 / delta;
                let z = d * (-k1);
                let sp = softplus(z);
                // Logistic σ(z), evaluated without overflow on either side.
                let sg = if z.re() < 0.0 {
                    let e = z.exp();
                    e / (e + 1.0)
                } else {
                    (T::from(1.0) + (-z).exp()).recip()
                };
                sp * sg * (2.0 * stiffness / k1)
            }
            NormalLaw::SpringDamper {
                stiffness,
                smoothing: eps,
                ..
            } => {
                let s = -d;
                let r = s.re();
                if r <= 0.0 {
                    T::from(0.0)
                } else if r < eps {
                    s * s * (stiffness / eps)
                } else {
                    s * stiffness
                }
            }
        }
    }
}

/// One contact node (`N = 3`), or the node and the two nodes defining its
/// body axis (`N = 9`).
#[derive(Debug, Clone)]
pub struct GroundEl<const N: usize> {
    nodes: [usize; 3],
    n: [f64; 3],
    c0: f64,
    law: Law,
}

impl<const N: usize> GroundEl<N> {
    fn has_axis(&self) -> bool {
        N == 9
    }
    /// Tangential unit body axis at the previous state, if any (f64).
    fn axis_f(&self, xp: &[f64]) -> Option<[f64; 3]> {
        if !self.has_axis() {
            return self.law.axis;
        }
        let mut v = [0.0; 3];
        for a in 0..3 {
            v[a] = xp[6 + a] - xp[3 + a];
        }
        let vn = v[0] * self.n[0] + v[1] * self.n[1] + v[2] * self.n[2];
        let t = [
            v[0] - vn * self.n[0],
            v[1] - vn * self.n[1],
            v[2] - vn * self.n[2],
        ];
        let l = norm(&t);
        (l > 1e-12).then(|| t.map(|c| c / l))
    }

    /// Gradient (`g`) and Hessian (`h`) in the contact node's coordinates.
    fn local(&self, l: &Local, g: &mut [f64; 3], h: &mut [[f64; 3]; 3]) {
        let (x, xp) = (load(l.x, 0), load(l.x_prev, 0));
        let n = self.n;
        let d = x[0] * n[0] + x[1] * n[1] + x[2] * n[2] - self.c0;
        let dp = xp[0] * n[0] + xp[1] * n[1] + xp[2] * n[2] - self.c0;
        let (_, e1, e2) = self.law.normal_d(d, dp, l.ctx.h);
        for a in 0..3 {
            g[a] = e1 * n[a];
            for b in 0..3 {
                h[a][b] = e2 * n[a] * n[b];
            }
        }
        if self.law.friction == Kind::None {
            return;
        }
        let np = self.law.normal_force(dp);
        if np == 0.0 {
            return;
        }
        let (mu, mut mua) = (self.law.mu, self.law.mu_axis);
        let t = self.axis_f(l.x_prev);
        if t.is_none() {
            if self.law.friction == Kind::PerAxisCoulomb {
                // A degenerate axis pair: no friction from this node this step.
                return;
            }
            mua = mu;
        }
        let t = t.unwrap_or([0.0; 3]);
        let (h_eval, dt) = (l.ctx.h, l.ctx.dt);
        let delta = [x[0] - xp[0], x[1] - xp[1], x[2] - xp[2]];
        // Tangential projector P and the anisotropic metric M = α P + β t tᵀ.
        let p = |a: usize, b: usize| (if a == b { 1.0 } else { 0.0 }) - n[a] * n[b];
        if self.law.friction == Kind::LaggedQuadratic {
            let (al, be) = (mu, mua - mu);
            let c = 2.0 * np * dt / h_eval;
            for a in 0..3 {
                for b in 0..3 {
                    let w = al * p(a, b) + be * t[a] * t[b];
                    g[a] += c * w * delta[b];
                    h[a][b] += c * w;
                }
            }
        } else if self.law.friction == Kind::PerAxisCoulomb {
            // D = N h Σ_i μ_i Φ(u·e_i), e = (t, b = n × t): gradient
            // N μ_i Φ'(s_i) e_i, Hessian N μ_i Φ''(s_i)/h e_i e_iᵀ.
            let b = across(&n, &t);
            for (e, m) in [(t, mua), (b, mu)] {
                let s = (delta[0] * e[0] + delta[1] * e[1] + delta[2] * e[2]) / h_eval;
                let (_, p1, p2) = coulomb_potential_d(s.abs(), self.law.k2);
                let (f1, f2) = (p1 * s, p2 * s * s + p1);
                for a in 0..3 {
                    g[a] += np * m * f1 * e[a];
                    for c in 0..3 {
                        h[a][c] += np * m / h_eval * f2 * e[a] * e[c];
                    }
                }
            }
        } else {
            let mbar = mu.max(mua);
            let (al, be) = (
                mu * mu / (mbar * mbar),
                (mua * mua - mu * mu) / (mbar * mbar),
            );
            let m = |a: usize, b: usize| al * p(a, b) + be * t[a] * t[b];
            let u = delta.map(|v| v / h_eval);
            let mut su = [0.0; 3];
            for a in 0..3 {
                for b in 0..3 {
                    su[a] += m(a, b) * u[b];
                }
            }
            let sp = (u[0] * su[0] + u[1] * su[1] + u[2] * su[2]).max(0.0).sqrt();
            let (_, f1, f2) = coulomb_potential_d(sp, self.law.k2);
            let c = np * mbar;
            for a in 0..3 {
                g[a] += c * f1 * su[a];
                for b in 0..3 {
                    h[a][b] += c / h_eval * (f1 * m(a, b) + f2 * su[a] * su[b]);
                }
            }
        }
    }
}

impl<const N: usize> Element for GroundEl<N> {
    type Size = Stencil<N>;
    const HISTORY: bool = true;
    fn nodes(&self) -> &[usize] {
        &self.nodes[..N / 3]
    }
    fn energy<T: Scalar>(&self, x: &[T], xp: &[T], _: &[T], c: &Ctx) -> T {
        let xi = load(x, 0);
        let xpi = load(xp, 0);
        let d = dot_f(&xi, &self.n) - self.c0;
        let dp = dot_f(&xpi, &self.n) - self.c0;
        let mut e = self.law.normal_energy(d, dp, c.h);
        if self.law.friction == Kind::None {
            return e;
        }
        let np = self.law.normal_force(dp);
        let dt = tangential(&sub(&xi, &xpi), &self.n);
        let (mu, mut mua) = (self.law.mu, self.law.mu_axis);
        // Body axis from the previous state, when given and non-degenerate.
        let mut proj = T::from(0.0);
        if self.law.friction == Kind::PerAxisCoulomb {
            // Validated at binding: per-axis friction always has an axis.
            let t: [T; 3] = if self.has_axis() {
                let ax = tangential(&sub(&load(xp, 6), &load(xp, 3)), &self.n);
                let l = dot(&ax, &ax).sqrt();
                if l.re() <= 1e-12 {
                    // A degenerate pair: no friction from this node this step.
                    return e;
                }
                ax.map(|v| v / l)
            } else {
                self.law.axis.unwrap_or([0.0; 3]).map(T::from)
            };
            let b = across(&self.n, &t);
            let (st, sb) = (dot(&t, &dt), dot(&b, &dt));
            let (hh, k2) = (c.h, self.law.k2);
            e += np
                * (coulomb_potential(st * st / (hh * hh), k2) * self.law.mu_axis
                    + coulomb_potential(sb * sb / (hh * hh), k2) * self.law.mu)
                * hh;
            return e;
        }
        if self.has_axis() {
            let ax = tangential(&sub(&load(xp, 6), &load(xp, 3)), &self.n);
            let l2 = dot(&ax, &ax);
            if l2.re() > 1e-24 {
                let t = ax.map(|v| v / l2.sqrt());
                proj = dot(&t, &dt);
            } else {
                mua = mu;
            }
        } else if let Some(t) = self.law.axis {
            proj = dot(&t.map(T::from), &dt);
        } else {
            mua = mu;
        }
        let dd = dot(&dt, &dt);
        if self.law.friction == Kind::LaggedQuadratic {
            // dt/h = 2 for implicit midpoint keeps the force per step equal to BDF1's.
            e += np * (dd * mu + proj * proj * (mua - mu)) * (c.dt / c.h);
        } else {
            let mbar = mu.max(mua);
            let r =
                (dd * (mu * mu) + proj * proj * (mua * mua - mu * mu)) / (mbar * mbar * c.h * c.h);
            e += np * coulomb_potential(r, self.law.k2) * (c.h * mbar);
        }
        e
    }
    fn gradient(&self, l: &Local, out: &mut [f64]) -> bool {
        let (mut g, mut h) = ([0.0; 3], [[0.0; 3]; 3]);
        self.local(l, &mut g, &mut h);
        out.fill(0.0);
        out[..3].copy_from_slice(&g);
        true
    }
    fn hessian(&self, l: &Local, out: &mut [f64]) -> bool {
        let (mut g, mut h) = ([0.0; 3], [[0.0; 3]; 3]);
        self.local(l, &mut g, &mut h);
        out.fill(0.0);
        for a in 0..3 {
            for b in 0..3 {
                out[a * N + b] = h[a][b];
            }
        }
        true
    }
}

/// Contact (and friction) of a set of nodes with a plane (scene type
/// `"ground"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ground {
    /// A point `o` of the plane, m.
    #[serde(default)]
    pub point: Option<Vec<f64>>,
    /// Outward normal (normalized on binding); default +z (3-D) or +y (2-D).
    #[serde(default)]
    pub normal: Option<Vec<f64>>,
    /// Normal contact law.
    pub contact: NormalLaw,
    /// Friction model, if any.
    #[serde(default)]
    pub friction: Option<Friction>,
    /// Contact nodes (default: all, or those `select` chooses).
    #[serde(default)]
    pub nodes: Option<Vec<usize>>,
    /// The contact nodes as a selection (a body's `"<name>.surface"`
    /// region, say) instead of `nodes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<Selector>,
    /// Per contact node, the node pair `[a, b]` whose direction `x_b − x_a` is the body axis.
    #[serde(default)]
    pub axes: Option<Vec<[usize; 2]>>,
    /// Instead of `axes`: one direction of the world (projected onto the
    /// plane) along which `mu_axis` applies, for friction that is
    /// anisotropic in the ground's frame (a carpet's pile, eq. 4's X).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Vec<f64>>,
}

impl Ground {
    /// A ground plane through `point` with normal `normal`, contact law `contact`.
    pub fn new(
        point: &[f64],
        normal: &[f64],
        contact: NormalLaw,
        friction: Option<Friction>,
    ) -> Self {
        Self {
            point: Some(point.to_vec()),
            normal: Some(normal.to_vec()),
            contact,
            friction,
            nodes: None,
            select: None,
            axes: None,
            axis: None,
        }
    }

    /// The unit normal and the plane offset `n·o`.
    fn plane(&self, dim: usize) -> Result<([f64; 3], f64)> {
        let mut n = [0.0; 3];
        match &self.normal {
            Some(v) if v.len() == dim => n[..dim].copy_from_slice(v),
            Some(v) => {
                return Err(CoreError::Count {
                    field: "normal".into(),
                    found: v.len(),
                    expected: dim,
                });
            }
            None => n[dim - 1] = 1.0,
        }
        let l = norm(&n);
        Invalid::positive("normal (length)", l, "a non-zero finite vector")?;
        n = n.map(|v| v / l);
        let mut o = [0.0; 3];
        if let Some(v) = &self.point {
            if v.len() != dim {
                return Err(CoreError::Count {
                    field: "point".into(),
                    found: v.len(),
                    expected: dim,
                });
            }
            for (a, &x) in v.iter().enumerate() {
                Invalid::check(x.is_finite(), format!("point[{a}]"), x, "finite (m)")?;
            }
            o[..dim].copy_from_slice(v);
        }
        Ok((n, n[0] * o[0] + n[1] * o[1] + n[2] * o[2]))
    }

    /// The world axis `axis` as a unit vector in the plane of normal `n`.
    fn world_axis(&self, n: [f64; 3], dim: usize) -> Result<Option<[f64; 3]>> {
        let Some(v) = &self.axis else {
            return Ok(None);
        };
        if v.len() != dim {
            return Err(CoreError::Count {
                field: "axis".into(),
                found: v.len(),
                expected: dim,
            });
        }
        let mut a = [0.0; 3];
        for (k, &x) in v.iter().enumerate() {
            Invalid::check(x.is_finite(), format!("axis[{k}]"), x, "finite")?;
            a[k] = x;
        }
        let t = tangential(&a, &n);
        let l = norm(&t);
        if l <= 1e-9 * norm(&a) {
            return Err(CoreError::inconsistent(
                "axis",
                "the friction axis must have a component along the plane (it is zero or parallel to the normal)",
            ));
        }
        Ok(Some(t.map(|c| c / l)))
    }

    /// The validated law constants, for a plane of normal `n` in `dim`-D.
    fn law(&self, n: [f64; 3], dim: usize) -> Result<Law> {
        match self.contact {
            NormalLaw::Quadratic {
                stiffness,
                smoothing,
            } => {
                Invalid::positive("contact.stiffness", stiffness, "N/m")?;
                Invalid::positive("contact.smoothing", smoothing, "m")?;
            }
            NormalLaw::LogExp { stiffness, delta } => {
                Invalid::positive("contact.stiffness", stiffness, "N/m")?;
                Invalid::positive("contact.delta", delta, "m")?;
            }
            NormalLaw::SpringDamper {
                stiffness,
                damping,
                smoothing,
            } => {
                Invalid::positive("contact.stiffness", stiffness, "N/m")?;
                Invalid::positive("contact.smoothing", smoothing, "m")?;
                Invalid::non_negative("contact.damping", damping, "N·s/m")?;
            }
        }
        let (friction, mu, mu_axis, k2) = match self.friction {
            None => (Kind::None, 0.0, None, 0.0),
            Some(Friction::LaggedQuadratic { mu, mu_axis }) => {
                (Kind::LaggedQuadratic, mu, mu_axis, 0.0)
            }
            Some(Friction::SmoothCoulomb {
                mu,
                mu_axis,
                slip_velocity,
            }) => {
                Invalid::positive("friction.slip_velocity", slip_velocity, "m/s")?;
                (Kind::SmoothCoulomb, mu, mu_axis, 15.0 / slip_velocity)
            }
            Some(Friction::PerAxisCoulomb {
                mu,
                mu_axis,
                slip_velocity,
            }) => {
                Invalid::positive("friction.slip_velocity", slip_velocity, "m/s")?;
                (
                    Kind::PerAxisCoulomb,
                    mu,
                    Some(mu_axis),
                    15.0 / slip_velocity,
                )
            }
        };
        Invalid::non_negative("friction.mu", mu, "≥ 0")?;
        if let Some(m) = mu_axis {
            Invalid::non_negative("friction.mu_axis", m, "≥ 0")?;
        }
        let smooth = matches!(friction, Kind::SmoothCoulomb | Kind::PerAxisCoulomb);
        if smooth && mu.max(mu_axis.unwrap_or(mu)) == 0.0 {
            return Err(CoreError::inconsistent(
                "friction",
                "smooth Coulomb friction with μ = 0; omit `friction` instead",
            ));
        }
        if self.axes.is_some() && self.axis.is_some() {
            return Err(CoreError::inconsistent(
                "axis",
                "give the friction axis per node (`axes`) or once for the world (`axis`), not both",
            ));
        }
        let has_axis = self.axes.is_some() || self.axis.is_some();
        if mu_axis.is_some() != has_axis {
            return Err(CoreError::inconsistent(
                "friction.mu_axis",
                "anisotropic friction needs both `mu_axis` and an axis (`axes` or `axis`)",
            ));
        }
        let axis = self.world_axis(n, dim)?;
        Ok(Law {
            normal: self.contact,
            friction,
            mu,
            mu_axis: mu_axis.unwrap_or(mu),
            k2,
            axis,
        })
    }
}

impl EnergySpec for Ground {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let (n, c0) = self.plane(info.dim())?;
        let law = self.law(n, info.dim())?;
        let drawing = Drawing::Fixed(Shape::Plane {
            name: "ground".into(),
            point: n.map(|v| v * c0),
            normal: n,
        });
        let nodes: Vec<usize> = match (&self.nodes, &self.select) {
            (Some(_), Some(_)) => {
                return Err(CoreError::inconsistent(
                    "select",
                    "give the contact `nodes` or a `select`ion, not both",
                ));
            }
            (Some(list), None) => list.clone(),
            (None, Some(sel)) => sel.resolve(info.layout, info.q0, "select")?,
            (None, None) => (0..info.layout.n_nodes()).collect(),
        };
        let Some(axes) = &self.axes else {
            let items = nodes.iter().map(|&node| GroundEl::<3> {
                nodes: [node; 3],
                n,
                c0,
                law,
            });
            return Ok(Box::new(
                Elements::bind(items.collect(), info, "nodes")?.drawn_as(drawing),
            ));
        };
        if axes.len() != nodes.len() {
            return Err(CoreError::Count {
                field: "axes".into(),
                found: axes.len(),
                expected: nodes.len(),
            });
        }
        for (k, ax) in axes.iter().enumerate() {
            for &a in ax {
                info.layout.node_dof(a, 0, &format!("axes[{k}]"))?;
            }
        }
        let items = nodes.iter().zip(axes).map(|(&node, ax)| GroundEl::<9> {
            nodes: [node, ax[0], ax[1]],
            n,
            c0,
            law,
        });
        Ok(Box::new(
            Elements::bind(items.collect(), info, "nodes")?.drawn_as(drawing),
        ))
    }
}

pliant_core::register_energy!(
    Ground = "ground",
    "contact with a plane (point, normal): `contact` law quadratic | log_exp | spring_damper, optional `friction` lagged_quadratic | smooth_coulomb | per_axis_coulomb, anisotropic along per-node `axes` or a world `axis`",
    r#"{"type": "ground", "contact": {"law": "quadratic", "stiffness": 1000.0}, "friction": {"model": "smooth_coulomb", "mu": 0.5, "slip_velocity": 0.001}}"#
);
