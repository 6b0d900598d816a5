//! Terrains as data (R2): the graph of HQs and bases, regions with their medals, special bases,
//! compiled at load into bitmask tables that the rules read in constant time.
//!
//! Nodes carry the ids of the rules specification (1–9 blue HQs, 10–40 bases, 41+ red HQs) for
//! everything a person reads or writes; the engine works with dense indices `0..n` (ids sorted
//! ascending) so that a set of nodes is one `u32`.

mod load;

pub use load::{builtin, builtin_terrains, find, load_terrain_file, parse_terrains, TerrainError};

use crate::vocabulary::{Colour, Troop};

/// Most nodes a terrain may have: a set of nodes is one `u32`.
pub const MAX_NODES: usize = 32;
/// Most regions a terrain may have: a set of regions is one `u32`.
pub const MAX_REGIONS: usize = 32;
/// Medal tokens in the box (R1.4).
pub const MEDALS_IN_BOX: u32 = 16;

/// A set of nodes, bit i = dense node index i.
pub type NodeMask = u32;
/// A set of regions, bit i = region index i.
pub type RegionMask = u32;

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub fn bits(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(i)
        }
    })
}

/// The effect of a special base (R9), in the words of the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialEffect {
    /// Castle Field (R9.1): return one of your top tiles elsewhere to your rack.
    ReturnOwnTroop,
    /// Tropical Pool (R9.2): only some values may be placed here. No effect after placement.
    ValueRestriction,
    /// City of Clouds (R9.3): draw 1 tile.
    DrawOne,
    /// Volcanic Jungle (R9.4): move an adjacent enemy top tile to a base adjacent to it.
    MoveAdjacentEnemy,
    /// Cursed Cemetery (R9.5): take one of your tiles from the discard back to your rack.
    RecoverFromDiscard,
    /// Station Metal-X (R9.7): a tile placed here applies no troop effect.
    NoTroopEffect,
    /// Battlefield (R9.8): freeze a random unfrozen tile of the opponent's rack.
    FreezeOpponentRack,
}

impl SpecialEffect {
    /// The name used in terrain files.
    pub fn key(self) -> &'static str {
        match self {
            SpecialEffect::ReturnOwnTroop => "return_own_troop_to_rack",
            SpecialEffect::ValueRestriction => "value_restriction",
            SpecialEffect::DrawOne => "draw_one",
            SpecialEffect::MoveAdjacentEnemy => "move_adjacent_enemy_troop",
            SpecialEffect::RecoverFromDiscard => "recover_own_troop_from_discard",
            SpecialEffect::NoTroopEffect => "no_troop_effect",
            SpecialEffect::FreezeOpponentRack => "freeze_opponent_rack_troop",
        }
    }

    pub const ALL: [SpecialEffect; 7] = [
        SpecialEffect::ReturnOwnTroop,
        SpecialEffect::ValueRestriction,
        SpecialEffect::DrawOne,
        SpecialEffect::MoveAdjacentEnemy,
        SpecialEffect::RecoverFromDiscard,
        SpecialEffect::NoTroopEffect,
        SpecialEffect::FreezeOpponentRack,
    ];

    /// Whether the effect happens after a placement (queued at R6.4), as opposed to a standing
    /// rule on placement (value restriction, no troop effect).
    pub fn is_queued(self) -> bool {
        matches!(
            self,
            SpecialEffect::ReturnOwnTroop
                | SpecialEffect::DrawOne
                | SpecialEffect::MoveAdjacentEnemy
                | SpecialEffect::RecoverFromDiscard
                | SpecialEffect::FreezeOpponentRack
        )
    }

    /// A short description for people.
    pub fn describe(self) -> &'static str {
        match self {
            SpecialEffect::ReturnOwnTroop => "return one of your top tiles to your rack",
            SpecialEffect::ValueRestriction => "only some values may be placed",
            SpecialEffect::DrawOne => "draw 1 tile",
            SpecialEffect::MoveAdjacentEnemy => "move an adjacent enemy tile",
            SpecialEffect::RecoverFromDiscard => "recover one of your discarded tiles",
            SpecialEffect::NoTroopEffect => "tiles placed here have no troop effect",
            SpecialEffect::FreezeOpponentRack => "freeze a random tile of the opponent's rack",
        }
    }
}

/// What a node is (R0.2: an HQ is not a base).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Hq(Colour),
    Base,
    Special,
}

/// One node of the terrain graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The id of the rules specification (1–9 blue HQs, 10–40 bases, 41+ red HQs).
    pub id: u8,
    pub kind: NodeKind,
    pub effect: Option<SpecialEffect>,
    /// Troops that may be placed here (R5.4), or `None` when unrestricted.
    pub allowed: Option<Vec<Troop>>,
    /// Drawing position in percent of the board picture, blue side at the bottom.
    pub x: f32,
    pub y: f32,
}

/// A region: the bases around it and the medals it holds (R2.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    pub id: u8,
    pub bases: NodeMask,
    pub medals: u8,
    pub x: f32,
    pub y: f32,
}

/// A validated terrain with its bitmask tables.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    /// Short key, e.g. `castle_field`.
    pub key: String,
    /// Name as printed, e.g. `Castle Field`.
    pub name: String,
    /// Medals a player needs to win (R2.4, R8.5).
    pub medals_to_win: u8,
    /// Nodes in dense-index order (ids ascending).
    pub nodes: Vec<Node>,
    pub regions: Vec<Region>,
    /// Adjacency: `neighbours[i]` is the set of nodes joined to node i by an edge.
    pub neighbours: [NodeMask; MAX_NODES],
    /// HQs of each colour (indexed by `Colour::index`).
    pub hqs: [NodeMask; 2],
    /// Every base (special bases included; HQs excluded).
    pub bases: NodeMask,
    /// `node_regions[i]`: regions whose base list contains node i.
    pub node_regions: [RegionMask; MAX_NODES],
    /// Nodes carrying each special effect, indexed like `SpecialEffect::ALL`.
    pub effect_nodes: [NodeMask; 7],
    /// `allowed_troops[i]`: bit t set when troop t may be placed on node i (R5.4); all bits when
    /// unrestricted.
    pub allowed_troops: [u8; MAX_NODES],
}

impl Terrain {
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Dense index of a node id, if the terrain has it.
    pub fn index_of(&self, id: u8) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// The id of the node at a dense index.
    #[inline]
    pub fn id_of(&self, index: usize) -> u8 {
        self.nodes[index].id
    }

    /// Nodes carrying `effect`.
    #[inline]
    pub fn nodes_with(&self, effect: SpecialEffect) -> NodeMask {
        self.effect_nodes[effect as usize]
    }

    /// The effect at a dense index, if any.
    #[inline]
    pub fn effect_at(&self, index: usize) -> Option<SpecialEffect> {
        self.nodes[index].effect
    }

    /// Union of the neighbours of every node in `m`.
    #[inline]
    pub fn neighbours_of(&self, m: NodeMask) -> NodeMask {
        bits(m).fold(0, |acc, i| acc | self.neighbours[i])
    }

    /// Total medals over all regions.
    pub fn total_medals(&self) -> u32 {
        self.regions.iter().map(|r| r.medals as u32).sum()
    }

    /// Ids of a mask's nodes, ascending.
    pub fn ids(&self, m: NodeMask) -> Vec<u8> {
        bits(m).map(|i| self.id_of(i)).collect()
    }
}
