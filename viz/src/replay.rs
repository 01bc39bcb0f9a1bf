//! `replay.html`: one self-contained file that plays a run back in a
//! browser, offline (the viewer's code and the trajectory are embedded;
//! canvas 2-D, no library, no network).
//!
//! **What is kept.** The first snapshot fixes each part's topology: a
//! tetrahedral body is drawn as its boundary triangles (faces of exactly
//! one tetrahedron, each carrying its tetrahedron's cell fields), shells
//! and cavities as triangles, rods, cables and membranes as segments (with
//! their `"radius"` field as thickness), vertices as dots; only the points
//! those primitives use are stored. A part whose number of points changes
//! later (a contact set) is left out of the replay, with a warning.
//!
//! **Encoding.** Positions are quantized to 16 bits per coordinate over each
//! part's bounding box in each frame (error ≤ the part's extent/131 070:
//! 0.8 µm for a 10 cm body), the boxes stored as `f32`; every field to 16
//! bits over its own range over the run. The arrays are
//! little-endian, base64 in the page. At most [`Replay::new`]'s
//! `max_frames` frames are kept: when full, every other frame is dropped and
//! the recording stride doubles, so memory stays bounded for any run length
//! (the first frame is always kept, the last with [`Replay::push_last`]).

use crate::error::{VizError, io};
use crate::snapshot::Snapshot;
use base64::Engine;
use pliant_core::geometry::{CellKind, FieldAt, Shape};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// How a stored part is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Prim {
    Triangles,
    Lines,
    Points,
}

/// Where a field's value comes from for each primitive or point.
#[derive(Debug, Clone)]
enum Source {
    /// Cell field `index`; primitive `i` reads cell `map[i]`.
    Cell(usize),
    /// Point field `index` of the part.
    Point(usize),
    /// Speed of the points (m/s).
    Speed,
    /// Magnitude of force field `index` (N).
    Force(usize),
}

#[derive(Debug, Clone)]
struct FieldTrack {
    name: String,
    unit: String,
    per_point: bool,
    source: Source,
    /// Values of every kept frame.
    frames: Vec<Vec<f32>>,
}

#[derive(Debug, Clone)]
struct PartTrack {
    name: String,
    prim: Prim,
    /// Source point of every stored point.
    points: Vec<usize>,
    /// Source point count (to detect topology changes).
    source_points: usize,
    /// Primitive indices into the stored points.
    indices: Vec<u32>,
    /// Source cell of every primitive.
    cell_of: Vec<usize>,
    /// Per primitive thickness, m (lines and points).
    radius: Option<Vec<f32>>,
    positions: Vec<Vec<f32>>,
    fields: Vec<FieldTrack>,
    dropped: bool,
}

/// Faces of `tets` (4 indices each) that belong to one tetrahedron only,
/// oriented outwards for positively oriented tetrahedra, with their
/// tetrahedron.
fn boundary_faces(tets: &[usize]) -> Vec<([usize; 3], usize)> {
    let mut count: HashMap<[usize; 3], (usize, [usize; 3], usize)> = HashMap::new();
    for (t, c) in tets.chunks_exact(4).enumerate() {
        let [a, b, cc, d] = [c[0], c[1], c[2], c[3]];
        for f in [[a, cc, b], [a, b, d], [a, d, cc], [b, cc, d]] {
            let mut key = f;
            key.sort_unstable();
            let e = count.entry(key).or_insert((0, f, t));
            e.0 += 1;
        }
    }
    let mut out: Vec<([usize; 3], usize)> = count
        .into_values()
        .filter(|(n, ..)| *n == 1)
        .map(|(_, f, t)| (f, t))
        .collect();
    // Deterministic order (HashMap order is not).
    out.sort_unstable_by_key(|(f, t)| (*t, *f));
    out
}

/// Value `i` of field `k` of `p` (NaN if the part no longer has it).
fn field_value(p: &crate::snapshot::Part, k: usize, i: usize) -> f32 {
    p.fields
        .get(k)
        .and_then(|f| f.values.get(i))
        .map_or(f32::NAN, |&v| v as f32)
}

fn magnitude(v: &[f64; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt() as f32
}

impl PartTrack {
    fn new(p: &crate::snapshot::Part) -> Self {
        let (prim, prims, cell_of): (Prim, Vec<usize>, Vec<usize>) = match p.kind {
            CellKind::Tetra => {
                let faces = boundary_faces(&p.connectivity);
                (
                    Prim::Triangles,
                    faces.iter().flat_map(|(f, _)| *f).collect(),
                    faces.iter().map(|(_, t)| *t).collect(),
                )
            }
            CellKind::Triangle => (
                Prim::Triangles,
                p.connectivity.clone(),
                (0..p.cells()).collect(),
            ),
            CellKind::Line => (
                Prim::Lines,
                p.connectivity.clone(),
                (0..p.cells()).collect(),
            ),
            CellKind::Vertex => (
                Prim::Points,
                p.connectivity.clone(),
                (0..p.cells()).collect(),
            ),
        };
        // Compact the points the primitives use, in order of first use.
        let mut local = HashMap::new();
        let mut points = Vec::new();
        let indices = prims
            .iter()
            .map(|&i| {
                *local.entry(i).or_insert_with(|| {
                    points.push(i);
                    points.len() - 1
                }) as u32
            })
            .collect();
        let radius = p
            .fields
            .iter()
            .find(|f| f.name == "radius" && f.at == FieldAt::Cells)
            .map(|f| cell_of.iter().map(|&c| f.values[c] as f32).collect());
        let mut fields = Vec::new();
        for (k, f) in p.fields.iter().enumerate() {
            if f.name == "radius" {
                continue;
            }
            fields.push(FieldTrack {
                name: f.name.clone(),
                unit: f.unit.clone(),
                per_point: f.at == FieldAt::Points,
                source: match f.at {
                    FieldAt::Cells => Source::Cell(k),
                    FieldAt::Points => Source::Point(k),
                },
                frames: Vec::new(),
            });
        }
        if p.nodes.iter().any(Option::is_some) {
            fields.push(FieldTrack {
                name: "speed".into(),
                unit: "m/s".into(),
                per_point: true,
                source: Source::Speed,
                frames: Vec::new(),
            });
        }
        for (k, (name, _)) in p.forces.iter().enumerate() {
            fields.push(FieldTrack {
                name: format!("|{name}|"),
                unit: "N".into(),
                per_point: true,
                source: Source::Force(k),
                frames: Vec::new(),
            });
        }
        Self {
            name: p.name.clone(),
            prim,
            points,
            source_points: p.points.len(),
            indices,
            cell_of,
            radius,
            positions: Vec::new(),
            fields,
            dropped: false,
        }
    }

    fn push(&mut self, p: &crate::snapshot::Part) {
        if self.dropped {
            return;
        }
        if p.points.len() != self.source_points {
            log::warn!(
                "replay: part `{}` changed its number of points ({} → {}); it is left out of the replay",
                self.name,
                self.source_points,
                p.points.len()
            );
            self.dropped = true;
            return;
        }
        self.positions.push(
            self.points
                .iter()
                .flat_map(|&i| p.points[i].map(|x| x as f32))
                .collect(),
        );
        for f in &mut self.fields {
            let values = match &f.source {
                Source::Cell(k) => self
                    .cell_of
                    .iter()
                    .map(|&c| field_value(p, *k, c))
                    .collect(),
                Source::Point(k) => self.points.iter().map(|&i| field_value(p, *k, i)).collect(),
                Source::Speed => self
                    .points
                    .iter()
                    .map(|&i| magnitude(&p.velocity[i]))
                    .collect(),
                Source::Force(k) => self
                    .points
                    .iter()
                    .map(|&i| p.forces.get(*k).map_or(0.0, |f| magnitude(&f.1[i])))
                    .collect(),
            };
            f.frames.push(values);
        }
    }

    fn thin(&mut self) {
        let keep = |v: &mut Vec<Vec<f32>>| {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                (i - 1) % 2 == 0
            });
        };
        keep(&mut self.positions);
        for f in &mut self.fields {
            keep(&mut f.frames);
        }
    }
}

/// Frames recorded for `replay.html`; see the [module docs](self).
#[derive(Debug)]
pub struct Replay {
    title: String,
    dim: usize,
    max_frames: usize,
    stride: usize,
    seen: usize,
    times: Vec<f64>,
    com: Vec<[f64; 3]>,
    parts: Vec<PartTrack>,
    fixed: Vec<Shape>,
}

#[derive(Serialize)]
struct MetaField<'a> {
    name: &'a str,
    unit: &'a str,
    per_point: bool,
    min: f32,
    max: f32,
    data: String,
}

#[derive(Serialize)]
struct MetaPart<'a> {
    name: &'a str,
    prim: Prim,
    points: usize,
    indices: &'a [u32],
    radius: Option<&'a [f32]>,
    positions: String,
    /// Per frame the quantization box: min x, y, z, max x, y, z (f32 LE).
    boxes: String,
    fields: Vec<MetaField<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum MetaFixed<'a> {
    Plane {
        name: &'a str,
        point: [f64; 3],
        normal: [f64; 3],
    },
    Sphere {
        name: &'a str,
        centre: [f64; 3],
        radius: f64,
    },
}

#[derive(Serialize)]
struct Meta<'a> {
    title: &'a str,
    dim: usize,
    frames: usize,
    times: Vec<f32>,
    com: Vec<[f32; 3]>,
    lo: [f32; 3],
    hi: [f32; 3],
    parts: Vec<MetaPart<'a>>,
    fixed: Vec<MetaFixed<'a>>,
}

/// Little-endian u16 quantization of `v` over `[lo, hi]`, base64.
fn quantize(values: impl Iterator<Item = f32>, lo: f32, hi: f32) -> (Vec<u8>, usize) {
    let span = (hi - lo).max(f32::MIN_POSITIVE);
    let mut out = Vec::new();
    let mut n = 0;
    for v in values {
        let q = if v.is_finite() {
            (((v - lo) / span) * 65535.0).round().clamp(0.0, 65535.0) as u16
        } else {
            0
        };
        out.extend_from_slice(&q.to_le_bytes());
        n += 1;
    }
    (out, n)
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn range<'a>(v: impl Iterator<Item = &'a f32>) -> (f32, f32) {
    v.filter(|x| x.is_finite())
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

const VIEWER_HTML: &str = include_str!("replay/viewer.html");
const VIEWER_JS: &str = include_str!("replay/viewer.js");

impl Replay {
    /// A recording titled `title` of a `dim`-dimensional model, keeping at
    /// most `max_frames` frames (≥ 2).
    pub fn new(title: &str, dim: usize, max_frames: usize) -> Self {
        Self {
            title: title.into(),
            dim,
            max_frames: max_frames.max(2),
            stride: 1,
            seen: 0,
            times: Vec::new(),
            com: Vec::new(),
            parts: Vec::new(),
            fixed: Vec::new(),
        }
    }

    /// Frames kept so far.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// Whether no frame was kept.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    fn keep(&mut self, s: &Snapshot) {
        if self.times.is_empty() {
            self.parts = s.parts.iter().map(PartTrack::new).collect();
            self.fixed = s.fixed.clone();
        }
        for (i, t) in self.parts.iter_mut().enumerate() {
            match s.parts.get(i) {
                Some(p) if p.name == t.name => t.push(p),
                _ => {
                    if !t.dropped {
                        log::warn!("replay: part `{}` disappeared; left out", t.name);
                    }
                    t.dropped = true;
                }
            }
        }
        self.times.push(s.time);
        self.com.push(s.com);
    }

    /// Offers a snapshot; it is kept if it falls on the current stride.
    pub fn push(&mut self, s: &Snapshot) {
        if self.seen.is_multiple_of(self.stride) && self.times.len() == self.max_frames {
            for p in &mut self.parts {
                p.thin();
            }
            let (mut i, mut j) = (0, 0);
            self.times.retain(|_| {
                i += 1;
                (i - 1) % 2 == 0
            });
            self.com.retain(|_| {
                j += 1;
                (j - 1) % 2 == 0
            });
            self.stride *= 2;
        }
        if self.seen.is_multiple_of(self.stride) {
            self.keep(s);
        }
        self.seen += 1;
    }

    /// Keeps the run's last snapshot unless it is the last one kept.
    pub fn push_last(&mut self, s: &Snapshot) {
        if self.times.last() != Some(&s.time) {
            self.keep(s);
        }
    }

    /// The page, as a string.
    pub fn html(&self) -> String {
        let live: Vec<&PartTrack> = self.parts.iter().filter(|p| !p.dropped).collect();
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for p in &live {
            for f in &p.positions {
                for (k, &x) in f.iter().enumerate().filter(|(_, x)| x.is_finite()) {
                    lo[k % 3] = lo[k % 3].min(x);
                    hi[k % 3] = hi[k % 3].max(x);
                }
            }
        }
        for a in 0..3 {
            if lo[a] > hi[a] {
                (lo[a], hi[a]) = (0.0, 0.0);
            }
        }
        let mut parts = Vec::new();
        for p in &live {
            // Each frame of each part quantized over its own bounding box
            // (stored as 6 f32 per frame), so a body far from the others,
            // or one that travels far, keeps its resolution.
            let mut bytes = Vec::new();
            let mut boxes = Vec::new();
            for f in &p.positions {
                let (mut a, mut b) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
                for (k, &x) in f.iter().enumerate().filter(|(_, x)| x.is_finite()) {
                    a[k % 3] = a[k % 3].min(x);
                    b[k % 3] = b[k % 3].max(x);
                }
                for k in 0..3 {
                    if a[k] > b[k] {
                        (a[k], b[k]) = (0.0, 0.0);
                    }
                }
                for (k, &x) in f.iter().enumerate() {
                    bytes.extend(quantize(std::iter::once(x), a[k % 3], b[k % 3]).0);
                }
                for v in a.iter().chain(&b) {
                    boxes.extend_from_slice(&v.to_le_bytes());
                }
            }
            let fields = p
                .fields
                .iter()
                .map(|f| {
                    let (a, b) = range(f.frames.iter().flatten());
                    let (a, b) = if a > b { (0.0, 0.0) } else { (a, b) };
                    let (bytes, _) = quantize(f.frames.iter().flatten().copied(), a, b);
                    MetaField {
                        name: &f.name,
                        unit: &f.unit,
                        per_point: f.per_point,
                        min: a,
                        max: b,
                        data: b64(&bytes),
                    }
                })
                .collect();
            parts.push(MetaPart {
                name: &p.name,
                prim: p.prim,
                points: p.points.len(),
                indices: &p.indices,
                radius: p.radius.as_deref(),
                positions: b64(&bytes),
                boxes: b64(&boxes),
                fields,
            });
        }
        let fixed = self
            .fixed
            .iter()
            .filter_map(|f| match f {
                Shape::Plane {
                    name,
                    point,
                    normal,
                } => Some(MetaFixed::Plane {
                    name,
                    point: *point,
                    normal: *normal,
                }),
                Shape::Sphere {
                    name,
                    centre,
                    radius,
                } => Some(MetaFixed::Sphere {
                    name,
                    centre: *centre,
                    radius: *radius,
                }),
                Shape::Cells(_) => None,
            })
            .collect();
        let meta = Meta {
            title: &self.title,
            dim: self.dim,
            frames: self.times.len(),
            times: self.times.iter().map(|&t| t as f32).collect(),
            com: self.com.iter().map(|c| c.map(|x| x as f32)).collect(),
            lo,
            hi,
            parts,
            fixed,
        };
        let json = serde_json::to_string(&meta)
            .unwrap_or_else(|_| "null".into())
            // Nothing in the data may close the script element.
            .replace("</", "<\\/");
        VIEWER_HTML
            .replace("{{TITLE}}", &html_escape(&self.title))
            .replace("{{SCRIPT}}", VIEWER_JS)
            .replace("{{DATA}}", &json)
    }

    /// Writes the page to `path`.
    pub fn write(&self, path: &Path) -> Result<(), VizError> {
        let html = self.html();
        std::fs::write(path, html).map_err(io(path))
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_of_two_tets_sharing_a_face_has_six_faces() {
        let f = boundary_faces(&[0, 1, 2, 3, 1, 2, 3, 4]);
        assert_eq!(f.len(), 6);
        assert!(f.iter().all(|(face, _)| {
            let mut s = *face;
            s.sort_unstable();
            s != [1, 2, 3]
        }));
    }

    #[test]
    fn outward_faces_of_a_positive_tet() {
        // Unit tet, positive orientation: every face normal points away
        // from the centroid.
        let x = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let c = [0.25; 3];
        for (f, _) in boundary_faces(&[0, 1, 2, 3]) {
            let [a, b, cc] = f.map(|i| x[i]);
            let u: [f64; 3] = std::array::from_fn(|k| b[k] - a[k]);
            let v: [f64; 3] = std::array::from_fn(|k| cc[k] - a[k]);
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let d: f64 = (0..3).map(|k| n[k] * (a[k] - c[k])).sum();
            assert!(d > 0.0, "face {f:?} points inwards");
        }
    }

    #[test]
    fn quantization_round_trips_within_half_a_step() {
        let v = [0.0f32, 0.25, 1.0, -3.0];
        let (b, n) = quantize(v.iter().copied(), -3.0, 1.0);
        assert_eq!(n, 4);
        for (k, &x) in v.iter().enumerate() {
            let q = u16::from_le_bytes([b[2 * k], b[2 * k + 1]]) as f32;
            let back = -3.0 + q / 65535.0 * 4.0;
            assert!((back - x).abs() <= 0.5 * 4.0 / 65535.0 + 1e-6);
        }
    }
}
