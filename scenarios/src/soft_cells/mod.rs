//! Soft multi-cellular robots in the plane (Germann et al., *Soft Cell
//! Simulator*): cells of [`pliant_cells`] with magnetic connectors of
//! [`pliant_magnetic`], and the paper's scenes — the force–deflection test
//! of Fig. 3 ([`force_deflection`]), a cell bouncing at high and low
//! pressure (Fig. 2a), two cells attaching and detaching (Fig. 2b), a chain
//! bent by actuators (Fig. 2c) ([`scenes`]), self-folding chains forming
//! the letters E, P, F, L (§V-D, Fig. 5; [`folding`]) and the stacked-cells
//! benchmark set-up ([`stack`]). SI units: m, kg, s, N, J (2-D models).

pub mod fold_optimize;
pub mod folding;
pub mod force_deflection;
pub mod scenes;
pub mod stack;

use pliant_cells::{Cell, CellContact, Cells, add_ring};
use pliant_core::{ModelBuilder, NewtonSettings, Quantity, Result};
use pliant_environment::{Friction, Gravity, Ground, NormalLaw};

/// One cell type: its size, membrane and pressure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellDesign {
    /// Radius of the round cell at rest, m.
    pub radius: f64,
    /// Membrane nodes (the paper's membrane bodies).
    pub nodes: usize,
    /// Mass of one membrane node, kg.
    pub node_mass: f64,
    /// Membrane axial stiffness `EA`, N.
    pub stretch_stiffness: f64,
    /// Membrane bending stiffness `EI`, N·m².
    pub bending_stiffness: f64,
    /// Pressure constant `C`, N (outward force per membrane segment is
    /// `C (V₀/V − 1)`).
    pub pressure: f64,
}

impl CellDesign {
    /// The set-up of the paper's scalability test as rebuilt in
    /// `shared/peers/pymunk_softcells.py`: radius 0.5 m, 100 membrane nodes
    /// of 1 g, `C = 2 N`; the rigid links become a stiff membrane
    /// (`EA = 300 N`: 0.3 % strain under a 1 N segment tension) with a
    /// small bending stiffness (`EI = 10⁻⁴ N·m²`) that keeps free hinges
    /// from folding onto themselves.
    pub fn paper() -> Self {
        Self {
            radius: 0.5,
            nodes: 100,
            node_mass: 1e-3,
            stretch_stiffness: 300.0,
            bending_stiffness: 1e-4,
            pressure: 2.0,
        }
    }
    /// Mean membrane segment length at rest, m.
    pub fn segment(&self) -> f64 {
        2.0 * self.radius * (std::f64::consts::PI / self.nodes as f64).sin()
    }
}

/// Contact between cells and with walls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactDesign {
    /// Membrane thickness kept between cells, m.
    pub thickness: f64,
    /// Penalty stiffness, N/m.
    pub stiffness: f64,
    /// Coulomb friction coefficient (0: frictionless).
    pub mu: f64,
    /// Slip velocity of the smoothed Coulomb law, m/s.
    pub slip_velocity: f64,
}

impl ContactDesign {
    /// For [`CellDesign::paper`]: a third of a segment thick, stiff enough
    /// that a stack of cells sinks less than a millimetre into the band,
    /// friction 0.5 (as the pymunk set-up).
    pub fn paper(design: &CellDesign) -> Self {
        Self {
            thickness: design.segment() / 3.0,
            stiffness: 1e3,
            mu: 0.5,
            slip_velocity: 0.01,
        }
    }
}

/// Newton settings for cell scenes: converged to `10⁻⁸` N (a 1 g
/// membrane node feels nothing below that: `10⁻⁸ N` moves it by
/// `4·10⁻⁹` m per step of 1/50 s, while tighter tolerances stall in the
/// round-off of the incremental potential), and the diagonal-shift search
/// started from the last step's shift
/// ([`NewtonSettings::carry_shift`]: contact makes the Hessian indefinite
/// at most steps: 7.69–7.70 against 8.21–8.29 ms per cell-step on 100
/// stacked cells, `cargo run --release --example cells -- bench --ns 100
/// --settle 1 --steps 10 [--no-carry-shift]`, 2026-11-27).
pub fn newton() -> NewtonSettings {
    NewtonSettings {
        abs_tol: 1e-8,
        max_step_halvings: 4,
        carry_shift: true,
        ..NewtonSettings::default()
    }
}

/// A 2-D model being assembled from cells: the builder, every cell's
/// membrane ring and pressure.
#[derive(Debug)]
pub struct CellWorld {
    /// The model builder (add channels, constraints and energies to it).
    pub builder: ModelBuilder,
    /// Each cell's membrane nodes, counter-clockwise.
    pub rings: Vec<Vec<usize>>,
    pressures: Vec<Quantity>,
    /// The cell design.
    pub design: CellDesign,
}

impl CellWorld {
    /// An empty 2-D world of cells of `design` (at least three membrane
    /// nodes, positive radius and node mass).
    pub fn new(design: CellDesign) -> Result<Self> {
        if design.nodes < 3 {
            return Err(pliant_cells::CellError::TooFewNodes {
                cell: 0,
                found: design.nodes,
            }
            .into());
        }
        pliant_core::Invalid::positive("design.radius", design.radius, "m")?;
        pliant_core::Invalid::positive("design.node_mass", design.node_mass, "kg")?;
        Ok(Self {
            builder: ModelBuilder::new(2)?,
            rings: Vec::new(),
            pressures: Vec::new(),
            design,
        })
    }

    /// Adds a round cell centred at `center` (m), its first node at angle
    /// `phase` (rad), with the design's pressure constant; returns its index.
    pub fn add_cell(&mut self, center: [f64; 2], phase: f64) -> Result<usize> {
        self.add_cell_with(center, phase, self.design.pressure.into())
    }

    /// [`CellWorld::add_cell`] with its own pressure constant (N, a number
    /// or a channel).
    pub fn add_cell_with(
        &mut self,
        center: [f64; 2],
        phase: f64,
        pressure: Quantity,
    ) -> Result<usize> {
        let d = self.design;
        let ring = add_ring(
            &mut self.builder,
            center,
            d.radius,
            d.nodes,
            phase,
            d.node_mass,
        )?;
        self.rings.push(ring);
        self.pressures.push(pressure);
        Ok(self.rings.len() - 1)
    }

    /// Membrane node `k` (counter-clockwise from the cell's phase) of cell `c`.
    pub fn node(&self, c: usize, k: usize) -> usize {
        let ring = &self.rings[c];
        ring[k % ring.len()]
    }

    /// The node of cell `c` nearest the direction `angle` (rad) from its
    /// centre at rest.
    pub fn node_towards(&self, c: usize, angle: f64, phase: f64) -> usize {
        let n = self.design.nodes as f64;
        let k = ((angle - phase) / (2.0 * std::f64::consts::PI) * n).round();
        self.node(c, k.rem_euclid(n) as usize)
    }

    /// Adds the cells energy (all cells so far) and, with `contact`, their
    /// membrane contact.
    pub fn add_cells_energy(&mut self, contact: Option<ContactDesign>) {
        let d = self.design;
        self.builder.add(Cells {
            cells: self
                .rings
                .iter()
                .zip(&self.pressures)
                .map(|(r, p)| Cell {
                    nodes: r.clone(),
                    pressure: p.clone(),
                })
                .collect(),
            stretch_stiffness: d.stretch_stiffness,
            bending_stiffness: d.bending_stiffness,
            name: None,
        });
        if let Some(c) = contact
            && self.rings.len() > 1
        {
            let mut cc = CellContact::new(self.rings.clone(), c.thickness, c.stiffness);
            if c.mu > 0.0 {
                cc = cc.with_friction(c.mu, c.slip_velocity);
            }
            self.builder.add(cc);
        }
    }

    /// Gravity `g` (m/s², downward) on every node.
    pub fn add_gravity(&mut self, g: f64) {
        self.builder.add(Gravity::new(&[0.0, -g]));
    }

    /// A rigid wall through `point` with inward normal `normal`, touching
    /// every membrane node, with the contact's stiffness, band and friction.
    pub fn add_wall(&mut self, point: [f64; 2], normal: [f64; 2], contact: &ContactDesign) {
        let friction = (contact.mu > 0.0).then_some(Friction::SmoothCoulomb {
            mu: contact.mu,
            mu_axis: None,
            slip_velocity: contact.slip_velocity,
        });
        self.builder.add(Ground::new(
            &point,
            &normal,
            NormalLaw::LogExp {
                stiffness: contact.stiffness,
                delta: contact.thickness,
            },
            friction,
        ));
    }
}
