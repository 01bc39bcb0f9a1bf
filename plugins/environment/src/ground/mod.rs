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

mod element;
mod law;

pub use law::{Friction, NormalLaw};

use element::GroundEl;
use law::{Kind, Law};
use pliant_core::geometry::{Drawing, Shape};
use pliant_core::region::Selector;
use pliant_core::vec3::{norm, tangential};
use pliant_core::{BindInfo, CoreError, Elements, Energy, EnergySpec, Invalid, Result};
use serde::{Deserialize, Serialize};

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
