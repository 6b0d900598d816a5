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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decision {
    Draw,
    Place { troop: Troop, node: NodeIndex },
    Decline,
    Use,
    Discard { node: NodeIndex },
    Return { node: NodeIndex },
    Move { from: NodeIndex, to: NodeIndex },
    Recover { troop: Troop },
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
    #[error("'{word}' in '{text}' is not a node id")]
    NotANode { word: String, text: String },
    #[error("node {node} in '{text}' is not on {terrain}")]
    UnknownNode {
        node: NodeId,
        text: String,
        terrain: String,
    },
    #[error("in '{text}': {reason}")]
    Troop {
        text: String,
        reason: ParseTroopError,
    },
    #[error("cannot read decision '{0}': expected one of 'draw', 'decline', 'use', 'place TROOP NODE', 'discard NODE', 'return NODE', 'move NODE NODE', 'recover TROOP', 'chance TROOP'")]
    Unreadable(String),
}

impl Decision {
    /// The decision in text notation, with node ids of `terrain`.
    pub fn notation(&self, terrain: &Terrain) -> String {
        Notation { d: *self, terrain }.to_string()
    }

    /// Parses text notation against `terrain`.
    pub fn parse(text: &str, terrain: &Terrain) -> Result<Decision, ParseDecisionError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let node = |w: &str| -> Result<NodeIndex, ParseDecisionError> {
            let id: NodeId = w.parse().map_err(|_| ParseDecisionError::NotANode {
                word: w.to_string(),
                text: text.to_string(),
            })?;
            terrain
                .index_of(id)
                .ok_or_else(|| ParseDecisionError::UnknownNode {
                    node: id,
                    text: text.to_string(),
                    terrain: terrain.name.clone(),
                })
        };
        let troop = |w: &str| {
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

    pub fn is_chance(&self) -> bool {
        matches!(self, Decision::Chance(_))
    }
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
