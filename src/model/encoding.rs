//! The input of the learned models: one player's [`Observation`] as a fixed-size vector of
//! numbers.
//!
//! The encoding reads the observation only, so it cannot see a tile its observer may not know;
//! everything is written from the observer's side ("mine" and "theirs", not blue and red), so
//! one model serves both seats. The vector is a sequence of sections ([`SECTIONS`]); most
//! entries are zero, and [`Input`] keeps the list of the others so that the first layer of a
//! model adds only their rows.
//!
//! [`fingerprint`] hashes the layout (section names and sizes, the terrain order and the
//! version): a weights file records the fingerprint of the encoding it was trained on, and one
//! from another encoding is refused.

use crate::info::Observation;
use crate::rules::{Chance, Colour, Game, Phase, Tile, TroopCounts, Variant};
use crate::terrain::{builtin_terrains, NodeIndex, SpecialEffect, MAX_NODES};
use crate::vocabulary::hash::fnv1a;
use crate::vocabulary::Troop;

/// Bump when the meaning of an entry changes without a change of the sections' sizes.
const ENCODING_VERSION: u32 = 1;

/// Most regions a terrain may have (`State::regions_taken` is one bit per region).
const MAX_REGIONS: usize = 32;
/// Builtin terrains, one entry each in the `terrain` section (a custom terrain sets none).
const TERRAINS: usize = 8;

/// The sections of the input, in order: name and number of entries.
pub const SECTIONS: [(&str, usize); 20] = [
    // Per node: the top tile, mine (troop 0..8) or theirs (8..16).
    ("node.top", MAX_NODES * 16),
    // Per node: stack height / 4, my covered tiles / 3, their covered tiles / 3.
    ("node.stack", MAX_NODES * 3),
    // Per node: my HQ, their HQ.
    ("node.hq", MAX_NODES * 2),
    // Per node: its special effect (normal variant only), one of seven.
    ("node.effect", MAX_NODES * 7),
    // Per node: connected to my HQs, to theirs (R5.5).
    ("node.connected", MAX_NODES * 2),
    // Per region: taken, share of its bases I occupy, share they occupy, medals / 4.
    ("region", MAX_REGIONS * 4),
    // The terrain among the builtin ones, in `builtin_terrains` order.
    ("terrain", TERRAINS),
    // Normal, beginner.
    ("variant", 2),
    // My medals, theirs, each over the objective (R8.5).
    ("medals", 2),
    // My rack per troop / 3.
    ("rack.mine", 8),
    // My frozen rack tiles per troop / 3 (R9.8).
    ("rack.frozen", 8),
    // Their rack tiles whose identity is public, per troop / 3 (R11.1).
    ("rack.theirs.public", 8),
    // Rack sizes / 8 (mine, theirs), reserve sizes / 24, frozen counts / 8.
    ("sizes", 6),
    // My discard per troop / 3, then theirs.
    ("discard", 16),
    // My tiles whose place I do not know (reserve and removed) per troop / 3, then theirs.
    ("unseen", 16),
    // What the game waits for: action, troop effect (per troop), special effect (per effect),
    // chance, over.
    ("phase", 18),
    // Special-base effects still to come this turn / 4 (R6.6).
    ("pending", 1),
    // Turn / 50, and whether I took the first turn.
    ("turn", 2),
    // Whether the decision is mine (1) or the opponent's (0).
    ("to_move", 1),
    // Medals each still needs to win / objective (mine, theirs).
    ("medals.needed", 2),
];

/// Entries of the input vector.
pub const INPUTS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < SECTIONS.len() {
        n += SECTIONS[i].1;
        i += 1;
    }
    n
};

/// Where the board's sections (nodes and regions) end: the entries from here to [`INPUTS`] are
/// the game-wide facts (terrain, variant, medals, racks, sizes, discards, unseen tiles, phase,
/// turn).
pub const BOARD_END: usize = offset("terrain");

/// Where section `name` starts in the input vector.
const fn offset(name: &str) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < SECTIONS.len() {
        if const_eq(SECTIONS[i].0, name) {
            return n;
        }
        n += SECTIONS[i].1;
        i += 1;
    }
    panic!("no such section");
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const NODE_TOP: usize = offset("node.top");
const NODE_STACK: usize = offset("node.stack");
const NODE_HQ: usize = offset("node.hq");
const NODE_EFFECT: usize = offset("node.effect");
const NODE_CONNECTED: usize = offset("node.connected");
const REGION: usize = offset("region");
const TERRAIN: usize = offset("terrain");
const VARIANT: usize = offset("variant");
const MEDALS: usize = offset("medals");
const RACK_MINE: usize = offset("rack.mine");
const RACK_FROZEN: usize = offset("rack.frozen");
const RACK_THEIRS: usize = offset("rack.theirs.public");
const SIZES: usize = offset("sizes");
const DISCARD: usize = offset("discard");
const UNSEEN: usize = offset("unseen");
const PHASE: usize = offset("phase");
const PENDING: usize = offset("pending");
const TURN: usize = offset("turn");
const TO_MOVE: usize = offset("to_move");
const MEDALS_NEEDED: usize = offset("medals.needed");

/// The fingerprint of this encoding: a hash of its version, its sections and the order of the
/// builtin terrains. Weights trained on one encoding are valid only with the same fingerprint.
pub fn fingerprint() -> u64 {
    let mut text = format!("toybattle-encoding/{ENCODING_VERSION}");
    for (name, len) in SECTIONS {
        text.push_str(&format!(";{name}={len}"));
    }
    for t in builtin_terrains() {
        text.push_str(&format!(";{}", t.key));
    }
    fnv1a(text.as_bytes())
}

/// An encoded observation: the dense vector and the positions of its non-zero entries, in
/// increasing order. Made once and refilled by [`encode`], so encoding touches no heap.
#[derive(Clone)]
pub struct Input {
    values: [f32; INPUTS],
    nonzero: [u16; INPUTS],
    len: usize,
}

impl Default for Input {
    fn default() -> Self {
        Input {
            values: [0.0; INPUTS],
            nonzero: [0; INPUTS],
            len: 0,
        }
    }
}

impl Input {
    /// Every entry, in layout order.
    pub fn values(&self) -> &[f32; INPUTS] {
        &self.values
    }

    /// The non-zero entries as (position, value), in increasing position.
    pub fn nonzero(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.nonzero[..self.len]
            .iter()
            .map(|&i| (i as usize, self.values[i as usize]))
    }

    /// Refills the input from its non-zero entries, as listed by [`Input::nonzero`] (a
    /// position kept sparse for training); entries past the input or out of order are
    /// ignored.
    pub fn set_entries(&mut self, entries: &[(u16, f32)]) {
        self.clear();
        let mut last = None;
        for &(i, v) in entries {
            if (i as usize) < INPUTS && last.is_none_or(|l| l < i) {
                self.set(i as usize, v);
                last = Some(i);
            }
        }
    }

    fn clear(&mut self) {
        for &i in &self.nonzero[..self.len] {
            self.values[i as usize] = 0.0;
        }
        self.len = 0;
    }

    /// Sets entry `i`, which must still be zero and come after every non-zero entry set so
    /// far, to `v`.
    #[inline]
    fn set(&mut self, i: usize, v: f32) {
        debug_assert!(self.values[i] == 0.0, "entry {i} written twice");
        debug_assert!(
            self.nonzero[..self.len]
                .last()
                .is_none_or(|&last| usize::from(last) < i),
            "entry {i} written out of layout order"
        );
        if v != 0.0 {
            self.values[i] = v;
            self.nonzero[self.len] = i as u16;
            self.len += 1;
        }
    }

    fn set_counts(&mut self, at: usize, counts: TroopCounts, scale: f32) {
        for t in Troop::ALL {
            self.set(at + t.index(), f32::from(counts.get(t)) / scale);
        }
    }
}

/// Writes the encoding of `obs`, an observation of a game of `game`, into `out`. Entries are
/// written in layout order, so the non-zero list comes out sorted without sorting it (the
/// search encodes every playout cut).
pub fn encode(game: &Game, obs: &Observation, out: &mut Input) {
    out.clear();
    let me = obs.observer();
    let sides = [me, me.opponent()];
    encode_nodes(game, obs, me, out);
    encode_regions(game, obs, me, out);
    let terrain = game.terrain();
    if let Some(k) = builtin_terrains().iter().position(|t| t.key == terrain.key) {
        out.set(TERRAIN + k.min(TERRAINS - 1), 1.0);
    }
    out.set(
        VARIANT + usize::from(game.variant() == Variant::Beginner),
        1.0,
    );
    let goal = f32::from(game.medals_to_win().max(1));
    for (k, c) in sides.into_iter().enumerate() {
        out.set(MEDALS + k, f32::from(obs.medals(c)) / goal);
    }
    out.set_counts(RACK_MINE, obs.rack(), 3.0);
    out.set_counts(RACK_FROZEN, obs.frozen(), 3.0);
    out.set_counts(RACK_THEIRS, obs.opponent_public_rack(), 3.0);
    let sizes = [
        sides.map(|c| f32::from(obs.rack_len(c)) / 8.0),
        sides.map(|c| f32::from(obs.reserve_len(c)) / 24.0),
        sides.map(|c| f32::from(obs.frozen_len(c)) / 8.0),
    ];
    for (k, v) in sizes.into_iter().flatten().enumerate() {
        out.set(SIZES + k, v);
    }
    for (k, c) in sides.into_iter().enumerate() {
        out.set_counts(DISCARD + 8 * k, obs.discard(c), 3.0);
    }
    for (k, c) in sides.into_iter().enumerate() {
        out.set_counts(UNSEEN + 8 * k, obs.unseen(c), 3.0);
    }
    out.set(PHASE + phase_entry(obs.phase()), 1.0);
    let pending = obs.view().pending_specials().count() as f32;
    out.set(PENDING, pending / 4.0);
    out.set(TURN, f32::from(obs.turn()) / 50.0);
    out.set(TURN + 1, f32::from(u8::from(obs.first_player() == me)));
    out.set(TO_MOVE, f32::from(u8::from(obs.active() == me)));
    for (k, c) in sides.into_iter().enumerate() {
        let needed = game.medals_to_win().saturating_sub(obs.medals(c));
        out.set(MEDALS_NEEDED + k, f32::from(needed) / goal);
    }
}

/// One node's stack as the encoding reads it.
#[derive(Clone, Copy, Default)]
struct Stack {
    top: Option<Tile>,
    height: u8,
    /// Covered tiles: mine, theirs.
    covered: [u8; 2],
}

/// The stacks, HQs, special effects and connection of every node, section by section.
fn encode_nodes(game: &Game, obs: &Observation, me: Colour, out: &mut Input) {
    let terrain = game.terrain();
    let nodes = terrain.node_count().min(MAX_NODES);
    let mut stacks = [Stack::default(); MAX_NODES];
    for (n, stack) in stacks.iter_mut().enumerate().take(nodes) {
        for tile in obs.board().stack(NodeIndex::new(n)) {
            if let Some(below) = stack.top {
                stack.covered[usize::from(below.colour() != me)] += 1;
            }
            stack.top = Some(tile);
            stack.height += 1;
        }
    }
    for (n, stack) in stacks.iter().enumerate().take(nodes) {
        if let Some(tile) = stack.top {
            let side = usize::from(tile.colour() != me);
            out.set(NODE_TOP + 16 * n + 8 * side + tile.troop().index(), 1.0);
        }
    }
    for (n, stack) in stacks.iter().enumerate().take(nodes) {
        out.set(NODE_STACK + 3 * n, f32::from(stack.height) / 4.0);
        out.set(NODE_STACK + 3 * n + 1, f32::from(stack.covered[0]) / 3.0);
        out.set(NODE_STACK + 3 * n + 2, f32::from(stack.covered[1]) / 3.0);
    }
    let hqs = [me, me.opponent()].map(|c| terrain.hqs[c.index()]);
    for n in 0..nodes {
        for (k, &mask) in hqs.iter().enumerate() {
            out.set(NODE_HQ + 2 * n + k, hq_flag(mask, n));
        }
    }
    if game.variant() == Variant::Normal {
        for n in 0..nodes {
            if let Some(e) = terrain.effect_at(NodeIndex::new(n)) {
                out.set(NODE_EFFECT + 7 * n + effect_index(e), 1.0);
            }
        }
    }
    let connected = [me, me.opponent()].map(|c| game.connected_nodes(obs.view(), c));
    for n in 0..nodes {
        for (k, &mask) in connected.iter().enumerate() {
            out.set(NODE_CONNECTED + 2 * n + k, hq_flag(mask, n));
        }
    }
}

/// 1 if node `n` is in `mask`, else 0.
fn hq_flag(mask: u32, n: usize) -> f32 {
    f32::from(u8::from(mask >> n & 1 == 1))
}

/// Per region: taken, the shares of its bases each side occupies, its medals.
fn encode_regions(game: &Game, obs: &Observation, me: Colour, out: &mut Input) {
    let terrain = game.terrain();
    let occupied = [me, me.opponent()].map(|c| obs.board().occupied(c));
    for (r, region) in terrain.regions.iter().enumerate().take(MAX_REGIONS) {
        let at = REGION + 4 * r;
        out.set(at, hq_flag(obs.regions_taken(), r));
        let bases = region.bases.count_ones().max(1) as f32;
        out.set(
            at + 1,
            (region.bases & occupied[0]).count_ones() as f32 / bases,
        );
        out.set(
            at + 2,
            (region.bases & occupied[1]).count_ones() as f32 / bases,
        );
        out.set(at + 3, f32::from(region.medals) / 4.0);
    }
}

/// The entry of `phase` within the `phase` section.
fn phase_entry(phase: Phase) -> usize {
    match phase {
        Phase::Action => 0,
        Phase::TroopEffect { troop, .. } => 1 + troop.index(),
        Phase::SpecialEffect { effect, .. } => 9 + effect_index(effect),
        Phase::Chance(Chance::Draw { .. } | Chance::RackDiscard | Chance::Freeze) => 16,
        Phase::Over => 17,
    }
}

fn effect_index(e: SpecialEffect) -> usize {
    SpecialEffect::ALL
        .iter()
        .position(|&x| x == e)
        .expect("every effect is listed")
}
