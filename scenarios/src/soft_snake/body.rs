//! The snake's rings, muscles, shear panels and environment.

use super::*;
use pliant_core::{CoreError, ModelBuilder};
use pliant_environment::{Friction, Gravity, Ground, NormalLaw, ShearPanels, Spring, Springs};
use pliant_pneumatic::{Muscle, MuscleModel, PneumaticMuscles, Quantity};
use std::f64::consts::{PI, TAU};

/// Node indices of a built snake.
#[derive(Debug, Clone)]
pub struct SnakeBody {
    /// Hub node of each ring (the centre line), tail (x = 0) to head.
    pub hubs: Vec<usize>,
    /// Stub node of each ring (5 mm along the axis from its hub).
    pub stubs: Vec<usize>,
    /// Skin nodes of each ring, by angle `2π m / skin_points` about the
    /// axis from `+y` towards `+z`.
    pub skin: Vec<Vec<usize>>,
    /// Per section and muscle, the anchor nodes along it.
    pub muscles: Vec<[Vec<usize>; 3]>,
    /// Angle of muscle `j` of section `i` about the axis, rad, in
    /// `[0, 2π)` (`2π j/3 ± i π/3`: sections mounted π/3 apart, the sign
    /// that of [`Mounting`]).
    pub muscle_angles: Vec<[f64; 3]>,
    /// Which way the sections are turned by the mounting offset.
    pub mounting: Mounting,
    /// Name of the pressure channel of muscle `j` of section `i` (Pa).
    pub channels: Vec<[String; 3]>,
    /// Ring spacing, m.
    pub spacing: f64,
}

impl SnakeBody {
    /// All skin nodes (the contact points), ring by ring.
    pub fn contact_nodes(&self) -> Vec<usize> {
        self.skin.iter().flatten().copied().collect()
    }

    /// The skin as triangles (each panel between neighbouring rings split
    /// in two), for pictures and ParaView.
    pub fn skin_triangles(&self) -> Vec<[usize; 3]> {
        let mut t = vec![];
        for w in self.skin.windows(2) {
            let n = w[0].len();
            for m in 0..n {
                let (a, b) = (w[0][m], w[0][(m + 1) % n]);
                let (c, d) = (w[1][(m + 1) % n], w[1][m]);
                t.push([a, b, c]);
                t.push([a, c, d]);
            }
        }
        t
    }

    /// The centre line and the muscles as segments.
    pub fn lines(&self) -> Vec<[usize; 2]> {
        let mut l: Vec<[usize; 2]> = self.hubs.windows(2).map(|w| [w[0], w[1]]).collect();
        for m in self.muscles.iter().flatten() {
            l.extend(m.windows(2).map(|w| [w[0], w[1]]));
        }
        l
    }
}

/// Which way consecutive sections are turned by the paper's π/3 mounting
/// offset (§II-A, Fig. 2A), about the body axis `+x` (tail to head).
///
/// Three muscles 120° apart sit at the same three angles either way (a
/// turn of ±π/3 differs by the muscles' spacing, 2π/3), so the body is
/// the same: what the mounting decides is which muscle of section `i + 1`
/// follows muscle `j` of section `i` — the helix along which the like
/// muscles (`p1j`, `p2j`, `p3j`) and their supply tubes wind. It matters
/// to a gait that drives like muscles alike ([`super::gait::Phases::JointSpace`]):
/// the two mountings then give mirror-image gaits, whose drift along the
/// body `Vx` has opposite signs (`docs/results.md`). The paper gives "π/3"
/// without the sense.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mounting {
    /// Section `i` turned by `−i π/3` about `+x`: like muscles wind as a
    /// left-handed helix from tail to head. The default: under the
    /// joint-space reading of the gaits it is the sense whose planar drift
    /// has the sign of Table I's `Vx` (+x). That is a convention, not a
    /// finding: the paper's Fig. 12 plots its robot travelling towards −Y
    /// where Table I lists `Vy` as positive, so its components are most
    /// likely magnitudes.
    #[default]
    LeftHanded,
    /// Section `i` turned by `+i π/3` about `+x`: a right-handed helix.
    RightHanded,
}

impl Mounting {
    /// `+1` for [`Mounting::RightHanded`], `−1` for [`Mounting::LeftHanded`].
    pub fn sign(self) -> f64 {
        match self {
            Mounting::RightHanded => 1.0,
            Mounting::LeftHanded => -1.0,
        }
    }
}

/// Angle of muscle `j` of section `i`, rad in `[0, 2π)`:
/// `2π j/3 + m i π/3`, `m` the mounting's sign.
pub(crate) fn muscle_angle(mounting: Mounting, i: usize, j: usize) -> f64 {
    (TAU * j as f64 / 3.0 + mounting.sign() * i as f64 * PI / 3.0).rem_euclid(TAU)
}

pub(super) fn build(s: &SoftSnake) -> Result<(ModelBuilder, SnakeBody)> {
    if s.rings < 4 || !(s.rings - 1).is_multiple_of(SECTIONS) {
        return Err(CoreError::degenerate(
            "rings",
            format!(
                "{} rings: need 3k + 1 (k ≥ 1) so the three sections start and end on a ring",
                s.rings
            ),
        ));
    }
    if s.skin_points < 3 {
        return Err(CoreError::TooFew {
            field: "skin_points".into(),
            found: s.skin_points,
            min: 3,
        });
    }
    let per_section = (s.rings - 1) / SECTIONS;
    let spacing = LENGTH / (s.rings - 1) as f64;
    let z0 = s.drop_height + s.skin_radius;
    let mut b = ModelBuilder::new(3)?;
    // Ring k carries anchors of section k / per_section (start) and, at a
    // section boundary, of the section ending there.
    let sections_of = |k: usize| -> Vec<usize> {
        let mut v = vec![];
        if k > 0 && k.is_multiple_of(per_section) {
            v.push(k / per_section - 1);
        }
        if k / per_section < SECTIONS {
            v.push(k / per_section);
        }
        v
    };
    let nodes_per_ring: Vec<usize> = (0..s.rings)
        .map(|k| 2 + s.skin_points + 3 * sections_of(k).len())
        .collect();
    let node_mass = MASS / nodes_per_ring.iter().sum::<usize>() as f64;
    let around = |r: f64, a: f64| [r * a.cos(), r * a.sin()];
    let mut body = SnakeBody {
        hubs: vec![],
        stubs: vec![],
        skin: vec![],
        muscles: (0..SECTIONS).map(|_| [vec![], vec![], vec![]]).collect(),
        muscle_angles: (0..SECTIONS)
            .map(|i| std::array::from_fn(|j| muscle_angle(s.mounting, i, j)))
            .collect(),
        mounting: s.mounting,
        channels: (0..SECTIONS)
            .map(|i| std::array::from_fn(|j| format!("p{}{}", i + 1, j + 1)))
            .collect(),
        spacing,
    };
    let mut springs = vec![];
    let spring = |a: usize, b: usize| Spring {
        nodes: [a, b],
        stiffness: s.ring_stiffness,
        rest_length: None,
    };
    for k in 0..s.rings {
        let x = k as f64 * spacing;
        let hub = b.add_node(&[x, 0.0, z0], node_mass)?;
        let stub = b.add_node(&[x + 0.005, 0.0, z0], node_mass)?;
        springs.push(spring(hub, stub));
        let mut skin = Vec::with_capacity(s.skin_points);
        for m in 0..s.skin_points {
            let [y, z] = around(s.skin_radius, TAU * m as f64 / s.skin_points as f64);
            skin.push(b.add_node(&[x, y, z0 + z], node_mass)?);
        }
        let n = s.skin_points;
        for m in 0..n {
            springs.push(spring(skin[m], hub));
            springs.push(spring(skin[m], stub));
            springs.push(spring(skin[m], skin[(m + 1) % n]));
            springs.push(spring(skin[m], skin[(m + 2) % n]));
        }
        for i in sections_of(k) {
            for j in 0..3 {
                let a = muscle_angle(s.mounting, i, j);
                let [y, z] = around(MUSCLE_RADIUS, a);
                let anchor = b.add_node(&[x, y, z0 + z], node_mass)?;
                springs.push(spring(anchor, hub));
                springs.push(spring(anchor, stub));
                // The two skin nodes on either side of the anchor's angle.
                let m = ((a / TAU * n as f64).floor() as usize) % n;
                springs.push(spring(anchor, skin[m]));
                springs.push(spring(anchor, skin[(m + 1) % n]));
                body.muscles[i][j].push(anchor);
            }
        }
        body.hubs.push(hub);
        body.stubs.push(stub);
        body.skin.push(skin);
    }
    b.add(Springs::new(springs));
    let n = s.skin_points;
    let panels = (0..s.rings - 1)
        .flat_map(|k| {
            let (r0, r1) = (&body.skin[k], &body.skin[k + 1]);
            (0..n).map(move |m| [r0[m], r0[(m + 1) % n], r1[(m + 1) % n], r1[m]])
        })
        .collect();
    b.add(ShearPanels {
        panels,
        stiffness: s.shear_stiffness,
    });
    let mut muscles = vec![];
    for i in 0..SECTIONS {
        for j in 0..3 {
            muscles.push(Muscle {
                name: Some(format!("pma{}{}", i + 1, j + 1)),
                nodes: body.muscles[i][j].iter().map(|&n| n.into()).collect(),
                pressure: Quantity::Channel(body.channels[i][j].clone()),
            });
        }
    }
    b.add(PneumaticMuscles::new(
        muscles,
        MUSCLE_STIFFNESS,
        MUSCLE_DAMPING,
        pma_model(),
    ));
    b.add(Gravity::new(&[0.0, 0.0, -GRAVITY]));
    let contact = body.contact_nodes();
    let mut ground = Ground::new(
        &[0.0, 0.0, 0.0],
        &[0.0, 0.0, 1.0],
        NormalLaw::SpringDamper {
            stiffness: s.ground_stiffness,
            damping: s.ground_damping,
            smoothing: 1e-4,
        },
        Some(match s.friction {
            SnakeFriction::Elliptic => Friction::SmoothCoulomb {
                mu: s.mu_lateral,
                mu_axis: Some(s.mu_axial),
                slip_velocity: s.slip_velocity,
            },
            _ => Friction::PerAxisCoulomb {
                mu: s.mu_lateral,
                mu_axis: s.mu_axial,
                slip_velocity: s.slip_velocity,
            },
        }),
    );
    // One axis pair per contact node, in `contact_nodes` order (ring by
    // ring): the chord tail → head (the robot's frame) or the ring's own
    // hub → stub; or the world's X.
    let chord = [body.hubs[0], body.hubs[body.hubs.len() - 1]];
    let per_node = |pair: &dyn Fn(usize) -> [usize; 2]| -> Vec<[usize; 2]> {
        (0..body.skin.len())
            .flat_map(|k| std::iter::repeat_n(pair(k), body.skin[k].len()))
            .collect()
    };
    match s.friction {
        SnakeFriction::PerAxisRobot => ground.axes = Some(per_node(&|_| chord)),
        SnakeFriction::PerAxisWorld => ground.axis = Some(vec![1.0, 0.0, 0.0]),
        SnakeFriction::PerAxisLocal | SnakeFriction::Elliptic => {
            ground.axes = Some(per_node(&|k| [body.hubs[k], body.stubs[k]]))
        }
    }
    ground.nodes = Some(contact);
    b.add(ground);
    Ok((b, body))
}

/// The paper's PMA as pliant's linear muscle model: `A = K ε L / p` with
/// `ε = 0.5` at 4 bar for `L = 0.15 m`, `A = 3.5625 cm²`.
pub fn pma_model() -> MuscleModel {
    MuscleModel::linear_from_free_extension(0.5, 4e5, MUSCLE_STIFFNESS, PMA_LENGTH)
}
