//! `toybattle play`: a game against the computer in the terminal (see docs/play.md). It reads
//! one command a line, so a script can play it through a pipe.

use super::show::{node_label, picture_with_labels};
use super::{emit, load_game, read_text, CliResult};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};
use toybattle::record::notes::HintNote;
use toybattle::review::{table, ReviewOptions};
use toybattle::rules::{Colour, Troop, Variant};
use toybattle::session::{
    data_folder, hint_order, save_name, DecisionGroup, HintOrder, HumanView, Level, LogEntry,
    Session, SessionConfig, SessionError, ShownDeals, ToMove, HINT_SHOWN,
};

#[derive(clap::Args)]
#[command(after_help = levels_help())]
pub struct Args {
    /// Terrain key or name, e.g. `castle_field` or "Castle Field".
    #[arg(long, default_value = "castle_field")]
    terrain: String,
    /// normal or beginner (special bases are plain bases).
    #[arg(long, default_value = "normal")]
    variant: Variant,
    /// How strongly the computer plays: beginner, casual, strong or strongest (see below).
    #[arg(long, default_value = "casual")]
    level: Level,
    /// Your colour: blue (bottom of the board), red (top) or random.
    #[arg(long, default_value = "blue", value_parser = ["blue", "red", "random"])]
    seat: String,
    /// Who plays first: blue, red, or deal (as the deal decides, R3.5).
    #[arg(long, default_value = "deal", value_parser = ["blue", "red", "deal"])]
    first: String,
    /// Seed of the deal: replays a known deal [default: drawn at random and kept secret until
    /// the game is over].
    #[arg(long)]
    seed: Option<u64>,
    /// Resume a game saved with `save FILE` (its other settings are the record's).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["terrain", "variant", "level", "seat", "first", "seed"])]
    load: Option<PathBuf>,
    /// Coach: after each of your decisions, say at once when it lost at least 10 points of win
    /// probability (a mistake), with the better decision; `undo` takes it back.
    #[arg(long)]
    coach: bool,
}

/// The levels with their descriptions, and the measured ladder, for `--help`.
fn levels_help() -> String {
    let mut out = String::from("Levels:\n");
    for level in Level::ALL {
        out += &format!("  {:<10} {}\n", level.name(), level.description());
    }
    out += "\n";
    out += toybattle::session::LADDER;
    out += "\nIn the game, type `help` for the commands.";
    out
}

const COMMANDS: &str = "\
Commands:
  N                 take decision number N of the list
  place Jumbo 13    a decision in notation (also draw, decline, use, discard 14, return 13,
                    move 14 17, recover Star)
  hint              a strong search's best decisions for you, with your chances; then a
                    letter (a, b, c) takes one of them
  hint all          every candidate of the hint
  undo              take back your last decision and the computer's replies
  save FILE         write the game so far to FILE (a record for `toybattle replay`; it
                    holds the deal, so do not open it before the game is over)
  resign            give up the game
  board             show the board again
  review            the game review: your decisions' errors (during the game), then
                    every decision's error and every draw's luck, and the computer's
                    candidates at each of its decisions (after the game)
  help              this list
  quit              leave (an unsaved game is lost; Ctrl-C or the end of input at the
                    prompt saves it first)
Ctrl-C while the computer thinks stops its search; the game goes on.
When input is not a terminal (a script), the program ends once the game is over at the first
line that is not review, board, help, save FILE or undo, or after 100 lines past the end.
";

/// What Ctrl-C does, shared with its handler: while the computer thinks (or a hint is
/// searched) it stops that search; at the prompt it leaves the game, saving it first.
struct Interrupt {
    /// Cancels the search under way (the session's `stop`).
    stop: AtomicBool,
    /// Whether a search is under way.
    searching: AtomicBool,
    /// The game to save on leaving: the file and the record's text, while the game is unfinished.
    unsaved: Mutex<Option<(String, String)>>,
}

static INTERRUPT: Interrupt = Interrupt {
    stop: AtomicBool::new(false),
    searching: AtomicBool::new(false),
    unsaved: Mutex::new(None),
};

/// The signal handler's work: stop the search, or leave the game (saved) from the prompt.
fn on_ctrl_c() {
    if INTERRUPT.searching.load(Ordering::SeqCst) {
        INTERRUPT.stop.store(true, Ordering::SeqCst);
    } else {
        let _ = emit(&format!("\nCtrl-C: {}", leave()));
        std::process::exit(130);
    }
}

/// Leaves an unfinished game: writes it to its file and says how to resume it.
fn leave() -> String {
    let unsaved = INTERRUPT.unsaved.lock().map(|u| u.clone()).unwrap_or(None);
    match unsaved {
        None => "leaving the game\n".into(),
        Some((path, text)) => match std::fs::write(&path, text) {
            Ok(()) => format!(
                "leaving the game, saved to {path}: resume it with `toybattle play --load {path}`\n"
            ),
            Err(e) => format!("leaving the game; it could not be saved to {path}: {e}\n"),
        },
    }
}

/// Keeps the game to save on leaving up to date (nothing once the game is over). The file is
/// in the data folder's saves, named after the game (never after a secret seed).
fn remember(session: &Session) {
    let snapshot = (!session.is_over()).then(|| {
        let record = session.record();
        let name = save_name(&record, unix_now());
        let folder = data_folder().join("saves");
        let _ = std::fs::create_dir_all(&folder);
        let file = folder.join(format!("{name}.json")).display().to_string();
        let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
        (file, text)
    });
    if let Ok(mut unsaved) = INTERRUPT.unsaved.lock() {
        *unsaved = snapshot;
    }
}

/// Runs a search of the session with Ctrl-C stopping it.
fn searching<T>(search: impl FnOnce(&AtomicBool) -> T) -> T {
    INTERRUPT.stop.store(false, Ordering::SeqCst);
    INTERRUPT.searching.store(true, Ordering::SeqCst);
    let out = search(&INTERRUPT.stop);
    INTERRUPT.searching.store(false, Ordering::SeqCst);
    out
}

pub fn run(args: Args) -> CliResult {
    let mut session = start(&args)?;
    let ui = Ui {
        colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        coach: args.coach,
    };
    // Without a handler Ctrl-C still ends the program, as any other: only the saving is lost.
    if let Err(e) = ctrlc::set_handler(on_ctrl_c) {
        emit(&format!("(Ctrl-C cannot be caught here: {e})\n"))?;
    }
    let mut table = Table {
        piped: !std::io::stdin().is_terminal(),
        ..Table::default()
    };
    let mut lines = std::io::stdin().lock().lines();
    let mut shown_end = false;
    let mut lines_after_end = 0;
    // When the computer moves first, its moves come before the first board.
    if session.to_move() == ToMove::Human {
        emit(&table.board(&ui, &session.view()))?;
    }
    loop {
        if matches!(session.to_move(), ToMove::Bot | ToMove::Chance) {
            let view = session.view();
            let mut steps = Vec::new();
            let done = searching(|stop| {
                if view.to_move == ToMove::Bot {
                    emit(&format!(
                        "{} ({}) is thinking… (Ctrl-C stops it)\n",
                        view.bot, view.level
                    ))?;
                }
                Ok::<_, String>(session.advance_with(stop, &mut |s| steps.push(s.clone())))
            })?;
            emit(&ui.steps(&steps, &view))?;
            match done {
                Ok(_) => emit(&table.board(&ui, &session.view()))?,
                // The prompt follows; the human's next line lets the computer think again.
                Err(SessionError::Cancelled) => {
                    emit(
                        "Stopped the computer's thinking; it is still its turn. Press Enter to \
                         let it think again, or type a command (undo, save FILE, quit).\n",
                    )?;
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        if session.is_over() && !shown_end {
            emit(&ui.result(&session.view(), session.seed()))?;
            shown_end = true;
        }
        remember(&session);
        emit("> ")?;
        let Some(line) = lines.next() else {
            emit(&format!("\nend of input: {}", leave()))?;
            return Ok(());
        };
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        if shown_end && table.piped {
            // A script that repeats a decision (`yes 1 | toybattle play`) would read forever.
            // Only lines after the end was shown count: a game that ended while the line was
            // awaited (a copy showed its deal) first says so.
            lines_after_end += 1;
            if !after_game_command(line.trim()) || lines_after_end > 100 {
                emit("The game is over: leaving (the rest of the input is not read).\n")?;
                return Ok(());
            }
        }
        match command(&mut session, &ui, &mut table, line.trim())? {
            Flow::Go => {}
            Flow::Quit => return Ok(()),
        }
    }
}

/// The session of the arguments: a new game, or a loaded one.
fn start(args: &Args) -> Result<Session, String> {
    if let Some(path) = &args.load {
        let text = read_text(path, toybattle::terrain::input::SAVED_GAME)?;
        let mut session =
            Session::load_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        guard(&mut session).map_err(|e| format!("{}: {e}", path.display()))?;
        emit(&format!("Resumed the game of {}.\n", path.display()))?;
        return Ok(session);
    }
    // A drawn seed comes from the operating system's generator: it cannot be guessed.
    let seed = args.seed.unwrap_or_else(rand::random);
    let human = match args.seat.as_str() {
        "red" => Colour::Red,
        "blue" => Colour::Blue,
        // From the seed, so that the printed seed repeats the game.
        _ => Colour::BOTH[(seed.rotate_left(17) & 1) as usize],
    };
    let first = match args.first.as_str() {
        "blue" => Some(Colour::Blue),
        "red" => Some(Colour::Red),
        _ => None,
    };
    let game = load_game(&args.terrain, None, args.variant)?;
    let mut session = Session::new(SessionConfig {
        game,
        level: args.level,
        human,
        first,
        seed,
        seed_chosen: args.seed.is_some(),
    })
    .map_err(|e| e.to_string())?;
    guard(&mut session).map_err(|e| e.to_string())?;
    let deal = match session.seed() {
        Some(seed) => format!("seed {seed}"),
        None => "a deal drawn at random (its seed is shown when the game is over)".into(),
    };
    emit(&format!(
        "New game: {deal}; you play {human} against {} ({}). Type `help` for the commands.\n",
        args.level,
        args.level.description()
    ))?;
    Ok(session)
}

/// Guards the game's deal with the shown deals of the data folder (see docs/play.md).
fn guard(session: &mut Session) -> Result<(), SessionError> {
    session.guard_deal(ShownDeals::in_folder(&data_folder())?)
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

enum Flow {
    Go,
    Quit,
}

/// Whether a line is one a script may still send once the game is over.
fn after_game_command(line: &str) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    matches!(
        word,
        "review" | "board" | "help" | "?" | "save" | "undo" | "quit" | "exit"
    )
}

/// What the terminal keeps between lines: the last hint (its letters), and the turn whose
/// board was last shown in full.
#[derive(Default)]
struct Table {
    /// Standard input is not a terminal: a script plays.
    piped: bool,
    /// The last hint and the number of steps played when it was asked: its letters take its
    /// candidates while no step has been played since.
    hint: Option<(HintNote, usize)>,
    /// The turn whose board was last drawn in full: later decisions of the same turn (an
    /// effect of the tile just placed) show only what changed.
    drawn_turn: Option<u16>,
    /// Whether the picture's legend was shown (with the first board; `board` shows it again).
    legend_shown: bool,
}

impl Table {
    /// The board, in full once a turn; within the same turn, the stacks, medals, racks and
    /// decisions only.
    fn board(&mut self, ui: &Ui, v: &HumanView) -> String {
        let full = self.drawn_turn != Some(v.turn);
        self.drawn_turn = Some(v.turn);
        let legend = full && !self.legend_shown;
        self.legend_shown |= legend;
        ui.board(v, full, legend)
    }

    /// The hint's candidates in the order a player reads them, if it was asked at this step.
    fn hint_now(&self, session: &Session) -> Option<HintOrder> {
        let steps = session.view().log.len();
        match &self.hint {
            Some((hint, at)) if *at == steps => Some(hint_order(&hint.candidates)),
            _ => None,
        }
    }
}

/// Carries out one line of input; a mistake gets a message and the game goes on.
fn command(session: &mut Session, ui: &Ui, table: &mut Table, line: &str) -> Result<Flow, String> {
    let word = line.split_whitespace().next().unwrap_or("");
    let rest = line[word.len()..].trim();
    let message = match word {
        "" => return Ok(Flow::Go),
        "quit" | "exit" => return Ok(Flow::Quit),
        "help" | "?" => COMMANDS.to_string(),
        "board" => ui.board(&session.view(), true, true),
        "hint" => {
            let all = rest == "all";
            match table.hint_now(session) {
                Some(order) if all => hint_all(&order),
                _ => match searching(|stop| session.hint(Session::hint_budget(), stop)) {
                    Ok(hint) => {
                        let steps = session.view().log.len();
                        let order = hint_order(&hint.candidates);
                        let text = match all {
                            true => hint_all(&order),
                            false => hint_table(&hint, &order),
                        };
                        table.hint = Some((hint, steps));
                        text
                    }
                    Err(e) => format!("no hint: {e}\n"),
                },
            }
        }
        "undo" => {
            let before = session.view().log;
            match session.undo() {
                Ok(()) => {
                    let view = session.view();
                    let taken = before.get(view.log.len()..).unwrap_or_default();
                    format!(
                        "{}\n{}",
                        taken_back(taken, view.human),
                        table.board(ui, &view)
                    )
                }
                Err(e) => format!("cannot undo: {e}\n"),
            }
        }
        "resign" => match session.resign() {
            Ok(()) => String::new(),
            Err(e) => format!("cannot resign: {e}\n"),
        },
        "save" => save(session, rest),
        "review" => game_review(session) + &review(&session.view()),
        _ => match decision_text(session, table, line) {
            Ok(text) => match session.apply(&text) {
                // The board follows once the computer has answered, or now if it is still
                // the human's decision (an effect of the tile just placed).
                Ok(()) if session.to_move() == ToMove::Human => {
                    format!(
                        "you: {text}\n{}{}",
                        coach(session, ui),
                        table.board(ui, &session.view())
                    )
                }
                Ok(()) => format!("you: {text}\n{}", coach(session, ui)),
                Err(e) => format!("not taken: {e}\n"),
            },
            Err(e) => e,
        },
    };
    emit(&message)?;
    Ok(Flow::Go)
}

/// The decision a line names: a number of the list, a hint's letter, or notation.
fn decision_text(session: &Session, table: &Table, line: &str) -> Result<String, String> {
    if let Some(letter) = hint_letter(line) {
        let shown = table.hint_now(session).map(|o| o.tried).unwrap_or_default();
        return match shown.iter().take(HINT_SHOWN).nth(letter) {
            Some(c) => Ok(c.decision.clone()),
            None if shown.is_empty() => {
                Err("no hint for this decision: type `hint` first, or a decision's number\n".into())
            }
            None => Err(format!(
                "the hint has no candidate '{line}': type one of its letters, a to {}\n",
                HINT_LETTERS[shown.len().min(HINT_SHOWN) - 1]
            )),
        };
    }
    const DECISION_WORDS: [&str; 8] = [
        "draw", "place", "decline", "use", "discard", "return", "move", "recover",
    ];
    let options: Vec<String> = session
        .legal()
        .iter()
        .flat_map(|g| g.options.iter().map(|o| o.notation.clone()))
        .collect();
    if let Ok(n) = line.parse::<i64>() {
        return match usize::try_from(n)
            .ok()
            .and_then(|n| options.get(n.wrapping_sub(1)))
        {
            Some(text) => Ok(text.clone()),
            None if options.is_empty() => Err("there is no decision of yours to take now\n".into()),
            None => Err(format!(
                "no decision {n}: choose a number from 1 to {}\n",
                options.len()
            )),
        };
    }
    let word = line.split_whitespace().next().unwrap_or("");
    if DECISION_WORDS.contains(&word) || word == "chance" {
        return Ok(line.to_string());
    }
    Err(format!(
        "unknown command '{line}': type a decision's number, a decision such as 'place Jumbo \
         13', or 'help'\n"
    ))
}

fn save(session: &Session, path: &str) -> String {
    if path.is_empty() {
        return "save needs a file name: save FILE\n".into();
    }
    let text = match serde_json::to_string_pretty(&session.record()) {
        Ok(t) => t + "\n",
        Err(e) => return format!("cannot write the record: {e}\n"),
    };
    match std::fs::write(path, text) {
        Ok(()) => format!(
            "Saved to {path}. It holds the deal (the reserves' order and the computer's tiles): \
             open it with `toybattle replay` once the game is over; resume it with \
             `toybattle play --load {path}`.\n"
        ),
        Err(e) => format!("cannot save to {path}: {e}\n"),
    }
}

/// Search iterations per decision of the terminal's `review` and of the coach: as many as the
/// win estimate's playouts, so that a whole game is reviewed in seconds.
const REVIEW_ITERATIONS: u64 = toybattle::review::ESTIMATE_PLAYOUTS;

/// With `--coach`: a warning when the human's last decision lost at least a mistake's worth of
/// win probability, with the better decision and the way back.
fn coach(session: &Session, ui: &Ui) -> String {
    if !ui.coach {
        return String::new();
    }
    let options = ReviewOptions::default().with_iterations(REVIEW_ITERATIONS);
    match session.coach(&options) {
        Some(d) if d.error >= toybattle::review::MISTAKE => format!(
            "Coach: that was a {} ({:.0} points of win probability): {} keeps {:.0}%, yours \
             {:.0}%. {}\n",
            d.class.map_or("mistake", |c| c.name()),
            d.error * 100.0,
            d.best,
            d.best_win * 100.0,
            d.played_win * 100.0,
            match session.can_undo() {
                Ok(()) => "Type `undo` to take it back.".to_string(),
                Err(e) => format!("It cannot be taken back: {e}."),
            }
        ),
        _ => String::new(),
    }
}

/// The game review as a table: while the game goes on, the human's own decisions only.
fn game_review(session: &Session) -> String {
    let options = ReviewOptions::default().with_iterations(REVIEW_ITERATIONS);
    let mut out = table(&searching(|stop| {
        session.review(&options, &|_| {}, Some(stop))
    }));
    if !session.is_over() {
        out += "(while the game goes on, only your own decisions are reviewed)\n";
    }
    out + "\n"
}

/// The computer's candidates at each of its decisions, once the game is over.
fn review(view: &HumanView) -> String {
    if view.result.is_none() {
        return "the computer's candidates are shown once the game is over (they name its \
                hidden tiles)\n"
            .into();
    }
    let mut out = String::from("The computer's decisions and what it weighed:\n");
    for t in &view.bot_thoughts {
        out += &format!("  step {:>3}: {}", t.step, t.decision);
        if t.candidates.is_empty() {
            out += "  (no search)\n";
            continue;
        }
        out += &format!("  ({} iterations)\n", t.iterations);
        for c in &t.candidates {
            out += &format!(
                "      {:<20} its chances {:>3.0}%  ({} visits)\n",
                c.decision,
                c.win * 100.0,
                c.visits
            );
        }
    }
    out
}

/// The letters of a hint's candidates: not numbers, which are the decisions' numbers.
const HINT_LETTERS: [char; HINT_SHOWN] = ['a', 'b', 'c'];

/// The hint candidate a line names by its letter (0 for `a`).
fn hint_letter(line: &str) -> Option<usize> {
    let mut chars = line.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    HINT_LETTERS
        .iter()
        .position(|&l| l == c.to_ascii_lowercase())
}

/// A hint: its best few candidates, lettered.
fn hint_table(hint: &HintNote, order: &HintOrder) -> String {
    let mut out = format!(
        "Hint ({} iterations): the search's main candidates, your best chances first{}\n",
        hint.iterations,
        hint.win.map_or(String::new(), |w| format!(
            " (your chances now {:.0}%)",
            w * 100.0
        ))
    );
    for (c, letter) in order.tried.iter().zip(HINT_LETTERS) {
        out += &candidate_line(&letter.to_string(), c);
    }
    let more = order.tried.len().saturating_sub(HINT_SHOWN) + order.rarely.len();
    out += "Type a letter to take that decision";
    match more {
        0 => out += ".\n",
        n => out += &format!("; `hint all` lists the {n} others.\n"),
    }
    out
}

/// Every candidate of a hint: the main ones by chances, then those tried too rarely to tell.
fn hint_all(order: &HintOrder) -> String {
    let mut out = String::from("Every candidate of the hint, your best chances first:\n");
    for (i, c) in order.tried.iter().enumerate() {
        let label = HINT_LETTERS
            .get(i)
            .map_or("-".to_string(), |l| l.to_string());
        out += &candidate_line(&label, c);
    }
    if !order.rarely.is_empty() {
        out += "Tried too rarely for their chances to mean much, most tried first:\n";
        for c in &order.rarely {
            out += &candidate_line("-", c);
        }
    }
    out
}

fn candidate_line(label: &str, c: &toybattle::record::notes::HintCandidate) -> String {
    format!(
        "  {label}) {:<20} your chances {:>3.0}%  ({} visits)\n",
        c.decision,
        c.value * 100.0,
        c.visits
    )
}

/// "Taken back: …": the steps an undo removed, as the human saw them.
fn taken_back(steps: &[LogEntry], human: Colour) -> String {
    let (yours, replies): (Vec<&LogEntry>, Vec<&LogEntry>) =
        steps.iter().partition(|e| e.actor == Some(human));
    let yours: Vec<&str> = yours.iter().map(|e| e.text.as_str()).collect();
    let replies: Vec<String> = replies
        .iter()
        .map(|e| match e.actor {
            Some(_) => e.text.clone(),
            None if e.text == "chance ?" => "a chance outcome unseen by you".into(),
            None => format!("chance {}", e.text.trim_start_matches("chance ")),
        })
        .collect();
    let mut out = format!("Taken back: your {}", yours.join(", "));
    if !replies.is_empty() {
        out += &format!(" and the computer's replies ({})", replies.join(", "));
    }
    out + "."
}

/// Text of the game for the terminal, coloured or plain.
struct Ui {
    colour: bool,
    /// Coach: after each of the human's decisions, say at once when it lost at least a mistake's
    /// worth of win probability.
    coach: bool,
}

impl Ui {
    fn paint(&self, c: Colour, text: &str) -> String {
        match (self.colour, c) {
            (false, _) => text.to_string(),
            (true, Colour::Blue) => format!("\x1b[1;34m{text}\x1b[0m"),
            (true, Colour::Red) => format!("\x1b[1;31m{text}\x1b[0m"),
        }
    }

    /// The board with the stacks, the racks, medals and counts, and the human's decisions;
    /// without the picture and its legend unless `full`.
    fn board(&self, v: &HumanView, full: bool, legend: bool) -> String {
        let game = match toybattle::rules::Game::builtin(&v.terrain, v.variant) {
            Ok(g) => g,
            Err(e) => return format!("cannot draw terrain {}: {e}\n", v.terrain),
        };
        let t = game.terrain();
        let mut out = format!(
            "\n— {} ({}), turn {} — you: {} against {} ({}) —\n",
            v.terrain_name, v.variant, v.turn, v.human, v.bot, v.level
        );
        if full {
            let label = |i: usize| match v.nodes[i].stack.last() {
                Some(top) => format!(
                    "{}:{}{}",
                    node_label(t, i),
                    colour_letter(top.colour),
                    top.troop.value_label()
                ),
                None => node_label(t, i),
            };
            let mut picture = picture_with_labels(t, &label);
            if self.colour {
                picture = self.paint_labels(&picture, v, &label);
            }
            out += &picture;
            if legend {
                out += &self::legend(t, v.variant);
            }
        }
        out += &self.stacks(v);
        out += &format!(
            "Medals      blue {}, red {} ({} to win); regions taken: {}\n",
            v.medals.blue,
            v.medals.red,
            v.medals_to_win,
            self.taken_regions(v)
        );
        let side = |c: Colour| match c {
            Colour::Blue => (v.reserve.blue, &v.discard.blue),
            Colour::Red => (v.reserve.red, &v.discard.red),
        };
        let (reserve, discard) = side(v.human);
        out += &format!(
            "You ({})  rack: {}; frozen: {}; reserve {reserve}; discard: {}\n",
            self.paint(v.human, v.human.name()),
            troop_list(&v.rack),
            troop_list(&v.frozen),
            troop_list(discard)
        );
        let (reserve, discard) = side(v.bot);
        out += &format!(
            "{} ({})  rack: {} tiles, known: {}; frozen {}; reserve {reserve}; discard: {}\n",
            v.level,
            self.paint(v.bot, v.bot.name()),
            v.opponent_rack.count,
            troop_list(&v.opponent_rack.known),
            v.opponent_rack.frozen,
            troop_list(discard)
        );
        if let Some(w) = v.win_history.last() {
            out += &format!("Estimate    your chances {:.0}%\n", w.human * 100.0);
        }
        if v.to_move == ToMove::Human {
            out += &format!("Now         {}\n", v.phase);
            out += &decision_list(&v.decisions);
        }
        out
    }

    /// The regions taken, each with its taker, medals and turn: `R8 by red (3 medals, turn 5)`.
    fn taken_regions(&self, v: &HumanView) -> String {
        let taken: Vec<String> = v
            .taken_regions
            .iter()
            .map(|r| {
                let who = match r.by == v.human {
                    true => "you",
                    false => "the computer",
                };
                format!(
                    "R{} by {} ({}, {} medal{}, turn {})",
                    r.id,
                    who,
                    self.paint(r.by, r.by.name()),
                    r.medals,
                    if r.medals == 1 { "" } else { "s" },
                    r.turn
                )
            })
            .collect();
        match taken.is_empty() {
            true => "none".into(),
            false => taken.join("; "),
        }
    }

    fn stacks(&self, v: &HumanView) -> String {
        let rows: Vec<String> = v
            .nodes
            .iter()
            .filter(|n| !n.stack.is_empty())
            .map(|n| {
                let tiles: Vec<String> = n
                    .stack
                    .iter()
                    .map(|t| self.paint(t.colour, &format!("{} {}", t.colour, t.troop)))
                    .collect();
                format!("{}: {}", n.id, tiles.join(", "))
            })
            .collect();
        match rows.is_empty() {
            true => "Stacks      none yet\n".into(),
            false => format!("Stacks      (bottom first) {}\n", rows.join("; ")),
        }
    }

    /// Colours the labels of occupied nodes by their top tile.
    fn paint_labels(
        &self,
        picture: &str,
        v: &HumanView,
        label: &dyn Fn(usize) -> String,
    ) -> String {
        let mut out = picture.to_string();
        for (i, n) in v.nodes.iter().enumerate() {
            if let Some(top) = n.stack.last() {
                let text = label(i);
                out = out.replacen(&text, &self.paint(top.colour, &text), 1);
            }
        }
        out
    }

    fn steps(&self, steps: &[LogEntry], v: &HumanView) -> String {
        steps
            .iter()
            .map(|e| match e.actor {
                Some(c) => format!("  {}: {}\n", self.paint(c, c.name()), e.text),
                None if e.text == "chance ?" => format!("  ({}, unseen by you)\n", e.during),
                None => format!("  {}: {}\n", e.during, e.text.trim_start_matches("chance ")),
            })
            .chain((v.to_move == ToMove::Over).then(String::new))
            .collect()
    }

    fn result(&self, v: &HumanView, seed: Option<u64>) -> String {
        let Some(r) = &v.result else {
            return String::new();
        };
        let outcome = match r.winner {
            Some(w) if w == v.human => format!("You win ({})", end_words(&r.end)),
            Some(_) => format!("{} wins ({})", v.level, end_words(&r.end)),
            None => format!("The game ended without a winner: {}", end_words(&r.end)),
        };
        let replay = seed.map_or(String::new(), |s| {
            format!(" The deal's seed was {s} (`--seed {s}` plays it again).")
        });
        format!("{outcome}. Type `review` for the computer's candidates.{replay}\n")
    }
}

/// What the picture's marks mean: HQs, special bases with their effects, regions, tiles.
fn legend(t: &toybattle::terrain::Terrain, variant: Variant) -> String {
    use toybattle::terrain::NodeKind;
    let mut out = String::from("  Legend: ");
    for c in Colour::BOTH {
        let hqs: Vec<String> = t
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Hq(c))
            .map(|n| format!("[{}]", n.id))
            .collect();
        out += &format!(
            "{} {c} HQ{}; ",
            hqs.join(" "),
            if hqs.len() > 1 { "s" } else { "" }
        );
    }
    out += "R6=1 = region 6, worth 1 medal to whoever first\n  holds all its bases; ";
    out += "n:B5 = a blue tile of value 5 on top of node n (R: red; X = Kwak,\n  1 Skully, \
            2 Cap'n, 3 Jumbo, 4 Hook, 5 XB-42, 6 Star, 7 Roxy)\n";
    // The special bases with their effect in words, bases of the same words together.
    let mut specials: Vec<(String, Vec<String>)> = Vec::new();
    for n in t.nodes.iter().filter(|n| n.kind == NodeKind::Special) {
        let words = match (variant, n.effect) {
            (Variant::Beginner, _) | (_, None) => "a plain base in the beginner variant".into(),
            (_, Some(e)) => toybattle::web::view::describe(e, n.allowed.as_deref()),
        };
        match specials.iter_mut().find(|(w, _)| *w == words) {
            Some((_, ids)) => ids.push(format!("{}*", n.id)),
            None => specials.push((words, vec![format!("{}*", n.id)])),
        }
    }
    for (words, ids) in specials {
        out += &format!("  {}: special base: {words}\n", ids.join(", "));
    }
    out
}

fn decision_list(groups: &[DecisionGroup]) -> String {
    let mut out = String::from("Your decisions:\n");
    let mut n = 0;
    for g in groups {
        let single = g.options.len() == 1 && g.options[0].notation == g.label;
        if single {
            n += 1;
            out += &format!("  {n:>3}  {}\n", g.label);
            continue;
        }
        let items: Vec<String> = g
            .options
            .iter()
            .map(|o| {
                n += 1;
                let target = o.notation.rsplit(' ').next().unwrap_or("");
                format!("{n}) {target}")
            })
            .collect();
        out += &format!("  {}:", g.label);
        let mut width = g.label.len() + 3;
        for item in items {
            if width + item.len() + 2 > 78 {
                out += "\n     ";
                width = 5;
            }
            out += &format!("  {item}");
            width += item.len() + 2;
        }
        out.push('\n');
    }
    out
}

fn colour_letter(c: Colour) -> char {
    match c {
        Colour::Blue => 'B',
        Colour::Red => 'R',
    }
}

fn troop_list(troops: &[Troop]) -> String {
    match troops.is_empty() {
        true => "none".into(),
        false => troops
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn end_words(end: &str) -> &'static str {
    match end {
        "hq" => "a tile on the enemy HQ",
        "medals" => "the medal objective reached",
        "blocked" => "the opponent could neither draw nor place",
        "resign" => "resigned",
        "void" => "a copy of this game ended and showed its deal",
        _ => "game over",
    }
}
