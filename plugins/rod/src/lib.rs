//! Discrete elastic rods (MAT-DiSMech §3.1–3.2).
