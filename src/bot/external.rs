//! External bots: a program that speaks the `toybattle-ext/1` JSON-lines protocol on its
//! standard input and output (described in docs/tournament.md).
//!
//! One process group per game: the program is started at the bot's first decision in a process
//! group of its own, told to quit when the bot is dropped, and after a short grace period the
//! whole group is killed, so neither a crash, a leaked state nor a process the program started
//! spills into the next game. Every failure of the program (it cannot start, exits, stays silent
//! past the timeout, writes a line longer than [`MAX_LINE_BYTES`], writes a line nobody asked
//! for, answers something that is not a legal decision) makes the bot answer
//! [`FORFEIT_DECISION`], which the rules refuse, so the game ends as a forfeit for it; the
//! reason is kept in [`ExternalBot::failure`]. The program's standard error goes to a log file
//! capped at [`MAX_LOG_BYTES`].
//!
//! A process the program started that leaves its group (`setsid`) is ended too once this
//! process is the reaper of its bots ([`become_reaper`], as the command line is): when the game
//! ends, every process left over becomes this process's child and is killed. The program
//! itself is killed by the system if this process dies first (`PR_SET_PDEATHSIG`), `kill -9`
//! included, and so is the rest of its group: the group is led by a `Watchdog`, a tiny
//! process that waits for this process to end and then kills the group.
//!
//! Memory stays bounded whatever the program writes: at most one line waits between the
//! reader thread and the game ([`PENDING_LINES`]); while it waits the reader stops reading, so
//! a program that floods its output blocks on the full pipe instead of filling the engine.

use super::{Bot, Choice, Request};
use crate::info::Observation;
use crate::rules::{Colour, Decision, DecisionList, Game, Phase, Troop, TroopCounts};
use crate::terrain::{bits, NodeIndex, NodeKind, Terrain};
use serde_json::{json, Map, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The protocol version sent in the hello message.
pub const PROTOCOL: &str = "toybattle-ext/1";

/// The longest line a program may write on its standard output, newline excluded. Answers are
/// a few dozen bytes; the cap keeps the engine's memory bounded whatever the program writes.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How many lines of a program's output may wait to be read by the game. A program answers
/// each request with one line, so one is all a well-behaved program ever needs; a line waiting
/// when a request is about to be sent was written unasked, and the program forfeits.
pub const PENDING_LINES: usize = 1;

/// The most of a program's standard error kept in its log file per game; the rest is read and
/// dropped, so the program never blocks on a full pipe.
pub const MAX_LOG_BYTES: u64 = 1024 * 1024;

/// How long a program may take to exit by itself after `quit` before its process group is
/// killed.
pub const QUIT_GRACE: Duration = Duration::from_millis(500);

/// What a failed external bot answers: a chance outcome. Players are only asked outside chance
/// events, and the rules refuse a chance outcome from a player there, so this decision is
/// always illegal and the game ends as a forfeit.
pub const FORFEIT_DECISION: Decision = Decision::Chance(Troop::Kwak);

/// Why an external bot forfeited, shared with whoever created it (the bot itself is moved into
/// a [`super::Player`] and cannot be inspected there).
pub type FailureCell = Arc<Mutex<Option<String>>>;

/// Which game of a run the bot plays, sent in `hello` with the names of `games.jsonl`, so that
/// a program's logs can be matched with the run's results and its randomness can follow the
/// run's seed.
#[derive(Clone, Debug, PartialEq)]
pub struct GameInfo {
    /// The run id (`run` of `games.jsonl`).
    pub run: String,
    /// The deal's position in the run's schedule (`position`).
    pub position: usize,
    /// 0 or 1: which game of the pair of games on the deal (`game`).
    pub game: u8,
    /// The seed of the deal (`deal_seed`).
    pub deal_seed: u64,
    /// The record's path in the run folder (`record`).
    pub record: String,
}

/// A bot played by an external program.
pub struct ExternalBot {
    name: String,
    program: PathBuf,
    timeout: Duration,
    startup_timeout: Duration,
    info: Option<GameInfo>,
    stderr_log: Option<PathBuf>,
    session: Option<Session>,
    failure: FailureCell,
}

/// What the reader thread passes on: a line of output, or why reading stopped early.
type LineResult = Result<String, LineError>;

/// A running program: its input, and its output lines arriving through a reader thread so that
/// waiting for them can time out.
struct Session {
    child: Child,
    /// The leader of the program's process group.
    watchdog: Watchdog,
    stdin: Option<ChildStdin>,
    lines: Receiver<LineResult>,
    /// No decision asked yet: the first wait includes the start-up.
    first: bool,
}

impl ExternalBot {
    /// A bot that runs `program` (an executable file, started with no arguments) and waits at
    /// most `timeout` for each answer (plus the start-up wait for the first one, none unless
    /// set by [`ExternalBot::with_startup_timeout`]).
    pub fn new(name: impl Into<String>, program: impl Into<PathBuf>, timeout: Duration) -> Self {
        ExternalBot {
            name: name.into(),
            program: program.into(),
            timeout,
            startup_timeout: Duration::ZERO,
            info: None,
            stderr_log: None,
            session: None,
            failure: Arc::new(Mutex::new(None)),
        }
    }

    /// Gives the program `startup` more time for its first answer (loading a model, say),
    /// on top of the timeout of every answer.
    pub fn with_startup_timeout(mut self, startup: Duration) -> Self {
        self.startup_timeout = startup;
        self
    }

    /// Names the game in `hello` (run, position, game, deal seed, record).
    pub fn with_game(mut self, info: GameInfo) -> Self {
        self.info = Some(info);
        self
    }

    /// Writes the program's standard error to `path` (its folder is created; at most
    /// [`MAX_LOG_BYTES`] kept). Without it, a file in the system's temporary folder is used.
    pub fn with_stderr_log(mut self, path: impl Into<PathBuf>) -> Self {
        self.stderr_log = Some(path.into());
        self
    }

    /// The reason of the forfeit once the program failed; `None` while it behaves.
    pub fn failure(&self) -> FailureCell {
        Arc::clone(&self.failure)
    }

    fn has_failed(&self) -> bool {
        self.failure.lock().map(|f| f.is_some()).unwrap_or(true)
    }

    /// Records the first failure and returns the forfeit decision.
    fn fail(&mut self, reason: String) -> Choice {
        if let Ok(mut f) = self.failure.lock() {
            f.get_or_insert(reason);
        }
        self.stop();
        Choice::plain(FORFEIT_DECISION)
    }

    /// Where the program's standard error goes when no log file was given.
    fn default_log(&self) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::env::temp_dir().join(format!(
            "toybattle-ext-logs/{}-{n}.stderr.log",
            std::process::id()
        ))
    }

    fn start(&self, game: &Game, colour: Colour) -> Result<Session, String> {
        let log_path = self
            .stderr_log
            .clone()
            .unwrap_or_else(|| self.default_log());
        let log = create_log(&log_path)?;
        // The program goes into its watchdog's process group (see `spawn_program`): ending the
        // group at the end of the game also ends every process the program started.
        let mut command = Command::new(&self.program);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        die_with_parent(&mut command);
        let (mut child, watchdog) = spawn_program(&mut command)
            .map_err(|e| format!("cannot start '{}': {e}", self.program.display()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            end_program(&mut child, watchdog);
            return Err("the program's standard input or output is not available".into());
        };
        let (tx, lines) = mpsc::sync_channel(PENDING_LINES);
        std::thread::spawn(move || read_lines(stdout, tx));
        std::thread::spawn(move || copy_capped(stderr, log, MAX_LOG_BYTES));
        let mut session = Session {
            child,
            watchdog,
            stdin: Some(stdin),
            lines,
            first: true,
        };
        session.send(&hello_message(game, colour, self.info.as_ref()))?;
        Ok(session)
    }

    /// Ends the program, if it runs: it is told to quit and given [`QUIT_GRACE`] to exit by
    /// itself (to flush its logs), then its whole process group is killed.
    fn stop(&mut self) {
        if let Some(mut s) = self.session.take() {
            let _ = s.send(&json!({"type": "quit"}));
            drop(s.stdin.take());
            let deadline = Instant::now() + QUIT_GRACE;
            while !has_exited(&s.child) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            end_program(&mut s.child, s.watchdog);
        }
    }

    fn ask(&mut self, request: &Request, legal: &DecisionList) -> Result<Decision, String> {
        if self.session.is_none() {
            self.session = Some(self.start(request.game, request.observation.observer())?);
        }
        let (timeout, startup) = (self.timeout, self.startup_timeout);
        let session = self.session.as_mut().expect("started above");
        session.nothing_unasked()?;
        session.send(&decide_message(request.game, request.observation, legal))?;
        let startup = if session.first {
            startup
        } else {
            Duration::ZERO
        };
        session.first = false;
        let line = match session.lines.recv_timeout(timeout + startup) {
            Ok(line) => line.map_err(|e| e.to_string())?,
            Err(RecvTimeoutError::Timeout) => {
                let extra = match startup.as_millis() {
                    0 => String::new(),
                    ms => format!(" (and the {ms} ms start-up wait)"),
                };
                return Err(format!(
                    "no answer within {} ms{extra}",
                    timeout.as_millis()
                ));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the program closed its output (exited or crashed)".into())
            }
        };
        let text = parse_answer(&line).map_err(|e| e.to_string())?;
        let terrain = request.game.terrain();
        let decision = Decision::parse(&text, terrain).map_err(|e| format!("answer {e}"))?;
        if !legal.contains(&decision) {
            return Err(format!("answered '{text}', which is not a legal decision"));
        }
        Ok(decision)
    }
}

impl Session {
    /// Checks, before a request, that the program wrote nothing since its last answer: one
    /// answer per request is the protocol, and a program that writes more (a flood of copies
    /// of its answer, say) would otherwise have its stale lines taken as later answers.
    fn nothing_unasked(&mut self) -> Result<(), String> {
        match self.lines.try_recv() {
            Ok(Ok(line)) => Err(format!(
                "wrote a line nobody asked for ('{}'): a program answers each decide message \
                 with exactly one line",
                line.chars().take(120).collect::<String>()
            )),
            Ok(Err(e)) => Err(e.to_string()),
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => Ok(()),
        }
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        let stdin = self.stdin.as_mut().ok_or("the program's input is closed")?;
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the program (exited or crashed?): {e}"))
    }
}

/// Whether this process reaps what its bots leave behind ([`become_reaper`]).
static REAPER: AtomicBool = AtomicBool::new(false);

/// The longest wait, at the end of a game, for the processes of a bot's group to die and for
/// the processes they leave to be killed.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// The process ids of the bot programs running now. Locked while a program is started and
/// while orphans are hunted, so that a program being started is never taken for an orphan.
fn programs() -> &'static Mutex<Vec<u32>> {
    static PROGRAMS: OnceLock<Mutex<Vec<u32>>> = OnceLock::new();
    PROGRAMS.get_or_init(Default::default)
}

/// Makes this process the reaper of every process its external bots start (Linux's
/// `PR_SET_CHILD_SUBREAPER`): a process a program started that left the program's process
/// group (`setsid`) and lost its parent becomes a child of this process instead of the
/// system's, and at the end of each game every such child is killed.
///
/// Only for a process whose children are all external bot programs, as the command line's
/// tournaments and balance studies: any other child it has is taken for a bot's leftover.
pub fn become_reaper() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with these arguments only sets a flag of this process.
        if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
            return Err(format!(
                "cannot make the engine the reaper of its bots' processes: {}",
                std::io::Error::last_os_error()
            ));
        }
        REAPER.store(true, Ordering::SeqCst);
    }
    Ok(())
}

/// Kills and reaps every child of this process that is not a running bot program: once this
/// process is a reaper ([`become_reaper`]), those are processes a bot started and left behind
/// (their parent gone, they were handed to this process). Does nothing otherwise.
pub fn reap_orphans() -> usize {
    if !REAPER.load(Ordering::SeqCst) {
        return 0;
    }
    let Ok(running) = programs().lock() else {
        return 0;
    };
    let orphans: Vec<libc::pid_t> = children()
        .into_iter()
        .filter(|pid| u32::try_from(*pid).is_ok_and(|p| !running.contains(&p)))
        .collect();
    for &pid in &orphans {
        // SAFETY: the orphan is an unreaped child of this process, so neither its id nor the
        // id of a group it leads can belong to a stranger; waitpid writes nothing here.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
    orphans.len()
}

/// The children of this process, from the parent id in `/proc/<pid>/stat`.
fn children() -> Vec<libc::pid_t> {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // After the name in parentheses (which may hold anything): state, then parent.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1).map(|p| p == me))
                    .unwrap_or(false)
            })
        })
        .collect()
}

/// Starts a bot program in the process group of a new [`Watchdog`] and lists both among the
/// running programs, all under the lock of the list (so neither is taken for an orphan).
fn spawn_program(command: &mut Command) -> std::io::Result<(Child, Watchdog)> {
    let mut running = programs().lock().unwrap_or_else(|e| e.into_inner());
    let watchdog = Watchdog::start().map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot start the program's watchdog: {e}"),
        )
    })?;
    command.process_group(watchdog.pid);
    match command.spawn() {
        Ok(child) => {
            running.extend([child.id(), watchdog.pid.unsigned_abs()]);
            Ok((child, watchdog))
        }
        Err(e) => {
            watchdog.end();
            Err(e)
        }
    }
}

/// Ends a bot program: its whole group is killed and the program and its watchdog reaped,
/// then, when this process is a reaper, what the group leaves is killed until the group is
/// gone.
fn end_program(child: &mut Child, watchdog: Watchdog) {
    let (pid, group) = (child.id(), watchdog.pid);
    kill_group(child, group);
    watchdog.end();
    if let Ok(mut running) = programs().lock() {
        running.retain(|&p| p != pid && p != group.unsigned_abs());
    }
    if !REAPER.load(Ordering::SeqCst) {
        return;
    }
    // The group's other processes die a moment after the program; the processes they started
    // outside the group are handed to this process only then.
    let deadline = Instant::now() + REAP_WAIT;
    loop {
        let reaped = reap_orphans();
        // SAFETY: signal 0 only asks whether the group still has a process.
        let group_alive = unsafe { libc::kill(-group, 0) } == 0;
        if (reaped == 0 && !group_alive) || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Has the system kill the program when the thread that starts it ends (`PR_SET_PDEATHSIG`):
/// with the engine killed (`kill -9` included) its bots end too instead of waiting forever.
/// Each program is started by the thread that plays its game and ended before that thread
/// ends, so the signal never cuts a game short.
fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid only reads this process's id.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the child between fork and exec and calls only prctl,
        // getppid and kill, which are async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The engine died before the signal was asked for: nobody will wait for us.
                if libc::getppid() != parent {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Whether the program has exited, without reaping it: while it is not reaped its process id,
/// which is also its process group's id, cannot be given to another process, so killing the
/// group afterwards cannot hit a stranger.
fn has_exited(child: &Child) -> bool {
    let pid: libc::id_t = child.id();
    // SAFETY: waitid only writes into the zeroed siginfo_t it is given.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid, &mut info, flags) == 0 && info.si_pid() != 0
    }
}

/// Kills the program's whole process group (the program, whatever it started and its
/// watchdog), then reaps the program.
fn kill_group(child: &mut Child, group: libc::pid_t) {
    // SAFETY: kill only sends a signal; the group id is the id of the watchdog, a child of this
    // process not reaped yet, so no other group can have it.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The leader of a bot program's process group: a process forked by the engine that only
/// waits for the end of a pipe whose other end the engine alone holds, then kills its group.
///
/// The system kills the program itself when the engine dies (`PR_SET_PDEATHSIG`), but not the
/// processes the program started, and after `kill -9` no code of the engine runs. The pipe's
/// end is the one signal that survives it: the system closes the engine's end when the engine
/// dies, however it dies, the watchdog's read returns, and the group dies with it. The watchdog
/// being the group's leader keeps the group's id from being given to another group meanwhile.
struct Watchdog {
    pid: libc::pid_t,
    /// The write end of the pipe, never written: closing it (or the engine dying) ends the
    /// watchdog. Close-on-exec, so no program inherits it.
    alarm: std::io::PipeWriter,
}

impl Watchdog {
    /// Forks the watchdog, in a process group of its own.
    fn start() -> std::io::Result<Watchdog> {
        use std::os::fd::AsRawFd;
        let (wait_end, alarm) = std::io::pipe()?;
        let fd = wait_end.as_raw_fd();
        let highest_fd = highest_fd();
        // SAFETY: the child runs only async-signal-safe calls (close, setpgid, read, kill,
        // _exit) on values computed before the fork, and never returns.
        let pid = unsafe { libc::fork() };
        match pid {
            -1 => Err(std::io::Error::last_os_error()),
            0 => unsafe { watch(fd, highest_fd) },
            _ => {
                // Also here, not only in the child, so that the group exists before the program
                // is put into it; the first of the two calls makes it, the other may fail.
                // SAFETY: setpgid on an unreaped child of this process.
                unsafe { libc::setpgid(pid, pid) };
                Ok(Watchdog { pid, alarm })
            }
        }
    }

    /// Ends the watchdog (if the group's kill did not already) and reaps it.
    fn end(self) {
        drop(self.alarm);
        // SAFETY: the watchdog is a child of this process not reaped yet, so its id is its
        // own; waitpid writes nothing with a null status.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// The highest file descriptor a process may hold (capped: a descriptor past it is closed by
/// `close_range` where the system has it).
fn highest_fd() -> libc::c_int {
    // SAFETY: getrlimit only writes into the struct it is given.
    let limit = unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        match libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) {
            0 => limit.rlim_cur,
            _ => 1024,
        }
    };
    libc::c_int::try_from(limit.min(65_536)).unwrap_or(65_536)
}

/// The watchdog's life, in the forked child: it keeps only the pipe's read end (other
/// descriptors of the engine, such as other bots' pipes, must not be held open by it), waits
/// for the pipe's end, then kills its whole group, itself included.
///
/// # Safety
/// Only in the child of a fork; `fd` is the pipe's read end.
unsafe fn watch(fd: libc::c_int, highest_fd: libc::c_int) -> ! {
    unsafe {
        close_all_but(fd, highest_fd);
        libc::setpgid(0, 0);
        let mut byte = 0u8;
        while libc::read(fd, (&raw mut byte).cast(), 1) < 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
        libc::kill(0, libc::SIGKILL);
        libc::_exit(0)
    }
}

/// Closes every file descriptor but `keep`, with only async-signal-safe calls.
///
/// # Safety
/// Only in the child of a fork, whose descriptors nothing else uses.
unsafe fn close_all_but(keep: libc::c_int, highest_fd: libc::c_int) {
    #[cfg(target_os = "linux")]
    // SAFETY: close_range only closes descriptors of this process.
    unsafe {
        let below = keep == 0 || libc::syscall(libc::SYS_close_range, 0, keep - 1, 0) == 0;
        let above = libc::syscall(libc::SYS_close_range, keep + 1, libc::c_uint::MAX, 0) == 0;
        if below && above {
            return;
        }
    }
    for other in (0..=highest_fd).filter(|&d| d != keep) {
        // SAFETY: as above.
        unsafe { libc::close(other) };
    }
}

/// Passes the program's output on line by line, until it ends, cannot be read, or a line is
/// longer than [`MAX_LINE_BYTES`] (then the reason is passed on and reading stops). The
/// channel holds [`PENDING_LINES`]: when it is full, sending waits, and so does the program.
fn read_lines(stdout: impl Read, tx: SyncSender<LineResult>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let Some(line) = read_bounded_line(&mut reader, MAX_LINE_BYTES).transpose() else {
            return;
        };
        let stop = line.is_err();
        if tx.send(line).is_err() || stop {
            return;
        }
    }
}

/// Why a line of an external bot's output cannot be read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Reading the program's standard output failed.
    #[error("cannot read the program's output: {0}")]
    Read(String),
    /// A line went past the cap before its newline; the cap is in bytes.
    #[error("wrote a line longer than {} KiB on its standard output", .max / 1024)]
    TooLong {
        /// The cap, in bytes.
        max: usize,
    },
    /// A line is not UTF-8 text.
    #[error("wrote a line that is not UTF-8")]
    NotUtf8,
}

/// One line of `reader` without its newline, `None` at the end of the input; an error for a
/// line longer than `max` bytes (never holding more than `max` bytes of it) or not UTF-8.
pub fn read_bounded_line(
    reader: &mut impl BufRead,
    max: usize,
) -> Result<Option<String>, LineError> {
    let mut line = Vec::new();
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LineError::Read(e.to_string())),
        };
        if buf.is_empty() {
            return match line.is_empty() {
                true => Ok(None),
                false => utf8(line).map(Some),
            };
        }
        let end = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..end.unwrap_or(buf.len())];
        if line.len() + chunk.len() > max {
            return Err(LineError::TooLong { max });
        }
        line.extend_from_slice(chunk);
        let used = chunk.len() + usize::from(end.is_some());
        reader.consume(used);
        if end.is_some() {
            return utf8(line).map(Some);
        }
    }
}

fn utf8(line: Vec<u8>) -> Result<String, LineError> {
    String::from_utf8(line).map_err(|_| LineError::NotUtf8)
}

fn create_log(path: &Path) -> Result<File, String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the log folder {}: {e}", dir.display()))?;
    }
    File::create(path).map_err(|e| format!("cannot create the log file {}: {e}", path.display()))
}

/// Copies at most `cap` bytes of `from` into `log`, notes the cut, and drains the rest.
fn copy_capped(from: impl Read, mut log: File, cap: u64) {
    let mut from = from;
    let copied = std::io::copy(&mut (&mut from).take(cap), &mut log).unwrap_or(0);
    if copied == cap {
        let _ = writeln!(log, "\n[toybattle: log cut at {} KiB]", cap / 1024);
        let _ = std::io::copy(&mut from, &mut std::io::sink());
    }
}

impl Drop for ExternalBot {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Bot for ExternalBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, request: &Request) -> Choice {
        if self.has_failed() {
            return Choice::plain(FORFEIT_DECISION);
        }
        let mut legal = DecisionList::new();
        request
            .observation
            .legal_decisions(request.game, &mut legal);
        match self.ask(request, &legal) {
            Ok(d) => Choice::plain(d),
            Err(reason) => self.fail(reason),
        }
    }
}

/// Why an external bot's answer line names no decision; `shown` is the line's first 120
/// characters.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The line is not JSON.
    #[error("answered '{shown}', which is not JSON ({error})")]
    NotJson {
        /// The start of the line.
        shown: String,
        /// What the JSON reader found wrong.
        error: serde_json::Error,
    },
    /// The line is JSON without a text field `decision`.
    #[error("answered '{shown}', expected {{\"decision\": \"...\"}}")]
    NoDecision {
        /// The start of the line.
        shown: String,
    },
}

/// Reads `{"decision": "place Jumbo 13"}` (public for the fuzz target `external_message`).
pub fn parse_answer(line: &str) -> Result<String, AnswerError> {
    let shown = || line.chars().take(120).collect::<String>();
    let value: Value = serde_json::from_str(line).map_err(|error| AnswerError::NotJson {
        shown: shown(),
        error,
    })?;
    value
        .get("decision")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| AnswerError::NoDecision { shown: shown() })
}

/// The `hello` message: the game, the bot's colour, which game of which run it is (`null`
/// outside a tournament), the medals to win and the rules parameters of the game (a study's
/// what-ifs), and the terrain graph as printed.
pub fn hello_message(game: &Game, colour: Colour, info: Option<&GameInfo>) -> Value {
    json!({
        "type": "hello",
        "protocol": PROTOCOL,
        "terrain": game.terrain().key,
        "variant": game.variant().to_string(),
        "colour": colour.name(),
        "run": info.map(|i| i.run.clone()),
        "position": info.map(|i| i.position),
        "game": info.map(|i| i.game),
        "deal_seed": info.map(|i| i.deal_seed),
        "record": info.map(|i| i.record.clone()),
        "medals_to_win": game.medals_to_win(),
        "what_if": game.what_if(),
        "terrain_graph": terrain_graph(game.terrain()),
    })
}

/// A drawing coordinate as the terrain file writes it (49.8, not the 49.79999923706055 a
/// widened `f32` would show).
fn coordinate(x: f32) -> Value {
    x.to_string()
        .parse::<f64>()
        .map_or(Value::Null, Value::from)
}

/// The terrain as one terrain of a `toybattle-terrains/1` file (the `--terrain-file` format):
/// what a program needs to know the board without a copy of the terrain data.
pub fn terrain_graph(t: &Terrain) -> Value {
    let nodes: Vec<Value> = (0..t.node_count())
        .map(|i| {
            let n = &t.nodes[i];
            let mut v = Map::new();
            v.insert("id".into(), n.id.get().into());
            let kind = match n.kind {
                NodeKind::Hq(_) => "hq",
                NodeKind::Base => "base",
                NodeKind::Special => "special",
            };
            v.insert("kind".into(), kind.into());
            if let Some(effect) = n.effect {
                v.insert("effect".into(), effect.key().into());
            }
            if let Some(allowed) = &n.allowed {
                let labels: Vec<&str> = allowed.iter().map(|t| t.value_label()).collect();
                v.insert("allowed_values".into(), labels.into());
            }
            v.insert(
                "adjacent".into(),
                t.ids(t.neighbours[i])
                    .iter()
                    .map(|n| n.get())
                    .collect::<Vec<u8>>()
                    .into(),
            );
            v.insert("x".into(), coordinate(n.x));
            v.insert("y".into(), coordinate(n.y));
            Value::Object(v)
        })
        .collect();
    let regions: Vec<Value> = t
        .regions
        .iter()
        .map(|r| {
            json!({"id": r.id, "bases": t.ids(r.bases), "medals": r.medals,
                   "x": coordinate(r.x), "y": coordinate(r.y)})
        })
        .collect();
    json!({
        "id": t.key,
        "name": t.name,
        "medals_to_win": t.medals_to_win,
        "hqs": per_colour(|c| t.ids(t.hqs[c.index()]).iter().map(|n| n.get()).collect::<Vec<u8>>()),
        "nodes": nodes,
        "regions": regions,
    })
}

fn troops(counts: TroopCounts) -> Value {
    Value::from(
        counts
            .to_vec()
            .into_iter()
            .map(|t| t.name())
            .collect::<Vec<_>>(),
    )
}

fn per_colour<T: Into<Value>>(f: impl Fn(Colour) -> T) -> Value {
    let mut m = Map::new();
    for c in Colour::BOTH {
        m.insert(c.name().to_string(), f(c).into());
    }
    Value::Object(m)
}

fn phase_value(game: &Game, phase: Phase) -> Value {
    let id = |n: NodeIndex| game.terrain().id_of(n).get();
    match phase {
        Phase::Action => json!({"kind": "action"}),
        Phase::TroopEffect { troop, node } => {
            json!({"kind": "troop_effect", "troop": troop.name(), "node": id(node)})
        }
        Phase::SpecialEffect { effect, node } => {
            json!({"kind": "special_effect", "effect": effect.key(), "node": id(node)})
        }
        Phase::Chance(_) => json!({"kind": "chance"}),
        Phase::Over => json!({"kind": "over"}),
    }
}

/// The `decide` message: the observation in the words of the rules, node ids of the
/// specification, and the legal decisions in text notation.
pub fn decide_message(game: &Game, obs: &Observation, legal: &DecisionList) -> Value {
    let terrain = game.terrain();
    let mut board = Map::new();
    for n in 0..terrain.node_count() {
        let stack: Vec<String> = obs
            .board()
            .stack(NodeIndex::new(n))
            .map(|t| t.to_string())
            .collect();
        if !stack.is_empty() {
            board.insert(
                terrain.id_of(NodeIndex::new(n)).to_string(),
                Value::from(stack),
            );
        }
    }
    let regions: Vec<u8> = bits(obs.regions_taken())
        .filter_map(|i| terrain.regions.get(i).map(|r| r.id))
        .collect();
    json!({
        "type": "decide",
        "terrain": terrain.key,
        "variant": game.variant().to_string(),
        "colour": obs.observer().name(),
        "first_player": obs.first_player().name(),
        "turn": obs.turn(),
        "phase": phase_value(game, obs.phase()),
        "board": board,
        "rack": troops(obs.rack()),
        "frozen": troops(obs.frozen()),
        "opponent_public_rack": troops(obs.opponent_public_rack()),
        "rack_size": per_colour(|c| obs.rack_len(c)),
        "reserve_size": per_colour(|c| obs.reserve_len(c)),
        "frozen_size": per_colour(|c| obs.frozen_len(c)),
        "discard": per_colour(|c| troops(obs.discard(c))),
        "medals": per_colour(|c| obs.medals(c)),
        "medals_to_win": game.medals_to_win(),
        "regions_taken": regions,
        "legal": legal.iter().map(|d| d.notation(terrain)).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Deal, Variant};

    #[test]
    fn forfeit_decision_is_never_legal_for_a_player() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let mut state = game.initial_state(&Deal::from_seed(3));
        assert!(!state.is_chance());
        assert!(game.apply(&mut state, FORFEIT_DECISION).is_err());
    }

    #[test]
    fn decide_message_lists_legal_decisions_in_notation() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let state = game.initial_state(&Deal::from_seed(3));
        let obs = Observation::new(&state, state.active());
        let mut legal = DecisionList::new();
        obs.legal_decisions(&game, &mut legal);
        let msg = decide_message(&game, &obs, &legal);
        assert_eq!(msg["type"], "decide");
        assert_eq!(msg["colour"], state.active().name());
        assert_eq!(msg["phase"]["kind"], "action");
        let listed = msg["legal"].as_array().unwrap();
        assert_eq!(listed.len(), legal.len());
        assert_eq!(listed[0], legal[0].notation(game.terrain()));
        assert_eq!(
            msg["rack"].as_array().unwrap().len(),
            obs.rack_len(obs.observer()) as usize
        );
    }

    #[test]
    fn a_what_if_game_tells_the_bot_its_objective_and_restricted_bases() {
        use crate::rules::{Restricted, WhatIf};
        use crate::terrain::NodeId;
        let retail = Game::builtin("castle_field", Variant::Normal).unwrap();
        let hello = hello_message(&retail, Colour::Blue, None);
        assert_eq!(hello["medals_to_win"], 7);
        assert!(hello["what_if"].get("restricted").is_none(), "{hello}");
        let game = retail
            .with_what_if(WhatIf {
                objective: Some(5),
                restricted: Restricted::of([NodeId(15)]),
                ..WhatIf::RETAIL
            })
            .unwrap();
        let hello = hello_message(&game, Colour::Blue, None);
        assert_eq!(hello["medals_to_win"], 5);
        assert_eq!(hello["what_if"]["objective"], 5);
        assert_eq!(hello["what_if"]["restricted"], serde_json::json!([15]));
        // The graph stays the terrain as printed, a valid entry of a terrain file.
        assert_eq!(hello["terrain_graph"]["medals_to_win"], 7);
        let state = game.initial_state(&Deal::from_seed(3));
        let obs = Observation::new(&state, state.active());
        let mut legal = DecisionList::new();
        obs.legal_decisions(&game, &mut legal);
        assert_eq!(decide_message(&game, &obs, &legal)["medals_to_win"], 5);
    }

    #[test]
    fn lines_are_read_up_to_the_cap_and_refused_past_it() {
        let max = 8;
        let mut input: &[u8] = b"12345678\n123456789\n";
        let mut reader = BufReader::with_capacity(3, &mut input);
        assert_eq!(
            read_bounded_line(&mut reader, max),
            Ok(Some("12345678".into()))
        );
        let e = read_bounded_line(&mut reader, max).unwrap_err();
        assert_eq!(e, LineError::TooLong { max });
        assert!(e.to_string().contains("longer than"), "{e}");
        let mut last: &[u8] = b"draw\nend";
        assert_eq!(read_bounded_line(&mut last, max), Ok(Some("draw".into())));
        assert_eq!(read_bounded_line(&mut last, max), Ok(Some("end".into())));
        assert_eq!(read_bounded_line(&mut last, max), Ok(None));
        let mut bad: &[u8] = b"\xff\n";
        let e = read_bounded_line(&mut bad, max).unwrap_err();
        assert_eq!(e, LineError::NotUtf8);
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }

    #[test]
    fn answers_are_read_or_refused_with_the_line_shown() {
        assert_eq!(parse_answer(r#"{"decision": "draw"}"#).unwrap(), "draw");
        let not_json = parse_answer("hello").unwrap_err();
        assert!(matches!(not_json, AnswerError::NotJson { .. }));
        assert!(not_json.to_string().contains("'hello'"));
        let e = parse_answer(r#"{"move": 1}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"answered '{"move": 1}', expected {"decision": "..."}"#
        );
    }
}
