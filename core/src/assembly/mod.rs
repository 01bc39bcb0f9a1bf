//! Sparse assembly of the energies' derivatives.
//!
//! The sparsity pattern is built once per model: every element block entry
//! whose row and column are both free and that lies in the lower triangle
//! becomes one slot, followed by one diagonal slot per free DOF (so the
//! inertia term keeps every DOF in the pattern). At each evaluation the
//! energies fill their dense per-element blocks in parallel, each element into
//! its own slice; the slots are then added, in slot order, into the entries
//! of a matrix the assembler keeps (each slot's entry is found once, when the
//! pattern is built). Nothing depends on scheduling, so results are bitwise
//! identical for any number of threads.

use crate::Invalid;
use crate::element::{Block, NO_PARAM, SplitHessian};
use crate::error::{CoreError, Result};
use crate::model::Model;
use crate::parallel::goes_parallel;
use crate::sparse::RankOne;
use crate::state::EvalState;
use faer::sparse::{Pair, SparseColMat, SparseColMatRef, SymbolicSparseColMatRef, Triplet};
use rayon::prelude::*;

mod blocks;
use blocks::{all_finite, finite, project_psd};

/// Marker for a constrained DOF in the global → free map.
pub const NOT_FREE: usize = usize::MAX;

/// Per-energy bookkeeping: where its blocks live in the shared buffers.
#[derive(Debug, Clone)]
struct Span {
    n_el: usize,
    ns: usize,
    np: usize,
    /// Offset of this energy's element DOF lists in `dofs`.
    dof_off: usize,
    /// Offset of this energy's Hessian blocks in `hess`.
    hess_off: usize,
    /// The split form of its Hessian blocks, if it gives one.
    split: Option<SplitHessian>,
    /// Offset of its rank-one data in `rank_one`.
    rank_off: usize,
}

impl Span {
    /// Hessian values per element in `hess`.
    fn hess_stride(&self) -> usize {
        self.split
            .as_ref()
            .map_or(self.ns * self.ns, |s| s.entries.len())
    }
    /// Rank-one values per element in `rank_one`.
    fn rank_stride(&self) -> usize {
        self.split
            .as_ref()
            .map_or(0, |s| s.rank_one_stride(self.ns))
    }
}

/// The rank-one terms kept out of the factorization, one extra unknown
/// each (see [`SplitHessian`]): term `k` is row `n_free + k` of the
/// assembled matrix.
#[derive(Debug, Clone, Default)]
struct Aux {
    /// For each term, the index in `rank_one` of its weight `w` (its
    /// vector follows).
    weight: Vec<usize>,
    /// For each term, the matrix entry of its diagonal.
    diag: Vec<usize>,
    /// For each off-diagonal entry: its term, the stencil position of the
    /// DOF, and the matrix entry it fills.
    entries: Vec<(usize, usize, usize)>,
}

/// Assembles energy, gradient and Hessian of a model's energies.
#[derive(Debug)]
pub struct Assembler {
    n: usize,
    free_dofs: Vec<usize>,
    spans: Vec<Span>,
    dofs: Vec<usize>,
    grad: Vec<f64>,
    hess: Vec<f64>,
    /// Rank-one data of the split energies.
    rank_one: Vec<f64>,
    /// The rank-one terms' extra unknowns.
    aux: Aux,
    /// For each element slot, the index in `hess` it reads (32-bit: an
    /// assembly streams these with the blocks, and a tetrahedral mesh has
    /// 78 slots per element).
    slots: Vec<u32>,
    /// For each slot, the entry of `matrix` it adds to; the last `n_free`
    /// slots are the diagonal (inertia/shift) slots.
    dest: Vec<u32>,
    /// The pattern with the values of the last assembly.
    matrix: SparseColMat<usize, f64>,
    /// `scale` of the last assembly (re-used by [`Assembler::with_diagonal`]).
    last_scale: f64,
    /// Each energy's [`crate::Energy::structure_version`] when the pattern was built.
    versions: Vec<u64>,
}

impl Assembler {
    /// Builds the sparsity pattern of `model` (lower triangle, free DOFs).
    pub fn new(model: &Model) -> Result<Self> {
        let n = model.n_dofs();
        let mut free_of = vec![NOT_FREE; n];
        let mut free_dofs = Vec::new();
        for (i, f) in free_of.iter_mut().enumerate() {
            if model.is_free(i) {
                *f = free_dofs.len();
                free_dofs.push(i);
            }
        }
        let mut spans = Vec::with_capacity(model.energies().len());
        let mut dofs = Vec::new();
        let (mut hess_len, mut rank_len) = (0, 0);
        for (k, e) in model.energies().iter().enumerate() {
            let set = e.elements();
            let (n_el, ns, np) = (set.len(), set.stencil_size(), set.param_size());
            let dof_off = dofs.len();
            dofs.resize(dof_off + n_el * ns, 0);
            for i in 0..n_el {
                set.dofs(i, &mut dofs[dof_off + i * ns..dof_off + (i + 1) * ns]);
            }
            let split = set.split_hessian().cloned();
            if let Some(sh) = &split
                && let Some(&(a, b)) = sh.entries.iter().find(|(a, b)| *a >= ns || *b >= ns)
            {
                return Err(CoreError::LinearSolve {
                    what: "assembly pattern",
                    detail: format!(
                        "{} declares Hessian entry ({a}, {b}) outside its stencil of {ns} DOFs",
                        model.describe_energy(k)
                    ),
                });
            }
            let span = Span {
                n_el,
                ns,
                np,
                dof_off,
                hess_off: hess_len,
                split,
                rank_off: rank_len,
            };
            hess_len += n_el * span.hess_stride();
            rank_len += n_el * span.rank_stride();
            spans.push(span);
        }
        let nf = free_dofs.len();
        let mut pairs = Vec::new();
        let mut slots = Vec::new();
        // (term, stencil position, index of its pair) of the rank-one terms.
        let mut aux_pairs = Vec::new();
        let mut aux_weight = Vec::new();
        for sp in &spans {
            let stride = sp.hess_stride();
            for i in 0..sp.n_el {
                let d = &dofs[sp.dof_off + i * sp.ns..sp.dof_off + (i + 1) * sp.ns];
                let mut slot = |a: usize, b: usize, at: usize| {
                    let (fa, fb) = (free_of[d[a]], free_of[d[b]]);
                    if fa != NOT_FREE && fb != NOT_FREE && fa >= fb {
                        pairs.push(Pair::new(fa, fb));
                        slots.push(sp.hess_off + i * stride + at);
                    }
                };
                match &sp.split {
                    None => {
                        for a in 0..sp.ns {
                            for b in 0..sp.ns {
                                slot(a, b, a * sp.ns + b);
                            }
                        }
                    }
                    Some(sh) => {
                        for (at, &(a, b)) in sh.entries.iter().enumerate() {
                            slot(a, b, at);
                        }
                        for r in 0..sh.rank {
                            let term = aux_weight.len();
                            let w = sp.rank_off + i * sp.rank_stride() + r * (1 + sp.ns);
                            aux_weight.push(w);
                            for (a, &da) in d.iter().enumerate() {
                                if free_of[da] != NOT_FREE {
                                    aux_pairs.push((term, a, pairs.len()));
                                    pairs.push(Pair::new(nf + term, free_of[da]));
                                }
                            }
                        }
                    }
                }
            }
        }
        let n_aux = aux_weight.len();
        let diag_at = pairs.len();
        for f in 0..nf + n_aux {
            pairs.push(Pair::new(f, f));
        }
        let (symbolic, mut dest) = crate::sparse::pattern_of(nf + n_aux, &pairs)?;
        // The slots read from `hess` come first in `dest`, then the
        // diagonal; the rank-one entries are moved out into `aux`.
        let aux = Aux {
            diag: dest[diag_at + nf..].to_vec(),
            entries: aux_pairs
                .iter()
                .map(|&(term, a, at)| (term, a, dest[at]))
                .collect(),
            weight: aux_weight,
        };
        let keep: Vec<bool> = {
            let mut k = vec![true; pairs.len()];
            for &(_, _, at) in &aux_pairs {
                k[at] = false;
            }
            k
        };
        let mut it = keep.iter();
        dest.retain(|_| *it.next().expect("one flag per pair"));
        dest.truncate(slots.len() + nf);
        let nnz = symbolic.row_idx().len();
        if hess_len.max(nnz) >= u32::MAX as usize {
            return Err(Invalid::new(
                "model size",
                hess_len.max(nnz) as f64,
                "fewer than 2³² element Hessian entries and matrix entries",
            )
            .into());
        }
        let narrow = |v: Vec<usize>| -> Vec<u32> { v.into_iter().map(|i| i as u32).collect() };
        let (slots, dest) = (narrow(slots), narrow(dest));
        let matrix = SparseColMat::new(symbolic, vec![0.0; nnz]);
        let grad_len = spans.iter().map(|s| s.n_el * s.ns).sum();
        Ok(Self {
            n,
            free_dofs,
            spans,
            dofs,
            grad: vec![0.0; grad_len],
            hess: vec![0.0; hess_len],
            rank_one: vec![0.0; rank_len],
            aux,
            slots,
            dest,
            matrix,
            last_scale: 0.0,
            versions: model
                .energies()
                .iter()
                .map(|e| e.structure_version())
                .collect(),
        })
    }

    /// Whether the pattern still matches the energies' element sets (no
    /// energy changed its [`crate::Energy::structure_version`] since).
    pub(crate) fn is_current(&self, model: &Model) -> bool {
        self.versions.len() == model.energies().len()
            && model
                .energies()
                .iter()
                .zip(&self.versions)
                .all(|(e, &v)| e.structure_version() == v)
    }

    /// Number of DOFs.
    pub fn n_dofs(&self) -> usize {
        self.n
    }
    /// Number of free DOFs.
    pub fn n_free(&self) -> usize {
        self.free_dofs.len()
    }
    /// Free DOFs in solve order.
    pub fn free_dofs(&self) -> &[usize] {
        &self.free_dofs
    }
    /// Number of stored entries of the assembled lower-triangular Hessian.
    pub fn nnz(&self) -> usize {
        self.matrix.compute_nnz()
    }
    /// Symbolic structure of the assembled Hessian (lower triangle; with
    /// [`Assembler::n_aux`] extra rows for split energies' rank-one terms).
    pub fn symbolic(&self) -> SymbolicSparseColMatRef<'_, usize> {
        self.matrix.symbolic()
    }

    /// Total energy of all energies (J), summed in model order.
    pub fn energy(&self, model: &Model, s: &EvalState) -> f64 {
        model.energies().iter().map(|e| e.elements().value(s)).sum()
    }

    /// [`Assembler::energy`] (returned) and [`Assembler::add_gradient`] in
    /// one pass over each energy's elements, bit for bit what the two give.
    pub fn energy_and_gradient(
        &mut self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        out: &mut [f64],
    ) -> f64 {
        let mut off = 0;
        let mut values = Vec::with_capacity(self.spans.len());
        for (e, sp) in model.energies().iter().zip(&self.spans) {
            let len = sp.n_el * sp.ns;
            values.push(
                e.elements()
                    .value_and_gradient(s, &mut self.grad[off..off + len]),
            );
            off += len;
        }
        self.scatter_gradient(scale, out);
        // Summed as `energy` sums them.
        values.into_iter().sum()
    }

    /// Adds `scale · ∇E` (full DOF length) to `out`.
    pub fn add_gradient(&mut self, model: &Model, s: &EvalState, scale: f64, out: &mut [f64]) {
        let mut off = 0;
        for (e, sp) in model.energies().iter().zip(&self.spans) {
            let len = sp.n_el * sp.ns;
            e.elements()
                .blocks(s, Block::Gradient, &mut self.grad[off..off + len]);
            off += len;
        }
        self.scatter_gradient(scale, out);
    }

    /// Adds `scale ·` the element gradient blocks to their DOFs of `out`.
    fn scatter_gradient(&self, scale: f64, out: &mut [f64]) {
        for (g, &d) in self.grad.iter().zip(&self.dofs) {
            out[d] += scale * g;
        }
    }

    /// Fills the element Hessian blocks; with `project`, each block is
    /// replaced by its projection onto the positive semidefinite cone. A
    /// non-finite entry is an error naming the energy and element; with
    /// `check` false the dense blocks are not scanned here (the caller
    /// checks what it reads of them, see [`Assembler::hessian`]); with
    /// `majorize`, the dense blocks are those for a Newton direction (see
    /// [`ElementSet::majorized_hessian_blocks`](crate::ElementSet::majorized_hessian_blocks)).
    fn fill_hessian_blocks(
        &mut self,
        model: &Model,
        s: &EvalState,
        project: bool,
        check: bool,
        majorize: bool,
    ) -> Result<()> {
        for (k, (e, sp)) in model.energies().iter().zip(&self.spans).enumerate() {
            let stride = sp.hess_stride();
            let blocks = &mut self.hess[sp.hess_off..sp.hess_off + sp.n_el * stride];
            if sp.split.is_some() {
                let rs = sp.rank_stride();
                let rank = &mut self.rank_one[sp.rank_off..sp.rank_off + sp.n_el * rs];
                e.elements().split_blocks(s, blocks, rank);
                finite(rank, Block::Hessian, model, k, rs)?;
            } else if majorize {
                e.elements().majorized_hessian_blocks(s, blocks);
            } else {
                e.elements().blocks(s, Block::Hessian, blocks);
            }
            if check {
                finite(blocks, Block::Hessian, model, k, stride)?;
            }
        }
        if project {
            self.project_blocks();
        }
        Ok(())
    }

    /// Errors on the first non-finite entry of the element Hessian blocks
    /// (naming the energy and element), else on the first non-finite entry
    /// of the assembled matrix (a sum that overflowed).
    fn non_finite_hessian(&self, model: &Model) -> Result<()> {
        for (k, sp) in self.spans.iter().enumerate() {
            let stride = sp.hess_stride();
            let blocks = &self.hess[sp.hess_off..sp.hess_off + sp.n_el * stride];
            finite(blocks, Block::Hessian, model, k, stride)?;
        }
        let vals = self.matrix.val();
        match vals.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(bad) => Err(CoreError::NonFinite {
                what: "assembled Hessian (stored entry of its lower triangle)".into(),
                index: bad,
                value: vals[bad],
            }),
        }
    }

    /// Projects the dense blocks; split blocks are left as they are (their
    /// rank-one terms are positive semidefinite when `w ≥ 0`, and a
    /// projection of the whole block would make it dense again).
    fn project_blocks(&mut self) {
        for sp in self.spans.iter().filter(|sp| sp.split.is_none()) {
            let (ns, len) = (sp.ns, sp.n_el * sp.ns * sp.ns);
            let blocks = &mut self.hess[sp.hess_off..sp.hess_off + len];
            if !goes_parallel(sp.n_el) {
                blocks.chunks_mut(ns * ns).for_each(|b| project_psd(b, ns));
            } else {
                blocks
                    .par_chunks_mut(ns * ns)
                    .for_each(|b| project_psd(b, ns));
            }
        }
    }

    /// Sums `scale ·` the element slots and then `diag` into the matrix's
    /// entries, each entry's contributions in slot order.
    fn gather(&mut self, scale: f64, diag: &[f64]) -> SparseColMatRef<'_, usize, f64> {
        assert_eq!(diag.len(), self.n_free(), "one diagonal entry per free DOF");
        self.last_scale = scale;
        let ne = self.slots.len();
        let vals = self.matrix.val_mut();
        vals.fill(0.0);
        for (&d, &si) in self.dest[..ne].iter().zip(&self.slots) {
            vals[d as usize] += scale * self.hess[si as usize];
        }
        for (&d, &v) in self.dest[ne..].iter().zip(diag) {
            vals[d as usize] += v;
        }
        // Term k of `scale · w u uᵀ` as its column `√(scale |w|) u` and the
        // diagonal `−sign w` (see `SplitHessian`).
        let (aux, rank_one) = (&self.aux, &self.rank_one);
        for (&w_at, &d) in aux.weight.iter().zip(&aux.diag) {
            vals[d] = if scale * rank_one[w_at] < 0.0 {
                1.0
            } else {
                -1.0
            };
        }
        for &(term, a, d) in &aux.entries {
            let w_at = aux.weight[term];
            vals[d] = (scale * rank_one[w_at]).abs().sqrt() * rank_one[w_at + 1 + a];
        }
        self.matrix.as_ref()
    }

    /// Number of rank-one terms kept out of the factorization: the
    /// assembled matrix has `n_free + n_aux` rows (see [`SplitHessian`]),
    /// and the Hessian is its Schur complement on the first `n_free`.
    pub fn n_aux(&self) -> usize {
        self.aux.weight.len()
    }

    /// Projects the element blocks of the last [`Assembler::hessian`] onto the
    /// PSD cone and re-assembles, without re-evaluating the energies.
    pub fn reproject(&mut self, scale: f64, diag: &[f64]) -> SparseColMatRef<'_, usize, f64> {
        self.project_blocks();
        self.gather(scale, diag)
    }

    /// Assembles the lower triangle of `scale · ∇²E + diag(diag)` over the
    /// free DOFs (`diag` has one entry per free DOF, e.g. `M` for inertia).
    /// With split energies the matrix is the augmented one (see
    /// [`Assembler::n_aux`]); [`crate::linsolve::LinearSolver`] solves with
    /// it as with the Hessian itself.
    pub fn hessian(
        &mut self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        diag: &[f64],
        project: bool,
    ) -> Result<SparseColMatRef<'_, usize, f64>> {
        self.hessian_with(model, s, scale, diag, project, false)
    }

    /// [`Assembler::hessian`]; with `majorize`, from the element blocks
    /// Newton asks for a direction after a refused full step (see
    /// [`ElementSet::majorized_hessian_blocks`](crate::ElementSet::majorized_hessian_blocks)).
    pub(crate) fn hessian_with(
        &mut self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        diag: &[f64],
        project: bool,
        majorize: bool,
    ) -> Result<SparseColMatRef<'_, usize, f64>> {
        // The dense blocks are checked through the matrix they sum into: a
        // non-finite entry stays non-finite in every sum (NaN, or ±∞ unless
        // it meets the opposite infinity, which gives NaN), and the matrix
        // is a fraction of the blocks' memory (a tetrahedral mesh's
        // 144-entry blocks hold about 12 times its lower triangle's
        // entries). Only then are the blocks searched, for the message.
        // Entries the matrix does not read (fixed DOFs, the upper halves)
        // do not enter the Newton solve.
        self.fill_hessian_blocks(model, s, project, false, majorize)?;
        self.gather(scale, diag);
        if !all_finite(self.matrix.val()) {
            self.non_finite_hessian(model)?;
        }
        Ok(self.matrix.as_ref())
    }

    /// Re-assembles the last Hessian with a different diagonal, without
    /// re-evaluating the energies (used for diagonal regularisation): the
    /// element blocks as they are now (projected if [`Assembler::reproject`]
    /// ran since) with the last assembly's scale.
    pub fn with_diagonal(&mut self, diag: &[f64]) -> SparseColMatRef<'_, usize, f64> {
        self.gather(self.last_scale, diag)
    }

    /// Full (both triangles, all DOFs) exact Hessian `∂²E/∂q²` scaled by
    /// `scale`: triplets, and split energies' rank-one terms in `terms` (see
    /// [`Assembler::last_hessian_split_triplets`]).
    pub(crate) fn hessian_triplets(
        &mut self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        t: &mut Vec<Triplet<usize, usize, f64>>,
        terms: &mut Vec<RankOne>,
    ) -> Result<()> {
        self.fill_hessian_blocks(model, s, false, true, false)?;
        self.last_hessian_split_triplets(scale, t, terms);
        Ok(())
    }

    /// The element blocks of the last (unprojected) [`Assembler::hessian`],
    /// scaled by `scale`, as full-matrix triplets — without re-evaluating;
    /// split energies' rank-one terms expanded into dense blocks.
    pub fn last_hessian_triplets(&self, scale: f64, t: &mut Vec<Triplet<usize, usize, f64>>) {
        self.hessian_entries(scale, t, None);
    }

    /// [`Assembler::last_hessian_triplets`] with split energies' rank-one
    /// terms `scale · w u uᵀ` pushed to `terms` (over the full DOF vector)
    /// instead of expanded: an ideal-gas cavity of `n` nodes adds one
    /// vector of `3n` entries rather than `9n²` triplets.
    pub(crate) fn last_hessian_split_triplets(
        &self,
        scale: f64,
        t: &mut Vec<Triplet<usize, usize, f64>>,
        terms: &mut Vec<RankOne>,
    ) {
        self.hessian_entries(scale, t, Some(terms));
    }

    fn hessian_entries(
        &self,
        scale: f64,
        t: &mut Vec<Triplet<usize, usize, f64>>,
        mut terms: Option<&mut Vec<RankOne>>,
    ) {
        for sp in &self.spans {
            let stride = sp.hess_stride();
            for i in 0..sp.n_el {
                let d = &self.dofs[sp.dof_off + i * sp.ns..sp.dof_off + (i + 1) * sp.ns];
                let block = &self.hess[sp.hess_off + i * stride..sp.hess_off + (i + 1) * stride];
                let mut push = |a: usize, b: usize, v: f64| {
                    if v != 0.0 {
                        t.push(Triplet::new(d[a], d[b], scale * v));
                    }
                };
                let Some(sh) = &sp.split else {
                    for a in 0..sp.ns {
                        for b in 0..sp.ns {
                            push(a, b, block[a * sp.ns + b]);
                        }
                    }
                    continue;
                };
                for (&(a, b), &v) in sh.entries.iter().zip(block) {
                    push(a, b, v);
                }
                let rs = sp.rank_stride();
                let data = &self.rank_one[sp.rank_off + i * rs..sp.rank_off + (i + 1) * rs];
                for term in data.chunks_exact(1 + sp.ns) {
                    let (w, u) = (term[0], &term[1..]);
                    if let Some(terms) = terms.as_deref_mut() {
                        let vector: Vec<(usize, f64)> = u
                            .iter()
                            .enumerate()
                            .filter(|(_, ua)| **ua != 0.0)
                            .map(|(a, &ua)| (d[a], ua))
                            .collect();
                        if w != 0.0 && !vector.is_empty() {
                            terms.push(RankOne {
                                weight: scale * w,
                                vector,
                            });
                        }
                        continue;
                    }
                    for (a, ua) in u.iter().enumerate() {
                        for (b, ub) in u.iter().enumerate() {
                            push(a, b, w * ua * ub);
                        }
                    }
                }
            }
        }
    }

    /// `scale · ∂²E/∂q∂q_prev` as triplets (rows: evaluation point, columns: previous state).
    pub(crate) fn history_triplets(
        &self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        t: &mut Vec<Triplet<usize, usize, f64>>,
    ) -> Result<()> {
        for (k, (e, sp)) in model.energies().iter().zip(&self.spans).enumerate() {
            if !e.elements().uses_history() || sp.n_el == 0 {
                continue;
            }
            let mut blocks = vec![0.0; sp.n_el * sp.ns * sp.ns];
            e.elements().blocks(s, Block::History, &mut blocks);
            finite(&blocks, Block::History, model, k, sp.ns * sp.ns)?;
            for i in 0..sp.n_el {
                let d = &self.dofs[sp.dof_off + i * sp.ns..sp.dof_off + (i + 1) * sp.ns];
                for a in 0..sp.ns {
                    for b in 0..sp.ns {
                        let v = blocks[(i * sp.ns + a) * sp.ns + b];
                        if v != 0.0 {
                            t.push(Triplet::new(d[a], d[b], scale * v));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// `scale · ∂²E/∂q∂p` as triplets (rows: DOFs, columns: parameter channels).
    pub(crate) fn param_triplets(
        &self,
        model: &Model,
        s: &EvalState,
        scale: f64,
        t: &mut Vec<Triplet<usize, usize, f64>>,
    ) -> Result<()> {
        for (k, (e, sp)) in model.energies().iter().zip(&self.spans).enumerate() {
            if sp.np == 0 || sp.n_el == 0 {
                continue;
            }
            let set = e.elements();
            let mut blocks = vec![0.0; sp.n_el * sp.ns * sp.np];
            e.elements().blocks(s, Block::Param, &mut blocks);
            finite(&blocks, Block::Param, model, k, sp.ns * sp.np)?;
            let mut pi = vec![0; sp.np];
            for i in 0..sp.n_el {
                set.params(i, &mut pi);
                let d = &self.dofs[sp.dof_off + i * sp.ns..sp.dof_off + (i + 1) * sp.ns];
                for a in 0..sp.ns {
                    for (b, &pb) in pi.iter().enumerate() {
                        let v = blocks[(i * sp.ns + a) * sp.np + b];
                        if v != 0.0 && pb != NO_PARAM {
                            t.push(Triplet::new(d[a], pb, scale * v));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
