//! The cable paper's robots (Bern et al. 2019, §IV) as voxel foam bodies:
//! linear-tetrahedron meshes (the Puppy's as coarse as the paper's), a foam-like
//! neo-Hookean material, the motor assembly as point masses on the top nodes
//! and as a stiff top layer (its rigid clip-on platform, [`Platform`]), and
//! cable routes as polylines of points inside the body.
//!
//! Our reading of the paper's geometry (it gives lengths and masses, not
//! drawings): the body's long axis is `x`, up is `z`, shapes in 1 cm voxels.
//! - **Tripod** ([`TripodGeometry`]; the readings of the paper's words
//!   are compared in `docs/results.md`): 14 cm long, a 14 × 4 × 2 cm body
//!   on three 2 × 4 × 4 cm legs (at both ends and in the middle). 24 g body,
//!   44 g motor assembly. The outer legs are passive; the middle leg has one
//!   cable pair on its front and one on its back face, from near its foot up
//!   into the body, so that pulling either bends it forward or backward and
//!   pulling both shortens it.
//! - **Puppy**: 13 cm long, a 13 × 8 × 2 cm body on four 2 × 2 × 3 cm corner
//!   legs. 90 g body, 140 g motor assembly. Every leg carries the middle-leg
//!   cable layout of the Tripod (front and back), eight cables in all.
//!
//! The motor assembly sits on "a rigid 3D-printed clip-on platform" (§IV).
//! The paper's own simulation only adds its mass to the top nodes; we also
//! give the top voxel layer under it a stiff second material
//! ([`PLATFORM_E`]). It matters: on the soft foam alone the body twists so
//! easily that all four Puppy feet stay loaded whatever the cables do; with
//! the platform a co-contracted leg lifts off the ground, as the paper's
//! Puppy raises its hind leg, and the Puppy can trot and turn.
//!
//! **Mesh.** The geometry is described in 1 cm voxels, like the paper's
//! coarse meshes; [`TripodGeometry::refinement`] and
//! [`Robot::puppy_refined`] split each voxel into `r³` cubes (contact
//! stiffness per node divided by `r²`). Two voxels across a leg lock in
//! bending: under the same lateral load the Tripod's legs lean 1.30×
//! further on 5 mm voxels and 1.44× on 3.3 mm (`tests/robots.rs`). The
//! Puppy's optimized trot does not notice (9.06 against 9.10 body
//! lengths/min on 5 mm voxels), so it is built on 1 cm voxels; the Tripod's
//! gait does (3.6–3.7 against 1.3 on 3 cm legs), so the built-in Tripod is
//! meshed with 5 mm voxels (`docs/results.md`).
//!
//! Material: E = 50 kPa, ν = 0.3 — the order of magnitude of the
//! FlexFoam-iT! III polyurethane foam the robots are cast from (soft
//! open-cell foams have moduli of tens of kPa and small Poisson's ratios); the
//! paper fitted its parameters by hand, and so should a user with a real robot.
//! The density is set so the body weighs what the paper states.

use crate::{Result, ScenarioError};
use pliant_cable::{Cable, CableControl, CableEnergy, CableVertex, bind_points_in_tets};
use pliant_core::{CoreError, Integrator, Model, ModelBuilder, ParamChannel};
use pliant_environment::{Friction, Gravity, Ground, NormalLaw};
use pliant_fem::{Material, NeoHookeanTets, TetMesh};

/// Young's modulus of the foam, Pa.
pub const FOAM_E: f64 = 5e4;
/// Poisson's ratio of the foam.
pub const FOAM_NU: f64 = 0.3;
const FOAM: Material = Material::Constant {
    youngs_modulus: FOAM_E,
    poisson_ratio: FOAM_NU,
};

/// Young's modulus of the motor platform's layer, Pa (200 × the foam).
///
/// The real platform is printed plastic (E of a few GPa, a few mm thick);
/// smeared over a 1 cm voxel layer it only has to be much stiffer than the
/// foam. Measured on the Puppy's straight gait (10 Levenberg–Marquardt
/// iterations from the trot seed, on a table of μ = 0.6): 8.82 body
/// lengths/min at 100 × the foam,
/// 9.10 at 200 ×, 8.53 at 1000 ×. Stiffer is worse conditioned: at 1000 ×
/// the Tripod dropped with the default Newton settings stalls at a 6e-9 N
/// residual against its 1.2e-10 N tolerance, and at 4000 × Puppy rollouts
/// with [`NewtonSettings::fast`](pliant_core::NewtonSettings::fast) no
/// longer reach 1 µN.
pub const PLATFORM_E: f64 = 1e7;

/// The motor assembly's rigid platform, smeared over the body's top voxel
/// layer under the motors: those tetrahedra carry a second compressible
/// neo-Hookean energy (eq. 1) with Young's modulus `youngs_modulus` (Pa) and
/// the foam's Poisson's ratio, added to the foam's own, so
/// `Ψ = Ψ_foam(F) + Ψ_platform(F)` there.
#[derive(Debug, Clone, PartialEq)]
pub struct Platform {
    /// Indices into the mesh's `tets`.
    pub tets: Vec<usize>,
    /// Young's modulus, Pa.
    pub youngs_modulus: f64,
}

/// The motor assembly seated on the body's top face (at `top` m) between
/// `x0` and `x1` (m) along the body: the top nodes carrying its mass, and
/// its platform over the top voxel layer beneath, at [`PLATFORM_E`].
fn motor_assembly(mesh: &TetMesh, top: f64, x0: f64, x1: f64) -> (Vec<usize>, Platform) {
    motor_assembly_along(mesh, top, x0, x1, Axis::X)
}

/// A horizontal axis of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    X,
    Y,
}

impl Axis {
    fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
        }
    }
}

/// [`motor_assembly`] between `a0` and `a1` (m) along `axis`.
fn motor_assembly_along(
    mesh: &TetMesh,
    top: f64,
    a0: f64,
    a1: f64,
    axis: Axis,
) -> (Vec<usize>, Platform) {
    let i = axis.index();
    let nodes = mesh.nodes_where(|p| p[2] > top - 1e-9 && p[i] > a0 - 1e-9 && p[i] < a1 + 1e-9);
    let platform = Platform {
        tets: mesh.tets_where(|c| c[2] > top - H && c[i] > a0 && c[i] < a1),
        youngs_modulus: PLATFORM_E,
    };
    (nodes, platform)
}

/// How the Tripod's description in the paper (§IV-A) is read: "14 cm long
/// … the outer two legs are unactuated and provide stability. The inner
/// leg is controlled by two motors, one of which bends it to the left, and
/// the other of which bends it to the right. When cocontracted, the motors
/// compress the center leg so that it no longer contacts the ground."
/// Leg sizes are in 1 cm voxels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TripodGeometry {
    /// Left/right is across the direction of travel: the Tripod walks
    /// sideways, its long axis across its path, and the middle leg bends
    /// towards and away from the direction of travel (`false`: it walks
    /// along its long axis and left/right means forward/backward).
    pub sideways: bool,
    /// Thickness of each leg along the long axis, voxels (default 2).
    pub leg_thickness: usize,
    /// Height of the legs, voxels (default 4).
    pub leg_height: usize,
    /// How far the middle leg reaches below the outer legs, voxels
    /// (default 0): with 1 the body rests on the middle leg and rocks onto
    /// one outer leg or the other, and a cocontraction sets it down on both.
    pub middle_reach: usize,
    /// Width (across the direction of travel) of the middle leg's lowest
    /// voxel layer, its foot, in voxels: 4 (default) is the leg's full
    /// width, 2 a narrow foot under its centre (lengthwise Tripods only).
    pub middle_foot_width: usize,
    /// Height above the ground of the cables' lower ends, m (default
    /// 0.005: half a 1 cm voxel above the foot; 0.001 reaches the foot's
    /// tip).
    pub cable_anchor_height: f64,
    /// Each 1 cm voxel split into `refinement³` cubes (default 2): the same
    /// shapes, masses, platform and cable routes on a finer mesh, for mesh
    /// convergence of gaits.
    pub refinement: usize,
}

impl TripodGeometry {
    /// Lengthwise travel, 2 × 4 × 3 cm legs of equal length, 1 cm voxels:
    /// the Tripod walks along its long axis and "left/right" means
    /// forward/backward. The base every reading of the study varies; the
    /// built-in Tripod ([`TripodGeometry::default`]) is this on taller legs
    /// and a finer mesh.
    pub fn lengthwise() -> Self {
        Self {
            sideways: false,
            leg_thickness: 2,
            leg_height: 3,
            middle_reach: 0,
            middle_foot_width: 4,
            cable_anchor_height: 0.5 * H,
            refinement: 1,
        }
    }
}

impl Default for TripodGeometry {
    /// The reading `pliant` adopts, the Tripod of `Robot::tripod`:
    /// [`TripodGeometry::lengthwise`] on 4 cm legs, meshed with 5 mm voxels
    /// (`refinement` 2). Of the readings the study compares
    /// (`docs/results.md`, `cargo run --release --example tripod_study`),
    /// walking along the long axis is the fastest that walks rather than
    /// falls over; 4 cm legs walk faster than 3 cm and as fast as 5 cm (the
    /// paper gives no height); and 1 cm voxels lock the legs in bending, so
    /// the gait is quoted on 5 mm voxels. On the table of
    /// `pliant::gait::table_friction` (μ = 0.4) it walks 5.36 body
    /// lengths/min after Levenberg–Marquardt from the trot seed (converged
    /// in 8 of 10 iterations; paper 6.1).
    fn default() -> Self {
        Self {
            leg_height: 4,
            refinement: 2,
            ..Self::lengthwise()
        }
    }
}

/// A cable route: a polyline of points inside the body (m), from its anchor
/// near a foot to where it leaves the body towards the motor.
#[derive(Debug, Clone)]
pub struct CableRoute {
    /// Name, e.g. `"middle_leg_front_a"`.
    pub name: String,
    /// The motor pulling it (two parallel cables share one motor: a tendon
    /// pair, so the leg bends without twisting). Also the name of the
    /// control channel: the motor's contracted length `u`, m.
    pub motor: String,
    /// Points, m.
    pub points: Vec<[f64; 3]>,
}

/// A robot design: mesh, masses and cable routes.
#[derive(Debug, Clone)]
pub struct Robot {
    /// Name.
    pub name: &'static str,
    /// Body mesh (m).
    pub mesh: TetMesh,
    /// Body mass, kg.
    pub body_mass: f64,
    /// Motor assembly mass, kg, spread over `motor_nodes`.
    pub motor_mass: f64,
    /// Top nodes carrying the motor assembly.
    pub motor_nodes: Vec<usize>,
    /// The motor assembly's platform (`None`: mass only, as in the paper's
    /// simulation).
    pub platform: Option<Platform>,
    /// Cable routes.
    pub cables: Vec<CableRoute>,
    /// The foam's compressible neo-Hookean material (eq. 1): default
    /// [`FOAM_E`] and [`FOAM_NU`]. The paper fitted its foam's parameters by
    /// eye on its coarse mesh (§II-A) and does not give them; set this to
    /// study or fit them.
    pub foam: Material,
    /// Length along x, m.
    pub length: f64,
    /// Ground contact stiffness of each boundary node, N/m
    /// ([`CONTACT_STIFFNESS`] on 1 cm voxels, divided by `r²` on voxels
    /// split `r` times, so the contact pressure per area stays the same).
    pub contact_stiffness: f64,
}

const H: f64 = 0.01;
/// Voxel side of the paper robots' meshes, m.
pub(crate) const VOXEL: f64 = H;

/// Cable stiffness, N/m: three to four times the axial stiffness of a foam
/// leg (E A / L = 5·10⁴ Pa · 4 cm² / 3 cm ≈ 670 N/m; 500 N/m on the
/// built-in Tripod's 4 cm legs), so the braided line is
/// nearly inextensible against the foam yet Newton stays well conditioned.
pub const CABLE_STIFFNESS: f64 = 2000.0;

/// Most splits of a 1 cm voxel per axis in the paper robots' meshes (4:
/// 2.5 mm voxels, 64 × the tetrahedra).
pub const MAX_REFINEMENT: usize = 4;

/// Ground contact stiffness of each boundary node of a 1 cm voxel mesh, N/m.
pub const CONTACT_STIFFNESS: f64 = 2000.0;

fn leg_cables(name: &str, x0: f64, x1: f64, y: f64, half_spacing: f64) -> Vec<CableRoute> {
    leg_cables_with(name, [x0, x1], y, half_spacing, 3.0 * H)
}

/// Cables just inside the leg's faces normal to x at `faces[0]` ("front")
/// and `faces[1]` ("back"), from 0.5 cm above the foot to 0.5 cm below the
/// top of the body (legs `leg` m high under a 2 cm body); a parallel pair
/// per side at `y = across ± half_spacing`, one motor per pair.
fn leg_cables_with(
    name: &str,
    faces: [f64; 2],
    across: f64,
    half_spacing: f64,
    leg: f64,
) -> Vec<CableRoute> {
    let inset = 0.2 * H;
    let mut out = Vec::new();
    for (side, x) in [("front", faces[0] + inset), ("back", faces[1] - inset)] {
        for (tag, c) in [("a", across - half_spacing), ("b", across + half_spacing)] {
            out.push(CableRoute {
                name: format!("{name}_{side}_{tag}"),
                motor: format!("{name}_{side}"),
                points: vec![[x, c, 0.5 * H], [x, c, leg], [x, c, leg + 1.5 * H]],
            });
        }
    }
    out
}

impl Robot {
    /// The Tripod (14 cm, 24 g body, 44 g motors, 2 cables), in the
    /// reading [`TripodGeometry::default`] describes.
    pub fn tripod() -> Result<Self> {
        Self::tripod_with(&TripodGeometry::default())
    }

    /// A Tripod of the given geometry (see [`TripodGeometry`]): the same
    /// 14 × 4 × 2 cm body, masses and platform; legs, cable sides and
    /// direction of travel as `g` says. Travel is always along +x: a
    /// sideways Tripod is built turned by 90° about z, its long axis along y.
    pub fn tripod_with(g: &TripodGeometry) -> Result<Self> {
        let (t, hgt) = (g.leg_thickness as i64, g.leg_height as i64);
        let reach = g.middle_reach as i64;
        if !(1..=4).contains(&g.leg_thickness)
            || !(2..=5).contains(&g.leg_height)
            || g.middle_reach + 2 > g.leg_height
            || !(g.middle_foot_width == 2 || g.middle_foot_width == 4)
            || (g.sideways && g.middle_foot_width != 4)
            || !(g.cable_anchor_height > 0.0 && g.cable_anchor_height < H)
            || !(1..=MAX_REFINEMENT).contains(&g.refinement)
        {
            return Err(ScenarioError::Spec {
                origin: "tripod geometry".into(),
                field: "leg_thickness, leg_height, middle_reach, middle_foot_width, \
                        cable_anchor_height, refinement"
                    .into(),
                message: format!(
                    "{g:?}: legs are 1–4 voxels thick and 2–5 voxels high, the outer legs at \
                     least 2 voxels high, the middle foot 2 or 4 voxels wide (4 when sideways), \
                     the cables start between 0 and 1 voxel above the ground, and each voxel \
                     is split 1 to {MAX_REFINEMENT} times"
                ),
            });
        }
        // Along the long axis (voxels): legs at both ends and in the middle
        // (centred for an even thickness; an odd one sits half a voxel
        // towards the front, the mesh being whole voxels).
        let mid = 7 - t / 2;
        let along = [(0, t), (mid, mid + t), (14 - t, 14)];
        let top = hgt + 2;
        let (boxes, cables, motors_at) = if g.sideways {
            // Long axis along y, travel along x: the legs span x (4 cm) and
            // the middle leg's cables sit on its faces normal to x.
            let mut boxes = vec![([0, 0, hgt], [4, 14, top])];
            boxes.extend(
                along
                    .iter()
                    .enumerate()
                    .map(|(i, &(a, b))| ([0, a, if i == 1 { 0 } else { reach }], [4, b, hgt])),
            );
            let centre = (mid as f64 + 0.5 * t as f64) * H;
            let mut cables = leg_cables_with(
                "middle_leg",
                [0.0, 4.0 * H],
                centre,
                0.25 * t as f64 * H,
                hgt as f64 * H,
            );
            // The leading face (x = 4 cm, towards travel) is the front: its
            // pair first, so it is motor 0 and leads in the trot seed.
            for c in &mut cables {
                let (from, to) = if c.motor.ends_with("_front") {
                    ("_front", "_back")
                } else {
                    ("_back", "_front")
                };
                c.motor = c.motor.replace(from, to);
                c.name = c.name.replace(from, to);
            }
            cables.sort_by_key(|c| !c.motor.ends_with("_front"));
            (boxes, cables, (4.0 * H, 10.0 * H, Axis::Y))
        } else {
            let mut boxes = vec![([0, 0, hgt], [14, 4, top])];
            // A narrow foot: the middle leg's lowest voxel layer only under
            // its centre.
            let foot = g.middle_foot_width as i64;
            let foot_layer = i64::from(foot < 4);
            boxes.extend(along.iter().enumerate().map(|(i, &(a, b))| {
                let bottom = if i == 1 { foot_layer } else { reach };
                ([a, 0, bottom], [b, 4, hgt])
            }));
            if foot < 4 {
                let y0 = (4 - foot) / 2;
                boxes.push(([mid, y0, 0], [mid + t, y0 + foot, 1]));
            }
            let (x0, x1) = (mid as f64 * H, (mid + t) as f64 * H);
            let cables = leg_cables_with("middle_leg", [x0, x1], 2.0 * H, H, hgt as f64 * H);
            (boxes, cables, (4.0 * H, 10.0 * H, Axis::X))
        };
        let mut cables = cables;
        for c in &mut cables {
            c.points[0][2] = g.cable_anchor_height;
        }
        let r = g.refinement as i64;
        let boxes: Vec<([i64; 3], [i64; 3])> = boxes
            .iter()
            .map(|(a, b)| (a.map(|v| v * r), b.map(|v| v * r)))
            .collect();
        let mesh = TetMesh::from_voxel_boxes(&boxes, H / r as f64, [0.0; 3])?;
        let (lo, hi, axis) = motors_at;
        let (motor_nodes, platform) = motor_assembly_along(&mesh, top as f64 * H, lo, hi, axis);
        Ok(Robot {
            name: "tripod",
            cables,
            mesh,
            body_mass: 0.024,
            motor_mass: 0.044,
            motor_nodes,
            platform: Some(platform),
            foam: FOAM,
            length: 14.0 * H,
            contact_stiffness: CONTACT_STIFFNESS / (r * r) as f64,
        })
    }

    /// The Puppy (13 cm, 90 g body, 140 g motors, 8 cables).
    pub fn puppy() -> Result<Self> {
        Self::puppy_refined(1)
    }

    /// The Puppy with each 1 cm voxel split into `refinement³` cubes (the
    /// same shape, masses, platform and cable routes; contact stiffness per
    /// node divided by `refinement²`).
    pub fn puppy_refined(refinement: usize) -> Result<Self> {
        if !(1..=MAX_REFINEMENT).contains(&refinement) {
            return Err(ScenarioError::Spec {
                origin: "puppy".into(),
                field: "refinement".into(),
                message: format!("{refinement}: each voxel is split 1 to {MAX_REFINEMENT} times"),
            });
        }
        let r = refinement as i64;
        let boxes = [
            ([0, 0, 3], [13, 8, 5]),  // body
            ([0, 0, 0], [2, 2, 3]),   // rear right
            ([0, 6, 0], [2, 8, 3]),   // rear left
            ([11, 0, 0], [13, 2, 3]), // front right
            ([11, 6, 0], [13, 8, 3]), // front left
        ]
        .map(|(a, b): ([i64; 3], [i64; 3])| (a.map(|v| v * r), b.map(|v| v * r)));
        let mesh = TetMesh::from_voxel_boxes(&boxes, H / r as f64, [0.0; 3])?;
        let (motor_nodes, platform) = motor_assembly(&mesh, 5.0 * H, 2.0 * H, 11.0 * H);
        let mut cables = Vec::new();
        for (name, x0, y) in [
            ("rear_right", 0.0, 1.0),
            ("rear_left", 0.0, 7.0),
            ("front_right", 11.0, 1.0),
            ("front_left", 11.0, 7.0),
        ] {
            cables.extend(leg_cables(name, x0 * H, (x0 + 2.0) * H, y * H, 0.5 * H));
        }
        Ok(Robot {
            name: "puppy",
            mesh,
            body_mass: 0.090,
            motor_mass: 0.140,
            motor_nodes,
            platform: Some(platform),
            cables,
            foam: FOAM,
            length: 13.0 * H,
            contact_stiffness: CONTACT_STIFFNESS / (r * r) as f64,
        })
    }

    /// Foam density (kg/m³) that gives the stated body mass.
    pub fn density(&self) -> f64 {
        self.body_mass / self.mesh.volume()
    }

    /// Adds the body (nodes lifted by `lift` m), its material, the motor
    /// platform and the motor masses to `b`; returns the model index of mesh node 0.
    pub fn add_to(&self, b: &mut ModelBuilder, lift: f64) -> Result<usize> {
        let mut mesh = self.mesh.clone();
        mesh.nodes.iter_mut().for_each(|p| p[2] += lift);
        let first = mesh.add_to(b, self.density(), self.foam.clone())?;
        if let Some(platform) = &self.platform {
            let tets = platform
                .tets
                .iter()
                .map(|&t| {
                    let tet = self.mesh.tets.get(t).ok_or_else(|| CoreError::Count {
                        field: format!("{} platform tetrahedron index {t}", self.name),
                        found: t,
                        expected: self.mesh.tets.len(),
                    })?;
                    Ok(tet.map(|n| n + first))
                })
                .collect::<Result<Vec<_>>>()?;
            b.add(NeoHookeanTets::new(
                tets,
                Material::Constant {
                    youngs_modulus: platform.youngs_modulus,
                    poisson_ratio: FOAM_NU,
                },
            ));
        }
        let per_node = self.motor_mass / self.motor_nodes.len() as f64;
        for &n in &self.motor_nodes {
            b.add_point_mass(first + n, per_node)?;
        }
        Ok(first)
    }

    /// The robot `lift` m above flat ground under gravity `g` (m/s², rotate it
    /// for an incline), contact and friction on the bottom (boundary) nodes.
    pub fn on_ground(&self, lift: f64, g: [f64; 3], friction: Friction) -> Result<Model> {
        let mut b = ModelBuilder::new(3)?;
        self.add_with_environment(&mut b, lift, g, friction)?;
        Ok(b.build()?)
    }

    /// Motor names (the control channels), in order of first use.
    pub fn motors(&self) -> Vec<String> {
        let mut m: Vec<String> = Vec::new();
        for c in &self.cables {
            if !m.contains(&c.motor) {
                m.push(c.motor.clone());
            }
        }
        m
    }

    /// The cable energies, bound by barycentric coordinates to the tetrahedra
    /// of the body lifted by `lift` m whose node 0 is model node `first`;
    /// each reads its motor's channel (contracted length, m).
    pub fn cable_energies(&self, first: usize, lift: f64) -> Result<Vec<Cable>> {
        let nodes: Vec<[f64; 3]> = self
            .mesh
            .nodes
            .iter()
            .map(|p| [p[0], p[1], p[2] + lift])
            .collect();
        self.cables
            .iter()
            .map(|route| {
                let pts: Vec<[f64; 3]> = route
                    .points
                    .iter()
                    .map(|p| [p[0], p[1], p[2] + lift])
                    .collect();
                let verts = bind_points_in_tets(&pts, &nodes, &self.mesh.tets, 1e-9)
                    .map_err(|source| ScenarioError::Cable {
                        cable: route.name.clone(),
                        source,
                    })?
                    .into_iter()
                    .map(|v| {
                        CableVertex::new(v.nodes.iter().map(|n| n + first).collect(), v.weights)
                    })
                    .collect();
                Ok(Cable::new(
                    &route.name,
                    verts,
                    CableControl::Length {
                        channel: route.motor.clone(),
                    },
                    CABLE_STIFFNESS,
                ))
            })
            .collect()
    }

    /// The cable-driven robot on the ground: body, motor masses, one control
    /// channel per motor (contracted length `u`, m), the cables, gravity `g`
    /// and frictional ground contact. Also returns copies of the bound cable
    /// energies for objectives that read cable deformations.
    pub fn actuated(
        &self,
        lift: f64,
        g: [f64; 3],
        friction: Friction,
    ) -> Result<(Model, Vec<CableEnergy>)> {
        let mut b = ModelBuilder::new(3)?;
        let first = self.add_with_environment(&mut b, lift, g, friction)?;
        for m in self.motors() {
            b.add_param(ParamChannel::control(&m, 0.0))?;
        }
        for c in self.cable_energies(first, lift)? {
            b.add(c);
        }
        let model = b.build()?;
        let bound = model
            .energies_of::<CableEnergy>()
            .into_iter()
            .cloned()
            .collect();
        Ok((model, bound))
    }

    fn add_with_environment(
        &self,
        b: &mut ModelBuilder,
        lift: f64,
        g: [f64; 3],
        friction: Friction,
    ) -> Result<usize> {
        let first = self.add_to(b, lift)?;
        b.add(Gravity::new(&g));
        let mut ground = Ground::new(
            &[0.0; 3],
            &[0.0, 0.0, 1.0],
            NormalLaw::Quadratic {
                stiffness: self.contact_stiffness,
                smoothing: 1e-4,
            },
            Some(friction),
        );
        ground.nodes = Some(
            self.mesh
                .boundary_nodes()
                .into_iter()
                .map(|n| first + n)
                .collect(),
        );
        b.add(ground);
        Ok(first)
    }
}

/// The paper's two robots, by name (`"tripod"`, `"puppy"` in specs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RobotKind {
    /// The Tripod (14 cm, two actuated cables on its middle leg).
    Tripod,
    /// The Puppy (13 cm, four legs, eight cables).
    Puppy,
}

impl RobotKind {
    /// Its lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            RobotKind::Tripod => "tripod",
            RobotKind::Puppy => "puppy",
        }
    }
    /// The robot.
    pub fn build(self) -> Result<Robot> {
        match self {
            RobotKind::Tripod => Robot::tripod(),
            RobotKind::Puppy => Robot::puppy(),
        }
    }
}

/// The drop scene of a robot as pretty JSON: 5 mm above the table
/// ([`crate::gait::table_friction`]), BDF1 at the paper's h = 0.033 s for
/// 2 s.
pub fn drop_scene_text(kind: RobotKind) -> Result<String> {
    let model = kind
        .build()?
        .on_ground(0.005, [0.0, 0.0, -9.81], crate::gait::table_friction())?;
    let settings = pliant_core::scene::RunSettings {
        name: Some(format!("{} dropped on the ground", kind.name())),
        integrator: Integrator::Bdf1,
        dt: 0.033,
        steps: 61,
        newton: Default::default(),
    };
    let scene = pliant_core::scene::scene_json(&model, &settings)?;
    Ok(pliant_core::scene::to_pretty_json(&scene) + "\n")
}
