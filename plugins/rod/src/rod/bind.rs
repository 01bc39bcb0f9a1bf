//! Binding a rod: stiffness defaults and overrides, natural values of the
//! rest shape, actuation slots, the initial frames, and the element set.

use super::energy::{RodEnergy, tangents};
use super::spec::Rod;
use crate::bend_twist::BendTwist;
use crate::element::{RodEl, SLOTS};
use crate::error::RodError;
use crate::frames::RodFrames;
use crate::network::Plan;
use crate::stretch::StretchSpring;
use pliant_core::vec3::sub;
use pliant_core::{BindInfo, CoreError, Elements, Result};
use std::f64::consts::PI;
use std::sync::Arc;

/// What declaring fixed: rest lengths and twist DOFs.
struct Declared {
    rest: Vec<f64>,
    twist: Vec<usize>,
}

/// An element before its parameter slots are resolved.
struct Proto {
    nodes: [usize; 3],
    twists: [usize; 2],
    sign: [f64; 2],
    stretch: [Option<StretchSpring>; 2],
    bt: Option<BendTwist>,
    /// Per slot: (actuation entry, effective gain).
    drives: [Option<(usize, f64)>; SLOTS],
}

impl Proto {
    /// The element; `chan[k]` is actuation entry `k`'s channel.
    fn el(self, chan: &[Arc<str>]) -> RodEl {
        RodEl {
            nodes: self.nodes,
            twists: self.twists,
            sign: self.sign,
            stretch: self.stretch,
            bt: self.bt,
            channels: self.drives.map(|d| d.map(|(e, _)| chan[e].clone())),
            gains: self.drives.map(|d| d.map_or(0.0, |(_, g)| g)),
        }
    }
}

impl Rod {
    /// The rod bound to a model, outside it (the model's own copy is made by
    /// [`EnergySpec::bind`](pliant_core::EnergySpec::bind)); `info.extra_dofs`
    /// must be the twist DOFs the rod declared.
    pub fn bind_to(&self, info: &BindInfo) -> Result<RodEnergy> {
        info.require_dim("rod", 3)?;
        self.expanded(info.layout, info.q0)?.bind_expanded(info)
    }

    fn bind_expanded(&self, info: &BindInfo) -> Result<RodEnergy> {
        let layout = info.layout;
        let (net, rest) = self.validate(self.initial_lengths(layout, info.q0)?)?;
        net.check_nodes(layout.n_nodes())?;
        let d = Declared {
            rest,
            twist: info.extra_dofs.to_vec(),
        };
        if d.twist.len() != net.edges().len() {
            return Err(CoreError::Count {
                field: "twist DOFs (declared)".into(),
                found: d.twist.len(),
                expected: net.edges().len(),
            });
        }
        let mut node_dofs = Vec::with_capacity(net.edges().len());
        for (k, &[a, b]) in net.edges().iter().enumerate() {
            let ctx = format!("edges[{k}]");
            let mut da = [0; 3];
            let mut db = [0; 3];
            layout.node_dofs(a, &mut da, &ctx)?;
            layout.node_dofs(b, &mut db, &ctx)?;
            node_dofs.push([da, db]);
        }
        let t0 = tangents(&node_dofs, info.q0);
        for (edge, t) in t0.iter().enumerate() {
            if !t.iter().all(|c| c.is_finite()) {
                return Err(RodError::ZeroLengthEdge {
                    edge,
                    nodes: net.edges()[edge],
                }
                .into());
            }
        }
        let frames = RodFrames::init_anchored(&net, &t0, self.first_director, &self.joint_anchors)?;
        let (spring_drives, edge_drives) = self.drives(&net)?;
        // Channels of the actuation entries (checked here to name the entry).
        let mut chan: Vec<Arc<str>> = Vec::with_capacity(self.actuation.len());
        for (k, a) in self.actuation.iter().enumerate() {
            layout.param(a.channel(), &format!("actuation[{k}].channel"))?;
            chan.push(Arc::from(a.channel()));
        }
        // Material.
        let (r, e, nu) = (self.radius, self.youngs_modulus, self.poisson_ratio);
        let area = PI * r * r;
        let ei_default = e * PI * r.powi(4) / 4.0;
        let gj_default = e / (2.0 * (1.0 + nu)) * PI * r.powi(4) / 2.0;
        let mut ks = vec![e * area; net.edges().len()];
        for o in &self.edge_overrides {
            if let Some(v) = o.stretch_stiffness {
                ks[o.edge] = v;
            }
        }
        let plan = net.plan();
        let q0 = info.q0;
        let mut items = Vec::with_capacity(plan.len());
        for p in &plan {
            let proto = match *p {
                Plan::Spring { spring, own } => {
                    let s = &net.springs()[spring];
                    let [ei, ej] = s.edges;
                    // x_m, x_n, x_o from the edges' node DOFs.
                    let end = |edge: usize, node: usize| {
                        let [a, b] = net.edges()[edge];
                        if a == node {
                            node_dofs[edge][0]
                        } else {
                            debug_assert_eq!(b, node);
                            node_dofs[edge][1]
                        }
                    };
                    let xm = end(ei, s.outer[0]);
                    let xn = end(ei, s.node);
                    let xo = end(ej, s.outer[1]);
                    let nodes = [s.outer[0], s.node, s.outer[1]];
                    let twists = [d.twist[ei], d.twist[ej]];
                    let dl = 0.5 * (d.rest[ei] + d.rest[ej]);
                    let ov = self.spring_overrides.iter().filter(|o| o.spring == spring);
                    let (mut bend_k, mut twist_k) = (ei_default, gj_default);
                    let (mut nat_k, mut nat_t) = (None, None);
                    for o in ov {
                        bend_k = o.bend_stiffness.unwrap_or(bend_k);
                        twist_k = o.twist_stiffness.unwrap_or(twist_k);
                        nat_k = o.natural_curvature.or(nat_k);
                        nat_t = o.natural_twist.or(nat_t);
                    }
                    let mut bt = BendTwist {
                        a: [[0.0; 3]; 2],
                        u: [[0.0; 3]; 2],
                        v: [[0.0; 3]; 2],
                        psi0: 0.0,
                        kb: bend_k / dl,
                        kt: twist_k / dl,
                        dl,
                        kappa_bar: [0.0; 2],
                        tau_bar: 0.0,
                    };
                    bt.set_frames(
                        &frames.edges[ei].oriented(s.signs[0]),
                        &frames.edges[ej].oriented(s.signs[1]),
                        frames.ref_twist[spring],
                    );
                    // Rest strains of the initial shape (the same function
                    // later evaluations use, so the rest state is exactly
                    // stress-free).
                    let x = |dofs: &[usize; 3]| dofs.map(|i| q0[i]);
                    let e_i = sub(&x(&xn), &x(&xm));
                    let e_j = sub(&x(&xo), &x(&xn));
                    let th = [s.signs[0] * q0[twists[0]], s.signs[1] * q0[twists[1]]];
                    let rest = bt.eval::<false>(&e_i, &e_j, th, [0.0; 2], 0.0);
                    bt.kappa_bar = nat_k.map_or(rest.kappa, |c| c.map(|v| v * dl));
                    bt.tau_bar = nat_t.map_or(rest.tau, |v| v * dl);
                    let sd = spring_drives[spring];
                    let drives = [
                        sd[0].map(|(k, g)| (k, g * dl)),
                        sd[1].map(|(k, g)| (k, g * dl)),
                        sd[2].map(|(k, g)| (k, g * dl)),
                        if own[0] { edge_drives[ei] } else { None },
                        if own[1] { edge_drives[ej] } else { None },
                    ];
                    let st = |o: bool, edge: usize| {
                        o.then_some(StretchSpring {
                            ks: ks[edge],
                            rest: d.rest[edge],
                        })
                    };
                    Proto {
                        nodes,
                        twists,
                        sign: s.signs,
                        stretch: [st(own[0], ei), st(own[1], ej)],
                        bt: Some(bt),
                        drives,
                    }
                }
                Plan::Edge { edge } => {
                    let [a, b] = net.edges()[edge];
                    Proto {
                        nodes: [a, b, b],
                        twists: [d.twist[edge]; 2],
                        sign: [1.0, 1.0],
                        stretch: [
                            Some(StretchSpring {
                                ks: ks[edge],
                                rest: d.rest[edge],
                            }),
                            None,
                        ],
                        bt: None,
                        drives: [None, None, None, edge_drives[edge], None],
                    }
                }
            };
            items.push(proto);
        }
        let items = items.into_iter().map(|i| i.el(&chan)).collect();
        let mut energy = RodEnergy {
            name: self.name.clone(),
            radius: self.radius,
            net,
            twist: d.twist,
            node_dofs,
            plan,
            init_frames: frames.clone(),
            frames,
            set: Elements::bind(items, info, "elements")?,
        };
        energy.push_frames();
        Ok(energy)
    }
}
