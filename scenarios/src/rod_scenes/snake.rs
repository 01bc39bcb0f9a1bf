//! The snake of MAT-DiSMech §7.1: a rod on anisotropic ground slithering by a travelling wave of natural curvature.

use super::*;

/// The swimming snake (Fig. 7): a free rod along `+x` in the plane `z = 0`,
/// tail at the origin, head (node `nodes − 1`) at `x = L`, neutrally
/// buoyant (no gravity), with resistive-force drag (eq. 29). Each bending
/// spring has its own natural-curvature channel `"kappa{j}"` (axis 2: in
/// the `x`–`y` plane), driven by a wave travelling from head to tail,
///
/// `κ̄(s, t) = a(t) κ₀ sin(2π f t + 2π s/λ)`,
///
/// so that with `C_n > C_t` the snake swims head first (`+x`). The
/// amplitude `a(t)` ramps from 0 to 1 over `ramp` so the body is not
/// kicked at `t = 0`.
///
/// **Amplitude.** The paper's "amplitude of 0.05 m" cannot be a lateral
/// amplitude `A` of the body wave `y = A sin(k x − ω t)`: on a 0.1 m body it
/// needs a curvature amplitude `κ₀ = A k² = 0.05 (2π/λ)²`, i.e. 197 1/m for
/// one wavelength per body length and still 49 1/m for λ = 2L (bending radii
/// of 5 and 20 mm). The authors' code (`actuate_snake.m`) drives the
/// discrete curvature per bend, `κ̄ = amplitude · sin(ω t − k s)` with one
/// wavelength per body length on a 21-node rod, so we read 0.05 as that
/// discrete amplitude: `κ₀ = 0.05/Δl = 10` 1/m at Δl = 5 mm, wavelength
/// λ = L. The resulting body wave has lateral amplitude `κ₀/k² ≈ 2.5` mm
/// (peak slope ≈ 9°).
#[derive(Debug, Clone)]
pub struct Snake {
    /// Tangential resistive coefficient C_t, N·s/m² (default 0.01).
    pub ct: f64,
    /// Normal resistive coefficient C_n, N·s/m² (default 0.1).
    pub cn: f64,
    /// Nodes (default 21, as the authors' code).
    pub nodes: usize,
    /// Curvature amplitude κ₀, 1/m (default 10).
    pub curvature_amplitude: f64,
    /// Wavelength λ, m (default L).
    pub wavelength: f64,
    /// Frequency f, Hz (default 1).
    pub frequency: f64,
    /// Amplitude ramp at the start, s (default 1 period).
    pub ramp: f64,
    /// Duration, s (default 10 s).
    pub duration: f64,
    /// Time step, s (default 0.01 s).
    pub dt: f64,
}

impl Default for Snake {
    fn default() -> Self {
        Self {
            ct: 0.01,
            cn: 0.1,
            nodes: 21,
            curvature_amplitude: 10.0,
            wavelength: LENGTH,
            frequency: 1.0,
            ramp: 1.0,
            duration: 10.0,
            dt: 0.01,
        }
    }
}

impl Snake {
    /// Young's modulus, Pa.
    pub const E: f64 = 2e6;
    /// Poisson's ratio.
    pub const NU: f64 = 0.5;
    /// Density, kg/m³.
    pub const RHO: f64 = 1200.0;

    /// The head node.
    pub fn head(&self) -> usize {
        self.nodes - 1
    }

    /// Natural curvature (1/m) of the spring at arc length `s` (m) at time `t` (s).
    pub fn curvature(&self, s: f64, t: f64) -> f64 {
        use std::f64::consts::TAU;
        let a = if self.ramp > 0.0 {
            (t / self.ramp).clamp(0.0, 1.0)
        } else {
            1.0
        };
        a * self.curvature_amplitude * (TAU * self.frequency * t + TAU * s / self.wavelength).sin()
    }

    /// The model; the channels hold keyframes at every step time.
    pub fn build(&self) -> Result<RodScene> {
        check_nodes(self.nodes, 3)?;
        let n = steps(self.duration, self.dt);
        let dl = LENGTH / (self.nodes - 1) as f64;
        let mut b = ModelBuilder::new(3)?;
        let nodes = add_nodes(&mut b, &line([0.0; 3], [LENGTH, 0.0, 0.0], self.nodes))?;
        let mut rod = Rod::chain(&nodes, RADIUS, Self::E, Self::NU, Self::RHO)
            .named("snake")
            .with_first_director([0.0, 0.0, 1.0]);
        for j in 0..self.nodes - 2 {
            let s = (j + 1) as f64 * dl;
            let name = format!("kappa{j}");
            let keys = (0..=n + 1)
                .map(|k| {
                    let t = k as f64 * self.dt;
                    (t, self.curvature(s, t))
                })
                .collect();
            b.add_param(control(&name, keys))?;
            rod = rod.actuate(Actuation::curvature(&name, 2, Some(vec![j])));
        }
        b.add(rod);
        let edges = nodes.windows(2).map(|w| [w[0], w[1]]).collect();
        b.add(ResistiveForce::new(edges, self.ct, self.cn));
        Ok(RodScene {
            model: b.build()?,
            info: SceneInfo::implicit_euler("snake", self.dt, n, vec![nodes]),
        })
    }
}
