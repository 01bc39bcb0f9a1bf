//! Records a hash of this crate's sources for the backend-plugin ABI tag: a
//! runtime backend hands the host `Box<dyn Backend>` values, so it must be
//! built from the same pliant-hardware (and, through pliant-core's tag, the
//! same compiler and pliant-core).

fn main() {
    pliant_build_support::emit_source_hash("PLIANT_HARDWARE_SOURCE_HASH");
}
