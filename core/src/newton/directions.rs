//! How Newton directions are solved for: [`Directions`] and the rule of
//! its automatic choice.

use serde::{Deserialize, Serialize};

/// How Newton directions are computed (a field of [`super::NewtonSettings`]).
///
/// With PCG, each direction solves the exact Hessian system by
/// preconditioned conjugate gradients, the preconditioner being the last
/// factorization, kept across iterations and time steps (inexact Newton with
/// the Eisenstat–Walker forcing term, choice 2). A new factorization is taken
/// when PCG needs more than [`super::PCG_MAX_ITERATIONS`] iterations, meets negative
/// curvature, or its direction fails the line search, and for the next
/// direction when one took more than 3 iterations (the kept factorization no
/// longer resembles the Hessian). The converged state meets the same
/// tolerance; sensitivities and adjoints always use an exact factorization.
/// PCG pays where a factorization costs many triangular solves: 3-D meshes,
/// whose factors hold hundreds of entries per unknown (measured by
/// `cargo bench --bench fem_block`; figures in `docs/benchmarks.md`).
///
/// With multigrid, the preconditioner is a smoothed-aggregation hierarchy
/// built from the Hessian and the rigid motions of the nodes (no
/// factorization of the full Hessian): its cost grows linearly with the
/// mesh where a 3-D factorization's grows about quadratically. It is kept
/// across iterations and steps and rebuilt when a solve needs more than
/// [`AMG_REFRESH_ABOVE`] iterations; where PCG fails (negative curvature,
/// more than [`AMG_MAX_ITERATIONS`] iterations, a rejected direction) that
/// direction is factorized as with [`Directions::Direct`], shifts included.
/// It needs every free unknown to be a node coordinate and no split
/// Hessians; otherwise it acts as [`Directions::Pcg`].
///
/// With geometric multigrid, the preconditioner's levels are coarser
/// meshes of the same body given with [`crate::Simulator::set_coarse_models`]
/// (nested meshes such as a mesh and its 1 : 4 refinements, or meshes of
/// the same surface tied by interpolation), each with its own step Hessian
/// at the iterate placed on it, V-cycles with Chebyshev
/// smoothing (see [`crate::CoarseModel`]); a coarse level whose own
/// Hessian is not positive definite at the iterate (a coarser plate
/// buckling where the finer one does not) takes its element Hessians
/// projected onto the PSD cone; kept, rebuilt and backed by
/// factorizations as multigrid is (a rebuild keeps what the meshes fix:
/// the prolongations and the finest level's pattern). Without coarse
/// models it acts as [`Directions::Pcg`]. On thin shells, whose bending
/// defeats the rigid-motion coarse spaces of [`Directions::Amg`], its PCG
/// iterations per step stay flat with the mesh (the manta ray: 30–34
/// from 5,600 to 358,400 triangles, 38–45 once it flaps); over 30
/// flapping steps it matched a kept factorization at 22,400 triangles and
/// was 7–16 % faster at 89,600 (`docs/benchmarks.md`; before its
/// rebuilds kept the fixed parts, which made its runs there 19–21 %
/// faster still).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Directions {
    /// Geometric multigrid when the simulator has coarse models and the
    /// factor would have at least [`GEOMETRIC_MIN_FACTOR_ENTRIES`] entries; else
    /// multigrid when the factor would have at least
    /// [`AMG_MIN_FACTOR_ENTRIES`] entries with the fill of a 3-D mesh
    /// ([`AMG_MIN_FILL_PER_LOG2`]) and multigrid applies; else PCG
    /// when the factor has at least [`PCG_MIN_FACTOR_ENTRIES`] entries and
    /// at least [`PCG_MIN_FILL`] per unknown (large 3-D meshes); direct
    /// solves otherwise (robots, rods, sheets). Depends on the sparsity
    /// pattern and the kinds of the free unknowns alone.
    #[default]
    Auto,
    /// Always the factorization of the current Hessian (or, with
    /// `reuse_below`, a recent one).
    Direct,
    /// Always PCG with a kept factorization.
    Pcg,
    /// PCG with a smoothed-aggregation multigrid preconditioner.
    Amg,
    /// PCG with a geometric multigrid preconditioner over the coarse
    /// models of [`crate::Simulator::set_coarse_models`].
    Geometric,
}

/// [`Directions::Auto`] uses PCG on factors with at least this many entries.
pub const PCG_MIN_FACTOR_ENTRIES: usize = 500_000;

/// [`Directions::Auto`] uses geometric multigrid, where the simulator has
/// coarse models, on factors with at least this many entries. On the
/// manta ray's refinements over 30 steps of flapping
/// (`PLIANT_MANTA_STEPS=30 PLIANT_MANTA_REFINE=… cargo bench --bench shell
/// -- scaling`, 2026-12-01, two interleaved rounds, µs per triangle-step,
/// means), PCG with a kept factorization against multigrid: 24.7, 24.2
/// against 31.1, 34.2 at 5,600 triangles (1.45·10⁶ factor entries); 30.7,
/// 30.8 against 30.7, 31.9 at 22,400 (7.7·10⁶); 42.4, 37.2 against 35.5,
/// 34.5 at 89,600 (39.5·10⁶). So it is taken between the last two.
pub const GEOMETRIC_MIN_FACTOR_ENTRIES: usize = 20_000_000;

/// [`Directions::Auto`] uses PCG on factors with at least this many entries
/// per unknown (a 10 × 10 × 10-cell tetrahedral block has 239, a chain of
/// rod edges about 10).
pub const PCG_MIN_FILL: usize = 150;

/// [`Directions::Auto`] uses multigrid where the factor would have at least
/// this many entries (and the fill of a 3-D mesh, [`AMG_MIN_FILL_PER_LOG2`]).
/// On the tetrahedral block (`cargo bench --bench fem_block -- 10 15 [--amg]`,
/// 2026-11-27) PCG with a kept factorization was 1.1× faster at 10³ cells
/// (0.95·10⁶ factor entries), multigrid 1.5× faster at 15³ (5.3·10⁶).
pub const AMG_MIN_FACTOR_ENTRIES: usize = 2_000_000;

/// [`Directions::Auto`] uses multigrid where the factor holds at least this
/// many entries per unknown per binary digit of the unknowns' count
/// (`entries / n ≥ 22 · log₂ n`): a 3-D mesh's nested-dissection fill per
/// unknown grows as `n^(1/3)` (tetrahedral blocks: 24.6 at 12³ cells, 39.6
/// at 20³), a 2-D mesh's as `log n` (the manta ray's shells: 10 to 18 from
/// 1,372 to 130,150 triangles). Multigrid lost on those shells (13,464
/// triangles: 720 ms per step against 384 with PCG and a kept
/// factorization, `PLIANT_DIRECTIONS=amg cargo bench --bench shell --
/// scaling`): thin shells' bending is not what the rigid-motion coarse
/// spaces capture.
pub const AMG_MIN_FILL_PER_LOG2: usize = 22;

/// Most multigrid-preconditioned CG iterations for one Newton direction.
pub const AMG_MAX_ITERATIONS: usize = 50;

/// A multigrid-preconditioned solve that took more iterations than this
/// has the hierarchy rebuilt from the next Hessian. On the 20³-cell block
/// (`cargo bench --bench fem_block -- 20 --amg`) rebuilding for every
/// direction saved no PCG iterations (16.0 against 17.2 per step) and
/// cost 2.6× the time: a setup costs about 20 iterations.
pub const AMG_REFRESH_ABOVE: usize = 12;

/// The forcing term of a multigrid-preconditioned direction is at most
/// this: one V-cycle is a rougher inverse than a kept factorization, and
/// with the Eisenstat–Walker term alone (up to 0.5) a hard step (a landing
/// block) fell into one-iteration directions, backtracking and 29 Newton
/// iterations; capped, 40³ cells took 1.24× less time.
pub(super) const AMG_MAX_FORCING: f64 = 0.1;

/// How one Newton solve computes its directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Direct,
    Pcg,
    Amg,
    Geometric,
}

impl Directions {
    /// The mode for a factor of `factor_entries` entries over `unknowns`
    /// unknowns, `amg` saying whether multigrid applies and `geometric`
    /// whether coarse models were given.
    pub(super) fn mode(
        self,
        factor_entries: usize,
        unknowns: usize,
        amg: bool,
        geometric: bool,
    ) -> Mode {
        let pcg = factor_entries >= PCG_MIN_FACTOR_ENTRIES
            && factor_entries >= PCG_MIN_FILL * unknowns.max(1);
        let solid = (factor_entries as f64)
            >= (AMG_MIN_FILL_PER_LOG2 * unknowns.max(2)) as f64 * (unknowns.max(2) as f64).log2();
        match self {
            Directions::Auto if geometric && factor_entries >= GEOMETRIC_MIN_FACTOR_ENTRIES => {
                Mode::Geometric
            }
            Directions::Auto if amg && solid && factor_entries >= AMG_MIN_FACTOR_ENTRIES => {
                Mode::Amg
            }
            Directions::Auto if pcg => Mode::Pcg,
            Directions::Auto | Directions::Direct => Mode::Direct,
            Directions::Pcg => Mode::Pcg,
            Directions::Amg if amg => Mode::Amg,
            Directions::Amg => Mode::Pcg,
            Directions::Geometric if geometric => Mode::Geometric,
            Directions::Geometric => Mode::Pcg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_picks_multigrid_for_large_solid_meshes_only() {
        // Factor entries and unknowns measured on the tetrahedral block
        // (`cargo bench --bench fem_block`) and the manta ray's shells.
        let auto = |entries, unknowns| Directions::Auto.mode(entries, unknowns, true, false);
        assert_eq!(auto(5_317_164, 12_288), Mode::Amg, "block, 15³ cells");
        assert_eq!(auto(16_275_735, 27_783), Mode::Amg, "block, 20³ cells");
        assert_eq!(auto(953_712, 3_993), Mode::Pcg, "block, 10³ cells");
        assert_eq!(
            auto(61_883_145, 196_761),
            Mode::Pcg,
            "manta, 130k triangles"
        );
        assert_eq!(auto(4_256_442, 20_691), Mode::Pcg, "manta, 13k triangles");
        assert_eq!(auto(20_000, 2_000), Mode::Direct, "a rod");
        // Multigrid needs every free unknown to be a node coordinate.
        assert_eq!(
            Directions::Auto.mode(16_275_735, 27_783, false, false),
            Mode::Pcg
        );
        assert_eq!(Directions::Amg.mode(20_000, 2_000, false, false), Mode::Pcg);
        assert_eq!(Directions::Amg.mode(20_000, 2_000, true, false), Mode::Amg);
        assert_eq!(
            Directions::Direct.mode(16_275_735, 27_783, true, true),
            Mode::Direct
        );
    }

    #[test]
    fn auto_picks_geometric_multigrid_where_coarse_models_were_given_and_the_factor_is_large() {
        // The manta ray on refinements of its 350-triangle mesh: 1,400
        // triangles (255,483 factor entries) stay direct, 5,600 and 22,400
        // (1.45·10⁶, 7.7·10⁶) take PCG, 89,600 (39.5·10⁶) and larger
        // geometric multigrid.
        let auto = |entries, unknowns| Directions::Auto.mode(entries, unknowns, true, true);
        assert_eq!(auto(255_483, 2_259), Mode::Direct);
        assert_eq!(auto(1_449_423, 8_715), Mode::Pcg);
        assert_eq!(auto(7_700_000, 34_227), Mode::Pcg);
        assert_eq!(auto(39_537_108, 135_651), Mode::Geometric);
        // Without coarse models, the same factor takes PCG.
        assert_eq!(
            Directions::Auto.mode(39_537_108, 135_651, true, false),
            Mode::Pcg
        );
        assert_eq!(
            Directions::Geometric.mode(20_000, 2_000, true, true),
            Mode::Geometric
        );
        assert_eq!(
            Directions::Geometric.mode(20_000, 2_000, true, false),
            Mode::Pcg
        );
    }

    #[test]
    fn scene_files_name_the_directions_in_snake_case() {
        let d: Directions = serde_json::from_str("\"amg\"").unwrap();
        assert_eq!(d, Directions::Amg);
        assert_eq!(serde_json::to_string(&Directions::Pcg).unwrap(), "\"pcg\"");
    }
}
