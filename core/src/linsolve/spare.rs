//! The factor-buffer pool of one sparsity pattern.

use faer::dyn_stack::MemBuffer;

/// Memory kept between numeric factorizations of one pattern: a factor's
/// value buffer returns here when its [`Factor`] is dropped, and the
/// factorization workspace stays, so a Newton loop neither allocates nor
/// page-faults a fresh factor (hundreds of MB on large meshes) at every
/// factorization. Taken with `try_lock`: clones of a solver used on
/// several threads at once allocate instead of waiting.
#[derive(Default)]
pub(super) struct Spare {
    pub(super) values: std::sync::Mutex<Vec<Vec<f64>>>,
    /// The same for the single-precision copy a preconditioner makes
    /// ([`super::Factor::precondition`]).
    pub(super) single: std::sync::Mutex<Vec<Vec<f32>>>,
    pub(super) workspace: std::sync::Mutex<Option<(faer::dyn_stack::StackReq, MemBuffer)>>,
}

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spare")
    }
}

impl Spare {
    /// A buffer of `len` values (contents unspecified).
    pub(super) fn take_values(&self, len: usize) -> Vec<f64> {
        take(&self.values, len)
    }
    /// Keeps one spare buffer.
    pub(super) fn give_values(&self, v: Vec<f64>) {
        give(&self.values, v);
    }
    /// A single-precision buffer of `len` values (contents unspecified).
    pub(super) fn take_single(&self, len: usize) -> Vec<f32> {
        take(&self.single, len)
    }
    /// Keeps one spare single-precision buffer.
    pub(super) fn give_single(&self, v: Vec<f32>) {
        give(&self.single, v);
    }
}

/// The pooled buffer if it has `len` values, else a new one.
fn take<T: Copy + Default>(pool: &std::sync::Mutex<Vec<Vec<T>>>, len: usize) -> Vec<T> {
    let recycled = pool.try_lock().ok().and_then(|mut v| v.pop());
    match recycled {
        Some(v) if v.len() == len => v,
        _ => vec![T::default(); len],
    }
}

/// Keeps `v` if the pool is empty.
fn give<T>(pool: &std::sync::Mutex<Vec<Vec<T>>>, v: Vec<T>) {
    if let Ok(mut pool) = pool.try_lock()
        && pool.is_empty()
    {
        pool.push(v);
    }
}
