//! The processor time a generation cost, kept in `gen-NNN/cpu.json` while it runs.
//!
//! A long run is stopped and resumed: a generation's self-play may be played by one process
//! and its fit and gate by the next. Each process adds its own time to the ledger, and saves
//! it every few seconds while it works, so that a generation counts the time of every process
//! that worked on it, to within one save of a kill.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

use super::cpu_seconds;
use super::generation::StepSeconds;
use crate::tournament::store::{write_json_atomic, StoreError};

/// A step of a generation, as [`StepSeconds`] counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Self-play games.
    SelfPlay,
    /// The fit (with its cut positions).
    Fit,
    /// The gate.
    Gate,
    /// The match against the base.
    Reference,
}

/// A generation's processor time: what earlier processes spent, plus this one's.
pub(crate) struct CpuLedger {
    path: PathBuf,
    state: Mutex<State>,
}

struct State {
    /// Every closed interval, earlier processes' included.
    spent: StepSeconds,
    /// The running step and this process's clock when it began.
    running: Option<(Step, f64)>,
}

impl CpuLedger {
    /// The ledger at `path`, starting from the seconds saved there; a missing file starts
    /// from zero, and so does an unreadable one (whose time is then lost, as the message says).
    pub(crate) fn open(path: &Path) -> (CpuLedger, Option<String>) {
        let (spent, problem) = match std::fs::read(path) {
            Err(_) => (StepSeconds::default(), None),
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(spent) => (spent, None),
                Err(e) => (
                    StepSeconds::default(),
                    Some(format!(
                        "{}: not a processor-time ledger ({e}); counting from zero",
                        path.display()
                    )),
                ),
            },
        };
        let state = Mutex::new(State {
            spent,
            running: None,
        });
        let ledger = CpuLedger {
            path: path.to_path_buf(),
            state,
        };
        (ledger, problem)
    }

    /// Closes the running step and starts `step`.
    pub(crate) fn start(&self, step: Step) {
        let mut state = self.lock();
        let now = cpu_seconds();
        state.close(now);
        state.running = Some((step, now));
    }

    /// The seconds spent so far, the running step's included.
    pub(crate) fn spent(&self) -> StepSeconds {
        let state = self.lock();
        let mut spent = state.spent.clone();
        if let Some((step, since)) = state.running {
            *field(&mut spent, step) += cpu_seconds() - since;
        }
        spent
    }

    /// Writes [`CpuLedger::spent`] to the ledger's file.
    pub(crate) fn save(&self) -> Result<(), StoreError> {
        write_json_atomic(&self.path, &self.spent())
    }

    /// Runs `body`, saving the ledger every `every` while it runs and once when it returns.
    pub(crate) fn saving_every<T>(
        &self,
        every: Duration,
        body: impl FnOnce() -> T,
    ) -> Result<T, StoreError> {
        let (stop, stopped) = channel::<()>();
        let result = std::thread::scope(|scope| {
            scope.spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    // A failed save is retried at the next tick and reported by the last one.
                    let _ = self.save();
                }
            });
            let result = body();
            drop(stop);
            result
        });
        self.save()?;
        Ok(result)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain numbers behind: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn close(&mut self, now: f64) {
        if let Some((step, since)) = self.running.take() {
            *field(&mut self.spent, step) += now - since;
        }
    }
}

fn field(spent: &mut StepSeconds, step: Step) -> &mut f64 {
    match step {
        Step::SelfPlay => &mut spent.selfplay,
        Step::Fit => &mut spent.fit,
        Step::Gate => &mut spent.gate,
        Step::Reference => &mut spent.reference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spends about `seconds` of processor time on this thread.
    fn burn(seconds: f64) {
        let start = cpu_seconds();
        let mut x = 1u64;
        while cpu_seconds() - start < seconds {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }

    /// A fresh folder for one test's ledger.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("toybattle-ledger-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn read(path: &Path) -> StepSeconds {
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn a_resumed_generation_adds_its_time_to_the_earlier_processes() {
        let path = scratch("resumed").join("cpu.json");
        let earlier = StepSeconds {
            selfplay: 100.0,
            fit: 0.0,
            gate: 0.0,
            reference: 0.0,
        };
        write_json_atomic(&path, &earlier).unwrap();
        let (ledger, problem) = CpuLedger::open(&path);
        assert_eq!(problem, None);
        ledger.start(Step::Fit);
        burn(0.05);
        ledger.start(Step::Gate);
        ledger.save().unwrap();
        let saved = read(&path);
        assert_eq!(
            saved.selfplay, 100.0,
            "the earlier process's self-play is kept"
        );
        assert!(saved.fit >= 0.05, "this process's fit is added: {saved:?}");
        assert_eq!(saved.reference, 0.0);
    }

    #[test]
    fn the_ledger_is_saved_while_a_step_runs_so_a_kill_keeps_its_time() {
        let path = scratch("running").join("cpu.json");
        let (ledger, _) = CpuLedger::open(&path);
        ledger.start(Step::SelfPlay);
        let during = ledger
            .saving_every(Duration::from_millis(5), || {
                burn(0.1);
                // The file a kill would leave now: written by the ticker, not by a return.
                std::thread::sleep(Duration::from_millis(50));
                read(&path)
            })
            .unwrap();
        assert!(during.selfplay >= 0.09, "saved while running: {during:?}");
        assert!(read(&path).selfplay >= during.selfplay);
    }

    #[test]
    fn an_unreadable_ledger_is_named_and_counting_starts_from_zero() {
        let path = scratch("unreadable").join("cpu.json");
        std::fs::write(&path, b"{\"selfplay\": 3").unwrap();
        let (ledger, problem) = CpuLedger::open(&path);
        let problem = problem.expect("a damaged ledger is reported");
        assert!(problem.contains("cpu.json") && problem.contains("not a processor-time ledger"));
        assert_eq!(ledger.spent(), StepSeconds::default());
    }
}
