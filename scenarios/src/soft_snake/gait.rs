//! The rolling gaits (paper §II-C, Figs. 4–5), reconstructed from the
//! paper's description, and their pressure schedules.
//!
//! Rolling is the bending plane rotating about the body axis once per
//! period. Section `i` (from the tail) bends away from the direction
//! `β_i(t) = s ω (t − t₀) + i Δ + φ₀` in the body's frame (`φ₀` the
//! phase at the start, [`Gait::start_phase`], default 0; `ω = 2π f`;
//! `s = ±1` the sense; `Δ` the shift between adjacent sections' bending
//! planes, which [`Phases`] reads from the paper's gait, below). Muscle
//! `j` of section `i`, at angle `ψ_ij = 2π j/3 + m i π/3` (the π/3
//! mounting offset, `m = ±1` the sense of the body's [`Mounting`]), is
//! driven with
//!
//! `p_ij(t) = r(t) (p_max − p_b (1 − cos(β_i(t) − ψ_ij)))` (Pa, gauge),
//!
//! between `p_max − 2 p_b` and the 3 bar ceiling `p_max`, highest on the
//! outside of the bend; `r(t)` ramps linearly from 0 to 1 over `ramp`
//! seconds after the gait starts (no pressure step at `t₀`). By the §IV-D
//! map a free muscle at `p_ij` extends by `p_ij A/K`: with the default
//! `p_b = 0.5 bar`, 3.8 to 5.6 cm — the "up to 4–5 cm" of Fig. 5C–D —
//! and a section bends by about `p_b A/(K r) ≈ 0.75 rad`, the body
//! about 2.2 rad in all (an open arc). The swing is the choice that
//! matters: the full raised cosine from 0 to 3 bar (`p_b = 1.5 bar`)
//! bends each section by ≈ 2.25 rad, curls the 0.6 m body into a closed
//! loop, and the loop spins in place without travelling (measured in
//! `docs/results.md`). The paper's joint-space trajectories come from an
//! inverse kinematics on shapes we do not have; this schedule is our
//! stand-in, written down here in full.
//!
//! **Two readings of the paper's phases** ([`Phases`]). The paper says both
//! that planar rolling bends every section in the same plane and that its
//! joint variables "overlap each other" in all sections (Fig. 5C), spatial
//! rolling's being shifted by π/3 (Fig. 5D). On sections mounted π/3
//! apart the two cannot both hold: identical muscle pressures in every
//! section bend adjacent sections π/3 apart.
//!
//! - [`Phases::JointSpace`] (the default) takes the joint variables at
//!   their word: section `i`'s muscles are driven with phase
//!   `β(t) + i m Δ_q − ψ_0j`, `Δ_q = 0` (planar) or `w π/3` (spatial,
//!   `w = ±1` the shift's direction, default −1) — the bending-plane shift
//!   `Δ = m (π/3 + Δ_q)`. Its planar gait bends adjacent sections π/3
//!   apart (a mild helix that drifts along the body, as Table I's planar
//!   `Vx` does); its spatial gait with `w = −1` bends them all in one
//!   plane (no drift, as Table I's small spatial `Vx`); `w = +1`
//!   (`Δ = 2π/3`) rolls backwards.
//! - [`Phases::BendingPlanes`] takes the shapes at their word: `Δ = 0`
//!   (planar) and `Δ = w π/3` (spatial). The mounting does not enter.
//!
//! A gait with shift `Δ` started at `φ₀` and one with `−Δ` started at
//! `φ₀ + 2Δ` are mirror images end to end (the section order reversed),
//! so the two mountings give mirror images of the joint-space gaits: the
//! same `Vy`, opposite drift `Vx`. `docs/results.md` measures all of this
//! against Table I.

use super::{Mounting, SnakeBody};
use pliant_core::{ModelBuilder, ParamChannel, Result};
use std::f64::consts::{PI, TAU};

/// Which rolling gait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaitKind {
    /// No pressure (the drop test only).
    Still,
    /// All sections' joint variables alike (or all bending in one plane,
    /// by [`Phases`]).
    Planar,
    /// Adjacent sections' joint variables (or bending planes, by
    /// [`Phases`]) shifted by `w π/3` ([`Gait::wave`]).
    Spatial,
}

/// Whether the gait's phase shift is read between the sections' bending
/// planes or between their joint variables (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phases {
    /// Between the bending planes: planar rolling bends every section in
    /// one plane (`Δ = 0`), spatial rolling adjacent ones `w π/3` apart.
    BendingPlanes,
    /// Between the joint variables (muscle pressures): planar rolling
    /// drives every section's muscles alike (Fig. 5C), so that sections
    /// mounted π/3 apart bend π/3 apart (`Δ = π/3`); spatial rolling
    /// shifts them by `w π/3` (`Δ = m (π/3 + w π/3)`, `m` the sign of the
    /// body's [`Mounting`]). The default: the reading under which the
    /// pattern of Table I comes out (`docs/results.md`).
    #[default]
    JointSpace,
}

/// A rolling gait and its pressure schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gait {
    /// Planar, spatial or none.
    pub kind: GaitKind,
    /// Pressure ceiling `p_max`, Pa (default 3 bar).
    pub peak_pressure: f64,
    /// Bending amplitude `p_b`, Pa: pressures swing from `p_max − 2 p_b`
    /// to `p_max` (default 0.5 bar: 2 to 3 bar).
    pub amplitude: f64,
    /// Frequency `f`, Hz (default 0.5).
    pub frequency: f64,
    /// Sense `s` of the bending plane's rotation (+1 or −1; default +1:
    /// the body counter-rotates about `+x` and rolls towards `+y`).
    pub sense: f64,
    /// Direction `w` of the spatial gait's phase shift (+1 or −1, default
    /// −1; see [`Phases`]).
    pub wave: f64,
    /// How [`Gait::kind`]'s phase shift is read (default
    /// [`Phases::JointSpace`]).
    pub phases: Phases,
    /// Phase `φ₀` of the rotation when the gait starts, rad (default 0:
    /// the tail section first bends away from its muscle 0). The paper
    /// does not give it, and over 15 s it moves the mean velocity by up to
    /// ±15 % (`docs/results.md`).
    pub start_phase: f64,
    /// Ramp-in time, s (default 0.5).
    pub ramp: f64,
    /// Spacing of the schedule's keyframes, s (default 20 ms).
    pub keyframe_interval: f64,
}

impl Default for Gait {
    fn default() -> Self {
        Self {
            kind: GaitKind::Planar,
            peak_pressure: 3e5,
            amplitude: 0.5e5,
            frequency: 0.5,
            sense: 1.0,
            wave: -1.0,
            phases: Phases::JointSpace,
            start_phase: 0.0,
            ramp: 0.5,
            keyframe_interval: 0.02,
        }
    }
}

impl Gait {
    /// The gait of `kind` with the default values.
    pub fn new(kind: GaitKind) -> Self {
        Self {
            kind,
            ..Self::default()
        }
    }

    /// Phase shift `Δ` between adjacent sections' bending planes, rad, on a
    /// body mounted as `mounting` (see [`Phases`]).
    pub fn phase_shift(&self, mounting: Mounting) -> f64 {
        let joint_shift = match self.kind {
            GaitKind::Spatial => self.wave * PI / 3.0,
            _ => 0.0,
        };
        match self.phases {
            Phases::BendingPlanes => joint_shift,
            // The mounting offset: muscle j of section i sits at
            // 2π j/3 + m i π/3 (`body::muscle_angle`), and the joint
            // variables' shift turns the same way.
            Phases::JointSpace => mounting.sign() * (PI / 3.0 + joint_shift),
        }
    }

    /// Gauge pressure (Pa) of muscle `j` of section `i`, on a body mounted
    /// as `mounting`, at `tau` seconds after the gait started (0 before).
    pub fn pressure(&self, mounting: Mounting, i: usize, j: usize, tau: f64) -> f64 {
        if self.kind == GaitKind::Still || tau <= 0.0 {
            return 0.0;
        }
        let r = if self.ramp > 0.0 {
            (tau / self.ramp).min(1.0)
        } else {
            1.0
        };
        let beta = self.sense * TAU * self.frequency * tau
            + i as f64 * self.phase_shift(mounting)
            + self.start_phase;
        r * (self.peak_pressure
            - self.amplitude * (1.0 - (beta - super::body::muscle_angle(mounting, i, j)).cos()))
    }

    /// Adds the nine pressure channels with keyframes from `t0` (gait
    /// start) to `t1` (s).
    pub(super) fn add_channels(
        &self,
        b: &mut ModelBuilder,
        body: &SnakeBody,
        t0: f64,
        t1: f64,
        dt: f64,
    ) -> Result<()> {
        let step = self.keyframe_interval.max(dt);
        let n = ((t1 - t0) / step).ceil() as usize;
        for (i, names) in body.channels.iter().enumerate() {
            for (j, name) in names.iter().enumerate() {
                let mut keys = vec![(0.0, 0.0), (t0, 0.0)];
                keys.extend((1..=n + 1).map(|k| {
                    let tau = k as f64 * step;
                    (t0 + tau, self.pressure(body.mounting, i, j, tau))
                }));
                b.add_param(ParamChannel::control(name, 0.0).with_keyframes(keys))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Mounting = Mounting::RightHanded;

    /// A start phase `φ₀` is the schedule shifted in time by `φ₀/(s ω)`
    /// (after the ramp), and `2π` is no shift.
    #[test]
    fn the_start_phase_shifts_the_schedule_in_time() {
        let base = Gait {
            kind: GaitKind::Spatial,
            ramp: 0.0,
            ..Gait::default()
        };
        let omega = TAU * base.frequency;
        for (phi, full_turn) in [(TAU / 3.0, false), (TAU, true)] {
            let g = Gait {
                start_phase: phi,
                ..base
            };
            for (i, j, t) in [(0, 0, 1.3), (1, 2, 2.05), (2, 1, 3.7)] {
                let expected = base.pressure(M, i, j, t + phi / omega);
                let shifted = g.pressure(M, i, j, t);
                assert!(
                    (expected - shifted).abs() < 1e-6,
                    "{phi} at {t}: {expected} {shifted}"
                );
                if full_turn {
                    assert!((base.pressure(M, i, j, t) - shifted).abs() < 1e-6);
                }
            }
        }
    }

    /// Read in joint space, planar rolling drives every section's muscle
    /// `j` with the same pressure (Fig. 5C) and spatial rolling shifts the
    /// sections' pressures by `w π/3` of a period (Fig. 5D); read between
    /// bending planes, the planar gait's sections differ by the mounting
    /// offset.
    #[test]
    fn joint_space_phases_give_overlapping_joint_variables_for_planar_rolling() {
        let period = 2.0;
        for (kind, phases, shift_of_period) in [
            (GaitKind::Planar, Phases::JointSpace, 0.0),
            (GaitKind::Spatial, Phases::JointSpace, -1.0 / 6.0),
            (GaitKind::Planar, Phases::BendingPlanes, -1.0 / 6.0),
            (GaitKind::Spatial, Phases::BendingPlanes, -2.0 / 6.0),
        ] {
            let g = Gait {
                kind,
                phases,
                ramp: 0.0,
                ..Gait::default()
            };
            let shift = shift_of_period * period;
            for j in 0..3 {
                for k in 0..20 {
                    let t = 1.0 + 0.1 * k as f64;
                    // Section 1 at t is section 0 at t + shift (w = −1,
                    // s = +1).
                    let (p0, p1) = (g.pressure(M, 0, j, t + shift), g.pressure(M, 1, j, t));
                    assert!(
                        (p0 - p1).abs() < 1e-6,
                        "{kind:?} {phases:?}, muscle {j}, t = {t}: {p0} against {p1}"
                    );
                }
            }
        }
    }

    /// The two mountings put the muscles at the same three angles; driven
    /// by the bending planes they press each angle alike, and driven in
    /// joint space they press each label alike while their bending planes
    /// turn in opposite senses (`Δ = ±π/3`: mirror images).
    #[test]
    fn the_mountings_differ_in_labels_not_in_geometry() {
        use super::super::body::muscle_angle;
        let (l, r) = (Mounting::LeftHanded, Mounting::RightHanded);
        for phases in [Phases::BendingPlanes, Phases::JointSpace] {
            let g = Gait {
                phases,
                ..Gait::default()
            };
            for i in 0..3 {
                for j in 0..3 {
                    let a = muscle_angle(r, i, j);
                    // The left-handed label at the same angle.
                    let jl = (0..3)
                        .find(|&k| (muscle_angle(l, i, k) - a).abs() < 1e-12)
                        .expect("the same three angles");
                    for t in [0.3, 1.1, 2.7] {
                        let (pr, pl) = (g.pressure(r, i, j, t), g.pressure(l, i, jl, t));
                        let by_label = g.pressure(l, i, j, t);
                        match phases {
                            Phases::BendingPlanes => assert!((pr - pl).abs() < 1e-6),
                            Phases::JointSpace => assert!((pr - by_label).abs() < 1e-6),
                        }
                    }
                }
            }
            if phases == Phases::JointSpace {
                assert!((g.phase_shift(r) - PI / 3.0).abs() < 1e-12);
                assert!((g.phase_shift(l) + PI / 3.0).abs() < 1e-12);
            } else {
                assert_eq!(g.phase_shift(r), g.phase_shift(l));
            }
        }
    }
}
