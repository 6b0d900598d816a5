//! Decisions: the atomic steps of a turn (R12), and their text notation.
//!
//! A turn is a sequence of decisions by the active player (the action; each optional effect's
//! choice or `decline`) interleaved with chance events resolved by the referee. Nodes inside a
//! `Decision` are dense node indices of the terrain; the text notation uses the node ids of the
//! rules specification.
//!
//! Notation (one decision per string):
//!
//! | decision | text | when |
//! |---|---|---|
//! | `Draw` | `draw` | DRAW action (R4.2); accept Skully, Star or City of Clouds drawing |
//! | `Place` | `place Jumbo 13` | PLACE action (R4.3); Cap'n's extra placement (R7.3) |
//! | `Decline` | `decline` | refuse any optional effect (R12.2) |
//! | `Use` | `use` | accept XB-42 (R7.6) or Battlefield (R9.8); the target is then chance |
//! | `Discard` | `discard 14` | Jumbo's target base (R7.4) |
//! | `Return` | `return 13` | Castle Field: base whose top tile returns to the rack (R9.1) |
//! | `Move` | `move 14 17` | Volcanic Jungle: from base, to base (R9.4) |
//! | `Recover` | `recover Star` | Cursed Cemetery: troop taken from the discard (R9.5) |
//! | `Chance` | `chance Star` | outcome of a chance event: the troop drawn, discarded or frozen |

use super::tile::{ParseTroopError, Troop};
use crate::terrain::{NodeId, NodeIndex, Terrain};
use arrayvec::ArrayVec;
use std::fmt;

/// One step of a turn: a player's choice, or the outcome of a chance event (see the table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decision {
    /// The DRAW action (R4.2), or accepting the draw that Skully, Star or City of Clouds offers
    /// (R7.2, R7.7, R9.3).
    Draw,
    /// The PLACE action (R4.3), or Cap'n's extra placement (R7.3): a rack tile onto a node.
    Place {
        /// The troop taken from the rack (an unfrozen tile).
        troop: Troop,
        /// The node it is placed on.
        node: NodeIndex,
    },
    /// Refusing the optional effect on offer (R12.2).
    Decline,
    /// Accepting XB-42's rack discard (R7.6) or Battlefield's freeze (R9.8); the tile hit is
    /// then a chance event.
    Use,
    /// Jumbo's effect (R7.4): the enemy top tile of this base, adjacent to Jumbo's, goes to the
    /// discard.
    Discard {
        /// The base whose top tile is discarded.
        node: NodeIndex,
    },
    /// Castle Field's effect (R9.1): the player's own top tile of this base returns to their rack.
    Return {
        /// The base whose top tile returns; any base but the special base itself.
        node: NodeIndex,
    },
    /// Volcanic Jungle's effect (R9.4): an enemy top tile moves to an adjacent base.
    Move {
        /// The base the enemy tile leaves, adjacent to the special base.
        from: NodeIndex,
        /// The base it lands on, adjacent to `from`, on top of whatever is there.
        to: NodeIndex,
    },
    /// Cursed Cemetery's effect (R9.5): one of the player's own tiles comes back from the discard
    /// to their rack.
    Recover {
        /// The troop taken from the discard.
        troop: Troop,
    },
    /// The outcome of a chance event, chosen by the referee (R11.4): the troop drawn, discarded
    /// from the opponent's rack by XB-42, or frozen by Battlefield.
    Chance(Troop),
}

/// Most decisions any position can offer: a Volcanic Jungle move chooses a tile and a destination
/// among at most 32 × 32 node pairs; a PLACE chooses among 8 troops × 32 nodes.
pub const MAX_DECISIONS: usize = 1024;

/// A list of decisions on the stack.
pub type DecisionList = ArrayVec<Decision, MAX_DECISIONS>;

/// Text that is not a decision on the terrain it is read against.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseDecisionError {
    /// A word where a node id belongs is not a number.
    #[error("'{word}' in '{text}' is not a node id")]
    NotANode {
        /// The word read as a node id.
        word: String,
        /// The whole decision text.
        text: String,
    },
    /// A node id that the terrain does not have.
    #[error("node {node} in '{text}' is not on {terrain}")]
    UnknownNode {
        /// The node id read.
        node: NodeId,
        /// The whole decision text.
        text: String,
        /// The terrain's name.
        terrain: String,
    },
    /// A word where a troop belongs is not a troop's name.
    #[error("in '{text}': {reason}")]
    Troop {
        /// The whole decision text.
        text: String,
        /// Why the troop could not be read.
        reason: ParseTroopError,
    },
    /// A word of a record's step where a troop belongs that is not a troop's name exactly as
    /// records write it (letter case aside): records are read strictly.
    #[error("'{word}' in '{text}' is not a troop's name as records write it: expected one of Kwak, Skully, Capn, Jumbo, Hook, XB-42, Star, Roxy (letter case aside)")]
    RecordTroop {
        /// The word read as a troop.
        word: String,
        /// The whole step.
        text: String,
    },
    /// A word of a record's step where a node id belongs that is not the id written plainly
    /// (`13`, not `013` or `+13`).
    #[error("'{word}' in '{text}' is not a node id as records write it (digits, no sign, no leading zero)")]
    RecordNode {
        /// The word read as a node id.
        word: String,
        /// The whole step.
        text: String,
    },
    /// Text that has the shape of no decision (unknown verb or wrong number of words).
    #[error("cannot read decision '{0}': expected one of 'draw', 'decline', 'use', 'place TROOP NODE', 'discard NODE', 'return NODE', 'move NODE NODE', 'recover TROOP', 'chance TROOP'")]
    Unreadable(String),
}

impl Decision {
    /// The troop a placement takes from the rack; `None` for every other decision.
    #[inline]
    pub fn troop(&self) -> Option<Troop> {
        match *self {
            Decision::Place { troop, .. } => Some(troop),
            _ => None,
        }
    }

    /// The decision in text notation, with node ids of `terrain`.
    pub fn notation(&self, terrain: &Terrain) -> String {
        Notation { d: *self, terrain }.to_string()
    }

    /// Parses text notation against `terrain`, leniently, as a person may type it: words
    /// separated by any white space, troops by name or printed value with case and punctuation
    /// ignored (`xb42`, `Cap'n`, `5`).
    pub fn parse(text: &str, terrain: &Terrain) -> Result<Decision, ParseDecisionError> {
        Decision::parse_as(text, terrain, Reading::Lenient)
    }

    /// Parses a step of a game record, strictly: exactly the words [`Decision::notation`]
    /// writes, one space apart, troop names letter case aside (`place jumbo 13`), node ids in
    /// plain digits. Records are written by the engine, so anything else is an edited or
    /// damaged record, not a step to guess at.
    pub fn parse_record(text: &str, terrain: &Terrain) -> Result<Decision, ParseDecisionError> {
        Decision::parse_as(text, terrain, Reading::Record)
    }

    fn parse_as(
        text: &str,
        terrain: &Terrain,
        reading: Reading,
    ) -> Result<Decision, ParseDecisionError> {
        let strict = reading == Reading::Record;
        let words: Vec<&str> = match reading {
            Reading::Lenient => text.split_whitespace().collect(),
            Reading::Record => text.split(' ').collect(),
        };
        let node = |w: &str| -> Result<NodeIndex, ParseDecisionError> {
            let id: NodeId = w.parse().map_err(|_| ParseDecisionError::NotANode {
                word: w.to_string(),
                text: text.to_string(),
            })?;
            if strict && id.to_string() != w {
                return Err(ParseDecisionError::RecordNode {
                    word: w.to_string(),
                    text: text.to_string(),
                });
            }
            terrain
                .index_of(id)
                .ok_or_else(|| ParseDecisionError::UnknownNode {
                    node: id,
                    text: text.to_string(),
                    terrain: terrain.name.clone(),
                })
        };
        let troop = |w: &str| {
            if strict {
                return Troop::ALL
                    .into_iter()
                    .find(|t| t.name().eq_ignore_ascii_case(w))
                    .ok_or_else(|| ParseDecisionError::RecordTroop {
                        word: w.to_string(),
                        text: text.to_string(),
                    });
            }
            w.parse::<Troop>()
                .map_err(|reason| ParseDecisionError::Troop {
                    text: text.to_string(),
                    reason,
                })
        };
        let d = match words.as_slice() {
            ["draw"] => Decision::Draw,
            ["decline"] => Decision::Decline,
            ["use"] => Decision::Use,
            ["place", t, n] => Decision::Place {
                troop: troop(t)?,
                node: node(n)?,
            },
            ["discard", n] => Decision::Discard { node: node(n)? },
            ["return", n] => Decision::Return { node: node(n)? },
            ["move", a, b] => Decision::Move {
                from: node(a)?,
                to: node(b)?,
            },
            ["recover", t] => Decision::Recover { troop: troop(t)? },
            ["chance", t] => Decision::Chance(troop(t)?),
            _ => return Err(ParseDecisionError::Unreadable(text.to_string())),
        };
        Ok(d)
    }

    /// Whether this is the outcome of a chance event rather than a player's choice.
    pub fn is_chance(&self) -> bool {
        matches!(self, Decision::Chance(_))
    }
}

/// How strictly notation is read: as a person types it, or as records are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    Lenient,
    Record,
}

struct Notation<'a> {
    d: Decision,
    terrain: &'a Terrain,
}

impl fmt::Display for Notation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A decision built in code may name a node index the terrain lacks (`Game::apply` must
        // describe it, not panic): show the index instead of an id.
        let id = |n: NodeIndex| match self.terrain.nodes.get(n.usize()) {
            Some(node) => node.id.to_string(),
            None => format!("#{}", n.get()),
        };
        match self.d {
            Decision::Draw => write!(f, "draw"),
            Decision::Decline => write!(f, "decline"),
            Decision::Use => write!(f, "use"),
            Decision::Place { troop, node } => write!(f, "place {} {}", troop, id(node)),
            Decision::Discard { node } => write!(f, "discard {}", id(node)),
            Decision::Return { node } => write!(f, "return {}", id(node)),
            Decision::Move { from, to } => write!(f, "move {} {}", id(from), id(to)),
            Decision::Recover { troop } => write!(f, "recover {troop}"),
            Decision::Chance(t) => write!(f, "chance {t}"),
        }
    }
}
