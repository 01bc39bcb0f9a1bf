//! A plain stretch spring between two nodes:
//! `E = k/2 (‖x_b − x_a‖ − L)²` (J), stiffness `k` in N/m, rest length `L`
//! in m (default: the initial distance). With a `contraction` channel `u`
//! (m), the rest length is `L − u`, a linear actuator.

use pliant_core::element::{Ctx, ElementSet};
use pliant_core::energy::{BindInfo, Energy, EvalState};
use pliant_core::error::{CoreError, Result};
use pliant_core::num_dual::DualNum;
use pliant_core::reduced::{ReducedElement, ReducedElements};
use serde::{Deserialize, Serialize};

/// One spring of a [`Springs`] energy, as written in a scene.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// The two node indices.
    pub nodes: [usize; 2],
    /// Stiffness, N/m (> 0).
    pub stiffness: f64,
    /// Rest length, m; default the initial distance.
    #[serde(default)]
    pub rest_length: Option<f64>,
}

/// A bound spring over `N = 2·dim` DOFs, reading `P ∈ {0, 1}` channels. Its
/// fallback differentiates over the `R = dim` components of the edge vector
/// `x_b − x_a` (see [`pliant_core::reduced`]).
#[derive(Debug, Clone)]
pub struct SpringEl<const N: usize, const R: usize, const P: usize> {
    dofs: [usize; N],
    params: [usize; P],
    k: f64,
    rest: f64,
}

impl<const N: usize, const R: usize, const P: usize> ReducedElement<N, R, P> for SpringEl<N, R, P> {
    fn dofs(&self) -> [usize; N] {
        self.dofs
    }
    fn params(&self) -> [usize; P] {
        self.params
    }
    fn map(&self) -> [[f64; N]; R] {
        let mut b = [[0.0; N]; R];
        for a in 0..R {
            b[a][a] = -1.0;
            b[a][R + a] = 1.0;
        }
        b
    }
    fn energy<D: DualNum<f64> + Copy>(&self, e: &[D; R], _ep: &[D; R], p: &[D; P], _c: &Ctx) -> D {
        let mut l2 = D::from(0.0);
        for c in e {
            l2 += *c * *c;
        }
        let l = l2.sqrt();
        let rest = if P == 1 {
            -p[0] + self.rest
        } else {
            D::from(self.rest)
        };
        let s = l - rest;
        s * s * (0.5 * self.k)
    }
}

impl<const N: usize, const R: usize, const P: usize> SpringEl<N, R, P> {
    /// Unit direction, length and `k(l − L)` at the local state.
    fn kinematics(&self, q: &[f64], p: &[f64]) -> ([f64; 3], f64, f64) {
        let dim = N / 2;
        let mut e = [0.0; 3];
        for a in 0..dim {
            e[a] = q[self.dofs[dim + a]] - q[self.dofs[a]];
        }
        let l = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
        let rest = if P == 1 {
            self.rest - p[self.params[0]]
        } else {
            self.rest
        };
        (e.map(|v| v / l), l, self.k * (l - rest))
    }
}

/// Analytic derivatives of a bound spring set.
trait SpringAnalytic: ElementSet {
    fn grad(&self, s: &EvalState, out: &mut [f64]);
    fn hess(&self, s: &EvalState, out: &mut [f64]);
    fn pblock(&self, s: &EvalState, out: &mut [f64]);
}

impl<const N: usize, const R: usize, const P: usize> SpringAnalytic
    for ReducedElements<SpringEl<N, R, P>, N, R, P>
{
    fn grad(&self, s: &EvalState, out: &mut [f64]) {
        let dim = N / 2;
        pliant_core::element::for_each_block(out, N, &self.items, |o, e| {
            let (n, _, f) = e.kinematics(s.q, s.p);
            for a in 0..dim {
                o[a] = -f * n[a];
                o[dim + a] = f * n[a];
            }
        });
    }
    fn hess(&self, s: &EvalState, out: &mut [f64]) {
        let dim = N / 2;
        pliant_core::element::for_each_block(out, N * N, &self.items, |o, e| {
            let (n, l, f) = e.kinematics(s.q, s.p);
            // K = k n nᵀ + (f/l)(I − n nᵀ); H = [[K, −K], [−K, K]].
            let t = f / l;
            for a in 0..dim {
                for b in 0..dim {
                    let id = if a == b { 1.0 } else { 0.0 };
                    let k = e.k * n[a] * n[b] + t * (id - n[a] * n[b]);
                    o[a * N + b] = k;
                    o[(dim + a) * N + dim + b] = k;
                    o[a * N + dim + b] = -k;
                    o[(dim + a) * N + b] = -k;
                }
            }
        });
    }
    fn pblock(&self, s: &EvalState, out: &mut [f64]) {
        if P == 0 {
            return;
        }
        let dim = N / 2;
        pliant_core::element::for_each_block(out, N, &self.items, |o, e| {
            // ∂²E/∂x∂u with L = L0 − u: ∂g_b/∂u = k n, ∂g_a/∂u = −k n.
            let (n, _, _) = e.kinematics(s.q, s.p);
            for a in 0..dim {
                o[a] = -e.k * n[a];
                o[dim + a] = e.k * n[a];
            }
        });
    }
}

/// A set of two-node stretch springs.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Springs {
    /// The springs.
    pub springs: Vec<Spring>,
    /// Optional control channel `u` (m) shortening every rest length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contraction: Option<String>,
    #[serde(skip)]
    bound: Option<Box<dyn SpringAnalytic>>,
}

impl std::fmt::Debug for dyn SpringAnalytic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bound springs", self.len())
    }
}

impl Springs {
    /// Springs without a control channel.
    pub fn new(springs: Vec<Spring>) -> Self {
        Self {
            springs,
            contraction: None,
            bound: None,
        }
    }
    /// Springs whose rest lengths are shortened by channel `channel` (m).
    pub fn with_contraction(springs: Vec<Spring>, channel: &str) -> Self {
        Self {
            springs,
            contraction: Some(channel.into()),
            bound: None,
        }
    }
    fn bind_n<const N: usize, const R: usize, const P: usize>(
        &self,
        info: &BindInfo,
        param: [usize; P],
    ) -> Result<Box<dyn SpringAnalytic>> {
        let dim = N / 2;
        let mut items = Vec::with_capacity(self.springs.len());
        for (i, s) in self.springs.iter().enumerate() {
            let ctx = format!("springs[{i}].nodes");
            if s.nodes[0] == s.nodes[1] {
                return Err(CoreError::Model(format!(
                    "springs[{i}]: both ends are node {}",
                    s.nodes[0]
                )));
            }
            if !(s.stiffness.is_finite() && s.stiffness > 0.0) {
                return Err(CoreError::Model(format!(
                    "springs[{i}].stiffness must be positive and finite, got {} N/m",
                    s.stiffness
                )));
            }
            let mut dofs = [0; N];
            info.layout.node_dofs(s.nodes[0], &mut dofs[..dim], &ctx)?;
            info.layout.node_dofs(s.nodes[1], &mut dofs[dim..], &ctx)?;
            let l0 = (0..dim)
                .map(|a| (info.q0[dofs[dim + a]] - info.q0[dofs[a]]).powi(2))
                .sum::<f64>()
                .sqrt();
            let rest = s.rest_length.unwrap_or(l0);
            if !(rest.is_finite() && rest >= 0.0) {
                return Err(CoreError::Model(format!(
                    "springs[{i}].rest_length must be ≥ 0, got {rest} m"
                )));
            }
            if l0 == 0.0 {
                return Err(CoreError::Model(format!(
                    "springs[{i}]: nodes {} and {} coincide in the initial state (zero-length spring)",
                    s.nodes[0], s.nodes[1]
                )));
            }
            items.push(SpringEl::<N, R, P> {
                dofs,
                params: param,
                k: s.stiffness,
                rest,
            });
        }
        Ok(Box::new(
            ReducedElements::<SpringEl<N, R, P>, N, R, P>::new(items),
        ))
    }
}

#[typetag::serde(name = "spring")]
impl Energy for Springs {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let dim = info.layout.dim();
        let ch = match &self.contraction {
            Some(name) => Some(info.layout.param(name, "spring.contraction")?),
            None => None,
        };
        self.bound = Some(match (dim, ch) {
            (2, None) => self.bind_n::<4, 2, 0>(info, [])?,
            (3, None) => self.bind_n::<6, 3, 0>(info, [])?,
            (2, Some(c)) => self.bind_n::<4, 2, 1>(info, [c])?,
            (_, Some(c)) => self.bind_n::<6, 3, 1>(info, [c])?,
            _ => unreachable!("layouts are 2-D or 3-D"),
        });
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound
            .as_deref()
            .expect("spring energy used before Model::build bound it")
    }
    fn gradient_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").grad(s, out)
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").hess(s, out)
    }
    fn param_blocks(&self, s: &EvalState, out: &mut [f64]) {
        self.bound.as_deref().expect("bound").pblock(s, out)
    }
}

pliant_core::register_energy!(
    "spring",
    "two-node stretch springs E = k/2 (|x_b − x_a| − L)²; k in N/m, L in m (default initial length); optional `contraction` channel u: L − u",
    r#"{"type": "spring", "springs": [{"nodes": [0, 1], "stiffness": 100.0}]}"#
);
