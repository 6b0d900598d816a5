//! Weights files read once per path for the life of the program: a search resolves the
//! weights its options name at every decision, and reading and checking a file each time
//! would cost more than the decision. Each distinct file named is kept, so the memory grows
//! only with the number of files a user names; a file that cannot be used is not kept, and is
//! read again when asked for again.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The models read so far, by path.
pub(super) struct Loaded<T: 'static>(Mutex<Vec<(PathBuf, &'static T)>>);

impl<T> Loaded<T> {
    /// Nothing read yet.
    pub(super) const fn new() -> Self {
        Loaded(Mutex::new(Vec::new()))
    }

    /// The model of `path`: the one kept, or `read()`'s, then kept if it could be read.
    pub(super) fn get_or_read<E>(
        &self,
        path: &Path,
        read: impl FnOnce() -> Result<T, E>,
    ) -> Result<&'static T, E> {
        let mut loaded = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, model)) = loaded.iter().find(|(p, _)| p == path) {
            return Ok(model);
        }
        let model: &'static T = Box::leak(Box::new(read()?));
        loaded.push((path.to_path_buf(), model));
        Ok(model)
    }
}
