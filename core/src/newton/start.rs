//! Where a time step's Newton solve starts.

use serde::{Deserialize, Serialize};

/// The state a time step's Newton solve starts from. Either way the step
/// ends at a stationary point of the same incremental potential meeting the
/// same tolerance; the start only changes how many iterations that takes
/// (and, where the potential is not convex — contact, buckling — possibly
/// which local minimum is found).
///
/// Measured (release, this repository's 2-core machine, 2026-11-28):
///
/// | scene | `lower_potential` | `predictor` |
/// |---|---|---|
/// | 10³-cell block landing on the ground (`cargo bench --bench fem_block -- 10 [--predictor-start]`), Newton iterations per step | 2.67 | 3.93 |
/// | soft snake, planar rolling, dt 5 ms (`cargo run --release --example snake -- planar`) | 7.93 | 4.73 |
///
/// The block is predicted a centimetre into the ground on the step it
/// lands, far from where it stops; the rolling snake's step ends about 50×
/// closer to the predictor than to the previous state, yet its ground
/// damping and friction — dissipation potentials, zero at the previous state
/// — give the previous state the lower potential.
///
/// Static solves (`static`: the predictor is the previous state) and the
/// explicit symplectic Euler (no Newton solve) are the same under either.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewtonStart {
    /// The inertial predictor `x̃ = x₀ + h v₀` or the previous state `x₀`,
    /// whichever has the lower incremental potential (the predictor can be
    /// infeasible — an inverted element, infinite potential — or far from
    /// the solution when a contact stops the motion).
    #[default]
    LowerPotential,
    /// The inertial predictor, unless its incremental potential is not
    /// finite (then the previous state). Best when the motion is steady and
    /// the dissipation potentials (friction, damping) are large: rolling,
    /// sliding, crawling.
    Predictor,
}

impl NewtonStart {
    /// Whether the default, so scene files written before this setting
    /// existed stay byte-identical.
    pub(crate) fn is_default(&self) -> bool {
        *self == Self::default()
    }
}
