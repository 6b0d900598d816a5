//! Terrains as data (R2): the graph of HQs and bases, regions with their medals, special bases,
//! compiled at load into bitmask tables that the rules read in constant time.
//!
//! Nodes carry the ids of the rules specification (1–9 blue HQs, 10–40 bases, 41+ red HQs) for
//! everything a person reads or writes; the engine works with dense indices `0..n` (ids sorted
//! ascending) so that a set of nodes is one `u32`.

pub mod input;
mod load;

pub use load::{
    builtin, builtin_terrains, find, load_terrain_file, parse_terrains, IdProblem, TerrainError,
    MAX_ID_LEN,
};

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

/// A node as the rules and files name it (1–9 blue HQs, 10–40 bases, 41+ red HQs): what terrain
/// files, notation, position files and messages use. Printed as its number.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct NodeId(pub u8);

impl NodeId {
    /// The id's number.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for NodeId {
    type Err = std::num::ParseIntError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(NodeId)
    }
}

/// A node as the engine sees it: its dense index `0..n` on one terrain (ids ascending), which is
/// its bit position in a [`NodeMask`]. Meaningless without its terrain; never shown to people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(transparent)]
pub struct NodeIndex(u8);

impl NodeIndex {
    /// The node at dense index `i` (`i < MAX_NODES`).
    #[inline]
    pub const fn new(i: usize) -> NodeIndex {
        debug_assert!(i < MAX_NODES);
        NodeIndex(i as u8)
    }

    /// Index `n` as given, unchecked: a decision or a setup from outside may name a node
    /// beyond the terrain, which `Game::is_legal` and `Game::state_from_setup` refuse.
    #[inline]
    pub const fn raw(n: u8) -> NodeIndex {
        NodeIndex(n)
    }

    /// The index as a number.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The index for indexing tables.
    #[inline]
    pub const fn usize(self) -> usize {
        self.0 as usize
    }

    /// The one-node mask of this node.
    #[inline]
    pub const fn bit(self) -> NodeMask {
        1 << self.0
    }
}

/// Iterates the nodes of a mask, lowest index first.
#[inline]
pub fn nodes(m: NodeMask) -> impl Iterator<Item = NodeIndex> {
    bits(m).map(NodeIndex::new)
}

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

    /// Every effect, in the order of [`Terrain::effect_nodes`].
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
    /// A player's headquarters (R0.2), of the colour that owns it.
    Hq(Colour),
    /// A plain base, with no effect.
    Base,
    /// A special base, carrying its terrain's effect (R9).
    Special,
}

/// One node of the terrain graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The id of the rules specification (1–9 blue HQs, 10–40 bases, 41+ red HQs).
    pub id: NodeId,
    /// HQ, plain base or special base.
    pub kind: NodeKind,
    /// The special base's effect, or an HQ's value restriction; `None` elsewhere.
    pub effect: Option<SpecialEffect>,
    /// Troops that may be placed here (R5.4), or `None` when unrestricted.
    pub allowed: Option<Vec<Troop>>,
    /// Drawing position in percent of the board picture, blue side at the bottom.
    pub x: f32,
    /// Drawing position in percent of the board picture, from the top.
    pub y: f32,
}

/// A region: the bases around it and the medals it holds (R2.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// The region's id in the terrain file.
    pub id: u8,
    /// The bases around it.
    pub bases: NodeMask,
    /// Medals it holds (R2.3).
    pub medals: u8,
    /// Drawing position of its medals in percent of the board picture, from the left.
    pub x: f32,
    /// Drawing position of its medals in percent of the board picture, from the top.
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
    /// The regions, in file order.
    pub regions: Vec<Region>,
    /// Adjacency: `neighbours[i]` is the set of nodes joined to node i by an edge. Outside the
    /// crate: [`Terrain::neighbours`].
    pub(crate) neighbours: [NodeMask; MAX_NODES],
    /// HQs of each colour (indexed by `Colour::index`).
    pub hqs: [NodeMask; 2],
    /// Every base (special bases included; HQs excluded).
    pub bases: NodeMask,
    /// `node_regions[i]`: regions whose base list contains node i. Outside the crate:
    /// [`Terrain::node_regions`].
    pub(crate) node_regions: [RegionMask; MAX_NODES],
    /// Nodes carrying each special effect, indexed like `SpecialEffect::ALL`.
    pub effect_nodes: [NodeMask; 7],
    /// `allowed_troops[i]`: bit t set when troop t may be placed on node i (R5.4); all bits when
    /// unrestricted. Outside the crate: [`Terrain::allowed_troops`].
    pub(crate) allowed_troops: [u8; MAX_NODES],
}

impl Terrain {
    /// Nodes on the terrain (HQs and bases).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Dense index of a node id, if the terrain has it.
    pub fn index_of(&self, id: NodeId) -> Option<NodeIndex> {
        self.nodes
            .iter()
            .position(|n| n.id == id)
            .map(NodeIndex::new)
    }

    /// The id of the node at a dense index.
    #[inline]
    pub fn id_of(&self, index: NodeIndex) -> NodeId {
        self.node(index).id
    }

    /// The node at a dense index.
    #[inline]
    pub fn node(&self, index: NodeIndex) -> &Node {
        &self.nodes[index.usize()]
    }

    /// The nodes joined to node `index` by an edge.
    #[inline]
    pub fn neighbours(&self, index: NodeIndex) -> NodeMask {
        self.neighbours[index.usize()]
    }

    /// The regions whose base list contains node `index` (none for an HQ).
    #[inline]
    pub fn node_regions(&self, index: NodeIndex) -> RegionMask {
        self.node_regions[index.usize()]
    }

    /// The troops that may be placed on node `index` as printed on the terrain (R5.4), bit t
    /// for troop t; every bit when the node is unrestricted.
    #[inline]
    pub fn allowed_troops(&self, index: NodeIndex) -> u8 {
        self.allowed_troops[index.usize()]
    }

    /// Nodes carrying `effect`.
    #[inline]
    pub fn nodes_with(&self, effect: SpecialEffect) -> NodeMask {
        self.effect_nodes[effect as usize]
    }

    /// The effect at a dense index, if any.
    #[inline]
    pub fn effect_at(&self, index: NodeIndex) -> Option<SpecialEffect> {
        self.node(index).effect
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
    pub fn ids(&self, m: NodeMask) -> Vec<NodeId> {
        nodes(m).map(|i| self.id_of(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_indices_round_trip_on_every_terrain() {
        let terrains = builtin_terrains().to_vec();
        assert_eq!(terrains.len(), 8);
        for t in &terrains {
            for i in 0..t.node_count() {
                let index = NodeIndex::new(i);
                let id = t.id_of(index);
                assert_eq!(t.index_of(id), Some(index), "{} node {id}", t.key);
                assert_eq!(t.nodes[i].id, id);
                assert_eq!(t.node(index).id, id);
                // The accessors read the tables at the same index: adjacency is symmetric and
                // a node's regions are those listing it.
                for j in nodes(t.neighbours(index)) {
                    assert_ne!(t.neighbours(j) & index.bit(), 0, "{} {id}", t.key);
                }
                let listing = t.regions.iter().enumerate();
                let regions = listing
                    .filter(|(_, r)| r.bases & index.bit() != 0)
                    .fold(0, |m, (k, _)| m | 1 << k);
                assert_eq!(t.node_regions(index), regions, "{} {id}", t.key);
                let printed = t.node(index).allowed.as_ref();
                let allowed =
                    printed.map_or(u8::MAX, |l| l.iter().fold(0, |m, x| m | 1 << x.index()));
                assert_eq!(t.allowed_troops(index), allowed, "{} {id}", t.key);
            }
            // Ids ascend with the index, so masks list nodes in id order.
            let ids = t.ids(u32::MAX >> (32 - t.node_count()));
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{}", t.key);
            assert_eq!(t.index_of(NodeId(0)), None, "{}: id 0 is no node", t.key);
            assert_eq!(t.index_of(NodeId(255)), None, "{}", t.key);
        }
    }

    #[test]
    fn a_node_index_is_its_bit_in_a_mask() {
        let m: NodeMask = 0b1010_0110;
        let listed: Vec<NodeIndex> = nodes(m).collect();
        assert_eq!(listed, [1, 2, 5, 7].map(NodeIndex::new));
        assert_eq!(listed.iter().fold(0, |acc, n| acc | n.bit()), m);
        assert_eq!(NodeId(13).to_string(), "13");
        assert_eq!(format!("{:>3}", NodeId(7)), "  7");
        assert_eq!("41".parse::<NodeId>(), Ok(NodeId(41)));
    }
}
