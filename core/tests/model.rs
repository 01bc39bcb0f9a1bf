//! Core mechanisms with energies written only as generic elements (dual-number
//! fallback): extra scalar DOFs with inertia, prescribed motions, parameter
//! schedules, and the derivative-check utility on a fallback-only energy.

use pliant_core::derivcheck::{Tolerances, check};
use pliant_core::element::{Ctx, Element, ElementSet, Elements};
use pliant_core::num_dual::DualNum;
use pliant_core::{
    BindInfo, Energy, EvalState, Integrator, ModelBuilder, Motion, NewtonSettings, ParamChannel,
    ParamKind, Result, Simulator,
};
use serde::{Deserialize, Serialize};

/// A torsion spring on one extra DOF θ with a controllable rest angle:
/// `E = k/2 (θ − θ̄)²`, k in N·m/rad, θ̄ from channel "rest".
#[derive(Debug, Clone)]
struct TorsionEl {
    dof: usize,
    rest: usize,
    k: f64,
}

impl Element<1, 1> for TorsionEl {
    fn dofs(&self) -> [usize; 1] {
        [self.dof]
    }
    fn params(&self) -> [usize; 1] {
        [self.rest]
    }
    fn energy<D: DualNum<f64> + Copy>(&self, x: &[D; 1], _: &[D; 1], p: &[D; 1], _: &Ctx) -> D {
        let d = x[0] - p[0];
        d * d * (0.5 * self.k)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Torsion {
    dof: usize,
    k: f64,
    #[serde(skip)]
    bound: Option<Elements<TorsionEl, 1, 1>>,
}

#[typetag::serde(name = "test_torsion")]
impl Energy for Torsion {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let rest = info.layout.param("rest", "test_torsion")?;
        self.bound = Some(Elements::new(vec![TorsionEl {
            dof: self.dof,
            rest,
            k: self.k,
        }]));
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound.as_ref().unwrap()
    }
}

fn twist_model(inertia: f64, k: f64, rest: Vec<(f64, f64)>) -> pliant_core::Model {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    let th = b.add_extra_dof("twist", 0.0, inertia);
    b.add_param(ParamChannel {
        name: "rest".into(),
        kind: ParamKind::Control,
        value: 0.0,
        keyframes: rest,
    })
    .unwrap();
    b.add_energy(Box::new(Torsion {
        dof: th,
        k,
        bound: None,
    }));
    b.build().unwrap()
}

#[test]
fn extra_dof_with_inertia_oscillates_at_its_natural_frequency() {
    // θ'' = −(k/I)(θ − θ̄), θ̄ stepped to 0.1 rad at t = 0: θ = 0.1 (1 − cos ωt).
    let (inertia, k) = (2e-4, 0.05);
    let m = twist_model(inertia, k, vec![(0.0, 0.1), (10.0, 0.1)]);
    assert_eq!(
        m.layout.dof_kinds()[3],
        pliant_core::layout::DofKind::Extra {
            kind: "twist".into()
        }
    );
    let mut sim = Simulator::new(
        m,
        Integrator::ImplicitMidpoint,
        1e-3,
        NewtonSettings::default(),
    )
    .unwrap();
    let w = (k / inertia).sqrt();
    let mut worst: f64 = 0.0;
    for _ in 0..200 {
        sim.step().unwrap();
        let exact = 0.1 * (1.0 - (w * sim.time()).cos());
        worst = worst.max((sim.q()[3] - exact).abs());
    }
    assert!(worst < 2e-4, "θ error {worst} rad");
}

#[test]
fn fallback_only_energy_passes_the_derivative_check() {
    let m = twist_model(1.0, 3.0, vec![]);
    let q = [0.0, 0.0, 0.0, 0.4];
    let s = EvalState {
        q: &q,
        q_prev: &q,
        p: &[0.1],
        h: 0.01,
        dt: 0.01,
        t: 0.0,
    };
    let r = check(m.energies[0].as_ref(), &s, &Tolerances::default());
    r.assert_within(&Tolerances::default());
    // ∂²E/∂θ∂θ̄ = −k.
    let mut pb = [0.0];
    m.energies[0].param_blocks(&s, &mut pb);
    assert!((pb[0] + 3.0).abs() < 1e-14);
}

#[test]
fn prescribed_motions_are_followed_exactly() {
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 0.1).unwrap();
    b.add_node(&[1.0, 0.0], 0.1).unwrap();
    b.constrain(0, Motion::Linear { velocity: 0.3 }).unwrap();
    b.constrain(
        1,
        Motion::Sine {
            amplitude: 0.02,
            frequency: 2.0,
            phase: 0.0,
        },
    )
    .unwrap();
    b.constrain(
        3,
        Motion::Keyframes {
            keys: vec![(0.0, 0.0), (1.0, 0.5)],
        },
    )
    .unwrap();
    let m = b.build().unwrap();
    let mut sim = Simulator::new(m, Integrator::Bdf1, 0.01, NewtonSettings::default()).unwrap();
    for _ in 0..50 {
        sim.step().unwrap();
    }
    let t = sim.time();
    assert!((sim.q()[0] - 0.3 * t).abs() < 1e-14);
    assert!((sim.q()[1] - 0.02 * (2.0 * std::f64::consts::PI * 2.0 * t).sin()).abs() < 1e-14);
    assert!((sim.q()[3] - 0.5 * t).abs() < 1e-14);
    assert_eq!(sim.assembler().n_free(), 1, "only node 1's x is solved for");
}

#[test]
fn unknown_parameter_channel_is_reported() {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    let th = b.add_extra_dof("twist", 0.0, 1.0);
    b.add_energy(Box::new(Torsion {
        dof: th,
        k: 1.0,
        bound: None,
    }));
    let e = b.build().unwrap_err().to_string();
    assert!(
        e.contains("unknown parameter channel `rest`") && e.contains("none"),
        "{e}"
    );
}

/// An energy that allocates its own twist DOF and rest-angle channel in
/// `declare`, as a scene-loaded rod energy would.
#[derive(Debug, Serialize, Deserialize)]
struct OwnTwist {
    k: f64,
    #[serde(skip)]
    dof: Option<usize>,
    #[serde(skip)]
    bound: Option<Elements<TorsionEl, 1, 1>>,
}

#[typetag::serde(name = "test_own_twist")]
impl Energy for OwnTwist {
    fn declare(&mut self, b: &mut ModelBuilder) -> Result<()> {
        self.dof = Some(b.add_extra_dof("twist", 0.2, 1e-3));
        b.add_param(ParamChannel {
            name: "own_rest".into(),
            kind: ParamKind::Design,
            value: 0.0,
            keyframes: vec![],
        })?;
        Ok(())
    }
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        let rest = info.layout.param("own_rest", "test_own_twist")?;
        let dof = self.dof.expect("declared");
        self.bound = Some(Elements::new(vec![TorsionEl {
            dof,
            rest,
            k: self.k,
        }]));
        Ok(())
    }
    fn elements(&self) -> &dyn ElementSet {
        self.bound.as_ref().unwrap()
    }
}

#[test]
fn energies_declare_their_own_dofs_and_channels() {
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 1.0).unwrap();
    let e: Box<dyn Energy> =
        serde_json::from_str(r#"{"type": "test_own_twist", "k": 2.0}"#).unwrap();
    b.add_energy(e);
    let m = b.build().unwrap();
    assert_eq!(m.n_dofs(), 3);
    assert_eq!(m.q0[2], 0.2);
    assert_eq!(m.layout.param_names(), ["own_rest".to_string()]);
    // Statics: the twist relaxes to its rest angle.
    let mut sim = Simulator::new(m, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
    sim.step().unwrap();
    assert!(sim.q()[2].abs() < 1e-9, "{}", sim.q()[2]);
}

/// An energy that panics once the twist passes 0.1 rad (a buggy plugin).
#[derive(Debug, Serialize, Deserialize)]
struct Panicky {
    #[serde(skip)]
    inner: Option<Torsion>,
}

#[typetag::serde(name = "test_panicky")]
impl Energy for Panicky {
    fn bind(&mut self, info: &BindInfo) -> Result<()> {
        self.inner.as_mut().unwrap().bind(info)
    }
    fn elements(&self) -> &dyn ElementSet {
        self.inner.as_ref().unwrap().elements()
    }
    fn hessian_blocks(&self, s: &EvalState, out: &mut [f64]) {
        assert!(s.q[3] < 0.1, "plugin bug: twist too large");
        self.inner.as_ref().unwrap().hessian_blocks(s, out)
    }
}

#[test]
fn a_panicking_guarded_energy_becomes_a_typed_error() {
    use pliant_core::plugin::PanicGuard;
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    let th = b.add_extra_dof("twist", 0.0, 1e-3);
    b.add_param(ParamChannel {
        name: "rest".into(),
        kind: ParamKind::Control,
        value: 0.5,
        keyframes: vec![],
    })
    .unwrap();
    let inner = Panicky {
        inner: Some(Torsion {
            dof: th,
            k: 1.0,
            bound: None,
        }),
    };
    b.add_energy(Box::new(PanicGuard::new(Box::new(inner), "test_panicky")));
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::Static,
        1.0,
        NewtonSettings::default(),
    )
    .unwrap();
    // Newton's Hessian is at θ = 0 (fine); the exact Hessian the step
    // derivatives need is at θ = 0.5, where the energy panics inside the
    // guard: the step fails with a typed error and the state is kept.
    let err = sim.step_with(&[0.5], true).unwrap_err();
    assert!(
        matches!(
            err,
            pliant_core::CoreError::NewtonDiverged { .. }
                | pliant_core::CoreError::NonFinite { .. }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("not finite") || err.to_string().contains("Hessian"),
        "{err}"
    );
    assert_eq!(sim.q()[3], 0.0);
}
