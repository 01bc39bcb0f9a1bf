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
//!
//! Anisotropy (snake paper eq. 4, `μ_x ≠ μ_y`): `μ_a` applies along a per-node
//! body axis `t`, the tangential direction of `x_b − x_a` of two nodes at the
//! previous step; `μ` applies across it.

use crate::penalty::{
    coulomb_potential, coulomb_potential_d, log_exp, log_exp_d, one_sided_quadratic,
    one_sided_quadratic_d, ramp_integral, ramp_integral_d, softplus,
};
use crate::vec3::{dot, dotf, load, norm3, sub, tangential};
use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
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
        /// Along the body axis, 1/m (needs `axes`).
        #[serde(default)]
        mu_axis: Option<f64>,
    },
    /// MAT-DiSMech eq. 23 with the normal force of the previous step.
    SmoothCoulomb {
        /// Coefficient across the body axis (or isotropic).
        mu: f64,
        /// Coefficient along the body axis (needs `axes`).
        #[serde(default)]
        mu_axis: Option<f64>,
        /// Slip velocity ν (m/s): `K₂ = 15/ν`.
        slip_velocity: f64,
    },
}

/// Resolved law constants (plain data shared by the generic and analytic paths).
#[derive(Debug, Clone, Copy)]
struct Law {
    normal: NormalLaw,
    /// 0: none, 1: lagged quadratic, 2: smooth Coulomb.
    friction: u8,
    mu: f64,
    mu_axis: f64,
    k2: f64,
}

impl Law {
    /// Normal energy as a function of `d`, `d_prev` (generic).
    fn normal_energy<T: DualNum<f64> + Copy>(&self, d: T, dp: T, h: f64) -> T {
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
    fn normal_force<T: DualNum<f64> + Copy>(&self, d: T) -> T {
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

/// One contact node over `N = dim` DOFs (isotropic) or `N = 3·dim` (node,
/// then the two nodes defining its body axis).
#[derive(Debug, Clone)]
pub struct GroundEl<const N: usize> {
    dofs: [usize; N],
    dim: usize,
    n: [f64; 3],
    c0: f64,
    law: Law,
}

impl<const N: usize> GroundEl<N> {
    fn has_axis(&self) -> bool {
        N == 3 * self.dim
    }
    /// Tangential unit body axis at the previous state, if any (f64).
    fn axis_f(&self, qp: &[f64]) -> Option<[f64; 3]> {
        if !self.has_axis() {
            return None;
        }
        let mut v = [0.0; 3];
        for a in 0..self.dim {
            v[a] = qp[self.dofs[2 * self.dim + a]] - qp[self.dofs[self.dim + a]];
        }
        let vn = v[0] * self.n[0] + v[1] * self.n[1] + v[2] * self.n[2];
        let t = [
            v[0] - vn * self.n[0],
            v[1] - vn * self.n[1],
            v[2] - vn * self.n[2],
        ];
        let l = norm3(&t);
        (l > 1e-12).then(|| t.map(|c| c / l))
    }
}

impl<const N: usize> Element<N, 0> for GroundEl<N> {
    const HISTORY: bool = true;
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; 0] {
        []
    }
    fn energy<T: DualNum<f64> + Copy>(&self, x: &[T; N], xp: &[T; N], _: &[T; 0], c: &Ctx) -> T {
        let dim = self.dim;
        let xi = load(x, 0, dim);
        let xpi = load(xp, 0, dim);
        let d = dotf(&xi, &self.n) - self.c0;
        let dp = dotf(&xpi, &self.n) - self.c0;
        let mut e = self.law.normal_energy(d, dp, c.h);
        if self.law.friction == 0 {
            return e;
        }
        let np = self.law.normal_force(dp);
        let dt = tangential(&sub(&xi, &xpi), &self.n);
        let (mu, mut mua) = (self.law.mu, self.law.mu_axis);
        // Body axis from the previous state, when given and non-degenerate.
        let mut proj = T::from(0.0);
        if self.has_axis() {
            let ax = tangential(&sub(&load(xp, 2 * dim, dim), &load(xp, dim, dim)), &self.n);
            let l2 = dot(&ax, &ax);
            if l2.re() > 1e-24 {
                let t = ax.map(|v| v / l2.sqrt());
                proj = dot(&t, &dt);
            } else {
                mua = mu;
            }
        } else {
            mua = mu;
        }
        let dd = dot(&dt, &dt);
        if self.law.friction == 1 {
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
}

trait GroundAnalytic: ElementSet {
    fn grad_hess(&self, s: &EvalState, grad: Option<&mut [f64]>, hess: Option<&mut [f64]>);
}

impl<const N: usize> GroundEl<N> {
    /// Local gradient (`g[..dim]`) and Hessian (`h[..dim×dim]`, row-major, stride `dim`) in the contact node's coordinates.
    fn local(&self, s: &EvalState, g: &mut [f64; 3], h: &mut [[f64; 3]; 3]) {
        let dim = self.dim;
        let (x, xp) = (
            std::array::from_fn::<f64, 3, _>(|a| if a < dim { s.q[self.dofs[a]] } else { 0.0 }),
            std::array::from_fn::<f64, 3, _>(
                |a| if a < dim { s.q_prev[self.dofs[a]] } else { 0.0 },
            ),
        );
        let n = self.n;
        let d = x[0] * n[0] + x[1] * n[1] + x[2] * n[2] - self.c0;
        let dp = xp[0] * n[0] + xp[1] * n[1] + xp[2] * n[2] - self.c0;
        let (_, e1, e2) = self.law.normal_d(d, dp, s.h);
        for a in 0..3 {
            g[a] = e1 * n[a];
            for b in 0..3 {
                h[a][b] = e2 * n[a] * n[b];
            }
        }
        if self.law.friction == 0 {
            return;
        }
        let np = self.law.normal_force(dp);
        if np == 0.0 {
            return;
        }
        let (mu, mut mua) = (self.law.mu, self.law.mu_axis);
        let t = self.axis_f(s.q_prev);
        if t.is_none() {
            mua = mu;
        }
        let t = t.unwrap_or([0.0; 3]);
        let delta = [x[0] - xp[0], x[1] - xp[1], x[2] - xp[2]];
        // Tangential projector P and the anisotropic metric M = α P + β t tᵀ.
        let p = |a: usize, b: usize| (if a == b { 1.0 } else { 0.0 }) - n[a] * n[b];
        if self.law.friction == 1 {
            let (al, be) = (mu, mua - mu);
            let c = 2.0 * np * s.dt / s.h;
            for a in 0..3 {
                for b in 0..3 {
                    let w = al * p(a, b) + be * t[a] * t[b];
                    g[a] += c * w * delta[b];
                    h[a][b] += c * w;
                }
            }
        } else {
            let mbar = mu.max(mua);
            let (al, be) = (
                mu * mu / (mbar * mbar),
                (mua * mua - mu * mu) / (mbar * mbar),
            );
            let m = |a: usize, b: usize| al * p(a, b) + be * t[a] * t[b];
            let u = delta.map(|v| v / s.h);
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
                    h[a][b] += c / s.h * (f1 * m(a, b) + f2 * su[a] * su[b]);
                }
            }
        }
    }
}

impl<const N: usize> GroundAnalytic for Elements<GroundEl<N>, N, 0> {
    fn grad_hess(&self, s: &EvalState, grad: Option<&mut [f64]>, hess: Option<&mut [f64]>) {
        if let Some(out) = grad {
            pliant_core::element::for_each_block(out, N, &self.items, |o, e| {
                let (mut g, mut h) = ([0.0; 3], [[0.0; 3]; 3]);
                e.local(s, &mut g, &mut h);
                o.fill(0.0);
                o[..e.dim].copy_from_slice(&g[..e.dim]);
            });
        }
        if let Some(out) = hess {
            pliant_core::element::for_each_block(out, N * N, &self.items, |o, e| {
                let (mut g, mut h) = ([0.0; 3], [[0.0; 3]; 3]);
                e.local(s, &mut g, &mut h);
                o.fill(0.0);
                for a in 0..e.dim {
                    for b in 0..e.dim {
                        o[a * N + b] = h[a][b];
                    }
                }
            });
        }
    }
}

/// Contact (and friction) of a set of nodes with a plane.
#[derive(Debug, Serialize, Deserialize)]
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
    /// Contact nodes (default: all).
    #[serde(default)]
    pub nodes: Option<Vec<usize>>,
    /// Per contact node, the node pair `[a, b]` whose direction `x_b − x_a` is the body axis.
    #[serde(default)]
    pub axes: Option<Vec<[usize; 2]>>,
    #[serde(skip)]
    bound: Option<Box<dyn GroundAnalytic>>,
}

impl std::fmt::Debug for dyn GroundAnalytic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ground contact on {} nodes", self.len())
    }
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
            axes: None,
            bound: None,
        }
    }
    fn bind_n<const N: usize>(
        &self,
        info: &BindInfo,
        nodes: &[usize],
        n: [f64; 3],
        c0: f64,
        law: Law,
    ) -> Result<Box<dyn GroundAnalytic>> {
        let dim = info.layout.dim();
        let mut items = Vec::with_capacity(nodes.len());
        for (k, &node) in nodes.iter().enumerate() {
            let mut dofs = [0; N];
            info.layout
                .node_dofs(node, &mut dofs[..dim], &format!("ground.nodes[{k}]"))?;
            if N == 3 * dim {
                let ax = self.axes.as_ref().expect("axes present when N = 3 dim")[k];
                info.layout.node_dofs(
                    ax[0],
                    &mut dofs[dim..2 * dim],
                    &format!("ground.axes[{k}]"),
                )?;
                info.layout
                    .node_dofs(ax[1], &mut dofs[2 * dim..], &format!("ground.axes[{k}]"))?;
            }
            items.push(GroundEl {
                dofs,
                dim,
                n,
                c0,
                law,
            });
        }
        Ok(Box::new(Elements::<GroundEl<N>, N, 0>::new(items)))
    }
}

fn positive(name: &str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(CoreError::Model(format!(
            "ground: {name} must be positive and finite, got {v}"
        )))
    }
}

#[typetag::serde(name = "ground")]
impl Energy for Ground {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let dim = info.layout.dim();
        let mut n = [0.0; 3];
        match &self.normal {
            Some(v) if v.len() == dim => n[..dim].copy_from_slice(v),
            Some(v) => {
                return Err(CoreError::Model(format!(
                    "ground.normal has {} components, expected {dim}",
                    v.len()
                )));
            }
            None => n[dim - 1] = 1.0,
        }
        let l = norm3(&n);
        if !(l.is_finite() && l > 0.0) {
            return Err(CoreError::Model(format!(
                "ground.normal must be a non-zero finite vector, got {n:?}"
            )));
        }
        n = n.map(|v| v / l);
        let mut o = [0.0; 3];
        match &self.point {
            Some(v) if v.len() == dim && v.iter().all(|x| x.is_finite()) => {
                o[..dim].copy_from_slice(v)
            }
            Some(v) => {
                return Err(CoreError::Model(format!(
                    "ground.point must have {dim} finite components, got {v:?}"
                )));
            }
            None => {}
        }
        let c0 = n[0] * o[0] + n[1] * o[1] + n[2] * o[2];
        match self.contact {
            NormalLaw::Quadratic {
                stiffness,
                smoothing,
            } => {
                positive("contact.stiffness", stiffness)?;
                positive("contact.smoothing", smoothing)?;
            }
            NormalLaw::LogExp { stiffness, delta } => {
                positive("contact.stiffness", stiffness)?;
                positive("contact.delta", delta)?;
            }
            NormalLaw::SpringDamper {
                stiffness,
                damping,
                smoothing,
            } => {
                positive("contact.stiffness", stiffness)?;
                positive("contact.smoothing", smoothing)?;
                if !(damping.is_finite() && damping >= 0.0) {
                    return Err(CoreError::Model(format!(
                        "ground: contact.damping must be ≥ 0, got {damping}"
                    )));
                }
            }
        }
        let (friction, mu, mu_axis, k2) = match self.friction {
            None => (0, 0.0, None, 0.0),
            Some(Friction::LaggedQuadratic { mu, mu_axis }) => (1, mu, mu_axis, 0.0),
            Some(Friction::SmoothCoulomb {
                mu,
                mu_axis,
                slip_velocity,
            }) => {
                positive("friction.slip_velocity", slip_velocity)?;
                (2, mu, mu_axis, 15.0 / slip_velocity)
            }
        };
        for m in std::iter::once(mu).chain(mu_axis) {
            if !(m.is_finite() && m >= 0.0) {
                return Err(CoreError::Model(format!(
                    "ground: friction coefficients must be ≥ 0, got {m}"
                )));
            }
        }
        if friction == 2 && mu.max(mu_axis.unwrap_or(mu)) == 0.0 {
            return Err(CoreError::Model(
                "ground: smooth_coulomb with μ = 0; omit `friction` instead".into(),
            ));
        }
        if mu_axis.is_some() != self.axes.is_some() {
            return Err(CoreError::Model(
                "ground: anisotropic friction needs both `mu_axis` and `axes`".into(),
            ));
        }
        let law = Law {
            normal: self.contact,
            friction,
            mu,
            mu_axis: mu_axis.unwrap_or(mu),
            k2,
        };
        let nodes: Vec<usize> = self
            .nodes
            .clone()
            .unwrap_or_else(|| (0..info.layout.n_nodes()).collect());
        if let Some(ax) = &self.axes
            && ax.len() != nodes.len()
        {
            return Err(CoreError::Model(format!(
                "ground.axes has {} entries for {} contact nodes",
                ax.len(),
                nodes.len()
            )));
        }
        self.bound = Some(match (dim, self.axes.is_some()) {
            (2, false) => self.bind_n::<2>(info, &nodes, n, c0, law)?,
            (3, false) => self.bind_n::<3>(info, &nodes, n, c0, law)?,
            (2, true) => self.bind_n::<6>(info, &nodes, n, c0, law)?,
            (_, true) => self.bind_n::<9>(info, &nodes, n, c0, law)?,
            _ => unreachable!("layouts are 2-D or 3-D"),
        });
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_deref()
            .expect("ground used before Model::build bound it")
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound
            .as_deref()
            .expect("bound")
            .grad_hess(s, Some(out), None)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound
            .as_deref()
            .expect("bound")
            .grad_hess(s, None, Some(out))
    }
}

pliant_core::register_energy!(
    "ground",
    "contact with a plane (point, normal): `contact` law quadratic | log_exp | spring_damper, optional `friction` lagged_quadratic | smooth_coulomb, anisotropic along `axes`",
    r#"{"type": "ground", "contact": {"law": "quadratic", "stiffness": 1000.0}, "friction": {"model": "smooth_coulomb", "mu": 0.5, "slip_velocity": 0.001}}"#
);
