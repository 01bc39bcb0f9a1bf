//! The Newton solver's settings ([`NewtonSettings`], [`HessianStrategy`]).

use super::{Directions, MAX_STEP_HALVINGS, NewtonStart};
use serde::{Deserialize, Serialize};

/// How the Newton direction copes with an indefinite Hessian (the exact
/// Hessian is always what sensitivities use; this only shapes the search
/// direction). Measured by `cargo run --release --example hessian_strategies`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HessianStrategy {
    /// Exact Hessian; if Cholesky fails, add a diagonal shift `τ I` grown by
    /// 10× until it succeeds (Levenberg–Marquardt style; the shift starts from
    /// a tenth of the last one that worked). Follows negative curvature, so it
    /// escapes saddles such as a column at its buckling load.
    #[default]
    ExactShift,
    /// Exact Hessian; if Cholesky fails, project every element Hessian onto
    /// the PSD cone (then shift if needed).
    ExactThenProject,
    /// Always project element Hessians onto the PSD cone (then shift if needed).
    Project,
}

/// Settings of the Newton solver: Newton's method with backtracking line search on a smooth potential `Φ`
/// over the free DOFs (MAT-DiSMech Algorithm 1, with the line search of its
/// §6.2; the cable paper §II-D minimizes the same incremental potential).
///
/// Direction: the exact Hessian is tried first (Cholesky); if it is not
/// positive definite, a diagonal shift grows until Cholesky succeeds
/// (default), or the element Hessians are projected onto the PSD cone (see
/// [`HessianStrategy`]).
/// The step is accepted when `Φ` decreases (Armijo) and stays finite, so an
/// energy that returns `NaN`/`∞` for an invalid state (an inverted element)
/// is never entered. Near convergence, where `Φ` cannot resolve the change
/// (within `10⁻¹³ |Φ|` of it, or a predicted decrease below `10⁻¹⁰ |Φ|`),
/// a finite step is accepted when it lowers the residual instead.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NewtonSettings {
    /// Maximum iterations per step. The default 50 is for time steps, which
    /// start from the inertial predictor or the previous state (see
    /// [`NewtonStart`]; a few to 20 iterations in the papers' scenes); a static solve from the rest shape under a large load, or
    /// a very large step, can need more (a 3,072-tet column under gravity
    /// took 84): raise it, or use `max_step_halvings`.
    pub max_iterations: usize,
    /// Absolute tolerance on the free-DOF residual force, ∞-norm, N.
    ///
    /// A tolerance the arithmetic cannot reach does not fail a run: forces
    /// computed from positions `x` through stiffnesses `H` carry round-off
    /// of order `ε · max|H| · max|x|`. A residual within
    /// `ε · max_ij |H_ij| · max(|x_i|, |x_j|)`, the resolution of the state
    /// itself, is accepted at once (logged at debug level: long rods far from the
    /// origin live there). When the residual is below
    /// `64 ε · max|H| · max|x| · √n` (n free DOFs) and stops falling (three
    /// iterations without halving), or the line search or the iteration
    /// budget ends there, the step is accepted with a logged warning and
    /// [`NewtonStats::at_noise_floor`](super::NewtonStats::at_noise_floor) set. A solve also stops when a fresh
    /// Newton step no longer changes the state beyond its round-off.
    pub abs_tol: f64,
    /// Tolerance relative to the residual at the initial guess.
    pub rel_tol: f64,
    /// Maximum halvings of the line-search step.
    pub max_backtracks: usize,
    /// On failure, retry the time step as two half steps, at most this many levels deep.
    pub max_step_halvings: usize,
    /// Treatment of indefinite Hessians.
    pub hessian: HessianStrategy,
    /// Reuse the last factorized Hessian for the next direction while the
    /// residual keeps falling at least by this factor per iteration (0 never
    /// reuses: plain Newton). A reused direction costs a gradient and two
    /// triangular solves instead of a Hessian assembly and a Cholesky
    /// factorization; convergence is then linear, so a fresh factorization
    /// is taken as soon as the residual falls more slowly than the factor,
    /// and whenever the line search rejects a reused direction. The
    /// converged state meets the same tolerance either way.
    pub reuse_below: f64,
    /// With [`NewtonSettings::reuse_below`] > 0: a factorization is made
    /// with the DOFs of the non-zero node-local Hessian entries (ground
    /// contact and friction; energies whose elements act on one node)
    /// ordered last, and each reuse first refreshes that trailing block with
    /// the entries at the current iterate (a dense Cholesky factorization of
    /// the block's Schur complement, `linsolve/trailing.rs`). A reused
    /// direction then sees where feet stick, slip and touch down, as a
    /// fresh one would, and only the body's elastic Hessian is lagged. On
    /// by default; off reuses factorizations as they are. Skipped when the
    /// block would exceed 384 DOFs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub local_updates: bool,
    /// How Newton directions are solved for: by the factorization of the
    /// current Hessian, or by conjugate gradients preconditioned with a kept
    /// one (see [`Directions`]).
    pub directions: Directions,
    /// Start each time step's search for a diagonal shift (the fallback of
    /// every [`HessianStrategy`] when the Hessian is not positive definite)
    /// from a tenth of the last step's successful shift
    /// instead of from `10⁻¹⁰ · max|H|` (each try is a factorization; the
    /// shift grows tenfold per failed try). Pays on models whose Hessian is
    /// indefinite at every step by a similar amount (cell contact, where the
    /// search took about 8 factorizations per step). It changes the Newton
    /// path of such models (each step still meets the same tolerance), so
    /// it is off by default.
    pub carry_shift: bool,
    /// After the line search refuses a full step along a freshly factorized
    /// direction, factorize the energies' *majorized* Hessian for the next
    /// one ([`Ctx::majorize`](crate::Ctx::majorize)): energies that offer
    /// one replace curvature that misleads Newton by a positive
    /// semidefinite majorizer. The ground's smooth Coulomb friction (and
    /// its per-axis form) drops the negative curvature of its saturating
    /// force, `c/h (f₁ M + f₂ ŝ ŝᵀ)` → `c/h (f₁ M + max(f₂, 0) ŝ ŝᵀ)`: the
    /// iteratively reweighted (IRLS) Hessian of friction solvers. Along a
    /// slipping foot's slip the exact curvature all but vanishes (the force
    /// has saturated), so the quadratic model sees no resistance there and
    /// full steps overshoot and are halved; the majorized model bounds the
    /// friction from above. Fresh factorizations stay majorized while full
    /// steps are refused; once one is accepted the next is exact again, so
    /// convergence near the solution stays quadratic, and each step meets
    /// the same tolerance.
    /// Sensitivities always use exact Hessians. On in
    /// [`NewtonSettings::fast`]; it changes the Newton path (within the
    /// tolerance), so it is off by default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub majorize: bool,
    /// Where each time step's solve starts (see [`NewtonStart`]; default
    /// [`NewtonStart::LowerPotential`]).
    #[serde(skip_serializing_if = "NewtonStart::is_default")]
    pub start: NewtonStart,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        Self {
            max_iterations: 50,
            abs_tol: 1e-10,
            rel_tol: 1e-9,
            max_backtracks: 40,
            max_step_halvings: 0,
            hessian: HessianStrategy::ExactShift,
            reuse_below: 0.0,
            local_updates: false,
            directions: Directions::Auto,
            carry_shift: false,
            majorize: false,
            start: NewtonStart::LowerPotential,
        }
    }
}

impl NewtonSettings {
    /// Checks the settings: finite, non-negative tolerances; at least one
    /// iteration; at most 12 halvings (4096 sub-steps) and 100 line-search
    /// backtracks (more only turn a failing step into a hang);
    /// `reuse_below` in `[0, 1)`.
    pub fn validate(&self) -> std::result::Result<(), crate::Invalid> {
        use crate::Invalid;
        Invalid::non_negative("newton.abs_tol", self.abs_tol, "N")?;
        Invalid::non_negative("newton.rel_tol", self.rel_tol, "relative")?;
        Invalid::check(
            self.max_iterations >= 1,
            "newton.max_iterations",
            self.max_iterations as f64,
            "at least 1",
        )?;
        Invalid::check(
            self.max_step_halvings <= MAX_STEP_HALVINGS,
            "newton.max_step_halvings",
            self.max_step_halvings as f64,
            "at most 12 (4096 sub-steps)",
        )?;
        Invalid::check(
            self.max_backtracks <= 100,
            "newton.max_backtracks",
            self.max_backtracks as f64,
            "at most 100 (a step of 2⁻¹⁰⁰ of Newton's)",
        )?;
        Invalid::check(
            (0.0..1.0).contains(&self.reuse_below),
            "newton.reuse_below",
            self.reuse_below,
            "in [0, 1)",
        )
    }

    /// Settings for fast forward simulation: the last factorization is
    /// reused while the residual falls at least 2× per iteration (also into
    /// the next step), a refused full step is followed by a majorized
    /// direction ([`NewtonSettings::majorize`]), and the absolute tolerance
    /// is 1e-6 N. On the Puppy
    /// (230 g) one simulated second ends at most 4e-8 m from where the
    /// default settings end (`cargo bench --bench fem_newton -- puppy` measures
    /// both; figures in `docs/benchmarks.md`). Sensitivities stay
    /// exact derivatives of the converged steps; gradient checks against
    /// finite differences of rollouts want the tight defaults (a 1e-6 N
    /// residual is noise at FD step sizes).
    pub fn fast() -> Self {
        Self {
            abs_tol: 1e-6,
            reuse_below: 0.5,
            max_iterations: 200,
            majorize: true,
            ..Self::default()
        }
    }
}
