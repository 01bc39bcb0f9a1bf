//! Shells as scenes write them: the composite `"shell"` (stretching plus
//! the chosen bending model, and the lumped mass) and its components
//! `"shell_stretching"`, `"shell_hinges"`, `"shell_mid_edge"`, plus the
//! environment's `"shell_drag"`.

use crate::drag::DragEl;
use crate::error::{ShellError, positive};
use crate::hinge::{HINGE_FACTOR, HingeEl, angle};
use crate::membrane::{MembraneEl, rest_frame};
use crate::mesh::{Topology, area_and_longest, check_areas};
use crate::mid_edge::MidEdgeEl;
use crate::stretch::{StretchEl, length};
use crate::youngs::{Modulus, Youngs};
use pliant_core::geometry::{CellKind, Drawing};
use pliant_core::{BindInfo, Declare, Elements, Energy, EnergySpec, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Scene kind of the mid-edge DOFs `ξ`.
pub const XI_KIND: &str = "shell_mid_edge_xi";

/// The bending model of a shell (MAT-DiSMech §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bending {
    /// Mid-edge normal bending (eqs. 18–20): accurate on any mesh, one
    /// extra DOF per edge. The default.
    #[default]
    MidEdge,
    /// Hinge bending (eq. 17): cheapest, accurate on near-equilateral
    /// meshes only; natural hinge angles are control channels.
    Hinge,
    /// No bending stiffness (a membrane).
    None,
}

/// The in-plane (membrane) model of a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Membrane {
    /// Edge springs `k_s = √3/2 E h |ē|` (§3.1): the paper's model, cheapest;
    /// on equilateral meshes the isotropic membrane of ν = 1/3, whatever ν
    /// is given. The default, as in MAT-DiSMech.
    #[default]
    Edges,
    /// Constant-strain triangles, St. Venant–Kirchhoff in plane stress:
    /// the membrane of the given ν on any mesh.
    Stvk,
}

/// A natural-hinge-angle actuation: `φ̄ = φ̄₀ + gain · u` on the hinges
/// along the listed edges (node pairs), `u` read from `channel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HingeActuation {
    /// Parameter channel `u`.
    pub channel: String,
    /// Hinge edges as node pairs (either order).
    pub edges: Vec<[usize; 2]>,
    /// Radians per unit of the channel (default 1).
    #[serde(default = "one")]
    pub gain: f64,
}

fn one() -> f64 {
    1.0
}
fn yes() -> bool {
    true
}

/// A discrete elastic shell on model nodes, scene type `"shell"`: edge
/// stretching (§3.1), the chosen bending model (§3.3) and, with a density,
/// the lumped mass `ρ h A/3` of every triangle on each of its nodes. SI
/// units: thickness m, Young's modulus Pa, density kg/m³.
///
/// ```
/// use pliant_core::{ModelBuilder, Simulator, Integrator, NewtonSettings};
/// use pliant_shell::{Shell, Bending, generate::{rectangle, MeshKind}};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // A 11 × 2 cm strip, 5 mm triangles, clamped along its first centimetre.
/// let mesh = rectangle(0.11, 0.02, 0.005, MeshKind::Equilateral, 0)?;
/// let mut b = ModelBuilder::new(3)?;
/// for x in &mesh.nodes {
///     let n = b.add_node(x, 0.0)?;
///     if x[0] <= 0.01 { b.fix_node(n)?; }
/// }
/// b.add(Shell::new(mesh.triangles.clone(), 1e-3, 2e9, 0.5, 1200.0).bending(Bending::MidEdge));
/// b.add(pliant_environment::Gravity::new(&[0.0, 0.0, -9.81]));
/// let mut sim = Simulator::new(b.build()?, Integrator::Static, 1.0, NewtonSettings::default())?;
/// sim.step()?;
/// let tip = mesh.nearest([0.11, 0.01, 0.0]);
/// assert!(sim.q()[3 * tip + 2] < 0.0); // it sags
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shell {
    /// Triangles (counter-clockwise node triples, consistently oriented).
    pub triangles: Vec<[usize; 3]>,
    /// Thickness h, m.
    pub thickness: f64,
    /// Young's modulus E: Pa, or a parameter channel.
    pub youngs_modulus: Modulus,
    /// Poisson's ratio ν in (−1, 0.5] (used by mid-edge bending and the
    /// St. Venant–Kirchhoff membrane; checked for every shell).
    pub poisson_ratio: f64,
    /// Density ρ, kg/m³: adds `ρ h A/3` per triangle to each of its nodes
    /// (0: the nodes keep the masses the scene gave them).
    #[serde(default)]
    pub density: f64,
    /// Bending model (default mid-edge).
    #[serde(default)]
    pub bending: Bending,
    /// Edge stretching (default on).
    #[serde(default = "yes")]
    pub stretching: bool,
    /// Membrane model (default edge springs).
    #[serde(default)]
    pub membrane: Membrane,
    /// Natural-hinge-angle actuation (hinge bending only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub natural_angle: Vec<HingeActuation>,
    /// A name for messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Shell {
    /// A mid-edge shell with stretching.
    pub fn new(
        triangles: Vec<[usize; 3]>,
        thickness: f64,
        youngs_modulus: impl Into<Modulus>,
        poisson_ratio: f64,
        density: f64,
    ) -> Self {
        Self {
            triangles,
            thickness,
            youngs_modulus: youngs_modulus.into(),
            poisson_ratio,
            density,
            bending: Bending::MidEdge,
            stretching: true,
            membrane: Membrane::Edges,
            natural_angle: Vec::new(),
            name: None,
        }
    }
    /// With bending model `b`.
    pub fn bending(mut self, b: Bending) -> Self {
        self.bending = b;
        self
    }
    /// With membrane model `m`.
    pub fn membrane(mut self, m: Membrane) -> Self {
        self.membrane = m;
        self
    }
    /// With a natural-angle actuation on the hinges along `edges`.
    pub fn actuate(mut self, channel: &str, edges: Vec<[usize; 2]>, gain: f64) -> Self {
        self.natural_angle.push(HingeActuation {
            channel: channel.into(),
            edges,
            gain,
        });
        self
    }
    fn material(&self) -> Material {
        Material {
            triangles: self.triangles.clone(),
            thickness: self.thickness,
            youngs_modulus: self.youngs_modulus.clone(),
            poisson_ratio: self.poisson_ratio,
        }
    }
}

/// Geometry and material shared by the components.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Material {
    triangles: Vec<[usize; 3]>,
    thickness: f64,
    youngs_modulus: Modulus,
    poisson_ratio: f64,
}

impl EnergySpec for Shell {
    fn components(&self) -> Result<Vec<Box<dyn EnergySpec>>> {
        check_material(self.thickness, self.poisson_ratio)?;
        if !self.natural_angle.is_empty() && self.bending != Bending::Hinge {
            return Err(ShellError::Inconsistent {
                field: "natural_angle".into(),
                problem: "natural hinge angles drive hinges: use it with \"bending\": \"hinge\"",
            }
            .into());
        }
        let m = self.material();
        let springs = self.stretching && self.membrane == Membrane::Edges;
        let mut parts: Vec<Box<dyn EnergySpec>> = vec![Box::new(ShellStretching {
            triangles: m.triangles.clone(),
            thickness: m.thickness,
            youngs_modulus: m.youngs_modulus.clone(),
            density: self.density,
            stiffness_scale: if springs { 1.0 } else { 0.0 },
        })];
        if self.stretching && self.membrane == Membrane::Stvk {
            parts.push(Box::new(ShellMembrane {
                triangles: m.triangles.clone(),
                thickness: m.thickness,
                youngs_modulus: m.youngs_modulus.clone(),
                poisson_ratio: m.poisson_ratio,
            }));
        }
        match self.bending {
            Bending::Hinge => parts.push(Box::new(ShellHinges {
                triangles: m.triangles,
                thickness: m.thickness,
                youngs_modulus: m.youngs_modulus,
                natural_angle: self.natural_angle.clone(),
            })),
            Bending::MidEdge => parts.push(Box::new(ShellMidEdge {
                triangles: m.triangles,
                thickness: m.thickness,
                youngs_modulus: m.youngs_modulus,
                poisson_ratio: m.poisson_ratio,
                density: self.density,
                paper_derivatives: false,
            })),
            Bending::None => {}
        }
        Ok(parts)
    }
    fn bind(&self, _: &BindInfo) -> Result<Box<dyn Energy>> {
        // Composite: the model builder binds the components instead.
        Err(pliant_core::CoreError::inconsistent(
            "shell",
            "a composite shell is bound through its components",
        ))
    }
    fn label(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

fn check_material(thickness: f64, nu: f64) -> std::result::Result<(), ShellError> {
    positive("thickness", thickness, "> 0 (m)")?;
    if !(nu > -1.0 && nu <= 0.5) {
        return Err(ShellError::field(
            "poisson_ratio",
            "in (−1, 0.5] (an isotropic plate; k_b divides by 1 − ν²)",
            nu,
        ));
    }
    Ok(())
}

fn youngs(m: &Modulus, info: &BindInfo) -> Result<Youngs> {
    Ok(match m {
        Modulus::Value(v) => {
            positive("youngs_modulus", *v, "> 0 (Pa)")?;
            Youngs::Constant(*v)
        }
        Modulus::Channel(c) => {
            info.param(c, "youngs_modulus")?;
            Youngs::Channel(Arc::from(c.as_str()))
        }
    })
}

/// Topology and initial node positions, validated against the model.
fn geometry(
    triangles: &[[usize; 3]],
    n_nodes: usize,
    dim: usize,
    pos: impl Fn(usize) -> Result<[f64; 3]>,
) -> Result<(Topology, Vec<[f64; 3]>)> {
    if dim != 3 {
        return Err(ShellError::Dimension { dim }.into());
    }
    let topo = Topology::new(triangles, n_nodes)?;
    let x = (0..n_nodes).map(pos).collect::<Result<Vec<_>>>()?;
    check_areas(triangles, &x)?;
    Ok((topo, x))
}

fn bind_geometry(triangles: &[[usize; 3]], info: &BindInfo) -> Result<(Topology, Vec<[f64; 3]>)> {
    geometry(triangles, info.layout.n_nodes(), info.dim(), |n| {
        info.node_position(n, "triangles")
    })
}

/// Edge stretching of a triangle mesh (§3.1), scene type
/// `"shell_stretching"`, with the lumped mass of the triangles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellStretching {
    /// Triangles.
    pub triangles: Vec<[usize; 3]>,
    /// Thickness h, m.
    pub thickness: f64,
    /// Young's modulus E: Pa, or a parameter channel.
    pub youngs_modulus: Modulus,
    /// Density ρ (kg/m³) for the lumped mass `ρ h A/3` per triangle node; 0 for none.
    #[serde(default)]
    pub density: f64,
    /// Multiplies the default `k_s = (√3/2) E h |ē|` (default 1; 0 leaves
    /// only the mass).
    #[serde(default = "one")]
    pub stiffness_scale: f64,
}

impl EnergySpec for ShellStretching {
    fn declare(&self, d: &mut Declare) -> Result<()> {
        positive("thickness", self.thickness, "> 0 (m)")?;
        if !(self.density.is_finite() && self.density >= 0.0) {
            return Err(ShellError::field("density", "≥ 0 (kg/m³)", self.density).into());
        }
        if self.density == 0.0 {
            return Ok(());
        }
        let (_, x) = geometry(
            &self.triangles,
            d.layout().n_nodes(),
            d.layout().dim(),
            |n| d.node_position(n, "triangles"),
        )?;
        let mut m = BTreeMap::<usize, f64>::new();
        for tri in &self.triangles {
            let (a, _) = area_and_longest(&tri.map(|n| x[n]));
            for &n in tri {
                *m.entry(n).or_default() += self.density * self.thickness * a / 3.0;
            }
        }
        for (n, mass) in m {
            d.add_point_mass(n, mass, "triangles")?;
        }
        Ok(())
    }
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        positive("thickness", self.thickness, "> 0 (m)")?;
        if !(self.stiffness_scale.is_finite() && self.stiffness_scale >= 0.0) {
            return Err(ShellError::field("stiffness_scale", "≥ 0", self.stiffness_scale).into());
        }
        let (topo, x) = bind_geometry(&self.triangles, info)?;
        let y = youngs(&self.youngs_modulus, info)?;
        let c = self.stiffness_scale * 3f64.sqrt() / 2.0 * self.thickness;
        // A zero scale leaves only the mass: no elements to assemble.
        let edges: &[[usize; 2]] = if c > 0.0 { &topo.edges } else { &[] };
        let items = edges
            .iter()
            .map(|&[a, b]| {
                let rest = length(&x[a], &x[b]);
                StretchEl {
                    nodes: [a, b],
                    rest,
                    ks_per_pa: c * rest,
                    youngs: y.clone(),
                }
            })
            .collect();
        // The shell is drawn once, as its triangles, by this energy (every
        // shell has it, if only for the mass).
        let drawing = Drawing::Cells {
            name: "shell".into(),
            kind: CellKind::Triangle,
            nodes: self.triangles.iter().flatten().copied().collect(),
        };
        Ok(Box::new(
            Elements::bind(items, info, "edges")?.drawn_as(drawing),
        ))
    }
}

/// Hinge bending (§3.3.1, eq. 17), scene type `"shell_hinges"`; the rest
/// angles are those of the initial state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellHinges {
    /// Triangles.
    pub triangles: Vec<[usize; 3]>,
    /// Thickness h, m.
    pub thickness: f64,
    /// Young's modulus E: Pa, or a parameter channel.
    pub youngs_modulus: Modulus,
    /// Natural-angle actuation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub natural_angle: Vec<HingeActuation>,
}

impl EnergySpec for ShellHinges {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        positive("thickness", self.thickness, "> 0 (m)")?;
        let (topo, x) = bind_geometry(&self.triangles, info)?;
        let y = youngs(&self.youngs_modulus, info)?;
        let by_edge: BTreeMap<[usize; 2], usize> = topo
            .hinges
            .iter()
            .enumerate()
            .map(|(h, hg)| (topo.edges[hg.edge], h))
            .collect();
        let mut act: Vec<Option<(Arc<str>, f64)>> = vec![None; topo.hinges.len()];
        for (i, a) in self.natural_angle.iter().enumerate() {
            info.param(&a.channel, &format!("natural_angle[{i}].channel"))?;
            if !a.gain.is_finite() {
                return Err(ShellError::field(
                    format!("natural_angle[{i}].gain"),
                    "finite (rad per unit of the channel)",
                    a.gain,
                )
                .into());
            }
            let ch: Arc<str> = Arc::from(a.channel.as_str());
            for (j, &[p, q]) in a.edges.iter().enumerate() {
                let field = format!("natural_angle[{i}].edges[{j}]");
                let Some(&h) = by_edge.get(&[p.min(q), p.max(q)]) else {
                    return Err(ShellError::NotAHinge {
                        field,
                        nodes: [p, q],
                    }
                    .into());
                };
                if act[h].is_some() {
                    return Err(ShellError::Inconsistent {
                        field,
                        problem: "this hinge is already driven by another natural_angle entry",
                    }
                    .into());
                }
                act[h] = Some((ch.clone(), a.gain));
            }
        }
        let kb = HINGE_FACTOR * self.thickness.powi(3);
        let items = topo
            .hinges
            .iter()
            .zip(act)
            .map(|(h, actuation)| HingeEl {
                nodes: h.nodes,
                kb_per_pa: kb,
                youngs: y.clone(),
                rest: angle(&h.nodes.map(|n| x[n])),
                actuation,
            })
            .collect();
        Ok(Box::new(Elements::bind(items, info, "hinges")?))
    }
}

/// Mid-edge normal bending (§3.3.2, eqs. 18–20), scene type
/// `"shell_mid_edge"`: declares one `ξ` DOF per shell edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellMidEdge {
    /// Triangles.
    pub triangles: Vec<[usize; 3]>,
    /// Thickness h, m.
    pub thickness: f64,
    /// Young's modulus E: Pa, or a parameter channel.
    pub youngs_modulus: Modulus,
    /// Poisson's ratio ν in (−1, 0.5].
    pub poisson_ratio: f64,
    /// Density ρ (kg/m³), for the small rotational inertia of `ξ`.
    #[serde(default)]
    pub density: f64,
    /// Differentiate as the paper's Appendix A does (holding `c_k` and
    /// `t_k` constant): an approximate Hessian, for comparison only.
    #[serde(default)]
    pub paper_derivatives: bool,
}

impl EnergySpec for ShellMidEdge {
    fn declare(&self, d: &mut Declare) -> Result<()> {
        check_material(self.thickness, self.poisson_ratio)?;
        if !(self.density.is_finite() && self.density >= 0.0) {
            return Err(ShellError::field("density", "≥ 0 (kg/m³)", self.density).into());
        }
        let (topo, x) = geometry(
            &self.triangles,
            d.layout().n_nodes(),
            d.layout().dim(),
            |n| d.node_position(n, "triangles"),
        )?;
        // Inertia of ξ: the edge's third of its triangles' mass (ρ h A/3
        // per triangle) turning about the edge, times |ē|²/12 — small, so
        // statics and implicit steps are unaffected, explicit ones defined.
        let mut share = vec![0.0; topo.edges.len()];
        for (t, tri) in self.triangles.iter().enumerate() {
            let (a, _) = area_and_longest(&tri.map(|n| x[n]));
            for &e in &topo.triangle_edges[t] {
                share[e] += self.density * self.thickness * a / 3.0;
            }
        }
        for (e, &[a, b]) in topo.edges.iter().enumerate() {
            let l = length(&x[a], &x[b]);
            d.add_extra_dof(XI_KIND, 0.0, share[e] * l * l / 12.0);
        }
        Ok(())
    }
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        check_material(self.thickness, self.poisson_ratio)?;
        let (topo, x) = bind_geometry(&self.triangles, info)?;
        if info.extra_dofs.len() != topo.edges.len() {
            return Err(ShellError::Count {
                field: "mid-edge ξ DOFs".into(),
                found: info.extra_dofs.len(),
                expected: topo.edges.len(),
            }
            .into());
        }
        let y = youngs(&self.youngs_modulus, info)?;
        let nu = self.poisson_ratio;
        let kb = self.thickness.powi(3) / (24.0 * (1.0 - nu * nu));
        let mut items = Vec::with_capacity(self.triangles.len());
        for (t, tri) in self.triangles.iter().enumerate() {
            let mut nodes = [tri[0], tri[1], tri[2], 0, 0, 0];
            let mut boundary = [false; 3];
            let mut dir = [1.0; 3];
            let mut len = [0.0; 3];
            let mut xi = [0; 3];
            for k in 0..3 {
                let (p, q) = (tri[(k + 1) % 3], tri[(k + 2) % 3]);
                dir[k] = if p < q { 1.0 } else { -1.0 };
                len[k] = length(&x[p], &x[q]);
                let e = topo.triangle_edges[t][k];
                xi[k] = info.extra_dofs[e];
                match topo.neighbour(t, k) {
                    Some(o) => {
                        nodes[3 + k] = self.triangles[o]
                            .iter()
                            .copied()
                            .find(|&n| n != p && n != q)
                            .expect("a neighbour has a third node");
                    }
                    None => {
                        boundary[k] = true;
                        nodes[3 + k] = tri[k];
                    }
                }
            }
            let (area, _) = area_and_longest(&tri.map(|n| x[n]));
            let mut el = MidEdgeEl {
                nodes,
                xi,
                boundary,
                dir,
                area,
                len,
                natural: [0.0; 3],
                kb_per_pa: kb,
                nu,
                youngs: y.clone(),
                lag_ct: self.paper_derivatives,
            };
            el.natural = el.rest_coefficients(&nodes.map(|n| x[n]));
            if let Some(k) = (0..3).find(|&k| !el.natural[k].is_finite()) {
                let e = topo.triangle_edges[t][k];
                return Err(ShellError::Folded {
                    nodes: topo.edges[e],
                    triangles: topo.edge_triangles[e].clone(),
                }
                .into());
            }
            items.push(el);
        }
        Ok(Box::new(Elements::bind(items, info, "triangles")?))
    }
}

/// Constant-strain-triangle membrane, St. Venant–Kirchhoff in plane
/// stress, scene type `"shell_membrane"` (see the `membrane` module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellMembrane {
    /// Triangles.
    pub triangles: Vec<[usize; 3]>,
    /// Thickness h, m.
    pub thickness: f64,
    /// Young's modulus E: Pa, or a parameter channel.
    pub youngs_modulus: Modulus,
    /// Poisson's ratio ν in (−1, 0.5].
    pub poisson_ratio: f64,
}

impl EnergySpec for ShellMembrane {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        check_material(self.thickness, self.poisson_ratio)?;
        let (_, x) = bind_geometry(&self.triangles, info)?;
        let y = youngs(&self.youngs_modulus, info)?;
        let items = self
            .triangles
            .iter()
            .map(|tri| {
                let (g, area) = rest_frame(&tri.map(|n| x[n]));
                MembraneEl {
                    nodes: *tri,
                    g,
                    volume: area * self.thickness,
                    nu: self.poisson_ratio,
                    youngs: y.clone(),
                }
            })
            .collect();
        Ok(Box::new(Elements::bind(items, info, "triangles")?))
    }
}

/// Aerodynamic drag on triangles (§5.5), scene type `"shell_drag"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellDrag {
    /// Triangles.
    pub triangles: Vec<[usize; 3]>,
    /// Density of the medium ρ_med, kg/m³.
    pub medium_density: f64,
    /// Drag coefficient C_D (dimensionless).
    pub drag_coefficient: f64,
}

impl EnergySpec for ShellDrag {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        for (f, v) in [
            ("medium_density", self.medium_density),
            ("drag_coefficient", self.drag_coefficient),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ShellError::field(f, "≥ 0", v).into());
            }
        }
        let (_, x) = bind_geometry(&self.triangles, info)?;
        let items = self
            .triangles
            .iter()
            .map(|tri| {
                let (a, _) = area_and_longest(&tri.map(|n| x[n]));
                DragEl {
                    nodes: *tri,
                    coef: self.medium_density * self.drag_coefficient * a / 6.0,
                }
            })
            .collect();
        Ok(Box::new(Elements::bind(items, info, "triangles")?))
    }
}

pliant_core::register_energy!(
    Shell = "shell",
    "discrete elastic shell (MAT-DiSMech §3): `triangles`, `thickness` m, `youngs_modulus` Pa or channel, `poisson_ratio`, `density` kg/m³, `bending` mid_edge|hinge|none, `membrane` edges|stvk, `natural_angle` [{channel, edges, gain}]",
    r#"{"type": "shell", "triangles": [[0, 1, 2], [0, 2, 3]], "thickness": 0.001, "youngs_modulus": 2e9, "poisson_ratio": 0.3, "density": 1200, "bending": "hinge"}"#
);
pliant_core::register_energy!(
    ShellStretching = "shell_stretching",
    "shell edge stretching k_s = √3/2 E h |ē| (MAT-DiSMech eq. 10) and the lumped mass ρ h A/3",
    r#"{"type": "shell_stretching", "triangles": [[0, 1, 2]], "thickness": 0.001, "youngs_modulus": 2e9, "density": 1200}"#
);
pliant_core::register_energy!(
    ShellMembrane = "shell_membrane",
    "constant-strain-triangle membrane, St. Venant–Kirchhoff in plane stress: Ā h [μ E:E + ½ λ (tr E)²], λ = Eν/(1 − ν²)",
    r#"{"type": "shell_membrane", "triangles": [[0, 1, 2]], "thickness": 0.001, "youngs_modulus": 2e9, "poisson_ratio": 0.3}"#
);
pliant_core::register_energy!(
    ShellHinges = "shell_hinges",
    "shell hinge bending ½ k_b (φ − φ̄)², k_b = 2 E h³/(12√3) (MAT-DiSMech eq. 17, the factor of its code)",
    r#"{"type": "shell_hinges", "triangles": [[0, 1, 2], [0, 2, 3]], "thickness": 0.001, "youngs_modulus": 2e9}"#
);
pliant_core::register_energy!(
    ShellMidEdge = "shell_mid_edge",
    "shell mid-edge normal bending (MAT-DiSMech eqs. 19–20), one ξ DOF per edge",
    r#"{"type": "shell_mid_edge", "triangles": [[0, 1, 2], [0, 2, 3]], "thickness": 0.001, "youngs_modulus": 2e9, "poisson_ratio": 0.3}"#
);
pliant_core::register_energy!(
    ShellDrag = "shell_drag",
    "aerodynamic drag on shell triangles, −(ρ_med C_D/2)(A/3) sgn(u·n)(u·n)² n per node (MAT-DiSMech §5.5)",
    r#"{"type": "shell_drag", "triangles": [[0, 1, 2]], "medium_density": 1.2, "drag_coefficient": 1.0}"#
);
