//! The exclusive lock on a run folder: one writer at a time.
//!
//! Two writers on one folder would both append to `games.jsonl` and count games twice. The
//! lock is an OS file lock (`flock` on Unix, through `std::fs::File::try_lock`) on `run.lock`
//! in the folder, held for as long as the writer runs. The operating system releases it when
//! the process ends, however it ends, so a run killed with `kill -9` leaves no stale lock: the
//! file stays, but nobody holds it. The file's text says who holds (or last held) the lock, for
//! the message a second writer gets.

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The lock file's name in a run folder.
pub const LOCK_FILE: &str = "run.lock";

/// Who holds a lock, as written in `run.lock`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The holding process's id.
    pub pid: u32,
    /// The machine it runs on.
    pub host: String,
    /// When it took the lock, in seconds since 1970-01-01 UTC.
    pub started: u64,
}

/// Why a run folder could not be locked for writing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    /// Another run writes to the folder.
    #[error(
        "{dir} is in use by another toybattle run ({}): wait for it to end, or choose another \
         --out folder",
        .holder.as_ref().map_or("a process that has not yet said who it is".into(), Holder::describe)
    )]
    Held {
        /// The run folder.
        dir: String,
        /// Who holds it, as `run.lock` says; `None` when it does not say yet.
        holder: Option<Holder>,
    },
    /// The file system cannot lock files.
    #[error("{path}: cannot lock the run folder: {reason}")]
    Unsupported {
        /// The lock file.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The lock file cannot be opened or written.
    #[error("{path}: {reason}")]
    Io {
        /// The lock file.
        path: String,
        /// The system's reason.
        reason: String,
    },
}

impl LockError {
    fn io(path: &Path, e: impl std::fmt::Display) -> LockError {
        LockError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        }
    }
}

impl Holder {
    fn me() -> Holder {
        Holder {
            pid: std::process::id(),
            host: host_name(),
            started: now(),
        }
    }

    /// "pid 1234 on host lab-3, started 42 s ago".
    fn describe(&self) -> String {
        format!(
            "pid {} on host {}, started {} s ago",
            self.pid,
            self.host,
            now().saturating_sub(self.started)
        )
    }
}

/// A held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock of `dir` (which must exist), or says who holds it.
    pub fn acquire(dir: &Path) -> Result<RunLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| LockError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(LockError::Held {
                    dir: dir.display().to_string(),
                    holder: serde_json::from_str::<Holder>(&text).ok(),
                });
            }
            Err(TryLockError::Error(e)) => {
                return Err(LockError::Unsupported {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })
            }
        }
        let text = serde_json::to_string(&Holder::me()).map_err(|e| LockError::io(&path, e))?;
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(format!("{text}\n").as_bytes()))
            .map_err(|e| LockError::io(&path, e))?;
        Ok(RunLock { _file: file })
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The machine's name, for a lock held from another machine of a shared file system.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "(unknown)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_released_on_drop() {
        let dir = std::env::temp_dir().join(format!("toybattle-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let held = RunLock::acquire(&dir).unwrap();
        let err = RunLock::acquire(&dir).unwrap_err();
        assert!(
            matches!(&err, LockError::Held { holder: Some(h), .. } if h.pid == std::process::id()),
            "{err:?}"
        );
        let e = err.to_string();
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        assert!(e.contains(&format!("host {}", host_name())), "{e}");
        drop(held);
        RunLock::acquire(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let e = RunLock::acquire(&dir).unwrap_err();
        assert!(
            matches!(e, LockError::Io { .. }),
            "a folder that is gone: {e:?}"
        );
    }
}
