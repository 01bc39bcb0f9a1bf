//! # pliant-cable
//!
//! Cables (placeholder; being written).

/// Makes sure this crate's energy registrations are linked in.
pub fn link() {}
