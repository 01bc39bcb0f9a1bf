//! The linear tetrahedron with the neo-Hookean density, and the
//! `neo_hookean_tets` energy.
//!
//! `F = D_s D_m⁻¹` with `D_s = [x₁ − x₀, x₂ − x₀, x₃ − x₀]` is linear in the
//! 12 nodal coordinates: `F_ij = Σ_a x_{a,i} G_aj` with `G_aj = (D_m⁻¹)_{a−1,j}`
//! for `a = 1..3` and `G_0j = −Σ_a G_aj`. Energy `V₀ Ψ(F)`; gradient
//! `∂E/∂x_{a,i} = V₀ Σ_j P_ij G_aj`; Hessian
//! `V₀ Σ_jl ∂P_ij/∂F_kl G_aj G_bl`.

use crate::material::{lame, psi, psi_and_stress, stress};
use pliant_core::geometry::{CellKind, Drawing};
use pliant_core::mat3::{det3, inv3};
use pliant_core::region::Selector;
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, Elements, Energy, EnergySpec, Invalid, Local, Result,
    Scalar, Stencil,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

/// A bound tetrahedron over the 12 coordinates of its nodes, reading E and
/// ν from two channels when the material is given by channels. Its fallback
/// differentiates `V₀ Ψ` over the 9 entries of `F = B x`.
#[derive(Debug, Clone)]
struct TetEl {
    nodes: [usize; 4],
    /// Channels holding E and ν, if the material reads them.
    channels: Option<Arc<[String; 2]>>,
    /// `G` (4 × 3, row-major).
    g: [f64; 12],
    vol: f64,
    /// (μ, λ) when constant.
    lame: (f64, f64),
}

impl TetEl {
    fn material<D: Scalar>(&self, p: &[D]) -> (D, D) {
        if self.channels.is_some() {
            lame(p[0], p[1])
        } else {
            (D::from(self.lame.0), D::from(self.lame.1))
        }
    }
    /// `∂E/∂x_a,i = V₀ Σ_j P_ij g_aj` into `o` (12).
    #[inline]
    fn write_gradient(&self, p: &[f64; 9], o: &mut [f64]) {
        for a in 0..4 {
            for i in 0..3 {
                o[3 * a + i] = self.vol
                    * (0..3)
                        .map(|j| p[3 * i + j] * self.g[3 * a + j])
                        .sum::<f64>();
            }
        }
    }
    #[inline]
    fn f_of(&self, x: &[f64]) -> [f64; 9] {
        let mut f = [0.0; 9];
        for a in 0..4 {
            for i in 0..3 {
                let xa = x[3 * a + i];
                for j in 0..3 {
                    f[3 * i + j] += xa * self.g[3 * a + j];
                }
            }
        }
        f
    }
}

impl Element for TetEl {
    type Size = Stencil<12, 2, 9>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        let c = self.channels.as_deref();
        [c.map(|c| c[0].as_str()), c.map(|c| c[1].as_str())]
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for i in 0..3 {
            for j in 0..3 {
                for a in 0..4 {
                    b[(3 * i + j) * 12 + 3 * a + i] = self.g[3 * a + j];
                }
            }
        }
        true
    }
    #[inline]
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        r.copy_from_slice(&self.f_of(x));
        true
    }
    fn energy<D: Scalar>(&self, f: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let (mu, lambda) = self.material(p);
        let f: [D; 9] = std::array::from_fn(|k| f[k]);
        psi(&f, mu, lambda) * self.vol
    }
    #[inline]
    fn gradient(&self, l: &Local, o: &mut [f64]) -> bool {
        let (mu, la) = self.material(l.p);
        let Some(p) = stress(&self.f_of(l.x), mu, la) else {
            o.fill(f64::NAN);
            return true;
        };
        self.write_gradient(&p, o);
        true
    }
    #[inline]
    fn value_and_gradient(&self, l: &Local, o: &mut [f64]) -> Option<f64> {
        let (mu, la) = self.material(l.p);
        let f = self.f_of(l.x);
        let Some((psi, p)) = psi_and_stress(&f, mu, la) else {
            o.fill(f64::NAN);
            return Some(f64::INFINITY);
        };
        self.write_gradient(&p, o);
        Some(psi * self.vol)
    }
    fn hessian(&self, l: &Local, o: &mut [f64]) -> bool {
        let (mu, la) = self.material(l.p);
        if !element_hessian(&self.f_of(l.x), &self.g, self.vol, mu, la, o) {
            o.fill(f64::NAN);
        }
        true
    }
}

/// The 12 × 12 element Hessian in closed form (row-major into `out`).
///
/// With `T_ijkl = μ δ_ik δ_jl + c F⁻¹_li F⁻¹_jk + λ F⁻¹_ji F⁻¹_lk`,
/// `c = μ − λ ln J` (see [`stress_and_tangent`]) and `w_a = F⁻ᵀ g_a`,
/// `H_{ai,bk} = V₀ Σ_jl T_ijkl g_aj g_bl
///            = V₀ [μ (g_a·g_b) δ_ik + c w_b,i w_a,k + λ w_a,i w_b,k]`
/// — 4 small vectors instead of contracting the 81-entry tangent twice.
/// Each row `(a, i)` is written as one 12-wide expression over the columns
/// `(b, k)`, with `c w_b,i`, `w_a,k`, `λ w_a,i` and `w_b,k` laid out along
/// the row beforehand, so the compiler vectorizes it; every entry is the
/// same sequence of operations as the formula above, term for term.
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
    // Along a row, column `j = 3b + k`: `w_b,k`, `c w_b,i` (per `i`) and
    // `w_a,k` (per `a`).
    let wf: [f64; 12] = std::array::from_fn(|j| w[j / 3][j % 3]);
    let cw: [[f64; 12]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| c * w[j / 3][i]));
    let wa: [[f64; 12]; 4] = std::array::from_fn(|a| std::array::from_fn(|j| w[a][j % 3]));
    for a in 0..4 {
        let gg: [f64; 4] =
            std::array::from_fn(|b| mu * (0..3).map(|l| g[3 * a + l] * g[3 * b + l]).sum::<f64>());
        for i in 0..3 {
            let lw = la * w[a][i];
            let row: &mut [f64; 12] = (&mut out[(3 * a + i) * 12..(3 * a + i + 1) * 12])
                .try_into()
                .expect("12 columns");
            for j in 0..12 {
                let d = if j % 3 == i { gg[j / 3] } else { 0.0 };
                row[j] = vol * (d + cw[i][j] * wa[a][j] + lw * wf[j]);
            }
        }
    }
    true
}

/// Compressible neo-Hookean linear tetrahedra (Bern et al. 2019, eq. 1),
/// scene type `"neo_hookean_tets"`: over the tetrahedra `tets`, or over a
/// body's tetrahedra chosen by a selector — a second material added where
/// a platform stiffens the body:
///
/// ```json
/// {"type": "neo_hookean_tets", "body": "foam",
///  "select": {"region": "foam", "box": {"min": [0.04, 0, 0.04], "max": [0.1, 0.04, 0.05]}},
///  "material": {"type": "constant", "youngs_modulus": 1e7, "poisson_ratio": 0.3}}
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeoHookeanTets {
    /// Node indices of each tetrahedron (or give `body`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tets: Vec<[usize; 4]>,
    /// A `tet_body` whose tetrahedra these are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// With `body`: only the tetrahedra whose four nodes it selects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<Selector>,
    /// Material.
    pub material: Material,
}

impl NeoHookeanTets {
    /// Tetrahedra over model nodes with a material.
    pub fn new(tets: Vec<[usize; 4]>, material: Material) -> Self {
        Self {
            tets,
            body: None,
            select: None,
            material,
        }
    }

    /// The tetrahedra: `tets`, or those of `body` that `select` selects.
    fn resolve(&self, info: &BindInfo) -> Result<Vec<[usize; 4]>> {
        let Some(body) = &self.body else {
            if self.select.is_some() {
                return Err(CoreError::inconsistent(
                    "select",
                    "selects among a body's tetrahedra: name the `body`",
                ));
            }
            if self.tets.is_empty() {
                return Err(CoreError::inconsistent(
                    "tets",
                    "no tetrahedra: give the `tets` or a `body`",
                ));
            }
            return Ok(self.tets.clone());
        };
        if !self.tets.is_empty() {
            return Err(CoreError::inconsistent(
                "body",
                "give the `tets` or a `body`, not both",
            ));
        }
        let all = info.layout.volume(body, "body")?;
        let Some(sel) = &self.select else {
            return Ok(all.to_vec());
        };
        let mut chosen = vec![false; info.layout.n_nodes()];
        for n in sel.resolve(info.layout, info.q0, "select")? {
            chosen[n] = true;
        }
        let tets: Vec<[usize; 4]> = all
            .iter()
            .filter(|t| t.iter().all(|&n| chosen[n]))
            .copied()
            .collect();
        if tets.is_empty() {
            return Err(CoreError::degenerate(
                "select",
                format!(
                    "selects nodes of body `{body}` but none of its tetrahedra (all four nodes of a tetrahedron must be selected)"
                ),
            ));
        }
        Ok(tets)
    }
}

fn check_material(e: f64, nu: f64) -> Result<()> {
    Invalid::positive("material.youngs_modulus", e, "Pa")?;
    Invalid::check(
        nu > -1.0 && nu < 0.5,
        "material.poisson_ratio",
        nu,
        "in (−1, 0.5)",
    )?;
    Ok(())
}

impl EnergySpec for NeoHookeanTets {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        info.require_dim("neo_hookean_tets", 3)?;
        let (channels, lame_const) = match &self.material {
            Material::Constant {
                youngs_modulus,
                poisson_ratio,
            } => {
                check_material(*youngs_modulus, *poisson_ratio)?;
                (None, lame(*youngs_modulus, *poisson_ratio))
            }
            Material::Channels {
                youngs_modulus,
                poisson_ratio,
            } => {
                info.param(youngs_modulus, "material.youngs_modulus")?;
                info.param(poisson_ratio, "material.poisson_ratio")?;
                (
                    Some(Arc::new([youngs_modulus.clone(), poisson_ratio.clone()])),
                    (0.0, 0.0),
                )
            }
        };
        let tets = self.resolve(info)?;
        let mut items = Vec::with_capacity(tets.len());
        for (t, nodes) in tets.iter().enumerate() {
            let field = match &self.body {
                Some(b) => format!("body `{b}` tetrahedron {t} (nodes {nodes:?})"),
                None => format!("tets[{t}]"),
            };
            let mut x = [[0.0; 3]; 4];
            for (a, &n) in nodes.iter().enumerate() {
                x[a] = info.node_position(n, &field)?;
            }
            // D_m column-major by edge: dm[3i + c] = x_{c+1,i} − x_{0,i}.
            let dm: [f64; 9] = std::array::from_fn(|k| {
                let (i, c) = (k / 3, k % 3);
                x[c + 1][i] - x[0][i]
            });
            let det = det3(&dm);
            let vol = det / 6.0;
            let scale = (0..3)
                .map(|c| (0..3).map(|i| dm[3 * i + c].powi(2)).sum::<f64>())
                .fold(0.0f64, f64::max);
            if vol.is_nan() || vol <= 1e-12 * scale.powf(1.5) {
                return Err(CoreError::degenerate(
                    field,
                    format!(
                        "nodes {nodes:?} have {} rest volume {vol:.3e} m³; reorder the nodes or fix the mesh",
                        if vol < 0.0 { "negative" } else { "zero" }
                    ),
                ));
            }
            let w = inv3(&dm, det); // w[3c + j] = (D_m⁻¹)_cj
            let mut g = [0.0; 12];
            for c in 0..3 {
                for j in 0..3 {
                    g[3 * (c + 1) + j] = w[3 * c + j];
                    g[j] -= w[3 * c + j];
                }
            }
            items.push(TetEl {
                nodes: *nodes,
                channels: channels.clone(),
                g,
                vol,
                lame: lame_const,
            });
        }
        let drawing = Drawing::Elements {
            name: "tets".into(),
            kind: CellKind::Tetra,
            measures: Some(items.iter().map(|t| t.vol).collect()),
        };
        Ok(Box::new(
            Elements::bind(items, info, "tets")?.drawn_as(drawing),
        ))
    }
}

pliant_core::register_energy!(
    NeoHookeanTets = "neo_hookean_tets",
    "compressible neo-Hookean linear tetrahedra (Bern et al. 2019 eq. 1): `tets` node quadruples, `material` constant {youngs_modulus Pa, poisson_ratio} or channels",
    r#"{"type": "neo_hookean_tets", "tets": [[0, 1, 2, 3]], "material": {"type": "constant", "youngs_modulus": 1e5, "poisson_ratio": 0.3}}"#
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form entry by entry, as written before the rows were
    /// vectorized: the reference the row-wise form must equal bit for bit.
    fn entry_by_entry(f: &[f64; 9], g: &[f64; 12], vol: f64, mu: f64, la: f64) -> Vec<f64> {
        let j = det3(f);
        let fi = inv3(f, j);
        let c = mu - la * j.ln();
        let w: [[f64; 3]; 4] = std::array::from_fn(|a| {
            std::array::from_fn(|i| (0..3).map(|jj| fi[3 * jj + i] * g[3 * a + jj]).sum())
        });
        let mut out = vec![0.0; 144];
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
        out
    }

    #[test]
    fn the_row_wise_hessian_is_the_closed_form_bit_for_bit() {
        let mut rng = pliant_core::derivcheck::Rng::new(11);
        let mut checked = 0;
        for _ in 0..300 {
            let f: [f64; 9] =
                std::array::from_fn(|k| if k % 4 == 0 { 1.0 } else { 0.0 } + rng.range(-0.2, 0.2));
            let g: [f64; 12] = std::array::from_fn(|_| rng.range(-20.0, 20.0));
            let (vol, mu, la) = (rng.range(0.5e-6, 1.5e-6), 3e4, 8e4);
            let mut out = [0.0; 144];
            if det3(&f) <= 0.0 {
                assert!(!element_hessian(&f, &g, vol, mu, la, &mut out));
                continue;
            }
            assert!(element_hessian(&f, &g, vol, mu, la, &mut out));
            let want = entry_by_entry(&f, &g, vol, mu, la);
            assert!(
                out.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "F = {f:?}"
            );
            checked += 1;
        }
        assert!(checked > 200, "{checked} states with J > 0");
    }
}
