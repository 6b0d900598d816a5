//! External bots: a program that speaks the `toybattle-ext/1` JSON-lines protocol on its
//! standard input and output (described in docs/tournament.md).
//!
//! One process per game: it is started at the bot's first decision and killed when the bot is
//! dropped, so a crash or a leaked state never spills into the next game. Every failure of the
//! program (it cannot start, exits, stays silent past the timeout, answers something that is not
//! a legal decision) makes the bot answer [`FORFEIT_DECISION`], which the rules refuse, so the
//! game ends as a forfeit for it; the reason is kept in [`ExternalBot::failure`].

use super::{Bot, Choice, Request};
use crate::info::Observation;
use crate::rules::{Colour, Decision, DecisionList, Game, Phase, Troop, TroopCounts};
use crate::terrain::bits;
use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The protocol version sent in the hello message.
pub const PROTOCOL: &str = "toybattle-ext/1";

/// What a failed external bot answers: a chance outcome. Players are only asked outside chance
/// events, and the rules refuse a chance outcome from a player there, so this decision is
/// always illegal and the game ends as a forfeit.
pub const FORFEIT_DECISION: Decision = Decision::Chance(Troop::Kwak);

/// Why an external bot forfeited, shared with whoever created it (the bot itself is moved into
/// a [`super::Player`] and cannot be inspected there).
pub type FailureCell = Arc<Mutex<Option<String>>>;

/// A bot played by an external program.
pub struct ExternalBot {
    name: String,
    program: PathBuf,
    timeout: Duration,
    session: Option<Session>,
    failure: FailureCell,
}

/// A running program: its input, and its output lines arriving through a reader thread so that
/// waiting for them can time out.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl ExternalBot {
    /// A bot that runs `program` (an executable file, started with no arguments) and waits at
    /// most `timeout` for each answer.
    pub fn new(name: impl Into<String>, program: impl Into<PathBuf>, timeout: Duration) -> Self {
        ExternalBot {
            name: name.into(),
            program: program.into(),
            timeout,
            session: None,
            failure: Arc::new(Mutex::new(None)),
        }
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

    fn start(&self, game: &Game, colour: Colour) -> Result<Session, String> {
        let mut child = Command::new(&self.program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", self.program.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the program's standard input or output is not available".into());
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            lines,
        };
        let hello = json!({
            "type": "hello",
            "protocol": PROTOCOL,
            "terrain": game.terrain().key,
            "variant": game.variant().to_string(),
            "colour": colour.name(),
        });
        session.send(&hello)?;
        Ok(session)
    }

    /// Ends the program, if it runs: it is told to quit, then killed (it has nothing left to do).
    fn stop(&mut self) {
        if let Some(mut s) = self.session.take() {
            let _ = s.send(&json!({"type": "quit"}));
            drop(s.stdin);
            let _ = s.child.kill();
            let _ = s.child.wait();
        }
    }

    fn ask(&mut self, request: &Request, legal: &DecisionList) -> Result<Decision, String> {
        if self.session.is_none() {
            self.session = Some(self.start(request.game, request.observation.observer())?);
        }
        let session = self.session.as_mut().expect("started above");
        session.send(&decide_message(request.game, request.observation, legal))?;
        let line = match session.lines.recv_timeout(self.timeout) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!("no answer within {} ms", self.timeout.as_millis()))
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the program closed its output (exited or crashed)".into())
            }
        };
        let text = parse_answer(&line)?;
        let terrain = request.game.terrain();
        let decision = Decision::parse(&text, terrain).map_err(|e| format!("answer {e}"))?;
        if !legal.contains(&decision) {
            return Err(format!("answered '{text}', which is not a legal decision"));
        }
        Ok(decision)
    }
}

impl Session {
    fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot write to the program (exited or crashed?): {e}"))
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

/// Reads `{"decision": "place Jumbo 13"}` (public for the fuzz target `external_message`).
pub fn parse_answer(line: &str) -> Result<String, String> {
    let shown: String = line.chars().take(120).collect();
    let value: Value = serde_json::from_str(line)
        .map_err(|e| format!("answered '{shown}', which is not JSON ({e})"))?;
    value
        .get("decision")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("answered '{shown}', expected {{\"decision\": \"...\"}}"))
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
    let id = |n: u8| game.terrain().id_of(n as usize);
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
        let stack: Vec<String> = obs.board().stack(n).map(|t| t.to_string()).collect();
        if !stack.is_empty() {
            board.insert(terrain.id_of(n).to_string(), Value::from(stack));
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
        "medals_to_win": terrain.medals_to_win,
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
    fn answers_are_read_or_refused_with_the_line_shown() {
        assert_eq!(parse_answer(r#"{"decision": "draw"}"#).unwrap(), "draw");
        assert!(parse_answer("hello").unwrap_err().contains("'hello'"));
        assert!(parse_answer(r#"{"move": 1}"#)
            .unwrap_err()
            .contains("expected"));
    }
}
