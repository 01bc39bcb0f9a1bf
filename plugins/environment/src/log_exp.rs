//! Parameters of the log-exp contact penalty (MAT-DiSMech eq. 25),
//! `E = k (ln(1 + e^{−K₁ d})/K₁)²` with `K₁ = 15/δ`, shared by the contact
//! energies so their constructors cannot be called with the two numbers
//! swapped.

/// Stiffness `k` and tolerance `δ` of the log-exp penalty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogExpPenalty {
    /// Stiffness: N/m for node contacts (ground, sphere), J/m² for rod–rod
    /// contact (an energy per unit length squared).
    pub stiffness: f64,
    /// Contact tolerance δ, m: the penalty rises over about δ.
    pub delta: f64,
}
