//! The exclusive lock on a run folder: one writer at a time.
//!
//! Two writers on one folder would both append to `games.jsonl` and count games twice. The
//! lock is an OS file lock (`flock` on Unix, through `std::fs::File::try_lock`) on `run.lock`
//! in the folder, held for as long as the writer runs. The operating system releases it when
//! the process ends, however it ends, so a run killed with `kill -9` leaves no stale lock: the
//! file stays, but nobody holds it. The file's text says who holds (or last held) the lock, for
//! the message a second writer gets.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

    /// Whether this is the running process.
    fn is_me(&self) -> bool {
        self.pid == std::process::id() && self.host == host_name()
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

/// The longest wait for a lock that this process released but a child it is starting still
/// holds a copy of (see [`RunLock::acquire`]): the copy goes when the child calls exec.
const COPY_RELEASE_WAIT: Duration = Duration::from_secs(10);

/// The lock files this process holds, so that it refuses itself a second lock at once instead
/// of waiting for the first to be released.
fn held_here() -> &'static Mutex<HashSet<PathBuf>> {
    static HELD: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

/// A held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct RunLock {
    /// Kept open: closing it releases the lock.
    _file: File,
    /// The lock file, as listed in [`held_here`].
    path: PathBuf,
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Ok(mut held) = held_here().lock() {
            held.remove(&self.path);
        }
    }
}

impl RunLock {
    /// Takes the lock of `dir` (which must exist), or says who holds it.
    ///
    /// A process that starts a program (an external bot, another toybattle) forks: until the
    /// child calls exec, it holds a copy of every open file, this lock's included, and an
    /// operating-system lock lasts as long as any copy. So a lock that this very process has
    /// released may still be held for a moment by a child on its way to exec; `run.lock` then
    /// names this process, and the lock is waited for (at most 10 s) instead
    /// of refused. A lock this process still holds is refused at once.
    pub fn acquire(dir: &Path) -> Result<RunLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| LockError::io(&path, e))?;
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        let held = |holder| LockError::Held {
            dir: dir.display().to_string(),
            holder,
        };
        let deadline = Instant::now() + COPY_RELEASE_WAIT;
        loop {
            if held_here().lock().is_ok_and(|h| h.contains(&key)) {
                return Err(held(Some(Holder::me())));
            }
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let holder = read_holder(&mut file);
                    let copy_of_mine = holder.as_ref().is_some_and(Holder::is_me);
                    if !copy_of_mine || Instant::now() >= deadline {
                        return Err(held(holder));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(LockError::Unsupported {
                        path: path.display().to_string(),
                        reason: e.to_string(),
                    })
                }
            }
        }
        let text = serde_json::to_string(&Holder::me()).map_err(|e| LockError::io(&path, e))?;
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(format!("{text}\n").as_bytes()))
            .map_err(|e| LockError::io(&path, e))?;
        if let Ok(mut h) = held_here().lock() {
            h.insert(key.clone());
        }
        Ok(RunLock {
            _file: file,
            path: key,
        })
    }
}

/// The holder `run.lock` names, if it names one.
fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
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

#[cfg(test)]
mod fork_tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    /// Another thread of the process starts a program while a run holds its lock: between fork
    /// and exec the child holds a copy of every descriptor, the lock's included. The run ends
    /// and releases its lock in that window; the next run on the folder must still get it.
    #[test]
    fn a_lock_copied_into_a_starting_child_does_not_refuse_the_next_run() {
        let dir = std::env::temp_dir().join(format!("toybattle-lock-fork-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let held = RunLock::acquire(&dir).unwrap();
        let mut slow_exec = std::process::Command::new("true");
        // SAFETY: the closure only sleeps, which is async-signal-safe.
        unsafe {
            slow_exec.pre_exec(|| {
                std::thread::sleep(Duration::from_millis(500));
                Ok(())
            });
        }
        let start = Instant::now();
        // `spawn` returns once the child has called exec, so it runs on a thread of its own.
        let starter = std::thread::spawn(move || slow_exec.spawn().unwrap().wait().unwrap());
        std::thread::sleep(Duration::from_millis(100));
        drop(held);
        let again = RunLock::acquire(&dir);
        let waited = start.elapsed();
        starter.join().unwrap();
        assert!(again.is_ok(), "{:?} after {waited:?}", again.err());
        drop(again);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
