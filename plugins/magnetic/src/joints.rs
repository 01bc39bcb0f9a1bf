//! Permanent joints between node pairs that may break (scene type
//! `"joints"`; the permanent joints of Germann et al. §V-D, and
//! connections pulled apart by external forces, §III-B).
//!
//! A joint is a stiff bond `E = k/2 (|x_b − x_a| − L)²` (J), stiffness `k`
//! in N/m, rest length `L` in m (default the initial distance). Its
//! tensile force is `f = k (|x_b − x_a| − L)` (N, positive when stretched).
//!
//! **Breaking.** At the end of every converged step (or sub-step), a joint
//! with a `break_force` `f_max` (N) whose tensile force exceeds it,
//! `f > f_max`, breaks: it leaves the element set from the next step on
//! (with a new [`Energy::structure_version`]), the break is logged with
//! `log::info!`, and a [`BreakEvent`] (time, joint, force) is recorded.
//! Compression never breaks a joint, and a joint without `break_force`
//! never breaks. Which joints are broken — with each break's time and
//! force — is carried state, so rollouts replay it exactly and the event
//! list always matches it; [`Energy::reset`] (a new run) restores every
//! joint.

use crate::error::{MagneticError, node_exists};
use pliant_core::vec3::{load, norm, sub};
use pliant_core::{
    BindInfo, CoreError, Ctx, Element, ElementSet, Elements, Energy, EnergySpec, EvalState, Layout,
    Local, Result, Scalar, Stencil,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One joint, as written in a scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// The two nodes it ties.
    pub nodes: [usize; 2],
    /// Stiffness `k`, N/m (> 0).
    pub stiffness: f64,
    /// Rest length `L`, m (> 0); default the initial distance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_length: Option<f64>,
    /// Tensile force (N, ≥ 0) beyond which it breaks; never when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_force: Option<f64>,
}

impl Joint {
    /// A joint of stiffness `k` (N/m) between `nodes` at their initial
    /// distance, never breaking.
    pub fn new(nodes: [usize; 2], k: f64) -> Self {
        Self {
            nodes,
            stiffness: k,
            rest_length: None,
            break_force: None,
        }
    }
    /// The same joint, breaking beyond a tensile force `f` (N).
    pub fn breaking_at(mut self, f: f64) -> Self {
        self.break_force = Some(f);
        self
    }
}

/// A set of joints (scene type `"joints"`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joints {
    /// The joints.
    pub joints: Vec<Joint>,
    /// Prefix of the observables: `NAME.broken`, the number of broken
    /// joints, and `NAME.max_force`, the largest tensile force among the
    /// intact joints (N; 0 when none is stretched).
    #[serde(default = "default_name")]
    pub name: String,
}

fn default_name() -> String {
    "joints".into()
}

impl Joints {
    /// Joints named `"joints"`.
    pub fn new(joints: Vec<Joint>) -> Self {
        Self {
            joints,
            name: default_name(),
        }
    }
}

/// A joint that broke.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakEvent {
    /// Time at the end of the step in which it broke, s.
    pub time: f64,
    /// The joint's index in `joints`.
    pub joint: usize,
    /// Its tensile force at that time, N.
    pub force: f64,
}

/// A bound joint over the 6 DOFs of its two nodes; the fallback
/// differentiates over the 3 components of `x_b − x_a`.
#[derive(Debug, Clone)]
struct JointEl {
    nodes: [usize; 2],
    k: f64,
    rest: f64,
}

impl JointEl {
    /// Unit direction, length (m) and tensile force (N) at the local state.
    #[inline]
    fn kinematics(&self, x: &[f64]) -> ([f64; 3], f64, f64) {
        let e = sub(&load(x, 3), &load(x, 0));
        let len = norm(&e);
        (e.map(|v| v / len), len, self.k * (len - self.rest))
    }
}

impl Element for JointEl {
    type Size = Stencil<6, 0, 3>;
    fn nodes(&self) -> &[usize] {
        &self.nodes
    }
    fn map(&self, b: &mut [f64]) -> bool {
        for a in 0..3 {
            b[a * 6 + a] = -1.0;
            b[a * 6 + 3 + a] = 1.0;
        }
        true
    }
    #[inline]
    fn reduce(&self, x: &[f64], r: &mut [f64]) -> bool {
        for a in 0..3 {
            r[a] = x[3 + a] - x[a];
        }
        true
    }
    fn energy<D: Scalar>(&self, e: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        let stretch = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt() - self.rest;
        stretch * stretch * (0.5 * self.k)
    }
    /// `∇_{x_b} E = f n = −∇_{x_a} E`.
    fn gradient(&self, l: &Local, g: &mut [f64]) -> bool {
        let (n, _, f) = self.kinematics(l.x);
        for a in 0..3 {
            g[a] = -f * n[a];
            g[3 + a] = f * n[a];
        }
        true
    }
    /// `K = k n nᵀ + (f/l)(I − n nᵀ)`, `H = [[K, −K], [−K, K]]`.
    fn hessian(&self, l: &Local, h: &mut [f64]) -> bool {
        let (n, len, f) = self.kinematics(l.x);
        let t = f / len;
        for a in 0..3 {
            for b in 0..3 {
                let id = if a == b { 1.0 } else { 0.0 };
                let kab = self.k * n[a] * n[b] + t * (id - n[a] * n[b]);
                h[a * 6 + b] = kab;
                h[(3 + a) * 6 + 3 + b] = kab;
                h[a * 6 + 3 + b] = -kab;
                h[(3 + a) * 6 + b] = -kab;
            }
        }
        true
    }
}

/// The bound joints: every joint, which are broken, and the intact ones
/// as an element set.
#[derive(Debug)]
pub struct JointsEnergy {
    name: String,
    layout: Layout,
    n_dofs: usize,
    joints: Vec<JointEl>,
    break_force: Vec<Option<f64>>,
    /// Each joint's DOFs `[x_a, y_a, z_a, x_b, y_b, z_b]` ([`usize::MAX`]
    /// for `z` in 2-D).
    dofs: Vec<[usize; 6]>,
    /// Carried state: `(time, force)` of each broken joint's break.
    broken: Vec<Option<(f64, f64)>>,
    /// The breaks, sorted by time then joint (a view of `broken`).
    events: Vec<BreakEvent>,
    /// Joints in the element set (the intact ones when it was built).
    active: Vec<usize>,
    set: Box<dyn Energy>,
    version: u64,
    /// Time at the end of the current step, s.
    step_end: f64,
    /// Breaks already logged, as `(joint, time bits)`, so a replayed step
    /// does not log its break twice.
    logged: BTreeSet<(usize, u64)>,
}

impl JointsEnergy {
    /// Every break so far, sorted by time (then joint index).
    pub fn events(&self) -> &[BreakEvent] {
        &self.events
    }
    /// Whether joint `i` is broken (false for an index out of range).
    pub fn is_broken(&self, i: usize) -> bool {
        self.broken.get(i).is_some_and(Option::is_some)
    }
    /// How many joints are broken.
    pub fn broken_count(&self) -> usize {
        self.broken.iter().filter(|b| b.is_some()).count()
    }
    /// The observables' prefix.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Tensile force `k(l − L)` of joint `i` in the state `q`, N (positive
    /// when stretched); `None` when there is no joint `i` or `q` is not a
    /// state of the model.
    pub fn tension(&self, i: usize, q: &[f64]) -> Option<f64> {
        if q.len() != self.n_dofs {
            return None;
        }
        let dofs = self.dofs.get(i)?;
        Some(self.force(i, dofs, q))
    }

    /// Tension of joint `i` with DOFs `dofs` in `q` (of the model's length).
    fn force(&self, i: usize, dofs: &[usize; 6], q: &[f64]) -> f64 {
        let x: [f64; 6] = dofs.map(|d| if d == usize::MAX { 0.0 } else { q[d] });
        self.joints[i].kinematics(&x).2
    }

    fn intact(&self) -> Vec<usize> {
        (0..self.joints.len())
            .filter(|&i| self.broken[i].is_none())
            .collect()
    }

    fn build_set(&self, active: &[usize]) -> Result<Box<dyn Energy>> {
        let items = active.iter().map(|&i| self.joints[i].clone()).collect();
        Ok(Box::new(Elements::bind_to(
            items,
            &self.layout,
            self.n_dofs,
            "joints",
        )?))
    }

    /// Makes the element set the intact joints, if it is not already.
    fn sync(&mut self) {
        let active = self.intact();
        if active == self.active {
            return;
        }
        // Nodes were checked when the energy was bound, so binding cannot
        // fail; if it ever did, the old set would stay.
        match self.build_set(&active) {
            Ok(set) => {
                self.set = set;
                self.active = active;
                self.version += 1;
            }
            Err(e) => log::error!("{}: cannot bind the intact joints: {e}", self.name),
        }
    }

    /// The event list from the broken flags.
    fn rebuild_events(&mut self) {
        self.events = self
            .broken
            .iter()
            .enumerate()
            .filter_map(|(joint, b)| b.map(|(time, force)| BreakEvent { time, joint, force }))
            .collect();
        self.events
            .sort_by(|a, b| a.time.total_cmp(&b.time).then(a.joint.cmp(&b.joint)));
    }
}

impl EnergySpec for Joints {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let count = info.layout.n_nodes();
        let dim = info.dim();
        let mut joints = Vec::with_capacity(self.joints.len());
        let mut dofs = Vec::with_capacity(self.joints.len());
        let mut break_force = Vec::with_capacity(self.joints.len());
        for (i, j) in self.joints.iter().enumerate() {
            let field = format!("joints[{i}].nodes");
            for n in j.nodes {
                node_exists(field.clone(), n, count)?;
            }
            let [a, b] = j.nodes;
            let length = norm(&sub(
                &info.node_position(b, &field)?,
                &info.node_position(a, &field)?,
            ));
            if a == b || length.is_nan() || length <= 0.0 {
                return Err(MagneticError::ZeroLengthJoint {
                    joint: i,
                    nodes: j.nodes,
                    length,
                }
                .into());
            }
            if !(j.stiffness.is_finite() && j.stiffness > 0.0) {
                return Err(MagneticError::Stiffness {
                    joint: i,
                    value: j.stiffness,
                }
                .into());
            }
            let rest = j.rest_length.unwrap_or(length);
            if !(rest.is_finite() && rest > 0.0) {
                return Err(MagneticError::Field {
                    field: format!("joints[{i}].rest_length"),
                    value: rest,
                    expected: "> 0 and finite (m)",
                }
                .into());
            }
            if let Some(f) = j.break_force
                && !(f.is_finite() && f >= 0.0)
            {
                return Err(MagneticError::BreakForce { joint: i, value: f }.into());
            }
            let mut d = [usize::MAX; 6];
            info.layout.node_dofs(a, &mut d[..dim], &field)?;
            info.layout.node_dofs(b, &mut d[3..3 + dim], &field)?;
            joints.push(JointEl {
                nodes: j.nodes,
                k: j.stiffness,
                rest,
            });
            dofs.push(d);
            break_force.push(j.break_force);
        }
        let n = joints.len();
        let mut energy = JointsEnergy {
            name: self.name.clone(),
            layout: info.layout.clone(),
            n_dofs: info.q0.len(),
            joints,
            break_force,
            dofs,
            broken: vec![None; n],
            events: Vec::new(),
            active: (0..n).collect(),
            set: Box::new(Elements::<JointEl>::bind(vec![], info, "joints")?),
            version: 0,
            step_end: 0.0,
            logged: BTreeSet::new(),
        };
        energy.set = energy.build_set(&energy.active)?;
        Ok(Box::new(energy))
    }
    fn label(&self) -> Option<&str> {
        Some(&self.name)
    }
}

impl Energy for JointsEnergy {
    fn elements(&self) -> &dyn ElementSet {
        self.set.elements()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn begin_step(&mut self, _q_prev: &[f64], _p: &[f64], dt: f64, t: f64) {
        self.step_end = t + dt;
        self.sync();
    }

    fn end_step(&mut self, q: &[f64], _p: &[f64]) {
        let time = self.step_end;
        let mut any = false;
        for i in 0..self.joints.len() {
            let Some(limit) = self.break_force[i] else {
                continue;
            };
            if self.broken[i].is_some() {
                continue;
            }
            let force = self.force(i, &self.dofs[i], q);
            if force > limit {
                self.broken[i] = Some((time, force));
                any = true;
                if self.logged.insert((i, time.to_bits())) {
                    let [a, b] = self.joints[i].nodes;
                    log::info!(
                        "{}: joint {i} (nodes {a}–{b}) broke at t = {time:.6} s under a tensile force of {force:.6e} N (break force {limit:.6e} N)",
                        self.name
                    );
                }
            }
        }
        if any {
            self.rebuild_events();
        }
    }

    fn structure_version(&self) -> u64 {
        self.version
    }

    /// Per joint: `[broken (0 or 1), break time (s), break force (N)]`.
    fn carried_state(&self) -> Vec<f64> {
        self.broken
            .iter()
            .flat_map(|b| match b {
                Some((t, f)) => [1.0, *t, *f],
                None => [0.0, 0.0, 0.0],
            })
            .collect()
    }

    fn restore_carried_state(&mut self, snapshot: &[f64]) -> Result<()> {
        if snapshot.len() != 3 * self.joints.len() {
            return Err(CoreError::Length {
                what: "joints carried state (3 values per joint)",
                found: snapshot.len(),
                expected: 3 * self.joints.len(),
            });
        }
        if let Some(index) = snapshot
            .iter()
            .enumerate()
            .position(|(k, v)| !v.is_finite() || (k % 3 == 0 && *v != 0.0 && *v != 1.0))
        {
            return Err(CoreError::NonFinite {
                what: "joints carried state (flags 0 or 1, finite times and forces)".into(),
                index,
                value: snapshot[index],
            });
        }
        self.broken = snapshot
            .chunks_exact(3)
            .map(|c| (c[0] == 1.0).then_some((c[1], c[2])))
            .collect();
        self.rebuild_events();
        self.sync();
        Ok(())
    }

    /// A new run: every joint intact, no events.
    fn reset(&mut self, _q: &[f64]) {
        self.broken.iter_mut().for_each(|b| *b = None);
        self.events.clear();
        self.logged.clear();
        self.sync();
    }

    fn observables(&self, s: &EvalState) -> Vec<(String, f64)> {
        let max_force = (0..self.joints.len())
            .filter(|&i| self.broken[i].is_none())
            .map(|i| self.force(i, &self.dofs[i], s.q))
            .fold(0.0f64, f64::max);
        vec![
            (format!("{}.broken", self.name), self.broken_count() as f64),
            (format!("{}.max_force", self.name), max_force),
        ]
    }
}

pliant_core::register_energy!(
    Joints = "joints",
    "permanent joints E = k/2 (|x_b − x_a| − L)² between node pairs; `stiffness` k (N/m), `rest_length` L (m, default initial distance); a joint whose tension k(l − L) exceeds its optional `break_force` (N) at the end of a step breaks and is removed",
    r#"{"type": "joints", "joints": [{"nodes": [0, 1], "stiffness": 500.0, "break_force": 2.0}]}"#
);
