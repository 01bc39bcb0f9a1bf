//! The linear tetrahedron with the neo-Hookean density, and the
//! `neo_hookean_tets` energy.
//!
//! `F = D_s D_m⁻¹` with `D_s = [x₁ − x₀, x₂ − x₀, x₃ − x₀]` is linear in the
//! 12 nodal coordinates: `F_ij = Σ_a x_{a,i} G_aj` with `G_aj = (D_m⁻¹)_{a−1,j}`
//! for `a = 1..3` and `G_0j = −Σ_a G_aj`. Energy `V₀ Ψ(F)`; gradient
//! `∂E/∂x_{a,i} = V₀ Σ_j P_ij G_aj`; Hessian
//! `V₀ Σ_jl ∂P_ij/∂F_kl G_aj G_bl`.

use crate::material::{det3, inv3, lame, psi, stress};
use pliant_core::element::{Ctx, ElementSet};
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use pliant_core::reduced::{ReducedElement, ReducedElements};
use serde::{Deserialize, Serialize};

/// The material: constants, or design channels (differentiable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Material {
    /// Fixed Young's modulus (Pa) and Poisson's ratio.
    Constant {
        /// E, Pa.
        youngs_modulus: f64,
        /// ν, in (−1, 0.5).
        poisson_ratio: f64,
    },
    /// Young's modulus and Poisson's ratio read from parameter channels.
    Channels {
        /// Channel holding E (Pa).
        youngs_modulus: String,
        /// Channel holding ν.
        poisson_ratio: String,
    },
}

/// A bound tetrahedron reading `P ∈ {0, 2}` channels (E, ν).
#[derive(Debug, Clone)]
pub struct TetEl<const P: usize> {
    dofs: [usize; 12],
    params: [usize; P],
    /// `G` (4 × 3, row-major).
    g: [f64; 12],
    vol: f64,
    /// (μ, λ) when constant.
    lame: (f64, f64),
}

impl<const P: usize> TetEl<P> {
    fn material<D: DualNum<f64> + Copy>(&self, p: &[D; P]) -> (D, D) {
        if P == 2 {
            lame(p[0], p[1])
        } else {
            (D::from(self.lame.0), D::from(self.lame.1))
        }
    }
    fn f_of(&self, q: &[f64]) -> [f64; 9] {
        let mut f = [0.0; 9];
        for a in 0..4 {
            for i in 0..3 {
                let x = q[self.dofs[3 * a + i]];
                for j in 0..3 {
                    f[3 * i + j] += x * self.g[3 * a + j];
                }
            }
        }
        f
    }
}

impl<const P: usize> ReducedElement<12, 9, P> for TetEl<P> {
    fn dofs(&self) -> [usize; 12] {
        self.dofs
    }
    fn params(&self) -> [usize; P] {
        self.params
    }
    fn map(&self) -> [[f64; 12]; 9] {
        let mut b = [[0.0; 12]; 9];
        for i in 0..3 {
            for j in 0..3 {
                for a in 0..4 {
                    b[3 * i + j][3 * a + i] = self.g[3 * a + j];
                }
            }
        }
        b
    }
    fn reduce(&self, q: &[f64]) -> [f64; 9] {
        self.f_of(q)
    }
    fn energy<D: DualNum<f64> + Copy>(&self, f: &[D; 9], _: &[D; 9], p: &[D; P], _: &Ctx) -> D {
        let (mu, lambda) = self.material(p);
        psi(f, mu, lambda) * self.vol
    }
}

trait TetAnalytic: ElementSet {
    fn grad(&self, s: &EvalState, out: &mut [f64]);
    fn hess(&self, s: &EvalState, out: &mut [f64]);
}

impl<const P: usize> TetAnalytic for ReducedElements<TetEl<P>, 12, 9, P> {
    fn grad(&self, s: &EvalState, out: &mut [f64]) {
        pliant_core::element::for_each_block(out, 12, &self.items, |o, e| {
            let pv: [f64; P] = std::array::from_fn(|k| s.p[e.params[k]]);
            let (mu, la) = e.material(&pv);
            let Some(p) = stress(&e.f_of(s.q), mu, la) else {
                o.fill(f64::NAN);
                return;
            };
            for a in 0..4 {
                for i in 0..3 {
                    o[3 * a + i] =
                        e.vol * (0..3).map(|j| p[3 * i + j] * e.g[3 * a + j]).sum::<f64>();
                }
            }
        });
    }
    fn hess(&self, s: &EvalState, out: &mut [f64]) {
        pliant_core::element::for_each_block(out, 144, &self.items, |o, e| {
            let pv: [f64; P] = std::array::from_fn(|k| s.p[e.params[k]]);
            let (mu, la) = e.material(&pv);
            if !element_hessian(&e.f_of(s.q), &e.g, e.vol, mu, la, o) {
                o.fill(f64::NAN);
            }
        });
    }
}

/// The 12 × 12 element Hessian in closed form (row-major into `out`).
///
/// With `T_ijkl = μ δ_ik δ_jl + c F⁻¹_li F⁻¹_jk + λ F⁻¹_ji F⁻¹_lk`,
/// `c = μ − λ ln J` (see [`stress_and_tangent`]) and `w_a = F⁻ᵀ g_a`,
/// `H_{ai,bk} = V₀ Σ_jl T_ijkl g_aj g_bl
///            = V₀ [μ (g_a·g_b) δ_ik + c w_b,i w_a,k + λ w_a,i w_b,k]`
/// — 4 small vectors instead of contracting the 81-entry tangent twice.
/// Returns `false` for `J ≤ 0` (or NaN).
fn element_hessian(
    f: &[f64; 9],
    g: &[f64; 12],
    vol: f64,
    mu: f64,
    la: f64,
    out: &mut [f64],
) -> bool {
    let j = det3(f);
    if j.is_nan() || j <= 0.0 {
        return false;
    }
    let fi = inv3(f, j); // fi[3a + b] = F⁻¹_ab
    let c = mu - la * j.ln();
    // w[a][i] = Σ_j F⁻¹_ji g_aj
    let w: [[f64; 3]; 4] = std::array::from_fn(|a| {
        std::array::from_fn(|i| (0..3).map(|jj| fi[3 * jj + i] * g[3 * a + jj]).sum())
    });
    for a in 0..4 {
        for b in 0..4 {
            let gg = mu * (0..3).map(|l| g[3 * a + l] * g[3 * b + l]).sum::<f64>();
            for i in 0..3 {
                for k in 0..3 {
                    let d = if i == k { gg } else { 0.0 };
                    out[(3 * a + i) * 12 + 3 * b + k] =
                        vol * (d + c * w[b][i] * w[a][k] + la * w[a][i] * w[b][k]);
                }
            }
        }
    }
    true
}

/// Compressible neo-Hookean linear tetrahedra (Bern et al. 2019, eq. 1).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeoHookeanTets {
    /// Node indices of each tetrahedron.
    pub tets: Vec<[usize; 4]>,
    /// Material.
    pub material: Material,
    #[serde(skip)]
    bound: Option<Box<dyn TetAnalytic>>,
}

impl std::fmt::Debug for dyn TetAnalytic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bound tetrahedra", self.len())
    }
}

fn check_material(e: f64, nu: f64) -> Result<()> {
    if !(e.is_finite() && e > 0.0) {
        return Err(CoreError::Model(format!(
            "neo_hookean_tets: Young's modulus must be positive, got {e} Pa"
        )));
    }
    if !(nu > -1.0 && nu < 0.5) {
        return Err(CoreError::Model(format!(
            "neo_hookean_tets: Poisson's ratio must lie in (−1, 0.5), got {nu}"
        )));
    }
    Ok(())
}

impl NeoHookeanTets {
    /// Tetrahedra over model nodes with a material.
    pub fn new(tets: Vec<[usize; 4]>, material: Material) -> Self {
        Self {
            tets,
            material,
            bound: None,
        }
    }
    fn bind_p<const P: usize>(
        &self,
        info: &BindInfo,
        params: [usize; P],
        lame: (f64, f64),
    ) -> Result<Box<dyn TetAnalytic>> {
        let mut items = Vec::with_capacity(self.tets.len());
        for (t, nodes) in self.tets.iter().enumerate() {
            let mut dofs = [0; 12];
            for (a, &n) in nodes.iter().enumerate() {
                info.layout.node_dofs(
                    n,
                    &mut dofs[3 * a..3 * a + 3],
                    &format!("neo_hookean_tets.tets[{t}]"),
                )?;
            }
            let x = |a: usize, i: usize| info.q0[dofs[3 * a + i]];
            // D_m column-major by edge: dm[i][c] = x_{c+1,i} − x_{0,i}.
            let dm: [f64; 9] = std::array::from_fn(|k| {
                let (i, c) = (k / 3, k % 3);
                x(c + 1, i) - x(0, i)
            });
            let det = crate::material::det3(&dm);
            let vol = det / 6.0;
            let scale = (0..3)
                .map(|c| (0..3).map(|i| dm[3 * i + c].powi(2)).sum::<f64>())
                .fold(0.0f64, f64::max);
            if vol.is_nan() || vol <= 1e-12 * scale.powf(1.5) {
                return Err(CoreError::Model(format!(
                    "neo_hookean_tets.tets[{t}] (nodes {nodes:?}) has {} rest volume {vol:.3e} m³; reorder its nodes or fix the mesh",
                    if vol < 0.0 { "negative" } else { "zero" }
                )));
            }
            let w = crate::material::inv3(&dm, det); // w[3c + j] = (D_m⁻¹)_cj
            let mut g = [0.0; 12];
            for c in 0..3 {
                for j in 0..3 {
                    g[3 * (c + 1) + j] = w[3 * c + j];
                    g[j] -= w[3 * c + j];
                }
            }
            items.push(TetEl {
                dofs,
                params,
                g,
                vol,
                lame,
            });
        }
        Ok(Box::new(ReducedElements::<TetEl<P>, 12, 9, P>::new(items)))
    }
}

#[typetag::serde(name = "neo_hookean_tets")]
impl Energy for NeoHookeanTets {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        if info.layout.dim() != 3 {
            return Err(CoreError::Model(
                "neo_hookean_tets needs a 3-D model".into(),
            ));
        }
        self.bound = Some(match &self.material {
            Material::Constant {
                youngs_modulus,
                poisson_ratio,
            } => {
                check_material(*youngs_modulus, *poisson_ratio)?;
                self.bind_p::<0>(info, [], lame(*youngs_modulus, *poisson_ratio))?
            }
            Material::Channels {
                youngs_modulus,
                poisson_ratio,
            } => {
                let e = info
                    .layout
                    .param(youngs_modulus, "neo_hookean_tets.material.youngs_modulus")?;
                let nu = info
                    .layout
                    .param(poisson_ratio, "neo_hookean_tets.material.poisson_ratio")?;
                self.bind_p::<2>(info, [e, nu], (0.0, 0.0))?
            }
        });
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_deref()
            .expect("neo_hookean_tets used before Model::build bound it")
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").grad(s, out)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").hess(s, out)
    }
}

pliant_core::register_energy!(
    "neo_hookean_tets",
    "compressible neo-Hookean linear tetrahedra (Bern et al. 2019 eq. 1): `tets` node quadruples, `material` constant {youngs_modulus Pa, poisson_ratio} or channels",
    r#"{"type": "neo_hookean_tets", "tets": [[0, 1, 2, 3]], "material": {"type": "constant", "youngs_modulus": 1e5, "poisson_ratio": 0.3}}"#
);
