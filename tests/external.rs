//! External bots (`toybattle-ext/1`, docs/tournament.md): a misbehaving program is bounded (a
//! line without end is a forfeit, not a memory leak; the processes it starts end with the game),
//! and the protocol gives a bot what it needs (game id, deal seed, terrain graph, its stderr in
//! a log file, a start-up wait of its own).

mod cli_support;

use cli_support::{games_of, python3, python_script as script, run_cli, run_tournament_in};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use toybattle::bot::external::ExternalBot;
use toybattle::bot::play::{play_game, PlayConfig};
use toybattle::bot::random::RandomBot;
use toybattle::bot::{Bot, Choice, Player, Request};
use toybattle::record::GameRecord;
use toybattle::rules::{Deal, Game, Variant};

/// A folder of its own for each test, in the temporary folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toybattle-external-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Plays one game on Castle Field: `bot` as blue against a random bot; returns the record and
/// the reason of the external bot's forfeit, if any.
fn play_against_random(bot: ExternalBot, seed: u64) -> (GameRecord, Option<String>) {
    play_against(bot, Box::new(RandomBot::new("random")), seed)
}

/// Plays one game on Castle Field: `bot` as blue against `opponent`; returns the record and
/// the reason of the external bot's forfeit, if any.
fn play_against(
    bot: ExternalBot,
    opponent: Box<dyn Bot>,
    seed: u64,
) -> (GameRecord, Option<String>) {
    let game = Game::builtin("castle_field", Variant::Normal).unwrap();
    let failure = bot.failure();
    let mut blue = Player::Fair(Box::new(bot));
    let mut red = Player::Fair(opponent);
    let record = play_game(
        &game,
        &Deal::from_seed(seed),
        &mut [&mut blue, &mut red],
        &PlayConfig::default(),
    )
    .record;
    drop(blue);
    let reason = failure.lock().unwrap().clone();
    (record, reason)
}

/// Answers the first legal decision of every `decide`.
const PLAYS_FIRST_LEGAL: &str = "for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'decide':\n        print(json.dumps({'decision': m['legal'][0]}), flush=True)\n    elif m['type'] == 'quit':\n        break\n";

/// The peak resident memory of this process so far, in KiB (`VmHWM` of /proc/self/status).
fn peak_memory_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_line_without_end_is_a_forfeit_and_memory_stays_bounded() {
    if !python3() {
        return;
    }
    let dir = temp_dir("endless");
    let program = script(
        &dir,
        "endless.py",
        "chunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n",
    );
    let before = peak_memory_kib();
    let bot = ExternalBot::new("endless", &program, Duration::from_secs(5));
    let (record, reason) = play_against_random(bot, 1);
    let grown = peak_memory_kib().saturating_sub(before);
    // The engine keeps at most one line of 64 KiB; allow for the threads and the pipes.
    assert!(grown < 16 * 1024, "peak memory grew by {grown} KiB");
    assert_eq!(record.result.end, "forfeit");
    let reason = reason.unwrap();
    assert!(reason.contains("longer than 64 KiB"), "{reason}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A random bot that thinks for a while before each decision, giving a flooding opponent time
/// to write.
struct SlowBot(RandomBot);

impl Bot for SlowBot {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn decide(&mut self, request: &Request) -> Choice {
        std::thread::sleep(Duration::from_millis(300));
        self.0.decide(request)
    }
}

/// Answers every decide, drawing when it can; after a draw (which ends its turn) it writes
/// copies of its answer without end, as fast as the pipe takes them.
const FLOODS_AFTER_A_DRAW: &str = "for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] != 'decide':\n        continue\n    draw = m['phase']['kind'] == 'action' and 'draw' in m['legal']\n    answer = json.dumps({'decision': 'draw' if draw else m['legal'][0]}) + '\\n'\n    sys.stdout.write(answer)\n    sys.stdout.flush()\n    if draw:\n        chunk = answer * 1000\n        while True:\n            sys.stdout.write(chunk)\n";

/// Issue 32, point 1: copies of a valid answer written without end while the opponent thinks
/// once filled an unbounded channel (665 MB in a two-game run). At most one line now waits,
/// the program blocks on the full pipe, and the line it wrote unasked is its forfeit.
#[test]
fn a_bot_that_floods_answers_forfeits_and_memory_stays_bounded() {
    if !python3() {
        return;
    }
    let dir = temp_dir("flood");
    let program = script(&dir, "flood.py", FLOODS_AFTER_A_DRAW);
    let before = peak_memory_kib();
    let bot = ExternalBot::new("flood", &program, Duration::from_secs(10));
    let (record, reason) = play_against(bot, Box::new(SlowBot(RandomBot::new("slow"))), 5);
    let grown = peak_memory_kib().saturating_sub(before);
    assert!(grown < 16 * 1024, "peak memory grew by {grown} KiB");
    assert_eq!(record.result.end, "forfeit");
    let reason = reason.unwrap();
    assert!(
        reason.contains("wrote a line nobody asked for")
            && reason.contains(r#"{"decision": "draw"}"#),
        "{reason}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// True when process `pid` is gone (or a zombie, which holds no resources but its entry).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn processes_a_bot_starts_end_with_the_game() {
    if !python3() {
        return;
    }
    let dir = temp_dir("child");
    let pid_file = dir.join("child.pid");
    let program = script(
        &dir,
        "starts-a-child.py",
        &format!(
            "child = subprocess.Popen(['sleep', '1000'])\nopen({:?}, 'w').write(str(child.pid))\n{PLAYS_FIRST_LEGAL}",
            pid_file.display().to_string()
        ),
    );
    let bot = ExternalBot::new("parent", &program, Duration::from_secs(10));
    let (record, reason) = play_against_random(bot, 2);
    assert_eq!(reason, None, "{record:?}");
    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while !process_gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let gone = process_gone(pid);
    if !gone {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
    assert!(gone, "the bot's child {pid} outlived the game");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Waits up to 5 s for every process of `pids` to be gone; kills and names those left.
fn assert_all_gone(pids: &[u32], what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pids.iter().all(|&p| process_gone(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<u32> = pids.iter().copied().filter(|&p| !process_gone(p)).collect();
    for p in &left {
        let _ = std::process::Command::new("kill")
            .args(["-9", &p.to_string()])
            .status();
    }
    assert!(left.is_empty(), "{what}: {left:?} outlived it");
}

/// The process ids a script wrote to `file`, one a line.
fn pids_in(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// Issue 32, point 8: a process a bot starts that leaves the bot's process group (`setsid`)
/// escaped the kill of the group and outlived the run; the engine now reaps it.
#[test]
fn a_bots_grandchild_that_calls_setsid_ends_with_the_run() {
    if !python3() {
        return;
    }
    let dir = temp_dir("setsid");
    let pid_file = dir.join("escaped.pids");
    let program = script(
        &dir,
        "escapes.py",
        &format!(
            "escaped = subprocess.Popen([sys.executable, '-c', 'import os, time\\nos.setsid()\\ntime.sleep(1000)'])\nwhile os.getsid(escaped.pid) == os.getsid(0):\n    time.sleep(0.01)\nwith open({:?}, 'a') as f:\n    f.write(f'{{escaped.pid}}\\n')\n{PLAYS_FIRST_LEGAL}",
            pid_file.display().to_string()
        ),
    );
    let out = dir.join("run");
    let spec = format!("ext:{}", program.display());
    #[rustfmt::skip]
    let (ok, _, err) = run_cli(&[
        "tournament", "--bots", &format!("{spec},random"),
        "--terrains", "castle_field", "--games", "2", "--concurrency", "1", "--quiet",
        "--out", out.to_str().unwrap(),
    ]);
    let pids = pids_in(&pid_file);
    assert_all_gone(&pids, "the processes the bot started with setsid()");
    assert!(ok, "{err}");
    assert_eq!(pids.len(), 2, "one per game");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Starts a tournament of `program` against `random`, waits (a minute at most) until the
/// program has written a pid to `pid_file`, kills the engine with SIGKILL and returns the pids.
fn kill_tournament_once_started(dir: &Path, program: &Path, pid_file: &Path) -> Vec<u32> {
    let out = dir.join("run");
    let bots = format!("ext:{},random", program.display());
    #[rustfmt::skip]
    let args = [
        "tournament", "--bots", &bots, "--terrains", "castle_field", "--games", "2",
        "--ext-timeout-ms", "600000", "--quiet", "--out", out.to_str().unwrap(),
    ];
    let mut engine = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while pids_in(pid_file).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    engine.kill().unwrap(); // SIGKILL: the engine runs no code of its own after it.
    engine.wait().unwrap();
    pids_in(pid_file)
}

/// Issue 32, point 8: a bot that ignores the end of its input (and SIGTERM) outlived a
/// tournament killed with `kill -9`; the system now kills it with the engine.
#[test]
fn a_bot_that_ignores_end_of_input_dies_with_a_killed_tournament() {
    if !python3() {
        return;
    }
    let dir = temp_dir("orphan");
    let pid_file = dir.join("bot.pids");
    let program = script(
        &dir,
        "stubborn.py",
        &format!(
            "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\nwith open({:?}, 'a') as f:\n    f.write(f'{{os.getpid()}}\\n')\nwhile True:\n    time.sleep(1000)\n",
            pid_file.display().to_string()
        ),
    );
    let pids = kill_tournament_once_started(&dir, &program, &pid_file);
    assert!(!pids.is_empty(), "the bot never started");
    assert_all_gone(&pids, "the bot of a tournament killed with kill -9");
    std::fs::remove_dir_all(dir).unwrap();
}

// ----- What the protocol gives a bot author ------------------------------------------------------

use toybattle::terrain;
use toybattle::tournament::config::{DEFAULT_EXT_STARTUP_MS, RUN_FORMAT};
use toybattle::tournament::store::GameLine;
use toybattle::tournament::{RunConfig, TournamentError};

/// Two games on Castle Field between `bot` and random.
fn tournament_config(bot: String) -> RunConfig {
    RunConfig {
        format: RUN_FORMAT.into(),
        bots: vec![bot, "random".into()],
        gauntlet: None,
        terrains: vec!["castle_field".into()],
        terrain_file_hash: None,
        games: 2,
        seed: 5,
        variant: Variant::Normal,
        max_turns: 300,
        sprt: None,
        ext_timeout_ms: 10_000,
        ext_startup_ms: DEFAULT_EXT_STARTUP_MS,
        versions: Default::default(),
        shard: None,
        what_ifs: Default::default(),
        records: Default::default(),
    }
}

fn run(config: &RunConfig, out: &Path) -> Result<(), TournamentError> {
    run_tournament_in(config, out, 1).map(|_| ())
}

/// The external bot's seat colour in a game line.
fn ext_colour(g: &GameLine) -> &'static str {
    if g.blue.starts_with("ext:") {
        "blue"
    } else {
        "red"
    }
}

/// The log file of the external bot of game `g`.
fn log_of(out: &Path, g: &GameLine) -> PathBuf {
    let stem = g
        .record
        .trim_start_matches("records/")
        .trim_end_matches(".json");
    out.join(format!("logs/{stem}.{}.stderr.log", ext_colour(g)))
}

#[test]
fn hello_names_the_game_and_carries_the_terrain_graph_and_stderr_is_kept() {
    if !python3() {
        return;
    }
    let dir = temp_dir("hello");
    // Writes the hello message to standard error, which the run folder keeps.
    let program = script(
        &dir,
        "logs-hello.py",
        &format!("hello = sys.stdin.readline()\nsys.stderr.write(hello)\nsys.stderr.flush()\n{PLAYS_FIRST_LEGAL}"),
    );
    let out = dir.join("run");
    run(
        &tournament_config(format!("ext:{}", program.display())),
        &out,
    )
    .unwrap();
    let games = games_of(&out);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_ne!(g.end, "forfeit", "{g:?}");
        let log = std::fs::read_to_string(log_of(&out, g)).unwrap();
        let hello: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
        assert_eq!(hello["type"], "hello");
        assert_eq!(hello["colour"], ext_colour(g));
        assert_eq!(hello["run"], g.run.as_str());
        assert_eq!(hello["position"], g.position);
        assert_eq!(hello["game"], g.game);
        assert_eq!(hello["deal_seed"], g.deal_seed);
        assert_eq!(hello["record"], g.record.as_str());
        // The graph is a terrain of a `toybattle-terrains/1` file: read back, it is the terrain.
        let file = serde_json::json!({"format": "toybattle-terrains/1", "terrains": [hello["terrain_graph"]]});
        let read = terrain::parse_terrains(&file.to_string()).unwrap();
        assert_eq!(&read[0], terrain::builtin("castle_field").unwrap());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bots_stderr_log_is_capped_and_the_bot_never_blocks_on_it() {
    if !python3() {
        return;
    }
    let dir = temp_dir("chatty");
    let log = dir.join("chatty.log");
    // 4 MiB on standard error before every answer: far past the cap and any pipe buffer.
    let program = script(
        &dir,
        "chatty.py",
        "for line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'decide':\n        sys.stderr.write('e' * (4 << 20))\n        sys.stderr.flush()\n        print(json.dumps({'decision': m['legal'][0]}), flush=True)\n",
    );
    let bot = ExternalBot::new("chatty", &program, Duration::from_secs(10)).with_stderr_log(&log);
    let (record, reason) = play_against_random(bot, 3);
    assert_eq!(reason, None, "{record:?}");
    assert_ne!(record.result.end, "forfeit");
    let kept = std::fs::read_to_string(&log).unwrap();
    let cap = toybattle::bot::external::MAX_LOG_BYTES as usize;
    assert!(
        kept.len() > cap && kept.len() < cap + 100,
        "{} bytes",
        kept.len()
    );
    assert!(kept.ends_with("[toybattle: log cut at 1024 KiB]\n"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bot_may_finish_its_work_after_quit() {
    if !python3() {
        return;
    }
    let dir = temp_dir("grace");
    let done = dir.join("done");
    // On quit, a short clean-up (flushing a log, say) before it exits.
    let program = script(
        &dir,
        "cleans-up.py",
        &format!(
            "{PLAYS_FIRST_LEGAL}time.sleep(0.2)\nopen({:?}, 'w').write('clean')\n",
            done.display().to_string()
        ),
    );
    let bot = ExternalBot::new("tidy", &program, Duration::from_secs(10));
    let (record, reason) = play_against_random(bot, 4);
    assert_eq!(reason, None, "{record:?}");
    assert_eq!(std::fs::read_to_string(&done).unwrap(), "clean");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_start_up_has_its_own_wait() {
    if !python3() {
        return;
    }
    let dir = temp_dir("startup");
    // A start-up of 3 s, then quick answers.
    let program = script(
        &dir,
        "slow-start.py",
        &format!("time.sleep(3)\n{PLAYS_FIRST_LEGAL}"),
    );
    let answer = Duration::from_millis(2000);
    let bot = ExternalBot::new("slow-start", &program, answer);
    let (_, reason) = play_against_random(bot, 5);
    assert_eq!(reason.as_deref(), Some("no answer within 2000 ms"));
    let bot = ExternalBot::new("slow-start", &program, answer)
        .with_startup_timeout(Duration::from_secs(5));
    let (record, reason) = play_against_random(bot, 5);
    assert_eq!(reason, None, "{record:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_given_version_is_part_of_the_settings_and_a_changed_one_is_refused_on_resume() {
    if !python3() {
        return;
    }
    let dir = temp_dir("version");
    let program = script(&dir, "versioned.py", PLAYS_FIRST_LEGAL);
    let out = dir.join("run");
    let spec = |v: &str| format!("ext:{}@{v}", program.display());
    run(&tournament_config(spec("1.0")), &out).unwrap();
    let stored: RunConfig =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let version = &stored.versions[&spec("1.0")];
    assert!(
        version.starts_with("ext-") && version.ends_with("@1.0"),
        "{version}"
    );
    let games = games_of(&out);
    assert!(games.iter().all(|g| g.versions.contains(version)));
    // The same program file, rebuilt behind it: the user says 1.1, and the run will not mix.
    let e = run(&tournament_config(spec("1.1")), &out)
        .unwrap_err()
        .to_string();
    assert!(e.contains("@1.1") && e.contains("@1.0"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_resume_names_the_version_of_each_external_bot() {
    if !python3() {
        return;
    }
    let dir = temp_dir("resume-version");
    let program = script(&dir, "versioned.py", PLAYS_FIRST_LEGAL);
    let out = dir.join("run");
    let tournament = || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toybattle"))
            .args([
                "tournament",
                "--terrains",
                "castle_field",
                "--games",
                "2",
                "--out",
            ])
            .arg(&out)
            .arg("--bots")
            .arg(format!("ext:{}@7.1,random", program.display()))
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    tournament();
    let note = tournament();
    assert!(note.contains("resuming"), "{note}");
    let line = note
        .lines()
        .find(|l| l.contains("versioned.py@7.1"))
        .unwrap();
    assert!(
        line.contains("plays as version ext-") && line.contains("@7.1"),
        "{note}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 32, point 8: `kill -9` of the engine killed the bot (`PR_SET_PDEATHSIG`) but not the
/// processes it started in its process group, which the system does not signal; one that
/// ignores hang-ups and the end of its input lived on. The bot's watchdog now kills the group.
#[test]
fn a_bots_grandchild_dies_with_a_killed_tournament() {
    if !python3() {
        return;
    }
    let dir = temp_dir("grandchild");
    let pid_file = dir.join("grandchild.pids");
    let program = script(
        &dir,
        "starts-a-stubborn-child.py",
        &format!(
            "stubborn = 'import signal, time\\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\\nwhile True:\\n    time.sleep(1000)'\nchild = subprocess.Popen([sys.executable, '-c', stubborn], stdin=subprocess.DEVNULL)\nwith open({:?}, 'a') as f:\n    f.write(f'{{child.pid}}\\n')\nwhile True:\n    time.sleep(1000)\n",
            pid_file.display().to_string()
        ),
    );
    let pids = kill_tournament_once_started(&dir, &program, &pid_file);
    assert!(!pids.is_empty(), "the bot never started its child");
    assert_all_gone(&pids, "the bot's child in a tournament killed with kill -9");
    std::fs::remove_dir_all(dir).unwrap();
}
