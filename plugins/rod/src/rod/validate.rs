//! Validation of a rod description, and which actuation entry drives which
//! natural value.

use super::spec::{Actuation, RestLengths, Rod};
use crate::error::RodError;
use crate::network::RodNetwork;
use pliant_core::Layout;

impl Rod {
    /// The initial edge lengths (m) when `rest_lengths` is not given (the
    /// default rest lengths), from the node positions `q0`.
    pub(crate) fn initial_lengths(
        &self,
        layout: &Layout,
        q0: &[f64],
    ) -> std::result::Result<Option<Vec<f64>>, RodError> {
        Ok(match self.rest_lengths {
            Some(_) => None,
            None => {
                let (l, q) = (layout, q0);
                let mut out = Vec::with_capacity(self.edges.len());
                for (edge, &[a, b]) in self.edges.iter().enumerate() {
                    let (mut da, mut db) = ([0; 3], [0; 3]);
                    for (node, d) in [(a, &mut da), (b, &mut db)] {
                        if l.node_dofs(node, d, "").is_err() {
                            return Err(RodError::MissingNode {
                                edge,
                                node,
                                count: l.n_nodes(),
                            });
                        }
                    }
                    let len = (0..3)
                        .map(|k| (q[db[k]] - q[da[k]]).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    if len.is_nan() || len <= 0.0 {
                        return Err(RodError::ZeroLengthEdge {
                            edge,
                            nodes: [a, b],
                        });
                    }
                    out.push(len);
                }
                Some(out)
            }
        })
    }

    /// Validation that needs neither the layout nor positions.
    pub(crate) fn validate(
        &self,
        initial_lengths: Option<Vec<f64>>,
    ) -> std::result::Result<(RodNetwork, Vec<f64>), RodError> {
        let field = |field, expected, value: f64, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(RodError::Field {
                    field,
                    expected,
                    value,
                })
            }
        };
        let net = match self.own_edges {
            Some(own) => RodNetwork::with_own(self.edges.clone(), own)?,
            None => RodNetwork::new(self.edges.clone())?,
        };
        let r = self.radius;
        field(
            "radius",
            "positive and finite (m)",
            r,
            r.is_finite() && r > 0.0,
        )?;
        let e = self.youngs_modulus;
        field(
            "youngs_modulus",
            "positive and finite (Pa)",
            e,
            e.is_finite() && e > 0.0,
        )?;
        let nu = self.poisson_ratio;
        field("poisson_ratio", "in (−1, 0.5]", nu, nu > -1.0 && nu <= 0.5)?;
        let rho = self.density;
        field(
            "density",
            "positive and finite (kg/m³)",
            rho,
            rho.is_finite() && rho > 0.0,
        )?;
        let ne = net.edges().len();
        let rest = match &self.rest_lengths {
            None => initial_lengths.ok_or(RodError::RestLengthsRequired)?,
            Some(RestLengths::Uniform(l)) => vec![*l; ne],
            Some(RestLengths::PerEdge(v)) => {
                if v.len() != ne {
                    return Err(RodError::RestLengthCount {
                        got: v.len(),
                        expected: ne,
                    });
                }
                v.clone()
            }
        };
        for (edge, &value) in rest.iter().enumerate() {
            if !(value.is_finite() && value > 0.0) {
                return Err(RodError::RestLength { edge, value });
            }
        }
        let ns = net.springs().len();
        let edge_ix = |field: String, edge: usize| {
            if edge < ne {
                Ok(())
            } else {
                Err(RodError::EdgeIndex {
                    field,
                    edge,
                    count: ne,
                })
            }
        };
        let spring_ix = |field: String, spring: usize| {
            if spring < ns {
                Ok(())
            } else {
                Err(RodError::SpringIndex {
                    field,
                    spring,
                    count: ns,
                })
            }
        };
        let nonneg = |field: String, v: Option<f64>| match v {
            Some(value) if !(value.is_finite() && value >= 0.0) => {
                Err(RodError::Override { field, value })
            }
            _ => Ok(()),
        };
        let finite = |field: String, value: f64| {
            if value.is_finite() {
                Ok(())
            } else {
                Err(RodError::NotFinite { field, value })
            }
        };
        for (k, o) in self.edge_overrides.iter().enumerate() {
            edge_ix(format!("edge_overrides[{k}].edge"), o.edge)?;
            nonneg(
                format!("edge_overrides[{k}].stretch_stiffness"),
                o.stretch_stiffness,
            )?;
        }
        for (k, o) in self.spring_overrides.iter().enumerate() {
            spring_ix(format!("spring_overrides[{k}].spring"), o.spring)?;
            nonneg(
                format!("spring_overrides[{k}].bend_stiffness"),
                o.bend_stiffness,
            )?;
            nonneg(
                format!("spring_overrides[{k}].twist_stiffness"),
                o.twist_stiffness,
            )?;
            if let Some(c) = o.natural_curvature {
                for (a, v) in c.iter().enumerate() {
                    finite(format!("spring_overrides[{k}].natural_curvature[{a}]"), *v)?;
                }
            }
            if let Some(v) = o.natural_twist {
                finite(format!("spring_overrides[{k}].natural_twist"), v)?;
            }
        }
        for (k, a) in self.actuation.iter().enumerate() {
            finite(format!("actuation[{k}].gain"), a.gain())?;
            match a {
                Actuation::Curvature { axis, springs, .. } => {
                    if *axis != 1 && *axis != 2 {
                        return Err(RodError::Axis {
                            field: format!("actuation[{k}].axis"),
                            value: *axis,
                        });
                    }
                    for (x, &s) in springs.iter().flatten().enumerate() {
                        spring_ix(format!("actuation[{k}].springs[{x}]"), s)?;
                    }
                }
                Actuation::Twist { springs, .. } => {
                    for (x, &s) in springs.iter().flatten().enumerate() {
                        spring_ix(format!("actuation[{k}].springs[{x}]"), s)?;
                    }
                }
                Actuation::Stretch { edges, .. } => {
                    for (x, &e) in edges.iter().flatten().enumerate() {
                        edge_ix(format!("actuation[{k}].edges[{x}]"), e)?;
                    }
                }
            }
        }
        Ok((net, rest))
    }

    /// Per spring: slot (κ̄⁽¹⁾, κ̄⁽²⁾, τ̄) → (actuation entry, gain); per edge:
    /// stretch → (entry, gain).
    #[allow(clippy::type_complexity)]
    pub(crate) fn drives(
        &self,
        net: &RodNetwork,
    ) -> std::result::Result<(Vec<[Option<(usize, f64)>; 3]>, Vec<Option<(usize, f64)>>), RodError>
    {
        // "All" springs/edges of an actuation entry are the rod's own: a
        // rod–shell joint's springs and edges (numbered last) are not driven.
        let own = self.own_edges.unwrap_or(net.edges().len());
        let ns_all = net.springs().len();
        let ns = net
            .springs()
            .iter()
            .filter(|s| s.edges[0] < own && s.edges[1] < own)
            .count();
        let ne_all = net.edges().len();
        let ne = own;
        let mut springs = vec![[None; 3]; ns_all];
        let mut edges = vec![None; ne_all];
        let set = |slot: &mut Option<(usize, f64)>, k: usize, g: f64, what: String| {
            if let Some((first, _)) = *slot {
                return Err(RodError::DoubleActuation {
                    what,
                    first,
                    second: k,
                });
            }
            *slot = Some((k, g));
            Ok(())
        };
        for (k, a) in self.actuation.iter().enumerate() {
            let g = a.gain();
            match a {
                Actuation::Curvature {
                    axis, springs: s, ..
                } => {
                    let list: Vec<usize> = s.clone().unwrap_or_else(|| (0..ns).collect());
                    for sp in list {
                        let slot = usize::from(*axis - 1);
                        set(
                            &mut springs[sp][slot],
                            k,
                            g,
                            format!("curvature {axis} of spring {sp}"),
                        )?;
                    }
                }
                Actuation::Twist { springs: s, .. } => {
                    let list: Vec<usize> = s.clone().unwrap_or_else(|| (0..ns).collect());
                    for sp in list {
                        set(&mut springs[sp][2], k, g, format!("twist of spring {sp}"))?;
                    }
                }
                Actuation::Stretch { edges: e, .. } => {
                    let list: Vec<usize> = e.clone().unwrap_or_else(|| (0..ne).collect());
                    for ed in list {
                        set(&mut edges[ed], k, g, format!("stretch of edge {ed}"))?;
                    }
                }
            }
        }
        Ok((springs, edges))
    }
}
