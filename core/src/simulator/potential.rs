//! The incremental potential a time step minimizes (see [`crate::integrator`]).

use crate::assembly::Assembler;
use crate::error::Result;
use crate::integrator::StepForm;
use crate::local_blocks::{LocalBlocks, LocalEntries};
use crate::model::Model;
use crate::newton::Potential;
use crate::state::EvalState;
use faer::sparse::SparseColMatRef;

/// The state the energies see at the evaluation point `y` of a step.
fn eval_state<'s>(
    y: &'s [f64],
    x_prev: &'s [f64],
    p: &'s [f64],
    form: &StepForm,
    t: f64,
) -> EvalState<'s> {
    EvalState {
        q: y,
        q_prev: x_prev,
        p,
        h: form.h_eval,
        dt: form.step,
        t,
    }
}

/// The incremental potential of one step (see [`crate::integrator`]).
pub(super) struct StepPotential<'a> {
    model: &'a Model,
    asm: &'a mut Assembler,
    local: &'a mut LocalBlocks,
    form: StepForm,
    x_tilde: &'a [f64],
    x_prev: &'a [f64],
    p: &'a [f64],
    t_eval: f64,
    mass_free: &'a [f64],
    y: Vec<f64>,
    g_full: Vec<f64>,
    diag: Vec<f64>,
}

impl<'a> StepPotential<'a> {
    /// The potential of a step of form `form` from `x_prev` towards the
    /// inertial guess `x_tilde`, with parameters `p`, evaluated at `t_eval`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        model: &'a Model,
        asm: &'a mut Assembler,
        local: &'a mut LocalBlocks,
        form: StepForm,
        x_tilde: &'a [f64],
        x_prev: &'a [f64],
        p: &'a [f64],
        t_eval: f64,
        mass_free: &'a [f64],
    ) -> Self {
        let n = x_prev.len();
        Self {
            model,
            asm,
            local,
            form,
            x_tilde,
            x_prev,
            p,
            t_eval,
            mass_free,
            y: vec![0.0; n],
            g_full: vec![0.0; n],
            diag: vec![0.0; mass_free.len()],
        }
    }

    /// `Φ` at `x` from the energies' total `e` (J): `½ c_m |x − x̃|²_M + c_e e`.
    fn total(&self, x: &[f64], e: f64) -> f64 {
        let mut kin = 0.0;
        if self.form.c_m != 0.0 {
            for (&i, &m) in self.asm.free_dofs().iter().zip(self.mass_free) {
                let d = x[i] - self.x_tilde[i];
                kin += m * d * d;
            }
        }
        0.5 * self.form.c_m * kin + self.form.c_e * e
    }
    /// `∇Φ` over the free DOFs into `g` from the energies' gradient `gf`
    /// (full DOF length, already scaled by `c_e a_y`).
    fn free_gradient(&self, x: &[f64], gf: &[f64], g: &mut [f64]) {
        for (k, &i) in self.asm.free_dofs().iter().enumerate() {
            g[k] = gf[i] + self.form.c_m * self.mass_free[k] * (x[i] - self.x_tilde[i]);
        }
    }
    fn eval_point(&mut self, x: &[f64]) {
        let (a, b) = (self.form.a_y, self.form.b_y);
        if b == 0.0 {
            self.y.copy_from_slice(x);
        } else {
            for ((y, xi), xp) in self.y.iter_mut().zip(x).zip(self.x_prev) {
                *y = a * xi + b * xp;
            }
        }
    }
    fn state(&self) -> EvalState<'_> {
        eval_state(&self.y, self.x_prev, self.p, &self.form, self.t_eval)
    }
}

impl Potential for StepPotential<'_> {
    fn value(&mut self, x: &[f64]) -> f64 {
        self.eval_point(x);
        let e = self.asm.energy(self.model, &self.state());
        self.total(x, e)
    }
    fn gradient(&mut self, x: &[f64], g: &mut [f64]) {
        self.eval_point(x);
        let mut gf = std::mem::take(&mut self.g_full);
        gf.fill(0.0);
        let s = eval_state(&self.y, self.x_prev, self.p, &self.form, self.t_eval);
        self.asm
            .add_gradient(self.model, &s, self.form.c_e * self.form.a_y, &mut gf);
        self.free_gradient(x, &gf, g);
        self.g_full = gf;
    }
    fn value_and_gradient(&mut self, x: &[f64], g: &mut [f64]) -> f64 {
        self.eval_point(x);
        let mut gf = std::mem::take(&mut self.g_full);
        gf.fill(0.0);
        let s = eval_state(&self.y, self.x_prev, self.p, &self.form, self.t_eval);
        let e =
            self.asm
                .energy_and_gradient(self.model, &s, self.form.c_e * self.form.a_y, &mut gf);
        self.free_gradient(x, &gf, g);
        self.g_full = gf;
        self.total(x, e)
    }
    fn hessian(
        &mut self,
        x: &[f64],
        project: bool,
        majorize: bool,
    ) -> Result<SparseColMatRef<'_, usize, f64>> {
        self.eval_point(x);
        for (d, m) in self.diag.iter_mut().zip(self.mass_free) {
            *d = self.form.c_m * m;
        }
        let s = eval_state(&self.y, self.x_prev, self.p, &self.form, self.t_eval);
        let scale = self.form.c_e * self.form.a_y * self.form.a_y;
        self.asm
            .hessian_with(self.model, &s, scale, &self.diag, project, majorize)
    }
    fn local_hessian(&mut self, x: &[f64], majorize: bool) -> Option<LocalEntries<'_>> {
        self.eval_point(x);
        let s = eval_state(&self.y, self.x_prev, self.p, &self.form, self.t_eval);
        let scale = self.form.c_e * self.form.a_y * self.form.a_y;
        self.local.evaluate(self.model, &s, scale, majorize)
    }
    fn project_last(&mut self) -> Result<SparseColMatRef<'_, usize, f64>> {
        let scale = self.form.c_e * self.form.a_y * self.form.a_y;
        Ok(self.asm.reproject(scale, &self.diag))
    }
    fn shifted(&mut self, shift: f64) -> Result<SparseColMatRef<'_, usize, f64>> {
        let d: Vec<f64> = self.diag.iter().map(|d| d + shift).collect();
        Ok(self.asm.with_diagonal(&d))
    }
    fn force_scale(&self) -> f64 {
        1.0 / self.form.c_e
    }
}
