//! Rod scenes of MAT-DiSMech §7.1 (being written).
