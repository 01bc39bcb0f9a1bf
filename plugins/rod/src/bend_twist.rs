//! Bending–twisting springs (MAT-DiSMech §3.2, eqs. 11–16) and their exact
//! derivatives under lagged reference frames.
//!
//! A spring joins the oriented edges `eⁱ = x_n − x_m`, `eʲ = x_o − x_n` (m)
//! with twist angles `θⁱ`, `θʲ` (rad), already multiplied by the edges'
//! orientation signs (see [`crate::network`]). Within a time step the lagged
//! tangents `a_i`, `a_j`, directors `u_i`, `u_j` and reference twist `ψ₀` are
//! constants (see [`crate::frames`]), and with `t = e/|e|`:
//!
//! - reference director `d₁ = P(a → t) u`, `d₂ = t × d₁`; material directors
//!   `m₁ = cos θ d₁ + sin θ d₂`, `m₂ = −sin θ d₁ + cos θ d₂`;
//! - curvature binormal (eq. 11) `κb = 2 eⁱ × eʲ / (|eⁱ||eʲ| + eⁱ·eʲ)`;
//! - material curvatures (eqs. 12–13, dimensionless)
//!   `κ⁽¹⁾ = ½(m₂ⁱ + m₂ʲ)·κb`, `κ⁽²⁾ = −½(m₁ⁱ + m₁ʲ)·κb`;
//!   `κ⁽¹⁾ > 0` bends the centreline towards `m₁`, `κ⁽²⁾ > 0` towards `m₂`;
//! - twist (eq. 15) `τ = θʲ − θⁱ + Δm_ref`;
//! - energies (eqs. 14, 16), with Voronoi length `Δl = (|ēⁱ| + |ēʲ|)/2` (m),
//!   `E_bend = ½ (EI/Δl) [(κ⁽¹⁾ − κ̄⁽¹⁾)² + (κ⁽²⁾ − κ̄⁽²⁾)²]`,
//!   `E_twist = ½ (GJ/Δl) (τ − τ̄)²` (J), `EI`, `GJ` in N·m².
//!
//! [`BendTwist::energy_literal`] evaluates exactly these definitions (the
//! reference twist as the signed angle from `P(t_i → t_j) d₁ⁱ` to `d₁ʲ`); it is
//! what the dual-number fallback differentiates.
//!
//! **Analytic derivatives** ([`BendTwist::eval`]). The textbook DER gradient
//! (Bergou et al. 2010; Jawed et al.'s primer), e.g. `∂Δm_ref/∂eⁱ = κb/(2|eⁱ|)`,
//! assumes the reference frames were transported to the *current* tangents,
//! so it is the exact derivative only at `t = a`. Away from the lagged
//! tangents the transported frame `P(a → t) u` also turns about `t` at the
//! rate of the holonomy of the spherical triangle `(a, t, t + δt)`:
//! `δ(twist) = (a × t)·δt / (1 + a·t)`. We therefore differentiate closed
//! forms that hold for every `t`:
//!
//! - with `P` linear in its argument, `m₁ = P(a → t) μ₁(θ)` where
//!   `μ₁ = cos θ u + sin θ (a × u)`, `μ₂ = −sin θ u + cos θ (a × u)` are
//!   constant-frame directors, and since `m₂ × t = m₁`, `t × m₁ = m₂`,
//!   `κ⁽¹⁾ = (m₁ⁱ·t_j − m₁ʲ·t_i)/(1 + t_i·t_j)`,
//!   `κ⁽²⁾ = (m₂ⁱ·t_j − m₂ʲ·t_i)/(1 + t_i·t_j)`, where each
//!   `mⁱ·y = h(t, y; μ, a) = μ·y − (t·μ)(a·y + t·y)/(1 + a·t)` is rational;
//! - `Δm_ref = ψ₀ − Ω(a_i, t_i, t_j) − Ω(a_i, t_j, a_j)` with the signed
//!   solid angle `Ω(a, b, c) = 2 atan2(a·(b × c), 1 + a·b + b·c + c·a)`
//!   (the holonomy around `a_i → t_i → t_j → a_j`, see [`crate::frames`]);
//!   the correction to the textbook formula is exactly the `t ≠ a` part of
//!   these solid angles.
//!
//! Gradients and Hessians of `h`, of `1 + t_i·t_j` and of the numerator and
//! denominator of each `Ω` over `(t_i, t_j, θⁱ, θʲ)` are written out by hand
//! below; quotients and `atan2` combine them by the chain rule (a
//! second-order "jet" of value, gradient and Hessian over the 8 variables),
//! and `t = e/|e|` is chained last:
//! `∂/∂e = Π/|e| ∂/∂t`, `∂²/∂e² = Π H Π/|e|² − [g tᵀ + t gᵀ + (t·g)(I − 3 t tᵀ)]/|e|²`,
//! `Π = I − t tᵀ`. No dual numbers are involved. The derivative checks in
//! [`crate::rod`] compare this with the fallback of the literal definition
//! at configurations with `t ≠ a`.

use crate::frames::{EdgeFrame, reference_twist_direct, solid_angle, transport};
use pliant_core::Scalar;
use pliant_core::mat3::skew;
use pliant_core::vec3::{V3, add, cross, dot, lift, norm, scale, sub, unit};

/// Number of reduced variables `(eⁱ, eʲ, θⁱ, θʲ)`.
pub const R: usize = 8;

/// The data of one bending–twisting spring in its oriented frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BendTwist {
    /// Lagged unit tangents `a_i`, `a_j` (oriented).
    pub a: [[f64; 3]; 2],
    /// Lagged reference directors `u_i`, `u_j` (oriented).
    pub u: [[f64; 3]; 2],
    /// `a × u` per edge.
    pub v: [[f64; 3]; 2],
    /// Lagged reference twist `ψ₀`, rad.
    pub psi0: f64,
    /// `EI/Δl`, N·m.
    pub kb: f64,
    /// `GJ/Δl`, N·m.
    pub kt: f64,
    /// Voronoi length `Δl`, m.
    pub dl: f64,
    /// Rest natural curvatures `κ̄⁽¹⁾`, `κ̄⁽²⁾` (dimensionless).
    pub kappa_bar: [f64; 2],
    /// Rest natural twist `τ̄` (rad).
    pub tau_bar: f64,
}

/// Strains, energies and derivatives over `r = (eⁱ, eʲ, θⁱ, θʲ)`.
#[derive(Debug, Clone)]
pub struct BtEval {
    /// `κ⁽¹⁾`, `κ⁽²⁾`.
    pub kappa: [f64; 2],
    /// `τ`, rad.
    pub tau: f64,
    /// Bending energy, J.
    pub bend: f64,
    /// Twisting energy, J.
    pub twist: f64,
    /// `∂E/∂r`.
    pub grad: [f64; R],
    /// `∂²E/∂r²` (only filled when asked for).
    pub hess: [[f64; R]; R],
    /// `∂κ⁽¹⁾/∂r`, `∂κ⁽²⁾/∂r`.
    pub d_kappa: [[f64; R]; 2],
    /// `∂τ/∂r`.
    pub d_tau: [f64; R],
}

impl BendTwist {
    /// Sets the lagged frames (oriented) and reference twist.
    pub fn set_frames(&mut self, fi: &EdgeFrame, fj: &EdgeFrame, psi0: f64) {
        self.a = [fi.tangent, fj.tangent];
        self.u = [fi.director, fj.director];
        self.v = [
            cross(&fi.tangent, &fi.director),
            cross(&fj.tangent, &fj.director),
        ];
        self.psi0 = psi0;
    }

    /// `(κ⁽¹⁾, κ⁽²⁾, τ)` by the literal definitions (eqs. 11–13, 15).
    pub fn strains_literal<D: Scalar>(&self, ei: &V3<D>, ej: &V3<D>, th: [D; 2]) -> (D, D, D) {
        let t = [unit(ei), unit(ej)];
        let m: [[V3<D>; 2]; 2] = std::array::from_fn(|k| {
            let d1 = transport(&lift(&self.a[k]), &t[k], &lift(&self.u[k]));
            let d2 = cross(&t[k], &d1);
            let (s, c) = th[k].sin_cos();
            [
                add(&scale(c, &d1), &scale(s, &d2)),
                sub(&scale(c, &d2), &scale(s, &d1)),
            ]
        });
        let den = norm(ei) * norm(ej) + dot(ei, ej);
        let kb = scale(den.recip() * 2.0, &cross(ei, ej));
        let k1 = dot(&add(&m[0][1], &m[1][1]), &kb) * 0.5;
        let k2 = -dot(&add(&m[0][0], &m[1][0]), &kb) * 0.5;
        let d1i = transport(&lift(&self.a[0]), &t[0], &lift(&self.u[0]));
        let d1j = transport(&lift(&self.a[1]), &t[1], &lift(&self.u[1]));
        let psi = reference_twist_direct(&t[0], &d1i, &t[1], &d1j, self.psi0);
        (k1, k2, th[1] - th[0] + psi)
    }

    /// `(E_bend, E_twist)` (J) by the literal definitions, for natural
    /// curvatures `kbar` and twist `tbar`, for any scalar type.
    pub fn energy_literal<D: Scalar>(
        &self,
        ei: &V3<D>,
        ej: &V3<D>,
        th: [D; 2],
        kbar: [D; 2],
        tbar: D,
    ) -> (D, D) {
        let (k1, k2, tau) = self.strains_literal(ei, ej, th);
        self.quadratic([k1, k2], tau, kbar, tbar)
    }

    /// `(E_bend, E_twist) = (½ k_b |κ − κ̄|², ½ k_t (τ − τ̄)²)` (J).
    fn quadratic<D: Scalar>(&self, kap: [D; 2], tau: D, kbar: [D; 2], tbar: D) -> (D, D) {
        let (d1, d2, dt) = (kap[0] - kbar[0], kap[1] - kbar[1], tau - tbar);
        (
            (d1 * d1 + d2 * d2) * (0.5 * self.kb),
            dt * dt * (0.5 * self.kt),
        )
    }

    /// `E_bend + E_twist` (J) as a function of the edges, twists and the
    /// lagged frames themselves (oriented tangents `a`, directors `u`,
    /// reference twist `ψ₀`), all in the scalar type `D`, by the closed
    /// forms of [`BendTwist::value`] (the same function of every argument,
    /// with `v = a × u`): what the derivatives through the carried frames
    /// differentiate (`∂²E/∂r∂c`).
    #[allow(clippy::too_many_arguments)]
    pub fn energy_with_frames<D: Scalar>(
        &self,
        ei: &V3<D>,
        ej: &V3<D>,
        th: [D; 2],
        kbar: [D; 2],
        tbar: D,
        a: &[V3<D>; 2],
        u: &[V3<D>; 2],
        psi0: D,
    ) -> D {
        let t = [unit(ei), unit(ej)];
        // Material directors m_α = P(a → t) μ_α of the constant-frame
        // directors μ₁ = cos θ u + sin θ v, μ₂ = cos θ v − sin θ u.
        let m: [[V3<D>; 2]; 2] = std::array::from_fn(|k| {
            let v = cross(&a[k], &u[k]);
            let (s, c) = th[k].sin_cos();
            let mu1 = add(&scale(c, &u[k]), &scale(s, &v));
            let mu2 = sub(&scale(c, &v), &scale(s, &u[k]));
            [transport(&a[k], &t[k], &mu1), transport(&a[k], &t[k], &mu2)]
        });
        let den = dot(&t[0], &t[1]) + 1.0;
        let kap: [D; 2] =
            std::array::from_fn(|al| (dot(&m[0][al], &t[1]) - dot(&m[1][al], &t[0])) / den);
        let tau = th[1] - th[0] + psi0
            - solid_angle(&a[0], &t[0], &t[1])
            - solid_angle(&a[0], &t[1], &a[1]);
        let (bend, twist) = self.quadratic(kap, tau, kbar, tbar);
        bend + twist
    }

    /// Constant-frame material directors `[μ₁, μ₂]` per edge at angles `th`.
    fn mu(&self, th: [f64; 2]) -> [[[f64; 3]; 2]; 2] {
        std::array::from_fn(|k| {
            let (s, c) = th[k].sin_cos();
            let (u, v) = (&self.u[k], &self.v[k]);
            [
                std::array::from_fn(|x| c * u[x] + s * v[x]),
                std::array::from_fn(|x| c * v[x] - s * u[x]),
            ]
        })
    }

    /// `(κ, τ, E_bend, E_twist)` by the closed forms, without derivatives;
    /// bit for bit the values of [`BendTwist::eval`].
    pub fn value(
        &self,
        ei: &[f64; 3],
        ej: &[f64; 3],
        th: [f64; 2],
        kbar: [f64; 2],
        tbar: f64,
    ) -> ([f64; 2], f64, f64, f64) {
        let (_, t) = unit_edges(ei, ej);
        let [ai, aj] = &self.a;
        let mu = self.mu(th);
        let c = 1.0 + dot(&t[0], &t[1]);
        let kap: [f64; 2] = std::array::from_fn(|a| {
            (h_val(&t[0], &t[1], &mu[0][a], ai) - h_val(&t[1], &t[0], &mu[1][a], aj)) / c
        });
        let om1 = dot(ai, &cross(&t[0], &t[1]))
            .atan2(1.0 + dot(ai, &t[0]) + dot(&t[0], &t[1]) + dot(&t[1], ai));
        let om2 =
            dot(ai, &cross(&t[1], aj)).atan2(1.0 + dot(ai, &t[1]) + dot(&t[1], aj) + dot(aj, ai));
        let tau = th[1] - th[0] + self.psi0 - 2.0 * (om1 + om2);
        let dk = [kap[0] - kbar[0], kap[1] - kbar[1]];
        let dtau = tau - tbar;
        (
            kap,
            tau,
            0.5 * self.kb * (dk[0] * dk[0] + dk[1] * dk[1]),
            0.5 * self.kt * dtau * dtau,
        )
    }

    /// Value and exact derivatives by the closed forms of the module
    /// documentation; the Hessian only when `HESS`.
    pub fn eval<const HESS: bool>(
        &self,
        ei: &[f64; 3],
        ej: &[f64; 3],
        th: [f64; 2],
        kbar: [f64; 2],
        tbar: f64,
    ) -> BtEval {
        let (l, t) = unit_edges(ei, ej);
        let [ai, aj] = &self.a;
        let mu = self.mu(th);
        // c = 1 + t_i·t_j.
        let mut cj = Jet::new(1.0 + dot(&t[0], &t[1]));
        for x in 0..3 {
            cj.g[x] = t[1][x];
            cj.g[3 + x] = t[0][x];
            if HESS {
                cj.h[x][3 + x] = 1.0;
                cj.h[3 + x][x] = 1.0;
            }
        }
        // Numerators n_a = h(t_i, t_j; μ_aⁱ, a_i) − h(t_j, t_i; μ_aʲ, a_j).
        let mut n = [Jet::new(0.0), Jet::new(0.0)];
        for (a, na) in n.iter_mut().enumerate() {
            // ∂μ₁/∂θ = μ₂, ∂μ₂/∂θ = −μ₁.
            let wd = |k: usize| {
                if a == 0 {
                    mu[k][1]
                } else {
                    mu[k][0].map(|x| -x)
                }
            };
            add_h::<HESS>(na, 1.0, [0, 3, 6], &t[0], &t[1], &mu[0][a], &wd(0), ai);
            add_h::<HESS>(na, -1.0, [3, 0, 7], &t[1], &t[0], &mu[1][a], &wd(1), aj);
        }
        let kap = [n[0].quot::<HESS>(&cj), n[1].quot::<HESS>(&cj)];
        // Ω(a_i, t_i, t_j).
        let mut n1 = Jet::new(dot(ai, &cross(&t[0], &t[1])));
        let mut d1 = Jet::new(1.0 + dot(ai, &t[0]) + dot(&t[0], &t[1]) + dot(&t[1], ai));
        let g_b = cross(&t[1], ai);
        let g_c = cross(ai, &t[0]);
        for x in 0..3 {
            n1.g[x] = g_b[x];
            n1.g[3 + x] = g_c[x];
            d1.g[x] = ai[x] + t[1][x];
            d1.g[3 + x] = t[0][x] + ai[x];
        }
        if HESS {
            // ∂²N/∂b∂c = −[a]×, ∂²D/∂b∂c = I.
            let ax = skew(ai);
            for r in 0..3 {
                for s in 0..3 {
                    n1.h[r][3 + s] = -ax[r][s];
                    n1.h[3 + s][r] = -ax[r][s];
                }
                d1.h[r][3 + r] = 1.0;
                d1.h[3 + r][r] = 1.0;
            }
        }
        let om1 = n1.atan2::<HESS>(&d1);
        // Ω(a_i, t_j, a_j): linear numerator and denominator in t_j.
        let mut n2 = Jet::new(dot(ai, &cross(&t[1], aj)));
        let mut d2 = Jet::new(1.0 + dot(ai, &t[1]) + dot(&t[1], aj) + dot(aj, ai));
        let g2 = cross(aj, ai);
        for x in 0..3 {
            n2.g[3 + x] = g2[x];
            d2.g[3 + x] = ai[x] + aj[x];
        }
        let om2 = n2.atan2::<HESS>(&d2);
        // τ = θʲ − θⁱ + ψ₀ − 2 atan2(N₁, D₁) − 2 atan2(N₂, D₂).
        let mut tau = Jet::new(th[1] - th[0] + self.psi0 - 2.0 * (om1.v + om2.v));
        for x in 0..R {
            tau.g[x] = -2.0 * (om1.g[x] + om2.g[x]);
        }
        tau.g[6] -= 1.0;
        tau.g[7] += 1.0;
        if HESS {
            for x in 0..R {
                for y in 0..R {
                    tau.h[x][y] = -2.0 * (om1.h[x][y] + om2.h[x][y]);
                }
            }
        }
        // The energy over (t_i, t_j, θ).
        let dk = [kap[0].v - kbar[0], kap[1].v - kbar[1]];
        let dtau = tau.v - tbar;
        let mut gt = [0.0; R];
        for x in 0..R {
            gt[x] =
                self.kb * (dk[0] * kap[0].g[x] + dk[1] * kap[1].g[x]) + self.kt * dtau * tau.g[x];
        }
        let mut ht = [[0.0; R]; R];
        if HESS {
            for x in 0..R {
                for y in 0..R {
                    ht[x][y] = self.kb
                        * (kap[0].g[x] * kap[0].g[y]
                            + dk[0] * kap[0].h[x][y]
                            + kap[1].g[x] * kap[1].g[y]
                            + dk[1] * kap[1].h[x][y])
                        + self.kt * (tau.g[x] * tau.g[y] + dtau * tau.h[x][y]);
                }
            }
        }
        let (grad, hess) = chain_to_edges::<HESS>(&gt, &ht, &t, &l);
        BtEval {
            kappa: [kap[0].v, kap[1].v],
            tau: tau.v,
            bend: 0.5 * self.kb * (dk[0] * dk[0] + dk[1] * dk[1]),
            twist: 0.5 * self.kt * dtau * dtau,
            grad,
            hess,
            d_kappa: [chain_grad(&kap[0].g, &t, &l), chain_grad(&kap[1].g, &t, &l)],
            d_tau: chain_grad(&tau.g, &t, &l),
        }
    }
}

/// Lengths and unit tangents of two edges.
#[inline]
fn unit_edges(ei: &[f64; 3], ej: &[f64; 3]) -> ([f64; 2], [[f64; 3]; 2]) {
    let l = [norm(ei), norm(ej)];
    (l, [scale(1.0 / l[0], ei), scale(1.0 / l[1], ej)])
}

/// `h(t, y; w, a) = w·y − (t·w)(a·y + t·y)/(1 + a·t)`, i.e. `(P(a → t) w)·y`.
#[inline]
fn h_val(t: &[f64; 3], y: &[f64; 3], w: &[f64; 3], a: &[f64; 3]) -> f64 {
    let al = dot(t, w);
    let be = dot(a, y) + dot(t, y);
    let ga = 1.0 + dot(a, t);
    dot(w, y) - al * be / ga
}

/// Value, gradient and Hessian of a scalar over `(t_i, t_j, θⁱ, θʲ)`.
#[derive(Clone, Copy)]
struct Jet {
    v: f64,
    g: [f64; R],
    h: [[f64; R]; R],
}

impl Jet {
    fn new(v: f64) -> Self {
        Self {
            v,
            g: [0.0; R],
            h: [[0.0; R]; R],
        }
    }

    /// `self / d`: `H = (H_n − q H_d − g_q g_dᵀ − g_d g_qᵀ)/d`.
    fn quot<const HESS: bool>(&self, d: &Jet) -> Jet {
        let q = self.v / d.v;
        let mut o = Jet::new(q);
        for x in 0..R {
            o.g[x] = (self.g[x] - q * d.g[x]) / d.v;
        }
        if HESS {
            for x in 0..R {
                for y in 0..R {
                    o.h[x][y] =
                        (self.h[x][y] - q * d.h[x][y] - o.g[x] * d.g[y] - d.g[x] * o.g[y]) / d.v;
                }
            }
        }
        o
    }

    /// `atan2(self, x)`: `g = (x g_y − y g_x)/ρ²` and
    /// `H = [x H_y − y H_x + g_y g_xᵀ − g_x g_yᵀ − g ∇(ρ²)ᵀ]/ρ²`, symmetrized.
    fn atan2<const HESS: bool>(&self, x: &Jet) -> Jet {
        let y = self;
        let r2 = x.v * x.v + y.v * y.v;
        let mut o = Jet::new(y.v.atan2(x.v));
        for k in 0..R {
            o.g[k] = (x.v * y.g[k] - y.v * x.g[k]) / r2;
        }
        if HESS {
            let dr2: [f64; R] = std::array::from_fn(|k| 2.0 * (x.v * x.g[k] + y.v * y.g[k]));
            let mut h = [[0.0; R]; R];
            for a in 0..R {
                for b in 0..R {
                    h[a][b] = (x.v * y.h[a][b] - y.v * x.h[a][b] + y.g[a] * x.g[b]
                        - x.g[a] * y.g[b]
                        - o.g[a] * dr2[b])
                        / r2;
                }
            }
            for a in 0..R {
                for b in 0..R {
                    o.h[a][b] = 0.5 * (h[a][b] + h[b][a]);
                }
            }
        }
        o
    }
}

/// Adds `sign · h(t, y; w, a)` with `h = w·y − (t·w)(a·y + t·y)/(1 + a·t)` to
/// `j`, where `t`, `y`, `θ` sit at indices `idx = [t, y, θ]` and `w(θ)` has
/// `∂w/∂θ = wd`, `∂²w/∂θ² = −w`.
#[allow(clippy::too_many_arguments)]
fn add_h<const HESS: bool>(
    j: &mut Jet,
    sign: f64,
    idx: [usize; 3],
    t: &[f64; 3],
    y: &[f64; 3],
    w: &[f64; 3],
    wd: &[f64; 3],
    a: &[f64; 3],
) {
    let [it, iy, ip] = idx;
    let al = dot(t, w);
    let ald = dot(t, wd);
    let be = dot(a, y) + dot(t, y);
    let ga = 1.0 + dot(a, t);
    let apt = add(a, t);
    let val = h_val(t, y, w, a);
    j.v += sign * val;
    // g_t = −(βw + αy)/γ + αβ a/γ²; g_y = w − α(a + t)/γ; g_θ = h(wd).
    let z: [f64; 3] = std::array::from_fn(|x| be * w[x] + al * y[x]);
    let zd: [f64; 3] = std::array::from_fn(|x| be * wd[x] + ald * y[x]);
    for x in 0..3 {
        j.g[it + x] += sign * (-z[x] / ga + al * be * a[x] / (ga * ga));
        j.g[iy + x] += sign * (w[x] - al * apt[x] / ga);
    }
    j.g[ip] += sign * (dot(wd, y) - ald * be / ga);
    if !HESS {
        return;
    }
    let g2 = ga * ga;
    let g3 = g2 * ga;
    for r in 0..3 {
        for s in 0..3 {
            let id = if r == s { 1.0 } else { 0.0 };
            // H_tt = −(w yᵀ + y wᵀ)/γ + (z aᵀ + a zᵀ)/γ² − 2αβ a aᵀ/γ³.
            j.h[it + r][it + s] += sign
                * (-(w[r] * y[s] + y[r] * w[s]) / ga + (z[r] * a[s] + a[r] * z[s]) / g2
                    - 2.0 * al * be * a[r] * a[s] / g3);
            // H_ty = −(w (a+t)ᵀ + α I)/γ + α a (a+t)ᵀ/γ².
            let ty = sign * (-(w[r] * apt[s] + al * id) / ga + al * a[r] * apt[s] / g2);
            j.h[it + r][iy + s] += ty;
            j.h[iy + s][it + r] += ty;
        }
        // H_tθ = g_t(wd), H_yθ = g_y(wd).
        let tp = sign * (-zd[r] / ga + ald * be * a[r] / g2);
        j.h[it + r][ip] += tp;
        j.h[ip][it + r] += tp;
        let yp = sign * (wd[r] - ald * apt[r] / ga);
        j.h[iy + r][ip] += yp;
        j.h[ip][iy + r] += yp;
    }
    j.h[ip][ip] -= sign * val;
}

/// `∂/∂e = Π/|e| ∂/∂t` for both edges; `θ` entries unchanged.
fn chain_grad(gt: &[f64; R], t: &[[f64; 3]; 2], l: &[f64; 2]) -> [f64; R] {
    let mut g = *gt;
    for k in 0..2 {
        let b = 3 * k;
        let gk = [gt[b], gt[b + 1], gt[b + 2]];
        let tg = dot(&t[k], &gk);
        for x in 0..3 {
            g[b + x] = (gk[x] - tg * t[k][x]) / l[k];
        }
    }
    g
}

/// Gradient and Hessian over `(eⁱ, eʲ, θ)` from those over `(t_i, t_j, θ)`
/// (formulas in the module documentation).
fn chain_to_edges<const HESS: bool>(
    gt: &[f64; R],
    ht: &[[f64; R]; R],
    t: &[[f64; 3]; 2],
    l: &[f64; 2],
) -> ([f64; R], [[f64; R]; R]) {
    let g = chain_grad(gt, t, l);
    let mut h = [[0.0; R]; R];
    if !HESS {
        return (g, h);
    }
    // J_k = Π_k/ℓ_k; first M = J ⊙ H on the rows, then on the columns.
    let jac: [[[f64; 3]; 3]; 2] = std::array::from_fn(|k| {
        std::array::from_fn(|r| {
            std::array::from_fn(|s| ((if r == s { 1.0 } else { 0.0 }) - t[k][r] * t[k][s]) / l[k])
        })
    });
    let mut m = [[0.0; R]; R]; // rows chained
    for c in 0..R {
        for k in 0..2 {
            for r in 0..3 {
                m[3 * k + r][c] = (0..3).map(|s| jac[k][r][s] * ht[3 * k + s][c]).sum();
            }
        }
        m[6][c] = ht[6][c];
        m[7][c] = ht[7][c];
    }
    for r in 0..R {
        for k in 0..2 {
            for c in 0..3 {
                h[r][3 * k + c] = (0..3).map(|s| m[r][3 * k + s] * jac[k][s][c]).sum();
            }
        }
        h[r][6] = m[r][6];
        h[r][7] = m[r][7];
    }
    // Curvature of t = e/|e|: −[g tᵀ + t gᵀ + (t·g)(I − 3ttᵀ)]/ℓ² on the diagonal blocks.
    for k in 0..2 {
        let b = 3 * k;
        let gk = [gt[b], gt[b + 1], gt[b + 2]];
        let tg = dot(&t[k], &gk);
        let l2 = l[k] * l[k];
        for r in 0..3 {
            for s in 0..3 {
                let id = if r == s { 1.0 } else { 0.0 };
                h[b + r][b + s] -=
                    (gk[r] * t[k][s] + t[k][r] * gk[s] + tg * (id - 3.0 * t[k][r] * t[k][s])) / l2;
            }
        }
    }
    (g, h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::RodFrames;
    use crate::network::RodNetwork;

    /// A spring whose lagged frames sit at `ei0`, `ej0`.
    fn spring(ei0: &[f64; 3], ej0: &[f64; 3]) -> BendTwist {
        let net = RodNetwork::chain(&[0, 1, 2]).unwrap();
        let f = RodFrames::init(&net, &[unit(ei0), unit(ej0)], Some([0.2, 0.3, 1.0])).unwrap();
        let mut bt = BendTwist {
            a: [[0.0; 3]; 2],
            u: [[0.0; 3]; 2],
            v: [[0.0; 3]; 2],
            psi0: 0.0,
            kb: 1.0,
            kt: 1.0,
            dl: 1.0,
            kappa_bar: [0.0; 2],
            tau_bar: 0.0,
        };
        bt.set_frames(&f.edges[0], &f.edges[1], f.ref_twist[0]);
        bt
    }

    #[test]
    fn the_energy_with_explicit_frames_is_the_solver_energy_at_the_stored_frames() {
        let bt = spring(&[0.02, 0.001, 0.0], &[0.018, 0.006, 0.004]);
        let (ei, ej) = ([0.02, 0.002, 0.002], [0.017, 0.004, 0.007]);
        let (th, kbar, tbar) = ([0.3, -0.2], [4.0, -2.0], 1.5);
        let (_, _, bend, twist) = bt.value(&ei, &ej, th, kbar, tbar);
        let e = bt.energy_with_frames(&ei, &ej, th, kbar, tbar, &bt.a, &bt.u, bt.psi0);
        assert!(
            (e - (bend + twist)).abs() <= 1e-12 * (bend + twist),
            "{e} vs {}",
            bend + twist
        );
    }

    #[test]
    fn the_textbook_reference_twist_gradient_is_exact_only_at_the_lagged_tangents() {
        let (ei0, ej0) = ([0.02, 0.001, 0.0], [0.018, 0.006, 0.004]);
        let bt = spring(&ei0, &ej0);
        let textbook = |ei: &[f64; 3], ej: &[f64; 3]| {
            let kb = scale(2.0 / (norm(ei) * norm(ej) + dot(ei, ej)), &cross(ei, ej));
            let mut g = [0.0; R];
            for x in 0..3 {
                g[x] = kb[x] / (2.0 * norm(ei));
                g[3 + x] = kb[x] / (2.0 * norm(ej));
            }
            g[6] = -1.0;
            g[7] = 1.0;
            g
        };
        let diff = |a: &[f64; R], b: &[f64; R]| {
            let m = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            a.iter()
                .zip(b)
                .fold(0.0f64, |d, (x, y)| d.max((x - y).abs()))
                / m
        };
        // At t = a (Bergou et al.'s setting) the closed form agrees.
        let ev = bt.eval::<false>(&ei0, &ej0, [0.3, -0.2], [0.0; 2], 0.0);
        assert!(diff(&ev.d_tau, &textbook(&ei0, &ej0)) < 1e-12);
        // Away from it (edges turned by ~0.1 rad) it misses the holonomy term.
        let (ei, ej) = ([0.02, 0.002, 0.002], [0.017, 0.004, 0.007]);
        let ev = bt.eval::<false>(&ei, &ej, [0.3, -0.2], [0.0; 2], 0.0);
        let miss = diff(&ev.d_tau, &textbook(&ei, &ej));
        assert!(miss > 1e-2, "{miss}");
        // Central differences of the literal reference twist agree with the closed form.
        let h = 1e-7;
        for x in 0..6 {
            let mut rp = [ei[0], ei[1], ei[2], ej[0], ej[1], ej[2]];
            let mut rm = rp;
            rp[x] += h;
            rm[x] -= h;
            let tau = |r: &[f64; 6]| {
                bt.strains_literal(&[r[0], r[1], r[2]], &[r[3], r[4], r[5]], [0.3, -0.2])
                    .2
            };
            let fd = (tau(&rp) - tau(&rm)) / (2.0 * h);
            assert!((fd - ev.d_tau[x]).abs() < 1e-6 * ev.d_tau[x].abs().max(1.0));
        }
    }
}
