//! The rules: legal decisions and their effects, for one terrain and variant.
//!
//! `Game` holds the terrain's tables for the chosen variant; a [`State`] is plain data. Every
//! rule of the specification (docs/rules.md) lives in a function named after it here, in the order of the specification:
//! placement legality (§5), placement resolution (§6), troop effects (§7), region control (§8),
//! special bases (§9), end of the game (§10).

use super::deal::{WhatIf, WhatIfError};
use super::decision::{Decision, DecisionList};
use super::state::{Chance, Outcome, Phase, State, WinType};
use super::tile::{Colour, Tile, Troop, TroopCounts, RACK_LIMIT};
use crate::terrain::{
    bits, NodeIndex, NodeMask, RegionMask, SpecialEffect, Terrain, TerrainError, MAX_NODES,
    MAX_REGIONS,
};
use crate::vocabulary::ByColour;
use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Normal game, or the beginner game where special bases are plain bases (§13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    #[default]
    /// The game with special bases (R9).
    Normal,
    /// The beginner game: special bases are plain bases (§13).
    Beginner,
}

/// A word that names no variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}': expected 'normal' or 'beginner'")]
pub struct ParseVariantError(pub String);

impl std::str::FromStr for Variant {
    type Err = ParseVariantError;
    fn from_str(s: &str) -> Result<Self, ParseVariantError> {
        match s.to_ascii_lowercase().as_str() {
            "normal" => Ok(Variant::Normal),
            "beginner" => Ok(Variant::Beginner),
            _ => Err(ParseVariantError(s.to_string())),
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Variant::Normal => "normal",
            Variant::Beginner => "beginner",
        })
    }
}

/// A decision that the rules refuse. The state is left unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal decision '{decision}' while {phase}: {reason}")]
pub struct IllegalDecision {
    /// The decision in notation.
    pub decision: String,
    /// The phase the game was in.
    pub phase: String,
    /// Why the rules refuse it.
    pub reason: String,
}

/// Chance outcomes with their weights (probability = weight / sum of weights).
pub type ChanceOutcomes = ArrayVec<(Troop, u8), 8>;

/// The rules of one terrain and variant, with precomputed tables.
#[derive(Clone, Debug)]
pub struct Game {
    terrain: Arc<Terrain>,
    variant: Variant,
    bases: NodeMask,
    hqs: ByColour<NodeMask>,
    /// Nodes adjacent to each colour's HQs: always reachable for placement (R5.5).
    hq_neighbours: ByColour<NodeMask>,
    /// Queued special effect of each node (R6.4), normal variant only.
    queued: [Option<SpecialEffect>; MAX_NODES],
    queued_nodes: NodeMask,
    /// Nodes where a placed tile applies no troop effect (R9.7).
    no_troop_effect: NodeMask,
    /// Bases Hook may take without connection (R5.6, A4); no other troop has such bases.
    hook_unconnected: NodeMask,
    /// `allowed[t]`: nodes where troop t may be placed, value restrictions applied (R5.4).
    allowed: [NodeMask; 8],
    /// The terrain's regions (R2.3) and objective (R8.5) in fixed-size tables, so that the region
    /// check after every placement reads them without going through the terrain's lists.
    node_regions: [RegionMask; MAX_NODES],
    region_bases: [NodeMask; MAX_REGIONS],
    region_medals: [u8; MAX_REGIONS],
    medals_to_win: u8,
    /// The rules parameters of this game: retail unless a designer changed them.
    what_if: WhatIf,
    /// The neighbours of every set of nodes, a byte of the set at a time.
    neighbour_table: Arc<NeighbourTable>,
}

/// `bytes[i][b]`: the union of the neighbours of the nodes `8 i + j` for the bits j of `b`. The
/// flood fill of R5.5 takes the neighbours of a whole wave of nodes in four loads, where a loop
/// over the wave's nodes ends with a mispredicted branch (its length is data).
struct NeighbourTable {
    bytes: [[NodeMask; 256]; MAX_NODES / 8],
}

impl NeighbourTable {
    fn new(terrain: &Terrain) -> NeighbourTable {
        NeighbourTable {
            bytes: std::array::from_fn(|i| {
                std::array::from_fn(|b| terrain.neighbours_of((b as NodeMask) << (8 * i)))
            }),
        }
    }

    /// Union of the neighbours of every node in `m`, as [`Terrain::neighbours_of`].
    #[inline]
    fn of(&self, m: NodeMask) -> NodeMask {
        let [b0, b1, b2, b3] = m.to_le_bytes();
        self.bytes[0][b0 as usize]
            | self.bytes[1][b1 as usize]
            | self.bytes[2][b2 as usize]
            | self.bytes[3][b3 as usize]
    }
}

impl std::fmt::Debug for NeighbourTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NeighbourTable") // derived from `Terrain::neighbours`, printed there
    }
}

impl Game {
    /// The rules of `terrain` in `variant` under the retail rules parameters.
    pub fn new(terrain: Arc<Terrain>, variant: Variant) -> Game {
        Game::with_plain_nodes(terrain, variant, 0)
    }

    /// The rules of `terrain` in `variant` where the nodes of `plain` act as plain nodes, their
    /// effects switched off (restricted play; the beginner game switches off every one, R13).
    /// Everything is decided here, in the tables, so that the rules read no restriction later.
    fn with_plain_nodes(terrain: Arc<Terrain>, variant: Variant, plain: NodeMask) -> Game {
        let normal = variant == Variant::Normal;
        let n = terrain.node_count();
        let all: NodeMask = if n == 32 { u32::MAX } else { (1 << n) - 1 };
        let mut queued = [None; MAX_NODES];
        let mut queued_nodes = 0;
        let mut allowed = [all; 8];
        for (i, node) in terrain.nodes.iter().enumerate() {
            let active = normal && plain & (1 << i) == 0;
            match node.effect {
                Some(e) if active && e.is_queued() => {
                    queued[i] = Some(e);
                    queued_nodes |= 1 << i;
                }
                _ => {}
            }
            for (t, mask) in allowed.iter_mut().enumerate() {
                // Kwak passes every restriction (R5.4, A2); the beginner game has none (A9).
                if active && t != Troop::Kwak.index() && terrain.allowed_troops[i] & (1 << t) == 0 {
                    *mask &= !(1 << i);
                }
            }
        }
        let no_troop_effect = if normal {
            terrain.nodes_with(SpecialEffect::NoTroopEffect) & !plain
        } else {
            0
        };
        Game {
            bases: terrain.bases,
            hqs: terrain.hqs.into(),
            hq_neighbours: ByColour::from(terrain.hqs).map(|m| terrain.neighbours_of(m)),
            queued,
            queued_nodes,
            no_troop_effect,
            hook_unconnected: terrain.bases & !no_troop_effect,
            allowed,
            node_regions: terrain.node_regions,
            region_bases: std::array::from_fn(|r| terrain.regions.get(r).map_or(0, |g| g.bases)),
            region_medals: std::array::from_fn(|r| terrain.regions.get(r).map_or(0, |g| g.medals)),
            medals_to_win: terrain.medals_to_win,
            what_if: WhatIf::RETAIL,
            neighbour_table: Arc::new(NeighbourTable::new(&terrain)),
            variant,
            terrain,
        }
    }

    /// The same game under the rules parameters `what_if` (medal objective, tiles removed at
    /// setup, opening racks, restricted special bases), checked against the terrain: a what-if
    /// that makes the game impossible is refused. A restriction in the beginner game changes
    /// nothing: its special bases are plain already (R13.1).
    pub fn with_what_if(mut self, what_if: WhatIf) -> Result<Game, WhatIfError> {
        what_if.check(&self.terrain)?;
        let plain = what_if.restricted_nodes(&self.terrain);
        // Built again also when a restriction is lifted: the tables then lose it.
        if plain != 0 || !self.what_if.restricted.is_empty() {
            self = Game::with_plain_nodes(Arc::clone(&self.terrain), self.variant, plain);
        }
        self.medals_to_win = what_if.objective.unwrap_or(self.terrain.medals_to_win);
        self.what_if = what_if;
        Ok(self)
    }

    /// The rules parameters of this game ([`WhatIf::RETAIL`] unless changed).
    pub fn what_if(&self) -> &WhatIf {
        &self.what_if
    }

    /// Medals a player needs to win (R2.4, R8.5): the terrain's, or the what-if's objective.
    pub fn medals_to_win(&self) -> u8 {
        self.medals_to_win
    }

    /// A shipped terrain by name, e.g. `Game::builtin("castle_field", Variant::Normal)`.
    pub fn builtin(name: &str, variant: Variant) -> Result<Game, TerrainError> {
        Ok(Game::new(
            Arc::new(crate::terrain::builtin(name)?.clone()),
            variant,
        ))
    }

    /// The terrain played on.
    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// The terrain played on, shared.
    pub fn terrain_arc(&self) -> &Arc<Terrain> {
        &self.terrain
    }

    /// The variant played.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The special-base effect queued after a placement on node `n` (R6.4), if any: none in
    /// the beginner game (R13.1).
    pub fn queued_effect(&self, n: NodeIndex) -> Option<SpecialEffect> {
        self.queued.get(n.usize()).copied().flatten()
    }

    /// Nodes whose placements queue `effect` in this variant.
    pub(crate) fn queued_effect_nodes(&self, effect: SpecialEffect) -> NodeMask {
        bits(self.queued_nodes)
            .filter(|&n| self.queued[n] == Some(effect))
            .fold(0, |m, n| m | 1 << n)
    }

    /// Whether a tile placed on node `n` applies no troop effect (R9.7).
    pub(crate) fn cancels_troop_effects(&self, n: NodeIndex) -> bool {
        self.no_troop_effect & n.bit() != 0
    }

    /// Troops (bit per troop) that may be placed on node `n` in this game (R5.4): every troop
    /// in the beginner game and on a restricted node, which act as plain nodes.
    pub(crate) fn troops_allowed_on(&self, n: usize) -> u8 {
        (0..8)
            .filter(|&t| self.allowed[t] & (1 << n) != 0)
            .fold(0, |m, t| m | 1 << t)
    }

    /// Bases Hook may take without connection (R5.6, A4): all but the ones cancelling troop
    /// effects in this game (R9.7).
    pub(crate) fn hook_unconnected_bases(&self) -> NodeMask {
        self.hook_unconnected
    }

    // ----- §5 Placement legality -------------------------------------------------------------

    /// R5.5: nodes connected to `p`'s HQs — adjacent to an HQ or to a base reached from an HQ
    /// through bases `p` occupies. A bitmask flood fill; the neighbours of each wave of the chain
    /// are collected as it grows, so every node of the chain is looked at once.
    #[inline]
    pub fn connected_nodes(&self, s: &State, p: Colour) -> NodeMask {
        self.connection(s, p, 0).0
    }

    /// R5.5: the nodes connected to `p`'s HQs and the chain of `p`'s bases that connects them,
    /// grown from `known`: the chain of an earlier position of the same game, used only if `p`
    /// still occupies all of it (the chain only grows with the bases `p` occupies, so it is then
    /// part of the chain now). A random playout passes the chain of `p`'s previous choice: most
    /// of the time one wave then finds the last tile placed, where the whole chain takes several.
    #[inline]
    pub(crate) fn connection(&self, s: &State, p: Colour, known: NodeMask) -> (NodeMask, NodeMask) {
        let own = s.board.occupied(p) & self.bases;
        let still_own = ((known & !own) == 0) as NodeMask * NodeMask::MAX; // all ones or zero
        let mut connected = self.hq_neighbours[p];
        let mut chain = (connected & own) | (known & still_own);
        // The neighbours of a wave, and the own bases among them that join the chain.
        let wave = |frontier: NodeMask, connected: &mut NodeMask, chain: &mut NodeMask| {
            let around = self.neighbour_table.of(frontier);
            *connected |= around;
            let next = around & own & !*chain;
            *chain |= next;
            next
        };
        // From a known chain, the usual case, the first wave reaches the bases placed since and
        // the second finds nothing more: two waves without a test (a wave of nothing changes
        // nothing), so that the loop's test is mispredicted only when the chain grew further.
        let first = wave(chain, &mut connected, &mut chain);
        let mut frontier = wave(first, &mut connected, &mut chain);
        while frontier != 0 {
            frontier = wave(frontier, &mut connected, &mut chain);
        }
        (connected, chain)
    }

    /// R5.2, R5.3: for each troop, the enemy top tiles it may cover. Kwak covers anything and
    /// anything covers Kwak; otherwise only strictly weaker values. One pass over the troops,
    /// since the set only grows with the value.
    #[inline]
    fn coverable(&self, s: &State, enemy: Colour) -> [NodeMask; 8] {
        let tops = s.board.tops_by_troop(enemy);
        let mut out = [s.board.occupied(enemy); 8];
        let mut weaker = tops[Troop::Kwak.index()];
        for (m, &top) in out.iter_mut().zip(tops).skip(1) {
            *m = weaker;
            weaker |= top;
        }
        out
    }

    /// R4.2: DRAW is legal with a non-empty reserve and room on the rack.
    #[inline]
    pub(crate) fn can_draw(&self, s: &State, p: Colour) -> bool {
        // Both tests without a branch between them: each is random in a playout.
        (s.reserve_len(p) >= 1) & (s.rack_len(p) < RACK_LIMIT)
    }

    /// R4.3: whether `p` has any legal (unfrozen tile, slot) pair.
    pub(crate) fn has_placement(&self, s: &State, p: Colour) -> bool {
        // Usually a base next to an own HQ is empty or own-topped: a slot for every troop its
        // restriction allows (R5.2, R5.4, R5.5), found without the flood fill.
        let open_by_hq = self.hq_neighbours[p] & self.bases & !s.board.occupied(p.opponent());
        bits(s.placeable_troops(p) as u32).any(|t| open_by_hq & self.allowed[t & 7] != 0)
            || self.placement_slots(s, p).iter().any(|&m| m != 0)
    }

    /// R4.3: the legal slots of each troop `p` may place now, indexed by troop (zero for troops
    /// with no unfrozen tile on the rack): the placements of [`Game::legal_decisions`] as masks,
    /// so that a random playout can count and pick one without building the list.
    ///
    /// All eight troops are computed, without branches: the troops on the rack are random.
    #[inline]
    pub(crate) fn placement_slots(&self, s: &State, p: Colour) -> [NodeMask; 8] {
        self.placement_slots_from(s, p, &mut 0)
    }

    /// [`Game::placement_slots`], with the connecting chain grown from `chain` (see
    /// [`Game::connection`]) and left there for the next call (unchanged when nothing is
    /// placeable).
    #[inline(always)]
    pub(crate) fn placement_slots_from(
        &self,
        s: &State,
        p: Colour,
        chain: &mut NodeMask,
    ) -> [NodeMask; 8] {
        let mut out = [0; 8];
        // R9.8: frozen tiles may not be placed.
        let placeable = s.placeable_troops(p);
        if placeable == 0 {
            return out; // nothing to place: spare the flood fill
        }
        let connected;
        (connected, *chain) = self.connection(s, p, *chain);
        let enemy = p.opponent();
        let coverable = self.coverable(s, enemy);
        // R5.2: empty or own-topped bases, and enemy-topped ones the troop may cover; R5.1:
        // never an own HQ, but the enemy's; R5.5: all of them connected.
        let open = self.bases & !s.board.occupied(enemy);
        let for_every_troop = (open | self.hqs[enemy]) & connected;
        let coverable_bases = self.bases & connected;
        // All ones for a troop with an unfrozen tile on the rack, zero otherwise.
        let on_rack = |t: usize| 0u32.wrapping_sub((placeable as u32 >> t) & 1);
        // All eight troops, without a branch on the troops on the rack (random in a playout);
        // R5.4: value restrictions.
        for (t, slots) in out.iter_mut().enumerate() {
            *slots =
                (for_every_troop | (coverable[t] & coverable_bases)) & self.allowed[t] & on_rack(t);
        }
        // R5.6: Hook may also take the bases it may enter or cover, connected or not.
        let hook = Troop::Hook.index();
        out[hook] |=
            self.hook_unconnected & (open | coverable[hook]) & self.allowed[hook] & on_rack(hook);
        out
    }

    /// The troops (bit `Troop::index`) with which the active player, choosing their action now,
    /// would win at once whatever else they hold: a tile of that troop has a slot on an enemy
    /// HQ (R10.1) or one whose region check reaches the medal objective (R8.5). Only the board
    /// and the medals decide it, so it is public. Zero outside the action phase. A placement
    /// that wins only because the opponent is then blocked (R10.3) does not count: whether it
    /// does depends on the rest of the rack.
    pub fn winning_troops(&self, s: &State) -> u8 {
        let wins = self.scoring_nodes(s, self.medals_to_win);
        self.troops_reaching(s, wins)
    }

    /// The troops (bit `Troop::index`) with which the active player, choosing their action now,
    /// would take a region (R6.2, R8) or an enemy HQ (R10.1) at once: every troop of
    /// [`Game::winning_troops`] and those that would bring medals short of the objective. Public
    /// as that is; zero outside the action phase.
    pub fn region_troops(&self, s: &State) -> u8 {
        let takes = self.scoring_nodes(s, 1);
        self.troops_reaching(s, takes)
    }

    /// The troops of which one tile of the active player has a slot among `nodes`, with one
    /// unfrozen tile of every troop on the rack. Zero outside the action phase.
    fn troops_reaching(&self, s: &State, nodes: NodeMask) -> u8 {
        let mut out = 0;
        for (t, &slots) in self.slots_of_every_troop(s).iter().enumerate() {
            out |= u8::from(slots & nodes != 0) << t;
        }
        out
    }

    /// The slots (bit per node) a tile of each troop (`Troop::index` order) would have for the
    /// active player choosing their action now, as if one unfrozen tile of every troop were on
    /// their rack: the placements their hidden tiles may have offered, from the board alone.
    /// Empty outside the action phase.
    pub fn slots_of_every_troop(&self, s: &State) -> [NodeMask; 8] {
        if s.phase != Phase::Action {
            return [0; 8];
        }
        let p = s.active;
        let mut every = *s;
        every.rack[p] = TroopCounts([1; 8]);
        every.frozen[p] = TroopCounts::EMPTY;
        every.public_rack[p] = TroopCounts::EMPTY;
        every.rack_len[p] = RACK_LIMIT;
        every.frozen_len[p] = 0;
        self.placement_slots(&every, p)
    }

    /// The nodes where a tile of the active player, of any troop, would bring them at least
    /// `medals` in total at once: an enemy HQ (R6.3, R10.1), or a base whose region check
    /// (R6.2) brings medals and leaves them with at least `medals` (R8.5). It mirrors `place`
    /// and `region_check`, where only the node decides: trying every slot with a copy of the
    /// state cost a third of a checked random game (results/soak.md).
    fn scoring_nodes(&self, s: &State, medals: u8) -> NodeMask {
        let p = s.active;
        let mut out = self.hqs[p.opponent()];
        let occupied = s.board.occupied(p);
        for n in bits(self.bases) {
            let after = occupied | 1 << n;
            let gained: u8 = bits(self.node_regions[n] & !s.regions_taken)
                .filter(|&r| self.region_bases[r] & !after == 0)
                .map(|r| self.region_medals[r])
                .sum();
            if gained > 0 && s.medals[p] + gained >= medals {
                out |= 1 << n;
            }
        }
        out
    }

    fn push_placements(&self, s: &State, p: Colour, out: &mut DecisionList) {
        for (t, &slots) in self.placement_slots(s, p).iter().enumerate() {
            let troop = Troop::from_index(t);
            for n in bits(slots) {
                out.push(Decision::Place {
                    troop,
                    node: NodeIndex::new(n),
                });
            }
        }
    }

    fn is_legal_placement(&self, s: &State, troop: Troop, node: NodeIndex) -> bool {
        let p = s.active;
        node.usize() < self.terrain.node_count()
            && s.placeable(p).get(troop) > 0
            && self.placement_slots(s, p)[troop.index()] & node.bit() != 0
    }

    // ----- Legal decisions ---------------------------------------------------------------------

    /// All legal decisions, in a stable order: for the action, `draw` first, then placements by
    /// troop (Kwak, Skully, … Roxy) and node (ascending id); for an optional effect, `decline`
    /// first, then the options by node or troop; at a chance event, the possible outcomes by troop.
    /// Empty when the game is over.
    pub fn legal_decisions(&self, s: &State, out: &mut DecisionList) {
        out.clear();
        let p = s.active;
        match s.phase {
            Phase::Over => {}
            Phase::Action => {
                if self.can_draw(s, p) {
                    out.push(Decision::Draw);
                }
                self.push_placements(s, p, out);
            }
            Phase::TroopEffect { troop, node } => {
                out.push(Decision::Decline);
                match troop {
                    Troop::Skully | Troop::Star => out.push(Decision::Draw),
                    Troop::Capn => self.push_placements(s, p, out),
                    Troop::Jumbo => {
                        for n in bits(self.jumbo_targets(s, node)) {
                            out.push(Decision::Discard {
                                node: NodeIndex::new(n),
                            });
                        }
                    }
                    Troop::Xb42 => out.push(Decision::Use),
                    _ => {}
                }
            }
            Phase::SpecialEffect { effect, node } => {
                out.push(Decision::Decline);
                match effect {
                    SpecialEffect::ReturnOwnTroop => {
                        for n in bits(self.return_targets(s, node)) {
                            out.push(Decision::Return {
                                node: NodeIndex::new(n),
                            });
                        }
                    }
                    SpecialEffect::DrawOne => out.push(Decision::Draw),
                    SpecialEffect::MoveAdjacentEnemy => {
                        for from in bits(self.move_sources(s, node)) {
                            for to in bits(self.terrain.neighbours[from] & self.bases) {
                                out.push(Decision::Move {
                                    from: NodeIndex::new(from),
                                    to: NodeIndex::new(to),
                                });
                            }
                        }
                    }
                    SpecialEffect::RecoverFromDiscard => {
                        for t in bits(s.discard(p).presence_mask() as u32) {
                            out.push(Decision::Recover {
                                troop: Troop::from_index(t),
                            });
                        }
                    }
                    SpecialEffect::FreezeOpponentRack => out.push(Decision::Use),
                    SpecialEffect::ValueRestriction | SpecialEffect::NoTroopEffect => {}
                }
            }
            Phase::Chance(_) => {
                for (t, _) in self.chance_outcomes(s) {
                    out.push(Decision::Chance(t));
                }
            }
        }
    }

    /// Whether `d` is legal now (without building the whole list).
    pub fn is_legal(&self, s: &State, d: Decision) -> bool {
        let p = s.active;
        let node_ok = |n: NodeIndex| n.usize() < self.terrain.node_count();
        match (s.phase, d) {
            (Phase::Over, _) => false,
            (Phase::Action, Decision::Draw) => self.can_draw(s, p),
            (Phase::Action, Decision::Place { troop, node }) => {
                self.is_legal_placement(s, troop, node)
            }
            (Phase::TroopEffect { .. } | Phase::SpecialEffect { .. }, Decision::Decline) => true,
            (Phase::TroopEffect { troop, node }, d) => match (troop, d) {
                (Troop::Skully | Troop::Star, Decision::Draw) => true,
                (Troop::Capn, Decision::Place { troop, node }) => {
                    self.is_legal_placement(s, troop, node)
                }
                (Troop::Jumbo, Decision::Discard { node: n }) => {
                    node_ok(n) && self.jumbo_targets(s, node) & n.bit() != 0
                }
                (Troop::Xb42, Decision::Use) => true,
                _ => false,
            },
            (Phase::SpecialEffect { effect, node }, d) => match (effect, d) {
                (SpecialEffect::ReturnOwnTroop, Decision::Return { node: n }) => {
                    node_ok(n) && self.return_targets(s, node) & n.bit() != 0
                }
                (SpecialEffect::DrawOne, Decision::Draw) => true,
                (SpecialEffect::MoveAdjacentEnemy, Decision::Move { from, to }) => {
                    node_ok(from)
                        && node_ok(to)
                        && self.move_sources(s, node) & from.bit() != 0
                        && self.terrain.neighbours[from.usize()] & self.bases & to.bit() != 0
                }
                (SpecialEffect::RecoverFromDiscard, Decision::Recover { troop }) => {
                    s.discard(p).get(troop) > 0
                }
                (SpecialEffect::FreezeOpponentRack, Decision::Use) => true,
                _ => false,
            },
            (Phase::Chance(_), Decision::Chance(t)) => {
                self.chance_outcomes(s).iter().any(|&(o, _)| o == t)
            }
            _ => false,
        }
    }

    /// The outcomes of the pending chance event with their weights (empty if none is pending).
    pub fn chance_outcomes(&self, s: &State) -> ChanceOutcomes {
        let pool = self.chance_pool(s);
        let mut out = ChanceOutcomes::new();
        for t in Troop::ALL {
            if pool.get(t) > 0 {
                out.push((t, pool.get(t)));
            }
        }
        out
    }

    /// The tiles the pending chance event picks one from, each equally likely (empty if none
    /// is pending): the reserve for a draw, the opponent's rack for XB-42 (R7.6), its unfrozen
    /// tiles for Battlefield (R9.8).
    #[inline]
    pub(crate) fn chance_pool(&self, s: &State) -> TroopCounts {
        let p = s.active;
        match s.phase {
            Phase::Chance(Chance::Draw { .. }) => s.reserve(p),
            Phase::Chance(Chance::RackDiscard) => s.rack(p.opponent()),
            Phase::Chance(Chance::Freeze) => s.placeable(p.opponent()),
            _ => TroopCounts::EMPTY,
        }
    }

    // ----- Applying decisions ------------------------------------------------------------------

    /// Applies `d` if it is legal; otherwise returns why not and leaves `s` unchanged.
    pub fn apply(&self, s: &mut State, d: Decision) -> Result<(), IllegalDecision> {
        if !self.is_legal(s, d) {
            return Err(IllegalDecision {
                decision: d.notation(&self.terrain),
                phase: self.describe_phase(s),
                reason: self.why_illegal(s, d),
            });
        }
        self.apply_legal(s, d);
        Ok(())
    }

    /// Applies a decision known to be legal (taken from [`Game::legal_decisions`]); the fast
    /// path for search. Debug builds check legality.
    #[inline]
    pub fn apply_legal(&self, s: &mut State, d: Decision) {
        self.apply_step(s, d);
    }

    /// [`Game::apply_legal`], always inlined: for the two copies of the random playout loop.
    #[inline(always)]
    pub(crate) fn apply_step(&self, s: &mut State, d: Decision) {
        debug_assert!(
            self.is_legal(s, d),
            "apply_legal with an illegal decision {d:?} in {:?}",
            s.phase
        );
        let p = s.active;
        match (s.phase, d) {
            (_, Decision::Decline) => self.advance(s),
            (Phase::Action, Decision::Draw) => {
                s.phase = Phase::Chance(Chance::Draw {
                    remaining: s.draw_count(p, 2),
                });
            }
            (_, Decision::Place { troop, node }) => self.place(s, troop, node),
            (
                Phase::TroopEffect {
                    troop: Troop::Skully,
                    ..
                },
                Decision::Draw,
            ) => {
                // R7.2: all or nothing.
                s.phase = Phase::Chance(Chance::Draw {
                    remaining: s.draw_count(p, 2),
                });
            }
            (_, Decision::Draw) => s.phase = Phase::Chance(Chance::Draw { remaining: 1 }), // R7.7, R9.3
            (Phase::TroopEffect { .. }, Decision::Use) => {
                s.phase = Phase::Chance(Chance::RackDiscard)
            } // R7.6
            (_, Decision::Use) => s.phase = Phase::Chance(Chance::Freeze),                 // R9.8
            (_, Decision::Discard { node }) => self.jumbo_discard(s, node),
            (_, Decision::Return { node }) => self.castle_return(s, node),
            (_, Decision::Move { from, to }) => self.volcanic_move(s, from, to),
            (_, Decision::Recover { troop }) => self.cemetery_recover(s, troop),
            (_, Decision::Chance(t)) => self.resolve_chance(s, t),
        }
    }

    /// R6.1–R6.5: put the tile down, check regions or HQ capture, queue the special base, then
    /// offer the troop effect.
    #[inline(always)]
    pub(crate) fn place(&self, s: &mut State, troop: Troop, n: NodeIndex) {
        let p = s.active;
        s.rack[p].remove(troop);
        s.rack_len[p] -= 1;
        forget_public(&mut s.public_rack[p], troop);
        s.board.push(n, Tile::new(p, troop)); // R6.1
        if self.bases & n.bit() == 0 {
            // R6.3, R10.1: a tile on an enemy HQ wins at once.
            return self.finish(s, p, WinType::Hq);
        }
        if self.region_check(s, n) {
            return; // R6.2
        }
        if self.queued_nodes & n.bit() != 0 {
            s.queue.push(n, (s.board.height(n) - 1) as u8); // R6.4
        }
        if self.no_troop_effect & n.bit() == 0 && self.troop_effect_available(s, troop, n) {
            s.phase = Phase::TroopEffect { troop, node: n }; // R6.5
        } else {
            self.advance(s);
        }
    }

    /// Whether the troop effect of §7 has anything to offer; effects with no possible outcome
    /// are skipped rather than offered as a lone `decline`.
    #[inline]
    pub(crate) fn troop_effect_available(&self, s: &State, troop: Troop, n: NodeIndex) -> bool {
        let p = s.active;
        if troop == Troop::Capn {
            return self.has_placement(s, p); // R7.3
        }
        // The cheap tests of the other troops all at once, then the bit of `troop`: the placed
        // troop is random, and a jump on it would often be mispredicted.
        let draw = (s.draw_count(p, 1) > 0) as u8; // R7.2, R7.7
        let jumbo = (self.jumbo_targets(s, n) != 0) as u8; // R7.4
        let xb42 = (s.rack_len(p.opponent()) > 0) as u8; // R7.6
        let available = draw << Troop::Skully.index()
            | draw << Troop::Star.index()
            | jumbo << Troop::Jumbo.index()
            | xb42 << Troop::Xb42.index(); // R7.1, R7.5, R7.8: Kwak, Hook, Roxy have none
        (available >> troop.index()) & 1 != 0
    }

    /// R7.4: enemy top tiles on bases adjacent to Jumbo's base.
    #[inline]
    pub(crate) fn jumbo_targets(&self, s: &State, jumbo: NodeIndex) -> NodeMask {
        self.terrain.neighbours[jumbo.usize()] & s.board.occupied(s.active.opponent()) & self.bases
    }

    fn jumbo_discard(&self, s: &mut State, n: NodeIndex) {
        let tile = s.board.pop(n);
        s.discard[tile.colour()].add(tile.troop());
        if !self.region_check(s, n) {
            self.advance(s);
        }
    }

    /// R6.6: resolve the queued special bases in placement order, then end the turn.
    #[inline]
    fn advance(&self, s: &mut State) {
        // Most steps have no special base queued: that test alone, without the loop's setup.
        if s.queue.is_drained() || !self.offer_queued_special(s) {
            self.end_turn(s);
        }
    }

    /// R6.6: offers the next queued special base whose effect has something to offer, skipping
    /// the others. Returns whether one was offered.
    fn offer_queued_special(&self, s: &mut State) -> bool {
        while let Some(node) = s.queue.pop_next() {
            let effect = self.queued[node.usize()].expect("only queued-effect nodes are queued");
            if self.special_effect_available(s, effect, node) {
                s.phase = Phase::SpecialEffect { effect, node };
                return true;
            }
        }
        false
    }

    pub(crate) fn special_effect_available(
        &self,
        s: &State,
        effect: SpecialEffect,
        node: NodeIndex,
    ) -> bool {
        let p = s.active;
        match effect {
            SpecialEffect::ReturnOwnTroop => self.return_targets(s, node) != 0,
            SpecialEffect::DrawOne => s.draw_count(p, 1) > 0,
            SpecialEffect::MoveAdjacentEnemy => self.move_sources(s, node) != 0,
            SpecialEffect::RecoverFromDiscard => {
                s.rack_len(p) < RACK_LIMIT && s.discard(p).total() > 0
            }
            SpecialEffect::FreezeOpponentRack => {
                let e = p.opponent();
                s.rack_len(e) > s.frozen_len(e)
            }
            SpecialEffect::ValueRestriction | SpecialEffect::NoTroopEffect => false,
        }
    }

    /// R9.1: own top tiles on bases other than the triggering one, if the rack has room.
    #[inline]
    pub(crate) fn return_targets(&self, s: &State, special: NodeIndex) -> NodeMask {
        if s.rack_len(s.active) >= RACK_LIMIT {
            return 0;
        }
        s.board.occupied(s.active) & self.bases & !special.bit()
    }

    fn castle_return(&self, s: &mut State, n: NodeIndex) {
        let level = (s.board.height(n) - 1) as u8;
        let tile = s.board.pop(n);
        let p = s.active;
        s.rack[p].add(tile.troop());
        s.rack_len[p] += 1;
        s.public_rack[p].add(tile.troop()); // R11.1: the tile was face up
        s.queue.cancel(n, level); // R6.6: a returned tile's queued effect is dropped
        if !self.region_check(s, n) {
            self.advance(s);
        }
    }

    /// R9.4: enemy top tiles adjacent to the Jungle base that have somewhere to go.
    #[inline]
    fn move_sources(&self, s: &State, special: NodeIndex) -> NodeMask {
        let enemy_tops = self.terrain.neighbours[special.usize()]
            & s.board.occupied(s.active.opponent())
            & self.bases;
        bits(enemy_tops)
            .filter(|&n| self.terrain.neighbours[n] & self.bases != 0)
            .fold(0, |m, n| m | 1 << n)
    }

    fn volcanic_move(&self, s: &mut State, from: NodeIndex, to: NodeIndex) {
        let tile = s.board.pop(from);
        s.board.push(to, tile);
        // R9.4, A7: destination first, then origin; the first to reach the objective wins.
        if self.region_check(s, to) || self.region_check(s, from) {
            return;
        }
        self.advance(s);
    }

    fn cemetery_recover(&self, s: &mut State, troop: Troop) {
        let p = s.active;
        s.discard[p].remove(troop);
        s.rack[p].add(troop);
        s.rack_len[p] += 1;
        s.public_rack[p].add(troop); // R9.5: the identity stays public
        self.advance(s);
    }

    /// DRAW as the action (R4.2) with its chance events resolved at once, each tile being
    /// `pick(reserve)`: the state [`Game::apply_step`] and [`Game::resolve_chance`] reach from
    /// the same picks, without the chance phases in between (for the random playout loop).
    #[inline(always)]
    pub(crate) fn draw_action(&self, s: &mut State, mut pick: impl FnMut(TroopCounts) -> Troop) {
        debug_assert!(s.phase == Phase::Action && self.can_draw(s, s.active));
        let p = s.active;
        for _ in 0..s.draw_count(s.active, 2) {
            let t = pick(s.reserve[p]);
            draw_tile(s, p, t);
        }
        self.advance(s);
    }

    pub(crate) fn resolve_chance(&self, s: &mut State, t: Troop) {
        let p = s.active;
        let e = p.opponent();
        match s.phase {
            Phase::Chance(Chance::Draw { remaining }) => {
                draw_tile(s, p, t);
                if remaining > 1 {
                    s.phase = Phase::Chance(Chance::Draw {
                        remaining: remaining - 1,
                    });
                } else {
                    self.advance(s);
                }
            }
            Phase::Chance(Chance::RackDiscard) => {
                s.rack[e].remove(t);
                s.rack_len[e] -= 1;
                forget_public(&mut s.public_rack[e], t);
                s.discard[e].add(t);
                self.advance(s);
            }
            Phase::Chance(Chance::Freeze) => {
                s.frozen[e].add(t);
                s.frozen_len[e] += 1;
                self.advance(s);
            }
            _ => unreachable!("chance outcome outside a chance event"),
        }
    }

    // ----- §8 Regions and medals ---------------------------------------------------------------

    /// R8.2: after the top tile of base `n` changed, every region around `n` now controlled by
    /// the owner of `n`'s top tile gives that player its medals; R8.5: the objective ends the
    /// game. Only regions containing `n` are looked at. Returns whether the game ended.
    #[inline]
    fn region_check(&self, s: &mut State, n: NodeIndex) -> bool {
        let Some(top) = s.board.top(n) else {
            return false;
        };
        let owner = top.colour();
        let occupied = s.board.occupied(owner);
        let mut gained = 0u8;
        for r in bits(self.node_regions[n.usize()] & !s.regions_taken) {
            let r = r & (MAX_REGIONS - 1); // a region index: lets the compiler drop bounds checks
            if self.region_bases[r] & !occupied == 0 {
                s.regions_taken |= 1 << r;
                gained += self.region_medals[r];
            }
        }
        if gained == 0 {
            return false;
        }
        s.medals[owner] += gained;
        if s.medals[owner] >= self.medals_to_win {
            self.finish(s, owner, WinType::Medals);
            return true;
        }
        false
    }

    // ----- §4, §10 Turns and the end of the game -----------------------------------------------

    /// R4.5: the active player's frozen tiles thaw, the other player's turn begins.
    #[inline]
    fn end_turn(&self, s: &mut State) {
        let p = s.active;
        s.frozen[p] = TroopCounts::EMPTY;
        s.frozen_len[p] = 0;
        s.active = s.active.opponent();
        s.turn = s.turn.saturating_add(1);
        s.queue.clear();
        s.phase = Phase::Action;
        self.begin_turn(s);
    }

    /// R10.3: a player who can neither draw nor place at the start of their turn ends the game;
    /// more medals wins, and a tie goes against the blocked player.
    pub(crate) fn begin_turn(&self, s: &mut State) {
        let p = s.active;
        if self.can_draw(s, p) || self.has_placement(s, p) {
            return;
        }
        let winner = if s.medals(p) > s.medals(p.opponent()) {
            p
        } else {
            p.opponent()
        };
        self.finish(s, winner, WinType::Blocked);
    }

    fn finish(&self, s: &mut State, winner: Colour, win: WinType) {
        s.outcome = Some(Outcome { winner, win });
        s.phase = Phase::Over;
    }

    // ----- Descriptions ------------------------------------------------------------------------

    /// The pending step in words, e.g. "blue chooses the action".
    pub fn describe_phase(&self, s: &State) -> String {
        let p = s.active;
        let id = |n: NodeIndex| self.terrain.id_of(n);
        match s.phase {
            Phase::Action => format!("{p} chooses the action (turn {})", s.turn),
            Phase::TroopEffect { troop, node } => format!(
                "{p} decides on the effect of {troop} placed on {}",
                id(node)
            ),
            Phase::SpecialEffect { effect, node } => {
                format!(
                    "{p} decides on special base {} ({})",
                    id(node),
                    effect.describe()
                )
            }
            Phase::Chance(Chance::Draw { remaining }) => format!("{p} draws ({remaining} to draw)"),
            Phase::Chance(Chance::RackDiscard) => {
                format!("XB-42 discards a random tile of {}'s rack", p.opponent())
            }
            Phase::Chance(Chance::Freeze) => format!(
                "Battlefield freezes a random tile of {}'s rack",
                p.opponent()
            ),
            Phase::Over => "the game is over".to_string(),
        }
    }

    fn why_illegal(&self, s: &State, d: Decision) -> String {
        let p = s.active;
        match (s.phase, d) {
            (Phase::Over, _) => "the game is over".into(),
            (Phase::Chance(_), d) if !d.is_chance() => {
                "a chance event is pending; only the referee decides it".into()
            }
            (_, Decision::Chance(_)) if !s.is_chance() => "no chance event is pending".into(),
            (Phase::Chance(_), _) => {
                "that outcome is impossible: no such tile where the event draws from".into()
            }
            (_, Decision::Place { troop, .. }) if s.placeable(p).get(troop) == 0 => {
                format!("{p} has no unfrozen {troop} on the rack")
            }
            (_, Decision::Place { .. }) => {
                "that node is not a legal slot for this tile (R5)".into()
            }
            (Phase::Action, Decision::Draw) => {
                "DRAW needs a non-empty reserve and at most 7 tiles on the rack (R4.2)".into()
            }
            _ => "not one of the legal decisions now".into(),
        }
    }

    // ----- Perft -------------------------------------------------------------------------------

    /// Number of decision sequences of length `depth` from `s`, chance outcomes counted as
    /// branches; ended games count as one leaf. A golden count for catching rule changes.
    pub fn perft(&self, s: &State, depth: u32) -> u64 {
        if depth == 0 || s.is_over() {
            return 1;
        }
        let mut list = DecisionList::new();
        self.legal_decisions(s, &mut list);
        list.iter()
            .map(|&d| {
                let mut child = *s;
                self.apply_legal(&mut child, d);
                self.perft(&child, depth - 1)
            })
            .sum()
    }
}

/// One tile `t` from the reserve of `p` to their rack (R4.2).
#[inline(always)]
fn draw_tile(s: &mut State, p: Colour, t: Troop) {
    s.reserve[p].remove(t);
    s.reserve_len[p] -= 1;
    s.rack[p].add(t);
    s.rack_len[p] += 1;
}

/// A tile of type `t` left a rack: the opponent can no longer be sure the publicly known copy is
/// still there (R11.1).
#[inline]
fn forget_public(public: &mut TroopCounts, t: Troop) {
    let c = &mut public.0[t.index()];
    *c = c.saturating_sub(1);
}
