//! Core mechanisms with energies written only as generic elements (dual-number
//! fallback): extra scalar DOFs with inertia, prescribed motions, parameter
//! schedules, energies that declare their own DOFs, the derivative-check
//! utility on a fallback-only energy, and the panic guard of plugin energies.

use pliant_core::derivcheck::{Tolerances, check};
use pliant_core::{
    BindInfo, Block, Ctx, Declare, Element, ElementSet, Elements, Energy, EnergySpec, EvalState,
    Integrator, Local, ModelBuilder, Motion, NewtonSettings, ParamChannel, Result, Scalar,
    Simulator, Stencil,
};
use serde::{Deserialize, Serialize};

/// A torsion spring on one extra DOF θ with a controllable rest angle:
/// `E = k/2 (θ − θ̄)²`, k in N·m/rad, θ̄ from a channel.
#[derive(Debug, Clone)]
struct TorsionEl {
    dof: [usize; 1],
    rest: String,
    k: f64,
}

impl Element for TorsionEl {
    type Size = Stencil<1, 1>;
    fn nodes(&self) -> &[usize] {
        &[]
    }
    fn extra_dofs(&self) -> &[usize] {
        &self.dof
    }
    fn channels(&self) -> impl IntoIterator<Item = Option<&str>> {
        [Some(self.rest.as_str())]
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], p: &[D], _: &Ctx) -> D {
        let d = x[0] - p[0];
        d * d * (0.5 * self.k)
    }
}

/// A torsion spring on a given DOF, reading channel `rest`.
#[derive(Debug, Serialize, Deserialize)]
struct Torsion {
    dof: usize,
    k: f64,
}

impl EnergySpec for Torsion {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let el = TorsionEl {
            dof: [self.dof],
            rest: "rest".into(),
            k: self.k,
        };
        Ok(Box::new(Elements::bind(vec![el], info, "torsion")?))
    }
}
pliant_core::register_energy!(Torsion = "test_torsion", "test torsion spring", "{}");

fn twist_model(inertia: f64, k: f64, rest: Vec<(f64, f64)>) -> pliant_core::Model {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    let th = b.add_extra_dof("twist", 0.0, inertia);
    b.add_param(ParamChannel::control("rest", 0.0).with_keyframes(rest))
        .unwrap();
    b.add(Torsion { dof: th, k });
    b.build().unwrap()
}

#[test]
fn extra_dof_with_inertia_oscillates_at_its_natural_frequency() {
    // θ'' = −(k/I)(θ − θ̄), θ̄ stepped to 0.1 rad at t = 0: θ = 0.1 (1 − cos ωt).
    let (inertia, k) = (2e-4, 0.05);
    let m = twist_model(inertia, k, vec![(0.0, 0.1), (10.0, 0.1)]);
    assert_eq!(
        m.layout().dof_kinds()[3],
        pliant_core::DofKind::Extra {
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
    let r = check(m.energies()[0].as_ref(), &s, &Tolerances::default());
    r.assert_within(&Tolerances::default());
    // ∂²E/∂θ∂θ̄ = −k.
    let mut pb = [0.0];
    m.energies()[0].elements().blocks(&s, Block::Param, &mut pb);
    assert!((pb[0] + 3.0).abs() < 1e-14);
}

#[test]
fn a_2d_model_embeds_its_elements_in_the_plane() {
    // A 2-D spring-like element written in 3-D: E = ½ k (|x_b − x_a| − L)².
    #[derive(Debug, Clone)]
    struct Link([usize; 2]);
    impl Element for Link {
        type Size = Stencil<6>;
        fn nodes(&self) -> &[usize] {
            &self.0
        }
        fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
            let d = [x[3] - x[0], x[4] - x[1], x[5] - x[2]];
            let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            (l - 1.0) * (l - 1.0) * 50.0
        }
    }
    #[derive(Debug, Serialize, Deserialize)]
    struct Links;
    impl EnergySpec for Links {
        fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
            Ok(Box::new(Elements::bind(vec![Link([0, 1])], info, "links")?))
        }
    }
    pliant_core::register_energy!(Links = "test_links_2d", "test", "{}");
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 1.0).unwrap();
    b.add_node(&[0.6, 0.8], 1.0).unwrap();
    b.add(Links);
    let m = b.build().unwrap();
    let set = m.energies()[0].elements();
    assert_eq!(set.stencil_size(), 4);
    let mut d = [0; 4];
    set.dofs(0, &mut d);
    assert_eq!(d, [0, 1, 2, 3]);
    let q = [0.0, 0.0, 1.2, 1.6];
    let s = EvalState::at_rest(&q, &[], 0.01, 0.0);
    // |e| = 2: gradient of node b is k (l − L) e/l = 100 · (0.6, 0.8).
    let mut g = [0.0; 4];
    m.energies()[0]
        .elements()
        .blocks(&s, Block::Gradient, &mut g);
    assert!(
        (g[2] - 60.0).abs() < 1e-12 && (g[3] - 80.0).abs() < 1e-12,
        "{g:?}"
    );
    check(m.energies()[0].as_ref(), &s, &Tolerances::default())
        .assert_within(&Tolerances::default());
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
fn unknown_parameter_channel_is_reported_with_the_energy() {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    let th = b.add_extra_dof("twist", 0.0, 1.0);
    b.add(Torsion { dof: th, k: 1.0 });
    let e = b.build().unwrap_err();
    assert!(
        matches!(e.innermost(), pliant_core::CoreError::UnknownParam { name, .. } if name == "rest"),
        "{e}"
    );
    let s = e.to_string();
    assert!(
        s.contains("energies[0] (test_torsion)") && s.contains("torsion[0]") && s.contains("none"),
        "{s}"
    );
}

/// An energy that allocates its own twist DOF and rest-angle channel in
/// `declare`, as a scene-loaded rod energy would.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnTwist {
    k: f64,
}

impl EnergySpec for OwnTwist {
    fn declare(&self, d: &mut Declare) -> Result<()> {
        d.add_extra_dof("twist", 0.2, 1e-3);
        d.add_param(ParamChannel::design("own_rest", 0.0))?;
        Ok(())
    }
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let el = TorsionEl {
            dof: [info.extra_dofs[0]],
            rest: "own_rest".into(),
            k: self.k,
        };
        Ok(Box::new(Elements::bind(vec![el], info, "own_twist")?))
    }
}
pliant_core::register_energy!(
    OwnTwist = "test_own_twist",
    "test",
    r#"{"type": "test_own_twist", "k": 1}"#
);

#[test]
fn energies_declare_their_own_dofs_and_channels() {
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 1.0).unwrap();
    let e: Box<dyn EnergySpec> =
        serde_json::from_str(r#"{"type": "test_own_twist", "k": 2.0}"#).unwrap();
    assert_eq!(e.type_name(), "test_own_twist");
    assert_eq!(
        pliant_core::to_json(e.as_ref()).unwrap(),
        serde_json::json!({"type": "test_own_twist", "k": 2.0})
    );
    b.add_boxed(e);
    let m = b.build().unwrap();
    assert_eq!(m.n_dofs(), 3);
    assert_eq!(m.q0()[2], 0.2);
    assert_eq!(m.layout().param_names(), ["own_rest".to_string()]);
    // Statics: the twist relaxes to its rest angle.
    let mut sim = Simulator::new(m, Integrator::Static, 1.0, NewtonSettings::default()).unwrap();
    sim.step().unwrap();
    assert!(sim.q()[2].abs() < 1e-9, "{}", sim.q()[2]);
    // A field the energy does not have is refused, with its path.
    let bad = serde_json::from_str::<Box<dyn EnergySpec>>(
        r#"{"type": "test_own_twist", "k": 1, "kk": 2}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("kk"), "{bad}");
}

/// An energy that panics once the twist passes 0.1 rad (a buggy plugin).
#[derive(Debug)]
struct PanickyEnergy(Box<dyn Energy>);

impl ElementSet for PanickyEnergy {
    fn len(&self) -> usize {
        self.0.elements().len()
    }
    fn stencil_size(&self) -> usize {
        self.0.elements().stencil_size()
    }
    fn param_size(&self) -> usize {
        self.0.elements().param_size()
    }
    fn uses_history(&self) -> bool {
        false
    }
    fn dofs(&self, i: usize, out: &mut [usize]) {
        self.0.elements().dofs(i, out)
    }
    fn params(&self, i: usize, out: &mut [usize]) {
        self.0.elements().params(i, out)
    }
    fn value(&self, s: &EvalState) -> f64 {
        self.0.elements().value(s)
    }
    fn blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        assert!(
            kind != Block::Hessian || s.q[3] < 0.1,
            "plugin bug: twist too large"
        );
        self.0.elements().blocks(s, kind, out)
    }
    fn fallback_blocks(&self, s: &EvalState, kind: Block, out: &mut [f64]) {
        self.0.elements().fallback_blocks(s, kind, out)
    }
}

impl Energy for PanickyEnergy {
    fn elements(&self) -> &dyn ElementSet {
        self
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Panicky {
    dof: usize,
}

impl EnergySpec for Panicky {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        Ok(Box::new(PanickyEnergy(
            Torsion {
                dof: self.dof,
                k: 1.0,
            }
            .bind(info)?,
        )))
    }
}
pliant_core::register_energy!(Panicky = "test_panicky", "test", "{}");

#[test]
fn a_panicking_guarded_energy_becomes_a_typed_error() {
    let mut b = ModelBuilder::new(3).unwrap();
    b.add_node(&[0.0, 0.0, 0.0], 1.0).unwrap();
    let th = b.add_extra_dof("twist", 0.0, 1e-3);
    b.add_param(ParamChannel::control("rest", 0.5)).unwrap();
    // Built as a plugin's energies are: through the guarded constructor.
    let info = pliant_core::registry::builtin()
        .into_iter()
        .find(|i| i.name == "test_panicky")
        .unwrap();
    let spec =
        pliant_core::plugin::guarded_construct(info, &format!(r#"{{"dof": {th}}}"#)).unwrap();
    b.add_boxed(spec);
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

/// A one-sided log barrier keeping a node's `x` coordinate below a wall `w`:
/// `E = −κ ln((w − x)/ℓ)`, κ in J, `ℓ` = 1 m; +∞ at the wall and NaN (an
/// invalid state) beyond it.
#[derive(Debug, Clone)]
struct WallEl {
    node: [usize; 1],
    wall: f64,
    kappa: f64,
}

impl Element for WallEl {
    type Size = Stencil<3, 0>;
    fn nodes(&self) -> &[usize] {
        &self.node
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        (-(x[0] - self.wall)).ln() * (-self.kappa)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Wall {
    wall: f64,
    kappa: f64,
}

impl EnergySpec for Wall {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let el = WallEl {
            node: [0],
            wall: self.wall,
            kappa: self.kappa,
        };
        Ok(Box::new(Elements::bind(vec![el], info, "wall")?))
    }
}
pliant_core::register_energy!(Wall = "test_wall", "test log-barrier wall", "{}");

/// A node flying at a barrier so fast that the inertial predictor lands
/// behind it (an invalid state): with either start rule the step falls
/// back to the previous state, stays in front of the wall and ends where
/// the other rule ends.
#[test]
fn an_infeasible_predictor_falls_back_to_the_previous_state_under_either_start() {
    use pliant_core::NewtonStart;
    let run = |start: NewtonStart| {
        let mut b = ModelBuilder::new(2).unwrap();
        b.add_node(&[0.0, 0.0], 1.0).unwrap();
        b.add(Wall {
            wall: 0.05,
            kappa: 1e-3,
        });
        let model = b.build().unwrap();
        let settings = NewtonSettings {
            start,
            ..NewtonSettings::default()
        };
        let mut sim = Simulator::new(model, Integrator::ImplicitEuler, 0.01, settings).unwrap();
        // 10 m/s: the predictor is at 0.1 m, behind the wall at 0.05 m.
        sim.set_state(&[0.0, 0.0], &[10.0, 0.0], 0.0, 0).unwrap();
        sim.step().unwrap();
        sim.q()[0]
    };
    let x_pred = run(NewtonStart::Predictor);
    let x_low = run(NewtonStart::LowerPotential);
    assert!(x_pred < 0.05 && x_pred > 0.0, "ended at {x_pred} m");
    assert!((x_pred - x_low).abs() < 1e-12, "{x_pred} against {x_low}");
}

/// `start` reads from scene files by name, is left out of written settings
/// while it has its default (files written before it existed stay the
/// same), and an unknown start is an error.
#[test]
fn newton_start_reads_and_writes_by_name() {
    use pliant_core::NewtonStart;
    let s: NewtonSettings = serde_json::from_str(r#"{"start": "predictor"}"#).unwrap();
    assert_eq!(s.start, NewtonStart::Predictor);
    assert!(
        serde_json::to_string(&s)
            .unwrap()
            .contains(r#""start":"predictor""#)
    );
    let d = serde_json::to_string(&NewtonSettings::default()).unwrap();
    assert!(!d.contains("start"), "{d}");
    let e = serde_json::from_str::<NewtonSettings>(r#"{"start": "halfway"}"#).unwrap_err();
    assert!(e.to_string().contains("lower_potential"), "{e}");
}

/// `Simulator::step_from`: a guess at the step's own solution is taken and
/// needs no Newton iteration; a guess behind the barrier (infinite
/// potential) is ignored, and the step is the one `step_with` takes; a
/// guess of the wrong length is a typed error that keeps the state.
#[test]
fn a_start_guess_is_taken_when_it_is_better_and_ignored_when_infeasible() {
    let mut b = ModelBuilder::new(2).unwrap();
    b.add_node(&[0.0, 0.0], 1.0).unwrap();
    b.add(Wall {
        wall: 0.05,
        kappa: 1e-3,
    });
    let mut sim = Simulator::new(
        b.build().unwrap(),
        Integrator::ImplicitEuler,
        0.01,
        NewtonSettings::default(),
    )
    .unwrap();
    let start = |sim: &mut Simulator| sim.set_state(&[0.0, 0.0], &[3.0, 0.5], 0.0, 0).unwrap();
    start(&mut sim);
    let (plain, _) = sim.step_with(&[], false).unwrap();
    let solution = sim.q().to_vec();
    assert!(plain.newton.iterations >= 2, "{plain:?}");

    start(&mut sim);
    let (guessed, _) = sim.step_from(&[], false, Some(&solution)).unwrap();
    assert_eq!(guessed.newton.iterations, 0, "{guessed:?}");
    assert!((sim.q()[0] - solution[0]).abs() < 1e-12);

    start(&mut sim);
    let (behind, _) = sim.step_from(&[], false, Some(&[0.2, 0.0])).unwrap();
    assert_eq!(behind.newton.iterations, plain.newton.iterations);
    assert_eq!(sim.q(), solution.as_slice());

    start(&mut sim);
    let err = sim.step_from(&[], false, Some(&[0.0])).unwrap_err();
    assert!(
        matches!(err, pliant_core::CoreError::Length { .. }),
        "{err}"
    );
    assert_eq!(sim.q(), &[0.0, 0.0]);
}

/// A spring `E = x²/2` on one extra DOF whose analytic Hessian is NaN
/// when `bad` (a buggy element).
#[derive(Debug, Clone)]
struct NanHessianEl {
    dof: [usize; 1],
    bad: bool,
}

impl Element for NanHessianEl {
    type Size = Stencil<1>;
    fn nodes(&self) -> &[usize] {
        &[]
    }
    fn extra_dofs(&self) -> &[usize] {
        &self.dof
    }
    fn energy<D: Scalar>(&self, x: &[D], _: &[D], _: &[D], _: &Ctx) -> D {
        x[0] * x[0] * 0.5
    }
    fn hessian(&self, _: &Local, h: &mut [f64]) -> bool {
        h[0] = if self.bad { f64::NAN } else { 1.0 };
        true
    }
}

/// Springs on `dofs`, the one at index `bad` with a NaN Hessian.
#[derive(Debug, Serialize, Deserialize)]
struct NanHessian {
    dofs: Vec<usize>,
    bad: usize,
}

impl EnergySpec for NanHessian {
    fn bind(&self, info: &BindInfo) -> Result<Box<dyn Energy>> {
        let els = (self.dofs.iter().enumerate())
            .map(|(i, &d)| NanHessianEl {
                dof: [d],
                bad: i == self.bad,
            })
            .collect();
        Ok(Box::new(Elements::bind(els, info, "nan_hessian")?))
    }
}
pliant_core::register_energy!(NanHessian = "test_nan_hessian", "test NaN Hessian", "{}");

/// The Newton solve checks element Hessians through the assembled matrix
/// (see `Assembler::hessian`): a NaN in one element's block is still a
/// typed error naming the energy and the element (Newton's, with the
/// residual reached), and the state is kept.
#[test]
fn a_non_finite_element_hessian_is_an_error_naming_the_element() {
    for bad in 0..3 {
        let mut b = ModelBuilder::new(3).unwrap();
        let dofs = (0..3)
            .map(|i| b.add_extra_dof(&format!("s{i}"), 0.5, 1.0))
            .collect();
        b.add(NanHessian { dofs, bad });
        let mut sim = Simulator::new(
            b.build().unwrap(),
            Integrator::Bdf1,
            0.01,
            NewtonSettings::default(),
        )
        .unwrap();
        let msg = sim.step().unwrap_err().to_string();
        assert!(
            msg.contains(&format!("element {bad} is not finite")),
            "{msg}"
        );
        assert!(msg.contains("test_nan_hessian"), "{msg}");
        assert_eq!(sim.q(), &[0.5, 0.5, 0.5]);
    }
}
