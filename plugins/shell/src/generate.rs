//! Shell meshes built in code: rectangles with the five mesh types of
//! MAT-DiSMech Fig. 12, regular hexagons and discs. Every generator is
//! deterministic (the random types from a seed) and returns a validated
//! [`TriMesh`] in the plane `z = 0`, triangles counter-clockwise seen from
//! `+z`.

use crate::error::ShellError;
use crate::mesh::TriMesh;
use pliant_core::derivcheck::Rng;
use pliant_core::vec3::{norm, sub};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most cells (rectangles) or triangles (hexagons, discs) a generator builds.
pub const MAX_NODES: usize = 20_000_000;

/// The five mesh types of MAT-DiSMech Fig. 12 (a rectangle along `x`, the
/// length, and `y`, the width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeshKind {
    /// Near-equilateral triangles with one edge family across the length
    /// (parallel to `y`): hinges lie across the bending direction.
    Equilateral,
    /// Square cells cut by parallel diagonals: right isosceles triangles,
    /// half the hinges oblique (45°) to the length.
    RightIsosceles,
    /// Grid nodes moved randomly (interior nodes by up to 30 % of the
    /// spacing, boundary nodes along the boundary), cells cut by their
    /// shorter diagonal.
    Random,
    /// Near-equilateral triangles with one edge family along the length
    /// (parallel to `x`): no hinge lies across the bending direction.
    EquilateralAligned,
    /// Graded, skewed rows: node spacing along `x` follows `u^p` with `p`
    /// alternating between 1 and 1.7 from row to row, rows graded across
    /// the width — thin, sheared triangles.
    NonUniform,
}

impl MeshKind {
    /// All five, in the order of Fig. 12.
    pub const ALL: [MeshKind; 5] = [
        MeshKind::Equilateral,
        MeshKind::Random,
        MeshKind::RightIsosceles,
        MeshKind::EquilateralAligned,
        MeshKind::NonUniform,
    ];
    /// The name used in scene files and tables.
    pub fn name(self) -> &'static str {
        match self {
            MeshKind::Equilateral => "equilateral",
            MeshKind::RightIsosceles => "right_isosceles",
            MeshKind::Random => "random",
            MeshKind::EquilateralAligned => "equilateral_aligned",
            MeshKind::NonUniform => "non_uniform",
        }
    }
}

/// Triangulates the strip between two rows of nodes (each sorted along
/// `x`, `lower` below `upper` in `y`), advancing on the row whose next
/// diagonal is shorter (ties: the lower row), into counter-clockwise
/// triangles.
fn zip(lower: &[usize], upper: &[usize], x: &[[f64; 3]], out: &mut Vec<[usize; 3]>) {
    let (mut i, mut j) = (0, 0);
    let d = |a: usize, b: usize| norm(&sub(&x[a], &x[b]));
    while i + 1 < lower.len() || j + 1 < upper.len() {
        let advance_lower = if j + 1 == upper.len() {
            true
        } else if i + 1 == lower.len() {
            false
        } else {
            d(lower[i + 1], upper[j]) <= d(lower[i], upper[j + 1]) * (1.0 + 1e-9)
        };
        if advance_lower {
            out.push([lower[i], lower[i + 1], upper[j]]);
            i += 1;
        } else {
            out.push([lower[i], upper[j + 1], upper[j]]);
            j += 1;
        }
    }
}

/// Builds a mesh from rows of points (each row sorted along `x`, rows
/// sorted along `y`).
fn from_rows(rows: Vec<Vec<[f64; 2]>>) -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
    let mut nodes = Vec::new();
    let mut ids = Vec::new();
    for r in &rows {
        ids.push(
            r.iter()
                .map(|p| {
                    nodes.push([p[0], p[1], 0.0]);
                    nodes.len() - 1
                })
                .collect::<Vec<_>>(),
        );
    }
    let mut tris = Vec::new();
    for w in ids.windows(2) {
        zip(&w[0], &w[1], &nodes, &mut tris);
    }
    (nodes, tris)
}

/// Rows of near-equilateral triangles of side about `h` filling
/// `[0, length] × [0, width]`, rows along `x`.
fn equilateral_rows(length: f64, width: f64, h: f64) -> Vec<Vec<[f64; 2]>> {
    let n = ((length / h).round() as usize).max(1);
    let a = length / n as f64;
    let ny = ((width / (0.75f64.sqrt() * a)).round() as usize).max(1);
    let dy = width / ny as f64;
    (0..=ny)
        .map(|j| {
            let y = j as f64 * dy;
            if j % 2 == 0 {
                (0..=n).map(|i| [i as f64 * a, y]).collect()
            } else {
                let mut r = vec![[0.0, y]];
                r.extend((0..n).map(|i| [(i as f64 + 0.5) * a, y]));
                r.push([length, y]);
                r
            }
        })
        .collect()
}

/// A rectangle `[0, length] × [0, width]` (m) of mesh type `kind` with
/// edges of about `h` (m); `seed` drives [`MeshKind::Random`].
pub fn rectangle(
    length: f64,
    width: f64,
    h: f64,
    kind: MeshKind,
    seed: u64,
) -> Result<TriMesh, ShellError> {
    for (f, v) in [("length", length), ("width", width), ("h", h)] {
        crate::error::positive(f, v, "> 0 (m)")?;
    }
    let cells = (length / h) * (width / h);
    if cells > MAX_NODES as f64 {
        return Err(ShellError::TooLarge {
            field: "h",
            what: "cells",
            count: cells,
            max: MAX_NODES,
        });
    }
    let grid = |nx: usize, ny: usize| -> Vec<Vec<[f64; 2]>> {
        (0..=ny)
            .map(|j| {
                (0..=nx)
                    .map(|i| [i as f64 * length / nx as f64, j as f64 * width / ny as f64])
                    .collect()
            })
            .collect()
    };
    let cells = |l: f64| ((l / h).round() as usize).max(1);
    let (nodes, tris) = match kind {
        MeshKind::EquilateralAligned => from_rows(equilateral_rows(length, width, h)),
        MeshKind::Equilateral => {
            // Rows along y: triangulate in the (y, x) frame, then swap the
            // axes — a reflection, so reverse each triangle to keep it
            // counter-clockwise seen from +z.
            let (nodes, tris) = from_rows(equilateral_rows(width, length, h));
            (
                nodes.into_iter().map(|x| [x[1], x[0], 0.0]).collect(),
                tris.into_iter().map(|t| [t[0], t[2], t[1]]).collect(),
            )
        }
        MeshKind::RightIsosceles => from_rows(grid(cells(length), cells(width))),
        MeshKind::Random => {
            let (nx, ny) = (cells(length), cells(width));
            let (dx, dy) = (length / nx as f64, width / ny as f64);
            let mut rng = Rng::new(seed);
            let mut rows = grid(nx, ny);
            for (j, r) in rows.iter_mut().enumerate() {
                for (i, p) in r.iter_mut().enumerate() {
                    let inner_x = i > 0 && i < nx;
                    let inner_y = j > 0 && j < ny;
                    if inner_x {
                        p[0] += rng.range(-0.3, 0.3) * dx;
                    }
                    if inner_y {
                        p[1] += rng.range(-0.3, 0.3) * dy;
                    }
                }
            }
            from_rows(rows)
        }
        MeshKind::NonUniform => {
            let (nx, ny) = (cells(length), cells(width));
            let rows = (0..=ny)
                .map(|j| {
                    let v = j as f64 / ny as f64;
                    let y = width * (v * v * (3.0 - 2.0 * v));
                    let p = if j % 2 == 0 { 1.0 } else { 1.7 };
                    (0..=nx)
                        .map(|i| [length * (i as f64 / nx as f64).powf(p), y])
                        .collect()
                })
                .collect();
            from_rows(rows)
        }
    };
    TriMesh::new(nodes, tris)
}

/// A regular hexagon of side `side` (m) centred at the origin, a vertex on
/// `+x`, cut into `6 n²` equilateral triangles (`n` per side).
pub fn hexagon(side: f64, n: usize) -> Result<TriMesh, ShellError> {
    crate::error::positive("side", side, "> 0 (m)")?;
    if n == 0 {
        return Err(ShellError::field("n", "≥ 1", 0.0));
    }
    if 6.0 * (n as f64).powi(2) > MAX_NODES as f64 {
        return Err(ShellError::TooLarge {
            field: "n",
            what: "triangles",
            count: 6.0 * (n as f64).powi(2),
            max: MAX_NODES,
        });
    }
    let corner = |k: usize| {
        let a = std::f64::consts::PI / 3.0 * k as f64;
        [side * a.cos(), side * a.sin()]
    };
    let mut nodes: Vec<[f64; 3]> = Vec::new();
    let mut index: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    let scale = 1e6 / side;
    let mut id = |p: [f64; 2], nodes: &mut Vec<[f64; 3]>| {
        let key = ((p[0] * scale).round() as i64, (p[1] * scale).round() as i64);
        *index.entry(key).or_insert_with(|| {
            nodes.push([p[0], p[1], 0.0]);
            nodes.len() - 1
        })
    };
    let mut tris = Vec::new();
    for k in 0..6 {
        let (b, c) = (corner(k), corner((k + 1) % 6));
        // Point (i, j) of the sector's triangular grid: (i b + j c)/n.
        let pt = |i: usize, j: usize| {
            let (fi, fj) = (i as f64 / n as f64, j as f64 / n as f64);
            [fi * b[0] + fj * c[0], fi * b[1] + fj * c[1]]
        };
        for i in 0..n {
            for j in 0..n - i {
                let (p, q, r) = (pt(i, j), pt(i + 1, j), pt(i, j + 1));
                let t = [id(p, &mut nodes), id(q, &mut nodes), id(r, &mut nodes)];
                tris.push(t);
                if i + j + 1 < n {
                    let s = pt(i + 1, j + 1);
                    let t = [id(q, &mut nodes), id(s, &mut nodes), id(r, &mut nodes)];
                    tris.push(t);
                }
            }
        }
    }
    TriMesh::new(nodes, tris)
}

/// A disc of radius `radius` (m): [`hexagon`] with `n` triangles per side,
/// every node pushed radially onto the circle's scale (the hexagon's
/// boundary maps onto the circle).
pub fn disc(radius: f64, n: usize) -> Result<TriMesh, ShellError> {
    let mut m = hexagon(radius, n)?;
    let apothem = |theta: f64| {
        // Distance from the centre to the hexagon's boundary at angle θ.
        let sector = std::f64::consts::PI / 3.0;
        let phi = theta.rem_euclid(sector) - sector / 2.0;
        radius * (sector / 2.0).cos() / phi.cos()
    };
    for x in &mut m.nodes {
        let r = x[0].hypot(x[1]);
        if r > 0.0 {
            let s = radius / apothem(x[1].atan2(x[0]));
            x[0] *= s;
            x[1] *= s;
        }
    }
    TriMesh::new(m.nodes, m.triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rectangle_type_covers_the_rectangle_and_is_valid() {
        for kind in MeshKind::ALL {
            let m = rectangle(0.1, 0.02, 0.005, kind, 3).unwrap();
            let a = m.area();
            assert!((a - 0.002).abs() < 1e-12, "{kind:?}: area {a}");
            let t = m.topology().unwrap();
            // A rectangle's boundary is one closed loop: as many boundary
            // edges as boundary nodes, and Euler's formula V − E + F = 1.
            let (v, e, f) = (m.nodes.len(), t.edges.len(), m.triangles.len());
            assert_eq!(v as i64 - e as i64 + f as i64, 1, "{kind:?}");
            for x in &m.nodes {
                assert!(
                    x[0] > -1e-12 && x[0] < 0.1 + 1e-12 && x[1] > -1e-12 && x[1] < 0.02 + 1e-12
                );
            }
        }
    }

    #[test]
    fn absurd_sizes_are_refused() {
        assert!(matches!(
            rectangle(1.0, 1.0, 1e-6, MeshKind::Equilateral, 0),
            Err(ShellError::TooLarge { .. })
        ));
        assert!(matches!(
            hexagon(1.0, 1_000_000),
            Err(ShellError::TooLarge { .. })
        ));
        assert!(rectangle(1.0, 1.0, f64::NAN, MeshKind::Random, 0).is_err());
    }

    #[test]
    fn random_meshes_are_reproducible_from_their_seed() {
        let a = rectangle(0.1, 0.02, 0.005, MeshKind::Random, 1).unwrap();
        let b = rectangle(0.1, 0.02, 0.005, MeshKind::Random, 1).unwrap();
        let c = rectangle(0.1, 0.02, 0.005, MeshKind::Random, 2).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn equilateral_meshes_have_near_equilateral_triangles_in_the_stated_direction() {
        let aligned = rectangle(0.1, 0.02, 0.005, MeshKind::EquilateralAligned, 0).unwrap();
        let across = rectangle(0.1, 0.02, 0.005, MeshKind::Equilateral, 0).unwrap();
        let along = |m: &TriMesh, axis: usize| {
            let t = m.topology().unwrap();
            t.edges
                .iter()
                .filter(|[a, b]| (m.nodes[*a][1 - axis] - m.nodes[*b][1 - axis]).abs() < 1e-12)
                .count()
        };
        // Aligned: edge rows along x; across: edge rows along y.
        assert!(along(&aligned, 0) > along(&aligned, 1));
        assert!(along(&across, 1) > along(&across, 0));
    }

    #[test]
    fn a_hexagon_has_the_hexagon_area_and_a_disc_the_disc_area() {
        let h = hexagon(1.0, 4).unwrap();
        assert_eq!(h.triangles.len(), 6 * 16);
        let exact = 1.5 * 3f64.sqrt();
        assert!((h.area() - exact).abs() < 1e-12, "{}", h.area());
        let d = disc(1.0, 8).unwrap();
        let pi = std::f64::consts::PI;
        assert!((d.area() - pi).abs() < 0.02 * pi, "{}", d.area());
    }
}
