//! The invariants of a state, recomputed from scratch: what every state reached by legal
//! decisions satisfies, whatever the terrain, variant or history.
//!
//! [`check`] is the one place they are written. The property tests call it after every step of
//! random games, `random-games --check` and `tournament --check` after every decision of real
//! runs, and the fuzz target `legals_are_legal` after every decision the fuzzer picks. It
//! recomputes what the rules keep incrementally (sizes, top-tile bitboards, taken regions and
//! medals, the connected nodes) and compares, so a bug in an incremental update shows up at the
//! step that made it, not many turns later as a strange result.

use super::decision::{Decision, DecisionList};
use super::game::{Game, Variant};
use super::state::{Chance, Phase, State, WinType};
use super::tile::{Colour, Tile, Troop, COPIES_PER_TROOP, RACK_LIMIT, REMOVED_PER_COLOUR};
use crate::terrain::{bits, nodes, NodeId, NodeIndex, NodeMask, SpecialEffect, Terrain, MAX_NODES};
use std::fmt;

/// Which invariant a state breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// Three tiles of each troop per colour, counting board, rack, reserve, removed and discard.
    TileConservation,
    /// Rack, reserve and frozen sizes equal the number of tiles they hold.
    Sizes,
    /// Frozen tiles and tiles known to the opponent are tiles of the rack.
    RackSubsets,
    /// At most eight tiles on a rack (R4.4).
    RackLimit,
    /// Four tiles of each colour removed from the game at setup (R3.4).
    RemovedTiles,
    /// Stacks, heights and the board's tile count agree; no tile on a node beyond the terrain.
    Stacks,
    /// The per-colour and per-troop bitboards of top tiles agree with the stacks.
    TopTiles,
    /// An HQ holds at most one tile, never its own colour's, and that tile has won (R5.1, R10.1).
    Headquarters,
    /// Regions taken: only existing ones, and every region one colour controls (R8.2, R8.4).
    Regions,
    /// The medals of both colours add up to the medals of the regions taken (R8.4), and reaching
    /// the objective ends the game (R8.5).
    Medals,
    /// The nodes connected to a colour's HQs agree with a plain search of the graph (R5.5).
    Connection,
    /// The phase agrees with the outcome, the turn and the rest of the state.
    Phase,
    /// The legal decisions: none exactly when the game is over, each one legal, none twice, and
    /// at a chance event exactly its outcomes.
    LegalDecisions,
}

impl Invariant {
    /// The invariant in words, with the rulings it stands for.
    pub fn describe(self) -> &'static str {
        match self {
            Invariant::TileConservation => "tile conservation",
            Invariant::Sizes => "rack, reserve and frozen sizes",
            Invariant::RackSubsets => "frozen and known tiles are on the rack",
            Invariant::RackLimit => "rack limit (R4.4)",
            Invariant::RemovedTiles => "tiles removed at setup (R3.4)",
            Invariant::Stacks => "stacks of tiles",
            Invariant::TopTiles => "top-tile bitboards",
            Invariant::Headquarters => "headquarters (R5.1, R10.1)",
            Invariant::Regions => "regions taken (R8.2, R8.4)",
            Invariant::Medals => "medals (R8.4, R8.5)",
            Invariant::Connection => "connection to the HQs (R5.5)",
            Invariant::Phase => "phase of the game",
            Invariant::LegalDecisions => "legal decisions",
        }
    }
}

/// A broken invariant: which one, where (colour, troop, node id, as far as they apply) and what
/// was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantViolation {
    /// Which invariant is broken.
    pub invariant: Invariant,
    /// The colour concerned, if one is.
    pub colour: Option<Colour>,
    /// The troop type concerned, if one is.
    pub troop: Option<Troop>,
    /// The node's id on the terrain (a node index beyond the terrain is named in `detail`).
    pub node: Option<NodeId>,
    /// What was found, in words.
    pub detail: String,
}

impl fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant broken: {}", self.invariant.describe())?;
        let mut place = Vec::new();
        if let Some(c) = self.colour {
            place.push(c.to_string());
        }
        if let Some(t) = self.troop {
            place.push(t.to_string());
        }
        if let Some(n) = self.node {
            place.push(format!("node {n}"));
        }
        if !place.is_empty() {
            write!(f, " ({})", place.join(", "))?;
        }
        write!(f, ": {}", self.detail)
    }
}

impl std::error::Error for InvariantViolation {}

impl InvariantViolation {
    fn new(invariant: Invariant, detail: impl Into<String>) -> Self {
        InvariantViolation {
            invariant,
            colour: None,
            troop: None,
            node: None,
            detail: detail.into(),
        }
    }
    fn colour(mut self, c: Colour) -> Self {
        self.colour = Some(c);
        self
    }
    fn troop(mut self, t: Troop) -> Self {
        self.troop = Some(t);
        self
    }
    fn node(mut self, id: NodeId) -> Self {
        self.node = Some(id);
        self
    }
}

type Checked = Result<(), InvariantViolation>;

/// `Err(broken())` unless `holds`; the violation (and its text) is built only on failure.
#[inline]
fn ensure(holds: bool, broken: impl FnOnce() -> InvariantViolation) -> Checked {
    if holds {
        Ok(())
    } else {
        Err(broken())
    }
}

/// Checks every invariant of `s` as a state of `game`; the first one broken is returned.
pub fn check(game: &Game, s: &State) -> Checked {
    let t = game.terrain();
    check_tiles_removing(s, game.what_if().removed)?;
    check_stacks(t, s)?;
    check_top_tiles(t, s)?;
    check_headquarters(t, s)?;
    check_regions(t, s)?;
    check_medals(t, game.medals_to_win(), s)?;
    check_connection(game, s)?;
    check_phase(game, s)?;
    check_legal_decisions(game, s)
}

/// The tile invariants alone (conservation, sizes, rack subsets and limit, removed tiles): they
/// hold for a determinization from either player's view, where the rest may not (a rack sampled
/// for the player to move need not let the game go on as it did).
pub fn check_tiles(s: &State) -> Checked {
    check_tiles_removing(s, REMOVED_PER_COLOUR)
}

/// [`check_tiles`] when each player removed `removed` tiles at setup (a what-if).
pub fn check_tiles_removing(s: &State, removed: u8) -> Checked {
    // The board's tiles by colour and troop, in one pass over every stack.
    let mut board = [[0usize; 8]; 2];
    for n in (0..MAX_NODES).map(NodeIndex::new) {
        for tile in s.board().stack(n) {
            board[tile.colour().index()][tile.troop().index()] += 1;
        }
    }
    for c in Colour::BOTH {
        let (rack, frozen, public) = (s.rack(c), s.frozen(c), s.public_rack(c));
        for troop in Troop::ALL {
            let on_board = board[c.index()][troop.index()];
            let placed = [rack, s.reserve(c), s.removed(c), s.discard(c)];
            let total = on_board + placed.iter().map(|k| k.get(troop) as usize).sum::<usize>();
            ensure(total == COPIES_PER_TROOP as usize, || {
                InvariantViolation::new(
                    Invariant::TileConservation,
                    format!(
                        "{total} tiles in all (board {on_board}, rack {}, reserve {}, removed {}, \
                         discard {}), expected {COPIES_PER_TROOP}",
                        rack.get(troop),
                        s.reserve(c).get(troop),
                        s.removed(c).get(troop),
                        s.discard(c).get(troop)
                    ),
                )
                .colour(c)
                .troop(troop)
            })?;
            ensure(frozen.get(troop) <= rack.get(troop), || {
                InvariantViolation::new(
                    Invariant::RackSubsets,
                    format!(
                        "{} frozen but {} on the rack",
                        frozen.get(troop),
                        rack.get(troop)
                    ),
                )
                .colour(c)
                .troop(troop)
            })?;
            ensure(public.get(troop) <= rack.get(troop), || {
                InvariantViolation::new(
                    Invariant::RackSubsets,
                    format!(
                        "{} known to the opponent but {} on the rack",
                        public.get(troop),
                        rack.get(troop)
                    ),
                )
                .colour(c)
                .troop(troop)
            })?;
        }
        let sizes = [
            ("rack", s.rack_len(c), rack.total()),
            ("reserve", s.reserve_len(c), s.reserve(c).total()),
            ("frozen", s.frozen_len(c), frozen.total()),
        ];
        for (what, kept, counted) in sizes {
            ensure(kept == counted, || {
                InvariantViolation::new(
                    Invariant::Sizes,
                    format!("{what} size {kept}, but it holds {counted} tiles"),
                )
                .colour(c)
            })?;
        }
        ensure(rack.total() <= RACK_LIMIT, || {
            InvariantViolation::new(
                Invariant::RackLimit,
                format!("{} tiles on the rack", rack.total()),
            )
            .colour(c)
        })?;
        ensure(s.removed(c).total() == removed, || {
            InvariantViolation::new(
                Invariant::RemovedTiles,
                format!("{} tiles removed", s.removed(c).total()),
            )
            .colour(c)
        })?;
    }
    Ok(())
}

/// The node id of index `n`, or `#n` beyond the terrain.
fn node_name(t: &Terrain, n: NodeIndex) -> String {
    match t.nodes.get(n.usize()) {
        Some(node) => node.id.to_string(),
        None => format!("#{}", n.get()),
    }
}

fn check_stacks(t: &Terrain, s: &State) -> Checked {
    let b = s.board();
    let mut heights = 0;
    for n in (0..MAX_NODES).map(NodeIndex::new) {
        let broken = |detail: String| {
            let v = InvariantViolation::new(Invariant::Stacks, detail);
            match t.nodes.get(n.usize()) {
                Some(node) => v.node(node.id),
                None => v,
            }
        };
        heights += b.height(n);
        ensure(b.stack(n).count() == b.height(n), || {
            broken(format!(
                "height {} but {} tiles in the stack of {}",
                b.height(n),
                b.stack(n).count(),
                node_name(t, n)
            ))
        })?;
        ensure(b.stack(n).last() == b.top(n), || {
            broken(format!(
                "the top tile of {} is not the last of its stack",
                node_name(t, n)
            ))
        })?;
        ensure(n.usize() < t.node_count() || b.height(n) == 0, || {
            broken(format!(
                "tiles on node index {}, beyond the terrain",
                n.get()
            ))
        })?;
    }
    ensure(heights == b.tile_count(), || {
        InvariantViolation::new(
            Invariant::Stacks,
            format!(
                "the stacks hold {heights} tiles, the board counts {}",
                b.tile_count()
            ),
        )
    })
}

fn check_top_tiles(t: &Terrain, s: &State) -> Checked {
    let b = s.board();
    for n in (0..MAX_NODES).map(NodeIndex::new) {
        let bit: NodeMask = n.bit();
        for c in Colour::BOTH {
            let top = b.top(n).filter(|x| x.colour() == c);
            let broken = |troop: Option<Troop>, what: &str| {
                let mut v = InvariantViolation::new(
                    Invariant::TopTiles,
                    format!("{what} of {} disagrees with its stack", node_name(t, n)),
                )
                .colour(c);
                if let Some(troop) = troop {
                    v = v.troop(troop);
                }
                match t.nodes.get(n.usize()) {
                    Some(node) => v.node(node.id),
                    None => v,
                }
            };
            ensure((b.occupied(c) & bit != 0) == top.is_some(), || {
                broken(None, "the occupied bit")
            })?;
            for troop in Troop::ALL {
                let is = top.is_some_and(|x| x.troop() == troop);
                ensure((b.tops(c, troop) & bit != 0) == is, || {
                    broken(Some(troop), "the top-tile bit")
                })?;
            }
        }
    }
    ensure(
        b.nonempty() == b.occupied(Colour::Blue) | b.occupied(Colour::Red),
        || {
            InvariantViolation::new(
                Invariant::TopTiles,
                "nonempty nodes are not the occupied ones",
            )
        },
    )
}

fn check_headquarters(t: &Terrain, s: &State) -> Checked {
    let b = s.board();
    for c in Colour::BOTH {
        for hq in nodes(t.hqs[c.index()]) {
            let broken = |detail: String| {
                InvariantViolation::new(Invariant::Headquarters, detail)
                    .colour(c)
                    .node(t.id_of(hq))
            };
            ensure(b.height(hq) <= 1, || {
                broken(format!("a stack of {} tiles on {c}'s HQ", b.height(hq)))
            })?;
            if let Some(tile) = b.top(hq) {
                ensure(tile.colour() == c.opponent(), || {
                    broken(format!("{c}'s own {} on its HQ", tile.troop()))
                })?;
                let won = s.outcome().map(|o| (o.winner, o.win));
                ensure(won == Some((c.opponent(), WinType::Hq)), || {
                    broken(format!(
                        "a tile on {c}'s HQ, yet {} has not won by HQ",
                        c.opponent()
                    ))
                })?;
            }
        }
    }
    Ok(())
}

/// Regions: only existing ones are taken, and while the game goes on every region one colour
/// controls is taken, since every change of a top tile checks the regions around it (R8.2). A
/// game that just ended may leave one unchecked: Volcanic Jungle checks the origin of a move
/// only if the destination did not win (A7).
fn check_regions(t: &Terrain, s: &State) -> Checked {
    let taken = s.regions_taken();
    ensure(taken >> t.regions.len() == 0, || {
        InvariantViolation::new(
            Invariant::Regions,
            format!(
                "regions taken {taken:#b}, but the terrain has {}",
                t.regions.len()
            ),
        )
    })?;
    if s.is_over() {
        return Ok(());
    }
    for (r, region) in t.regions.iter().enumerate() {
        for c in Colour::BOTH {
            let controlled = region.bases != 0 && region.bases & !s.board().occupied(c) == 0;
            ensure(!controlled || taken & (1 << r) != 0, || {
                InvariantViolation::new(
                    Invariant::Regions,
                    format!(
                        "{c} controls region {} but its medals were not taken",
                        region.id
                    ),
                )
                .colour(c)
            })?;
        }
    }
    Ok(())
}

fn check_medals(t: &Terrain, objective: u8, s: &State) -> Checked {
    let taken: u32 = bits(s.regions_taken())
        .filter_map(|r| t.regions.get(r))
        .map(|r| r.medals as u32)
        .sum();
    let (blue, red) = (s.medals(Colour::Blue), s.medals(Colour::Red));
    ensure(blue as u32 + red as u32 == taken, || {
        InvariantViolation::new(
            Invariant::Medals,
            format!("blue {blue} + red {red} medals, but the regions taken hold {taken}"),
        )
    })?;
    for c in Colour::BOTH {
        let m = s.medals(c);
        ensure(s.is_over() || m < objective, || {
            InvariantViolation::new(
                Invariant::Medals,
                format!("{m} medals reach the objective of {objective} but the game goes on"),
            )
            .colour(c)
        })?;
    }
    Ok(())
}

/// R5.5 from scratch: the nodes next to `c`'s HQs, then next to every base of `c` reached so far.
fn connected_from_scratch(t: &Terrain, s: &State, c: Colour) -> NodeMask {
    let own = s.board().occupied(c) & t.bases;
    let mut connected: NodeMask = bits(t.hqs[c.index()]).fold(0, |m, hq| m | t.neighbours[hq]);
    loop {
        let grown = bits(connected & own).fold(connected, |m, n| m | t.neighbours[n]);
        if grown == connected {
            return connected;
        }
        connected = grown;
    }
}

/// The node ids of a mask as the terrain file writes them, e.g. "3, 12, 14" ("none" if empty).
fn node_list(t: &Terrain, mask: NodeMask) -> String {
    let ids: Vec<String> = t.ids(mask).iter().map(|id| id.to_string()).collect();
    if ids.is_empty() {
        "none".to_string()
    } else {
        ids.join(", ")
    }
}

fn check_connection(game: &Game, s: &State) -> Checked {
    let t = game.terrain();
    for c in Colour::BOTH {
        let (fast, plain) = (game.connected_nodes(s, c), connected_from_scratch(t, s, c));
        ensure(fast == plain, || {
            InvariantViolation::new(
                Invariant::Connection,
                format!(
                    "connected nodes {}, a plain search finds {}",
                    node_list(t, fast),
                    node_list(t, plain)
                ),
            )
            .colour(c)
        })?;
    }
    Ok(())
}

fn check_phase(game: &Game, s: &State) -> Checked {
    let t = game.terrain();
    let (p, beginner) = (s.active(), game.variant() == Variant::Beginner);
    let broken = |detail: String| InvariantViolation::new(Invariant::Phase, detail);
    ensure(s.is_over() == s.outcome().is_some(), || {
        let outcome = match s.outcome() {
            Some(o) => format!("{} won by {}", o.winner, o.win),
            None => "no result".to_string(),
        };
        broken(format!("{} with {outcome}", game.describe_phase(s)))
    })?;
    // Turns alternate from the first player (R4.5); the count saturates at its maximum.
    let first_to_move = s.turn() % 2 == 1 || s.turn() == u16::MAX;
    ensure(
        s.turn() >= 1 && (s.turn() == u16::MAX || (p == s.first_player()) == first_to_move),
        || {
            broken(format!(
                "{p} to move on turn {} with {} first",
                s.turn(),
                s.first_player()
            ))
        },
    )?;
    if let Some(o) = s.outcome() {
        let on_hq = nodes(t.hqs[o.winner.opponent().index()]).any(|n| s.board().top(n).is_some());
        ensure(on_hq == (o.win == WinType::Hq), || {
            broken(format!(
                "{} won by {}, yet {} tile stands on {}'s HQ",
                o.winner,
                o.win,
                if on_hq { "a" } else { "no" },
                o.winner.opponent()
            ))
            .colour(o.winner)
        })?;
        ensure(
            o.win != WinType::Medals || s.medals(o.winner) >= game.medals_to_win(),
            || {
                broken(format!(
                    "won by medals with {} of {}",
                    s.medals(o.winner),
                    game.medals_to_win()
                ))
                .colour(o.winner)
            },
        )?;
    }
    if beginner {
        ensure(
            s.frozen_len(Colour::Blue) + s.frozen_len(Colour::Red) == 0,
            || broken("frozen tiles in the beginner game".into()),
        )?;
    }
    check_pending_step(game, s)?;
    check_queue(game, s)
}

/// What the pending step implies about the rest of the state.
fn check_pending_step(game: &Game, s: &State) -> Checked {
    let (t, p) = (game.terrain(), s.active());
    let beginner = game.variant() == Variant::Beginner;
    let broken = |detail: String| InvariantViolation::new(Invariant::Phase, detail).colour(p);
    match s.phase() {
        Phase::TroopEffect { troop, node: n } => {
            ensure(n.usize() < t.node_count(), || {
                broken(format!("troop effect on node index {}", n.get()))
            })?;
            let broken = |detail: String| broken(detail).troop(troop).node(t.id_of(n));
            // R6.5: the effect belongs to the tile just placed, still on top, and is offered
            // only with something to offer; R9.7: never on a no-effect base.
            ensure(s.board().top(n) == Some(Tile::new(p, troop)), || {
                broken("the effect's tile is not on top of its node".into())
            })?;
            let suppressed = t.effect_at(n) == Some(SpecialEffect::NoTroopEffect);
            ensure(beginner || !suppressed, || {
                broken("troop effect on a no-effect base (R9.7)".into())
            })?;
            ensure(game.troop_effect_available(s, troop, n), || {
                broken("troop effect offered with nothing to offer".into())
            })
        }
        Phase::SpecialEffect { effect, node } => {
            ensure(node.usize() < t.node_count(), || {
                broken(format!("special effect on node index {}", node.get()))
            })?;
            let broken = |detail: String| broken(detail).node(t.id_of(node));
            ensure(!beginner, || {
                broken("special effect in the beginner game (R13.1)".into())
            })?;
            ensure(t.effect_at(node) == Some(effect), || {
                broken(format!("{} is not this base's effect", effect.key()))
            })?;
            ensure(game.special_effect_available(s, effect, node), || {
                broken(format!("{} offered with nothing to offer", effect.key()))
            })
        }
        Phase::Chance(Chance::Draw { remaining }) => {
            ensure(remaining >= 1 && remaining <= s.reserve_len(p), || {
                broken(format!(
                    "{remaining} draws pending from a reserve of {}",
                    s.reserve_len(p)
                ))
            })?;
            ensure(s.rack_len(p) + remaining <= RACK_LIMIT, || {
                broken(format!(
                    "{remaining} draws pending onto a rack of {}",
                    s.rack_len(p)
                ))
            })
        }
        Phase::Chance(Chance::RackDiscard) => ensure(s.rack_len(p.opponent()) > 0, || {
            broken("XB-42 discards from an empty rack".into())
        }),
        Phase::Chance(Chance::Freeze) => {
            ensure(!beginner, || broken("freezing in the beginner game".into()))?;
            let e = p.opponent();
            ensure(s.rack_len(e) > s.frozen_len(e), || {
                broken("nothing left to freeze".into())
            })
        }
        Phase::Action | Phase::Over => Ok(()),
    }
}

/// The special bases still to resolve this turn (R6.4, R6.6): queued-effect bases holding, at
/// the recorded level, a tile of the player whose turn it is.
fn check_queue(game: &Game, s: &State) -> Checked {
    let t = game.terrain();
    for (n, level) in s.pending_specials() {
        let broken =
            |detail: String| InvariantViolation::new(Invariant::Phase, detail).colour(s.active());
        ensure(n.usize() < t.node_count(), || {
            broken(format!("special base index {} queued", n.get()))
        })?;
        let queued =
            game.variant() == Variant::Normal && t.effect_at(n).is_some_and(|e| e.is_queued());
        ensure(queued, || {
            broken(format!(
                "node {} queued without a queued effect",
                t.id_of(n)
            ))
            .node(t.id_of(n))
        })?;
        let tile = s.board().stack(n).nth(level as usize);
        ensure(tile.is_some_and(|x| x.colour() == s.active()), || {
            broken(format!(
                "the queued tile at level {level} of {} is not the active player's",
                t.id_of(n)
            ))
            .node(t.id_of(n))
        })?;
    }
    Ok(())
}

fn check_legal_decisions(game: &Game, s: &State) -> Checked {
    let t = game.terrain();
    let broken = |detail: String| InvariantViolation::new(Invariant::LegalDecisions, detail);
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    ensure(list.is_empty() == s.is_over(), || {
        broken(format!(
            "{} legal decisions while {}",
            list.len(),
            game.describe_phase(s)
        ))
    })?;
    for &d in &list {
        ensure(game.is_legal(s, d), || {
            broken(format!("'{}' listed but not legal", d.notation(t)))
        })?;
    }
    let mut sorted = list.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(broken(format!("'{}' listed twice", w[0].notation(t))));
    }
    if s.is_chance() {
        let outcomes = game.chance_outcomes(s);
        let same = outcomes.len() == list.len()
            && outcomes
                .iter()
                .zip(&list)
                .all(|(&(o, w), &d)| d == Decision::Chance(o) && w > 0);
        ensure(same, || {
            let listed: Vec<String> = outcomes
                .iter()
                .map(|(troop, weight)| format!("{troop} (weight {weight})"))
                .collect();
            broken(format!(
                "the chance outcomes {} are not the decisions listed",
                listed.join(", ")
            ))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{random_decision, Deal};
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A state some way into a random game on Castle Field, still going on.
    fn midgame() -> (Game, State) {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut s = game.initial_state(&Deal::from_seed(3));
        for _ in 0..20 {
            let d = random_decision(&game, &s, &mut rng).unwrap();
            game.apply(&mut s, d).unwrap();
            check(&game, &s).unwrap();
        }
        assert!(!s.is_over());
        (game, s)
    }

    #[test]
    fn a_tile_added_to_the_board_breaks_tile_conservation_for_its_colour_and_troop() {
        let (game, mut s) = midgame();
        let n = nodes(game.terrain().bases & !s.board().nonempty())
            .next()
            .unwrap();
        s.board.push(n, Tile::new(Colour::Red, Troop::Roxy));
        let v = check(&game, &s).unwrap_err();
        assert_eq!(v.invariant, Invariant::TileConservation, "{v}");
        assert_eq!((v.colour, v.troop), (Some(Colour::Red), Some(Troop::Roxy)));
        assert!(v.to_string().contains("red, Roxy"), "{v}");
    }

    #[test]
    fn a_region_marked_taken_without_medals_breaks_the_medal_count() {
        let (game, mut s) = midgame();
        let free = (0..game.terrain().regions.len())
            .find(|r| s.regions_taken & (1 << r) == 0)
            .unwrap();
        s.regions_taken |= 1 << free;
        let v = check(&game, &s).unwrap_err();
        assert_eq!(v.invariant, Invariant::Medals, "{v}");
    }

    #[test]
    fn a_region_beyond_the_terrain_is_refused() {
        let (game, mut s) = midgame();
        s.regions_taken |= 1 << 31;
        assert_eq!(check(&game, &s).unwrap_err().invariant, Invariant::Regions);
    }

    #[test]
    fn a_controlled_region_not_taken_is_caught() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let mut s = game.initial_state(&Deal::from_seed(1));
        let region = &game.terrain().regions[0];
        // Blue's tiles moved from the reserve onto every base of the region, without the
        // region check a placement makes.
        for n in nodes(region.bases) {
            let troop = Troop::ALL
                .into_iter()
                .find(|&t| s.reserve(Colour::Blue).get(t) > 0)
                .unwrap();
            s.reserve[Colour::Blue].remove(troop);
            s.reserve_len[Colour::Blue] -= 1;
            s.board.push(n, Tile::new(Colour::Blue, troop));
        }
        let v = check(&game, &s).unwrap_err();
        assert_eq!(
            (v.invariant, v.colour),
            (Invariant::Regions, Some(Colour::Blue)),
            "{v}"
        );
    }

    #[test]
    fn a_wrong_turn_parity_breaks_the_phase() {
        let (game, mut s) = midgame();
        s.active = s.active.opponent();
        let v = check(&game, &s).unwrap_err();
        assert_eq!(v.invariant, Invariant::Phase, "{v}");
    }

    /// Violations are read by people running `--check` and the fuzz targets: they name phases,
    /// results and nodes in the game's words, never Rust's debug spelling.
    #[test]
    fn violations_speak_the_games_words() {
        let (game, mut s) = midgame();
        let pending = game.describe_phase(&s);
        s.outcome = Some(crate::rules::state::Outcome {
            winner: Colour::Blue,
            win: WinType::Medals,
        });
        let v = check(&game, &s).unwrap_err().to_string();
        assert!(
            v.contains(&format!("{pending} with blue won by medals")),
            "{v}"
        );
        s.phase = Phase::Over;
        s.outcome = Some(crate::rules::state::Outcome {
            winner: Colour::Blue,
            win: WinType::Hq,
        });
        let v = check(&game, &s).unwrap_err().to_string();
        assert!(
            v.contains("blue won by HQ capture, yet no tile stands on red's HQ"),
            "{v}"
        );
        for debug in ["Some(", "None", "Phase", "Hq,", "Over", "NodeId", "["] {
            assert!(!v.contains(debug), "{debug} in {v}");
        }
    }

    #[test]
    fn every_state_of_random_games_on_every_terrain_and_variant_passes() {
        for terrain in crate::terrain::builtin_terrains() {
            for variant in [Variant::Normal, Variant::Beginner] {
                let game = Game::builtin(&terrain.key, variant).unwrap();
                for seed in 0..4 {
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                    let mut s = game.initial_state(&Deal::from_seed(seed));
                    check(&game, &s).unwrap();
                    while !s.is_over() && s.turn() <= 300 {
                        let d = random_decision(&game, &s, &mut rng).unwrap();
                        game.apply(&mut s, d).unwrap();
                        if let Err(v) = check(&game, &s) {
                            panic!("{} {variant} seed {seed}: {v}", terrain.key);
                        }
                    }
                }
            }
        }
    }
}
