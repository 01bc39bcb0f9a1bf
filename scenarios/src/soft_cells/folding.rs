//! Self-folding (Germann et al. §V-D, Fig. 5): a straight, pre-aligned
//! chain of cells folds into a letter when its magnetic connectors are
//! switched on — all folds at once, frictionless, without gravity (a light
//! viscous fluid lets it settle).
//!
//! **Design.** A letter is a path of cells on a square grid of pitch
//! `p = 2R + w` ([`Letter::path`]): consecutive cells are grid neighbours.
//! Each cell's joints sit where it touches its neighbours *in the letter*,
//! measured on the cell from its contact with its predecessor (its
//! material point at 180° in the straight chain): opposite (0°) for a
//! straight cell, a quarter turn away (90° or 270°) for a left- or
//! right-turn cell; the chain's ends have one joint. These are the cell
//! types — as in Griffith's programmable tiles that the paper follows, a
//! cell's type is where it carries its connectors — and the letter is the
//! sequence of types.
//!
//! - **Straight joints** are permanent joints ([`pliant_magnetic::Joints`]):
//!   bonds between the facing membrane points of the two cells, `facet`
//!   of them spread over `±spread` about the contact, so the joint is a
//!   stiff facet (one point would let the soft cells turn about it).
//! - **Turning joints** start open: the two cells are held by a free joint
//!   ([`pliant_cells::CellLinks`], a bond between their centroids, so they
//!   turn freely about each other), and opposite magnetic poles sit at the
//!   facet points that touch in the letter — on the pre-aligned chain
//!   `≈ 1.45 R` apart. Switched on, they pull the rest of the chain round
//!   until the facets meet: a 90° fold.
//! - **Closing contacts** of the letter between cells that are not
//!   neighbours in the chain (the middle bar of E, the bowl of P) carry
//!   poles too, so the letter closes.
//!
//! Every turning joint and closing contact has its own activation channel
//! (`fold{k}`, `close{i}_{j}`; 1 = on), optionally staggered
//! ([`FoldingDesign::stagger`]), so the folding schedule can be optimized.
//! Success is judged on the centroids: the contact graph (cells closer
//! than `1.2 p`) equals the letter's ([`contact_graph`]), and the shape
//! error after the best rigid motion ([`shape_error`]) is small.

use super::{CellDesign, CellWorld, ContactDesign};
use pliant_cells::{CellLink, CellLinks};
use pliant_core::{Integrator, Model, ParamChannel, Result, Simulator};
use pliant_environment::ViscousDamping;
use pliant_magnetic::{Connector, Joint, Joints, MagneticConnectors};
use std::f64::consts::PI;

/// The letters of Fig. 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Letter {
    /// E, 14 cells (a two-row middle bar: a chain cannot branch).
    E,
    /// P, 10 cells (the bowl closes on the stem).
    P,
    /// F, 10 cells.
    F,
    /// L, 6 cells.
    L,
}

impl Letter {
    /// All four.
    pub const ALL: [Letter; 4] = [Letter::E, Letter::P, Letter::F, Letter::L];

    /// The letter's cells in chain order as grid cells `(column, row)`.
    pub fn path(self) -> Vec<(i32, i32)> {
        match self {
            Letter::E => vec![
                (2, 5),
                (1, 5),
                (0, 5),
                (0, 4),
                (0, 3),
                (1, 3),
                (2, 3),
                (2, 2),
                (1, 2),
                (0, 2),
                (0, 1),
                (0, 0),
                (1, 0),
                (2, 0),
            ],
            Letter::P => vec![
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 3),
                (0, 4),
                (1, 4),
                (2, 4),
                (2, 3),
                (2, 2),
                (1, 2),
            ],
            Letter::F => vec![
                (2, 5),
                (1, 5),
                (0, 5),
                (0, 4),
                (0, 3),
                (1, 3),
                (1, 2),
                (0, 2),
                (0, 1),
                (0, 0),
            ],
            Letter::L => vec![(0, 3), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0)],
        }
    }

    /// The letter as a character.
    pub fn name(self) -> char {
        match self {
            Letter::E => 'E',
            Letter::P => 'P',
            Letter::F => 'F',
            Letter::L => 'L',
        }
    }

    /// Pairs of grid neighbours `(i, j)`, `i < j`: the letter's contact
    /// graph.
    pub fn contacts(self) -> Vec<(usize, usize)> {
        let p = self.path();
        let mut out = Vec::new();
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                if (p[i].0 - p[j].0).abs() + (p[i].1 - p[j].1).abs() == 1 {
                    out.push((i, j));
                }
            }
        }
        out
    }

    /// Turn at every cell: the angle (rad, in `(0, 2π)`) from the direction
    /// to its predecessor to the direction to its successor, counter-
    /// clockwise (π: straight); `None` for the two ends.
    pub fn turns(self) -> Vec<Option<f64>> {
        let p = self.path();
        (0..p.len())
            .map(|k| {
                if k == 0 || k + 1 == p.len() {
                    return None;
                }
                let dir =
                    |a: (i32, i32), b: (i32, i32)| ((b.1 - a.1) as f64).atan2((b.0 - a.0) as f64);
                let t = dir(p[k], p[k + 1]) - dir(p[k], p[k - 1]);
                Some(t.rem_euclid(2.0 * PI))
            })
            .collect()
    }
}

/// The folding set-up's numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FoldingDesign {
    /// The cells.
    pub cell: CellDesign,
    /// Pole strength of the turning pairs' connectors, A·m.
    pub strength: f64,
    /// Interaction radius, m.
    pub radius: f64,
    /// Core radius of the pole law, m.
    pub core: f64,
    /// Free-joint stiffness, N/m.
    pub joint_stiffness: f64,
    /// Viscous damping per membrane node, N·s/m (a fluid around the cells).
    pub damping: f64,
    /// Half-angle of a joint's facet, rad.
    pub spread: f64,
    /// Poles (bonds) per side of a joint, spread over the facet; the pole
    /// strength and bond stiffness are shared among them.
    pub facet: usize,
    /// Seconds between switching on one fold and the next, from the
    /// chain's tail (0: all at once, as the paper).
    pub stagger: f64,
    /// Time step, s.
    pub dt: f64,
}

impl Default for FoldingDesign {
    /// The set-up that folds all four letters (`tests/soft_cells.rs`):
    /// cells of radius 0.5 m with 40 membrane nodes (100 g per cell) and a
    /// stiffer gas than the stack's (`C = 10 N`), poles of 500 A·m per
    /// turning joint shared by a three-point facet spanning ±0.3 rad, a
    /// core radius of 0.3 R, joints of 5000 N/m, a light fluid (0.1 N·s/m
    /// per cell).
    fn default() -> Self {
        let nodes = 40;
        let cell = CellDesign {
            pressure: 10.0,
            nodes,
            node_mass: 0.1 / nodes as f64,
            ..CellDesign::paper()
        };
        Self {
            cell,
            strength: 500.0,
            radius: 3.2 * cell.radius,
            core: 0.3 * cell.radius,
            joint_stiffness: 5000.0,
            damping: 0.1 / nodes as f64,
            spread: 0.3,
            facet: 3,
            stagger: 0.0,
            dt: 1.0 / 50.0,
        }
    }
}

/// A chain folding into `letter`: each cell's ring, the pitch, the
/// channels.
#[derive(Debug, Clone)]
pub struct Chain {
    /// Each cell's membrane nodes.
    pub rings: Vec<Vec<usize>>,
    /// Grid pitch `p`, m.
    pub pitch: f64,
    /// The letter.
    pub letter: Letter,
    /// The activation channels: `(k, fold{k})` for the turning pair
    /// `k, k+1` and `(i, close{i}_{j})` for a closing contact `i, j`.
    pub channels: Vec<(usize, String)>,
}

/// Builds the straight chain for `letter`: its model (2-D) and layout.
pub fn chain(letter: Letter, d: &FoldingDesign) -> Result<(Model, Chain)> {
    if d.facet == 0 {
        return Err(pliant_core::CoreError::degenerate(
            "facet",
            "a joint needs at least one bond or pole per side (facet ≥ 1)",
        ));
    }
    let contact = ContactDesign {
        mu: 0.0,
        ..ContactDesign::paper(&d.cell)
    };
    let pitch = 2.0 * d.cell.radius + contact.thickness;
    let turns = letter.turns();
    let n = turns.len();
    let mut w = CellWorld::new(d.cell)?;
    for k in 0..n {
        w.add_cell([k as f64 * pitch, 0.0], 0.0)?;
    }
    let (mut hold, mut folds) = (Vec::new(), Vec::new());
    let mut channels = Vec::new();
    // `facet` poles (or bonds) per side, spread evenly over `±spread`
    // about the contact point: a touching facet, not a point, so a joint
    // resists turning and a point load does not tent the membrane.
    let pole = d.strength / (d.facet as f64).sqrt();
    for k in 0..n - 1 {
        // Cell k's contact with k+1: at 180° + its turn (0° when straight);
        // cell k+1's at 180°. Point `a + s` of cell k faces `b − s` of k+1.
        let a = PI + turns[k].unwrap_or(PI);
        let straight = (a - 2.0 * PI).abs() < 1e-9;
        let name = format!("fold{k}");
        if !straight {
            channels.push((k, name.clone()));
        }
        for side in offsets(d) {
            let (na, nb) = (
                w.node_towards(k, a + side, 0.0),
                w.node_towards(k + 1, PI - side, 0.0),
            );
            if straight {
                hold.push(Joint::new([na, nb], d.joint_stiffness / d.facet as f64));
            } else {
                folds.push(Connector::pole(na, k, pole).with_channel(&name));
                folds.push(Connector::pole(nb, k + 1, -pole).with_channel(&name));
            }
        }
    }
    // Contacts of the letter between cells not joined in the chain (the
    // middle bar of E, the bowl of P) close with their own poles.
    let path = letter.path();
    let dir = |a: (i32, i32), b: (i32, i32)| ((b.1 - a.1) as f64).atan2((b.0 - a.0) as f64);
    // Material angle of cell i facing global direction θ in the letter.
    let material = |i: usize, theta: f64| {
        if i > 0 {
            theta - dir(path[i], path[i - 1]) + PI
        } else {
            theta - dir(path[0], path[1])
        }
    };
    for (i, j) in letter.contacts() {
        if j == i + 1 {
            continue;
        }
        let name = format!("close{i}_{j}");
        channels.push((n + i, name.clone()));
        let theta = dir(path[i], path[j]);
        let (ai, aj) = (material(i, theta), material(j, theta + PI));
        for side in offsets(d) {
            let na = w.node_towards(i, ai + side, 0.0);
            let nb = w.node_towards(j, aj - side, 0.0);
            folds.push(Connector::pole(na, i, pole).with_channel(&name));
            folds.push(Connector::pole(nb, j, -pole).with_channel(&name));
        }
    }
    // Switch-on times: all at once, or one fold after another from the
    // chain's tail (each `stagger` s, ramped over half of it); closing
    // contacts last.
    let mut order: Vec<usize> = (0..channels.len()).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(channels[c].0));
    let closing = |c: usize| channels[c].0 >= n;
    order.sort_by_key(|&c| closing(c));
    for (rank, &c) in order.iter().enumerate() {
        let ch = ParamChannel::control(&channels[c].1, 1.0);
        let ch = if d.stagger > 0.0 {
            let t = rank as f64 * d.stagger;
            ch.with_keyframes(vec![(t, 0.0), (t + 0.5 * d.stagger, 1.0)])
        } else {
            ch
        };
        w.builder.add_param(ch)?;
    }
    for c in &mut channels {
        c.0 %= n;
    }
    w.add_cells_energy(Some(contact));
    w.builder.add(CellLinks {
        links: (0..n - 1)
            .filter(|&k| turns[k].is_some_and(|t| (t - PI).abs() > 1e-9))
            .map(|k| CellLink {
                rings: [w.rings[k].clone(), w.rings[k + 1].clone()],
                rest_length: None,
            })
            .collect(),
        stiffness: d.joint_stiffness,
    });
    // Straight pairs: permanent joints, `facet` stiff bonds across the contact.
    if !hold.is_empty() {
        w.builder.add(Joints::new(hold));
    }
    if !folds.is_empty() {
        let mut m = MagneticConnectors::new(folds, d.radius).with_profile(d.core, 0.2 * d.radius);
        m.name = "fold".into();
        w.builder.add(m);
    }
    w.builder.add(ViscousDamping::uniform(d.damping));
    let rings = w.rings.clone();
    Ok((
        w.builder.build()?,
        Chain {
            rings,
            pitch,
            letter,
            channels,
        },
    ))
}

/// Angles of a facet's points about its contact point, rad.
fn offsets(d: &FoldingDesign) -> Vec<f64> {
    let m = d.facet.max(1);
    if m == 1 {
        return vec![0.0];
    }
    (0..m)
        .map(|i| d.spread * (2.0 * i as f64 / (m - 1) as f64 - 1.0))
        .collect()
}

/// Each cell's centroid at state `q`, m.
pub fn centroids(rings: &[Vec<usize>], q: &[f64]) -> Vec<[f64; 2]> {
    rings
        .iter()
        .map(|r| {
            let n = r.len() as f64;
            let (sx, sy) = r
                .iter()
                .fold((0.0, 0.0), |(x, y), &i| (x + q[2 * i], y + q[2 * i + 1]));
            [sx / n, sy / n]
        })
        .collect()
}

/// Pairs of cells `(i, j)`, `i < j`, whose centroids are closer than
/// `1.2 p`: touching neighbours (a diagonal neighbour is `1.41 p` away).
pub fn contact_graph(c: &[[f64; 2]], pitch: f64) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..c.len() {
        for j in i + 1..c.len() {
            if (c[i][0] - c[j][0]).hypot(c[i][1] - c[j][1]) < 1.2 * pitch {
                out.push((i, j));
            }
        }
    }
    out
}

/// Root-mean-square distance (m) between the centroids and the letter's
/// grid positions after the best rigid motion (rotation and translation,
/// no mirror) of the grid onto them; `+∞` when `c` does not hold one
/// centroid per cell of the letter.
pub fn shape_error(letter: Letter, c: &[[f64; 2]], pitch: f64) -> f64 {
    if c.len() != letter.path().len() {
        return f64::INFINITY;
    }
    let g: Vec<[f64; 2]> = letter
        .path()
        .iter()
        .map(|&(x, y)| [x as f64 * pitch, y as f64 * pitch])
        .collect();
    let n = c.len() as f64;
    let mean = |p: &[[f64; 2]]| {
        let s = p.iter().fold([0.0, 0.0], |s, x| [s[0] + x[0], s[1] + x[1]]);
        [s[0] / n, s[1] / n]
    };
    let (mc, mg) = (mean(c), mean(&g));
    // Optimal rotation (2-D Kabsch): θ = atan2(Σ g × c, Σ g · c).
    let (mut sc, mut ss) = (0.0, 0.0);
    for (a, b) in g.iter().zip(c) {
        let (u, v) = ([a[0] - mg[0], a[1] - mg[1]], [b[0] - mc[0], b[1] - mc[1]]);
        sc += u[0] * v[0] + u[1] * v[1];
        ss += u[0] * v[1] - u[1] * v[0];
    }
    let th = ss.atan2(sc);
    let (cs, sn) = (th.cos(), th.sin());
    let se: f64 = g
        .iter()
        .zip(c)
        .map(|(a, b)| {
            let u = [a[0] - mg[0], a[1] - mg[1]];
            let r = [cs * u[0] - sn * u[1] + mc[0], sn * u[0] + cs * u[1] + mc[1]];
            (r[0] - b[0]).powi(2) + (r[1] - b[1]).powi(2)
        })
        .sum();
    (se / n).sqrt()
}

/// Centroids of every cell at one time, m.
pub type Centroids = Vec<[f64; 2]>;

/// A folding run: the chain, the simulator at the end, the centroids every
/// `every` steps.
#[derive(Debug)]
pub struct FoldRun {
    /// The chain.
    pub chain: Chain,
    /// The simulator after the run.
    pub sim: Simulator,
    /// Centroids at the start and every `every` steps.
    pub track: Vec<Centroids>,
}

/// Runs the folding of `letter` for `seconds` with the design's schedule.
pub fn fold(letter: Letter, d: &FoldingDesign, seconds: f64, every: usize) -> Result<FoldRun> {
    let (model, chain) = chain(letter, d)?;
    let mut sim = Simulator::new(model, Integrator::ImplicitEuler, d.dt, super::newton())?;
    let steps = (seconds / d.dt).round() as usize;
    let mut track = vec![centroids(&chain.rings, sim.q())];
    for s in 1..=steps {
        sim.step()?;
        if s % every.max(1) == 0 {
            track.push(centroids(&chain.rings, sim.q()));
        }
    }
    Ok(FoldRun { chain, sim, track })
}
