//! What the page is sent: terrain drawings and positions, built so that hidden information
//! cannot slip in. A position is built from an [`Observation`] (which has the hidden parts
//! erased, not merely hidden), never from the referee's state.

use crate::info::Observation;
use crate::rules::{Colour, Decision, Game, Phase, TroopCounts};
use crate::session::TakenRegion;
use crate::terrain::{bits, NodeIndex, NodeKind, SpecialEffect, Terrain};
use serde::Serialize;

/// A terrain as the page draws it: node coordinates (percent of the picture, blue at the
/// bottom), edges, regions with their medals, special bases with their effect, HQs per side.
#[derive(Serialize)]
pub struct TerrainView {
    /// Terrain key, e.g. "castle_field".
    pub key: String,
    /// Terrain name for people, e.g. "Castle Field".
    pub name: String,
    /// Medals a player needs to win (R2.4).
    pub medals_to_win: u8,
    /// Medals of all the terrain's regions together.
    pub total_medals: u32,
    /// Every node (HQs, bases, special bases), in id order.
    pub nodes: Vec<NodeView>,
    /// Each edge once, as node ids (lower first).
    pub edges: Vec<[u8; 2]>,
    /// Every region with its medals.
    pub regions: Vec<RegionView>,
}

/// A node as the page draws it.
#[derive(Serialize)]
pub struct NodeView {
    /// The node id, as in the terrain file.
    pub id: u8,
    /// "hq", "base" or "special".
    pub kind: &'static str,
    /// The side an HQ belongs to.
    pub side: Option<Colour>,
    /// The effect's key in terrain files, e.g. "draw_one".
    pub effect: Option<&'static str>,
    /// The effect in words, shown on hover.
    pub description: Option<String>,
    /// The values a value-restricted base takes (Tropical Pool), as its icon shows them:
    /// "1", "2", … "7", "X" for Kwak last.
    pub allowed: Option<Vec<&'static str>>,
    /// Across, in percent of the picture's width.
    pub x: f32,
    /// Down, in percent of the picture's height (blue's side at the bottom).
    pub y: f32,
}

/// A region as the page draws it: a marker with its medals.
#[derive(Serialize)]
pub struct RegionView {
    /// The region id, as in the terrain file.
    pub id: u8,
    /// Medals the region gives the player who first controls it (R8).
    pub medals: u8,
    /// Node ids of its bases.
    pub bases: Vec<u8>,
    /// Across, in percent of the picture's width: where its marker is drawn.
    pub x: f32,
    /// Down, in percent of the picture's height.
    pub y: f32,
}

impl TerrainView {
    /// The drawing of terrain `t`.
    pub fn of(t: &Terrain) -> TerrainView {
        let nodes = t
            .nodes
            .iter()
            .map(|n| NodeView {
                id: n.id.get(),
                kind: match n.kind {
                    NodeKind::Hq(_) => "hq",
                    NodeKind::Base => "base",
                    NodeKind::Special => "special",
                },
                side: match n.kind {
                    NodeKind::Hq(c) => Some(c),
                    _ => None,
                },
                effect: n.effect.map(SpecialEffect::key),
                description: n.effect.map(|e| describe(e, n.allowed.as_deref())),
                allowed: n
                    .allowed
                    .as_deref()
                    .filter(|_| n.effect == Some(SpecialEffect::ValueRestriction))
                    .map(allowed_values),
                x: n.x,
                y: n.y,
            })
            .collect();
        let edges = (0..t.node_count())
            .flat_map(|i| {
                bits(t.neighbours[i])
                    .filter(move |&j| j > i)
                    .map(move |j| (i, j))
            })
            .map(|(i, j)| {
                [
                    t.id_of(NodeIndex::new(i)).get(),
                    t.id_of(NodeIndex::new(j)).get(),
                ]
            })
            .collect();
        let regions = t
            .regions
            .iter()
            .map(|r| RegionView {
                id: r.id,
                medals: r.medals,
                bases: t.ids(r.bases).iter().map(|n| n.get()).collect(),
                x: r.x,
                y: r.y,
            })
            .collect();
        TerrainView {
            key: t.key.clone(),
            name: t.name.clone(),
            medals_to_win: t.medals_to_win,
            total_medals: t.total_medals(),
            nodes,
            edges,
            regions,
        }
    }
}

/// An effect in words; a value restriction names the values allowed (Kwak, the X, last).
pub fn describe(effect: SpecialEffect, allowed: Option<&[crate::rules::Troop]>) -> String {
    match (effect, allowed) {
        (SpecialEffect::ValueRestriction, Some(troops)) => {
            format!(
                "only {} may be placed here",
                allowed_values(troops).join(", ")
            )
        }
        _ => effect.describe().to_string(),
    }
}

/// The values of `troops`, lowest first and Kwak's X last.
fn allowed_values(troops: &[crate::rules::Troop]) -> Vec<&'static str> {
    let mut troops = troops.to_vec();
    troops.sort_by_key(|t| (*t == crate::rules::Troop::Kwak, t.index()));
    troops.iter().map(|t| t.value_label()).collect()
}

/// One tile as drawn: its colour and troop.
#[derive(Serialize, Clone, Copy, PartialEq, Debug)]
pub struct TileView {
    /// Whose tile it is.
    pub colour: Colour,
    /// Its troop.
    pub troop: crate::rules::Troop,
}

/// A node's stack, bottom tile first (the last is the top tile). Covered tiles are public.
#[derive(Serialize, Clone, PartialEq, Debug)]
pub struct StackView {
    /// The node id, as in the terrain file.
    pub node: u8,
    /// Its tiles, bottom first; never empty (empty nodes have no stack).
    pub tiles: Vec<TileView>,
}

/// What everyone knows of one player.
#[derive(Serialize, Clone, PartialEq, Debug)]
pub struct SideView {
    /// The player.
    pub colour: Colour,
    /// Medals they have taken.
    pub medals: u8,
    /// Tiles on their rack, frozen ones included.
    pub rack_len: u8,
    /// Tiles left in their reserve.
    pub reserve_len: u8,
    /// How many of their rack tiles are frozen (R9.8; which ones is not public).
    pub frozen_len: u8,
    /// The rack tiles whose troop is public (R11: they came back from the board or discard);
    /// the whole rack once a replayed game is over (see [`super::replay::Replay::face_up`]).
    pub rack: Vec<crate::rules::Troop>,
    /// Their tiles in the discard (public).
    pub discard: Vec<crate::rules::Troop>,
    /// Which rack tiles are frozen: empty unless the rack is face up (which of a hidden rack's
    /// tiles are frozen is not public, R9.8).
    pub frozen: Vec<crate::rules::Troop>,
}

/// A position as everyone may see it: the replay viewer's positions.
#[derive(Serialize, Clone, PartialEq, Debug)]
pub struct PositionView {
    /// Turns begun so far, counting from 1.
    pub turn: u16,
    /// The player the pending step belongs to (the drawing player during a draw).
    pub active: Colour,
    /// The player who took turn 1.
    pub first: Colour,
    /// What the game waits for, in words ("blue chooses the action (turn 3)").
    pub phase: String,
    /// "action", "troop_effect", "special_effect", "chance" or "over".
    pub phase_kind: &'static str,
    /// The node id whose troop or special-base effect is pending, when one is.
    pub effect_node: Option<u8>,
    /// The stacks of the nodes that hold tiles, in id order.
    pub stacks: Vec<StackView>,
    /// Blue, then red.
    pub sides: [SideView; 2],
    /// Ids of the regions whose medals have been taken.
    pub regions_taken: Vec<u8>,
    /// The regions taken so far, in the order taken, with their takers: set by the replay,
    /// which sees every step (an observation alone does not say who took a region).
    pub taken_regions: Vec<TakenRegion>,
    /// The player who won, once the game is over.
    pub winner: Option<Colour>,
    /// "hq", "medals" or "blocked" once the game is over.
    pub end: Option<&'static str>,
}

impl PositionView {
    /// The public part of an observation (the observer's own rack left out too).
    pub fn public(game: &Game, obs: &Observation) -> PositionView {
        let t = game.terrain();
        let view = obs.view();
        let board = view.board();
        let stacks = (0..t.node_count())
            .map(NodeIndex::new)
            .filter(|&n| board.height(n) > 0)
            .map(|n| StackView {
                node: t.id_of(n).get(),
                tiles: board
                    .stack(n)
                    .map(|tile| TileView {
                        colour: tile.colour(),
                        troop: tile.troop(),
                    })
                    .collect(),
            })
            .collect();
        let side = |c: Colour| SideView {
            colour: c,
            medals: obs.medals(c),
            rack_len: obs.rack_len(c),
            reserve_len: obs.reserve_len(c),
            frozen_len: obs.frozen_len(c),
            rack: troops(view.public_rack(c)),
            discard: troops(obs.discard(c)),
            frozen: Vec::new(),
        };
        let (phase_kind, effect_node) = match obs.phase() {
            Phase::Action => ("action", None),
            Phase::TroopEffect { node, .. } => ("troop_effect", Some(t.id_of(node).get())),
            Phase::SpecialEffect { node, .. } => ("special_effect", Some(t.id_of(node).get())),
            Phase::Chance(_) => ("chance", None),
            Phase::Over => ("over", None),
        };
        let outcome = view.outcome();
        PositionView {
            turn: obs.turn(),
            active: obs.active(),
            first: obs.first_player(),
            phase: game.describe_phase(view),
            phase_kind,
            effect_node,
            stacks,
            sides: [side(Colour::Blue), side(Colour::Red)],
            regions_taken: bits(obs.regions_taken()).map(|r| t.regions[r].id).collect(),
            taken_regions: Vec::new(),
            winner: outcome.map(|o| o.winner),
            end: outcome.map(|o| crate::record::RecordResult::end_name(o.win)),
        }
    }
}

fn troops(counts: TroopCounts) -> Vec<crate::rules::Troop> {
    counts.to_vec()
}

/// A decision as the page offers it: its notation and the parts it clicks on.
#[derive(Serialize, Clone, PartialEq, Debug)]
pub struct DecisionView {
    /// The text notation, sent back as is to apply it (`place Jumbo 13`).
    pub notation: String,
    /// "draw", "place", "decline", "use", "discard", "return", "move", "recover" or "chance".
    pub kind: &'static str,
    /// The troop placed, recovered from the discard, or given by chance.
    pub troop: Option<crate::rules::Troop>,
    /// The node it acts on (the target of place/discard/return, the origin of a move).
    pub node: Option<u8>,
    /// The destination of a move.
    pub to: Option<u8>,
}

impl DecisionView {
    /// The view of decision `d`, with the node ids of terrain `t`.
    pub fn of(d: Decision, t: &Terrain) -> DecisionView {
        let id = |n: NodeIndex| Some(t.id_of(n).get());
        let (kind, troop, node, to) = match d {
            Decision::Draw => ("draw", None, None, None),
            Decision::Place { troop, node } => ("place", Some(troop), id(node), None),
            Decision::Decline => ("decline", None, None, None),
            Decision::Use => ("use", None, None, None),
            Decision::Discard { node } => ("discard", None, id(node), None),
            Decision::Return { node } => ("return", None, id(node), None),
            Decision::Move { from, to } => ("move", None, id(from), id(to)),
            Decision::Recover { troop } => ("recover", Some(troop), None, None),
            Decision::Chance(troop) => ("chance", Some(troop), None, None),
        };
        DecisionView {
            notation: d.notation(t),
            kind,
            troop,
            node,
            to,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Deal, Variant};

    #[test]
    fn terrain_view_lists_each_edge_once_and_every_node() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let v = TerrainView::of(game.terrain());
        assert_eq!(v.nodes.len(), 17);
        assert!(v.edges.contains(&[1, 11]));
        assert!(!v.edges.contains(&[11, 1]));
        let degree: usize = (0..17)
            .map(|i| game.terrain().neighbours[i].count_ones() as usize)
            .sum();
        assert_eq!(v.edges.len() * 2, degree);
        let special = v.nodes.iter().find(|n| n.id == 15).unwrap();
        assert_eq!(special.effect, Some("return_own_troop_to_rack"));
        assert!(special.description.as_deref().unwrap().contains("rack"));
    }

    #[test]
    fn public_positions_of_deals_differing_in_hidden_tiles_are_the_same() {
        let game = Game::builtin("castle_field", Variant::Normal).unwrap();
        let deal = Deal::from_seed(3);
        let mut other = deal.clone();
        // Both reserves in another order, so both opening racks differ too.
        other.reserve[Colour::Blue].reverse();
        other.reserve[Colour::Red].reverse();
        let a = game.initial_state(&deal);
        let b = game.initial_state(&other);
        assert_ne!(a.rack(Colour::Blue), b.rack(Colour::Blue));
        for observer in Colour::BOTH {
            let va = PositionView::public(&game, &Observation::new(&a, observer));
            let vb = PositionView::public(&game, &Observation::new(&b, observer));
            assert_eq!(va, vb);
            assert!(va.sides.iter().all(|s| s.rack.is_empty() && s.rack_len > 0));
        }
    }
}
