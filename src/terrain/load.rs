//! Reading terrain files (`toybattle-terrains/1`) into validated [`Terrain`]s.
//!
//! Every inconsistency is a [`TerrainError`] naming the terrain and the node or region at fault;
//! nothing here panics on user input.

use super::input::{self, InputError};
use super::{
    bits, Node, NodeId, NodeKind, NodeMask, Region, SpecialEffect, Terrain, MAX_NODES, MAX_REGIONS,
    MEDALS_IN_BOX,
};
use crate::vocabulary::{Colour, ParseTroopError, Troop};
use serde::Deserialize;
use std::path::Path;
use std::sync::OnceLock;

/// The format tag every terrain file carries.
pub const FORMAT: &str = "toybattle-terrains/1";

const BUILTIN_JSON: &str = include_str!("terrains.json");

/// Why a terrain file, or a terrain asked for by name, was refused. Every kind names the terrain
/// and the node or region at fault (by the ids of the file) and what was expected.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TerrainError {
    /// The terrain file cannot be read: missing, not a regular file, or over its size cap.
    #[error(transparent)]
    Io(#[from] InputError),
    /// The text is not JSON, or a field is missing, unknown or of the wrong type.
    #[error("terrain file is not valid JSON of the expected shape: {reason}")]
    Json {
        /// What the JSON reader found wrong, with its line and column.
        reason: String,
        /// Line of the problem, from 1 (0 when the text ended too soon to tell).
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
    },
    /// The file's `format` is not this engine's terrain format.
    #[error("terrain file format is '{found}', expected '{FORMAT}'")]
    Format {
        /// The format the file names.
        found: String,
    },
    /// The file's terrain list is empty.
    #[error("terrain file holds no terrain")]
    Empty,
    /// A terrain id that cannot name files and lists.
    #[error(
        "terrain id '{id}' {problem}: an id is 1 to {MAX_ID_LEN} characters from a-z, 0-9 and _ \
         (it names record files and is listed with commas), and not 'all'"
    )]
    BadId {
        /// The id as written.
        id: String,
        /// Which rule it breaks.
        problem: IdProblem,
    },
    /// Two terrains of a file with the same id (underscores ignored).
    #[error("terrain '{0}' appears twice")]
    DuplicateTerrain(String),
    /// No terrain of the list has this key or name.
    #[error("unknown terrain '{given}'; known terrains: {}", .known.join(", "))]
    Unknown {
        /// The name asked for.
        given: String,
        /// The keys of the terrains there are.
        known: Vec<String>,
    },
    /// Two nodes with one id.
    #[error("terrain '{terrain}': node id {node} appears twice")]
    DuplicateNode {
        /// The terrain's id.
        terrain: String,
        /// The repeated id.
        node: NodeId,
    },
    /// More nodes than a node set can hold.
    #[error("terrain '{terrain}': {count} nodes, at most {MAX_NODES} are supported")]
    TooManyNodes {
        /// The terrain's id.
        terrain: String,
        /// Nodes in the file.
        count: usize,
    },
    /// An edge to a node the terrain does not have.
    #[error("terrain '{terrain}': node {node} lists unknown neighbour {neighbour}")]
    UnknownNeighbour {
        /// The terrain's id.
        terrain: String,
        /// The node whose `adjacent` list is at fault.
        node: NodeId,
        /// The id it lists.
        neighbour: NodeId,
    },
    /// A node joined to itself.
    #[error("terrain '{terrain}': node {node} lists itself as a neighbour")]
    SelfLoop {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// An edge listed by one end only (edges join both ways).
    #[error("terrain '{terrain}': node {a} lists {b} as adjacent but {b} does not list {a}")]
    Asymmetric {
        /// The terrain's id.
        terrain: String,
        /// The node that lists the edge.
        a: NodeId,
        /// The node that does not.
        b: NodeId,
    },
    /// A node no path reaches.
    #[error("terrain '{terrain}': node {node} cannot be reached from node {from}; the graph must be connected")]
    Disconnected {
        /// The terrain's id.
        terrain: String,
        /// The first node not reached.
        node: NodeId,
        /// Where the search started (the lowest id).
        from: NodeId,
    },
    /// A node kind other than HQ, base and special base.
    #[error("terrain '{terrain}': node {node} has unknown kind '{kind}', expected 'hq', 'base' or 'special'")]
    BadKind {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
        /// The kind as written.
        kind: String,
    },
    /// A player without an HQ.
    #[error("terrain '{terrain}': {colour} has no HQ")]
    NoHq {
        /// The terrain's id.
        terrain: String,
        /// The player.
        colour: Colour,
    },
    /// An HQ list naming a node the terrain does not have.
    #[error("terrain '{terrain}': {colour} HQ {node} is not a node")]
    HqNotANode {
        /// The terrain's id.
        terrain: String,
        /// Whose HQ list it is.
        colour: Colour,
        /// The id listed.
        node: NodeId,
    },
    /// An HQ list naming a node that is not of kind `hq`.
    #[error("terrain '{terrain}': {colour} HQ {node} is a node of kind '{kind}', expected 'hq'")]
    HqNotKindHq {
        /// The terrain's id.
        terrain: String,
        /// Whose HQ list it is.
        colour: Colour,
        /// The node.
        node: NodeId,
        /// The node's kind as written.
        kind: String,
    },
    /// A node in both players' HQ lists.
    #[error("terrain '{terrain}': node {node} is an HQ of both colours")]
    HqOfBothColours {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// A node of kind `hq` in neither player's HQ list.
    #[error("terrain '{terrain}': node {node} is an HQ but belongs to no colour")]
    HqWithoutColour {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// An effect name that is not one of the special bases' effects.
    #[error(
        "terrain '{terrain}': node {node}: unknown effect '{effect}', expected one of {}",
        effect_keys()
    )]
    UnknownEffect {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
        /// The effect as written.
        effect: String,
    },
    /// A special base without its effect.
    #[error("terrain '{terrain}': node {node}: a special base needs an effect")]
    SpecialWithoutEffect {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// A plain base with an effect (only special bases have one).
    #[error("terrain '{terrain}': node {node}: a plain base cannot carry effect '{}'", .effect.key())]
    EffectOnPlainBase {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
        /// The effect it carries.
        effect: SpecialEffect,
    },
    /// An HQ with an effect other than a value restriction.
    #[error("terrain '{terrain}': node {node}: an HQ can only carry a value restriction, not '{}'", .effect.key())]
    EffectOnHq {
        /// The terrain's id.
        terrain: String,
        /// The HQ.
        node: NodeId,
        /// The effect it carries.
        effect: SpecialEffect,
    },
    /// A value restriction that does not say which values may be placed.
    #[error("terrain '{terrain}': node {node}: a value restriction needs 'allowed_values'")]
    NoAllowedValues {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// Allowed values on a node without a value restriction.
    #[error("terrain '{terrain}': node {node}: 'allowed_values' needs effect 'value_restriction'")]
    AllowedValuesWithoutRestriction {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// A value restriction that allows nothing.
    #[error("terrain '{terrain}': node {node}: 'allowed_values' is empty")]
    EmptyAllowedValues {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
    },
    /// An allowed value that names no troop.
    #[error("terrain '{terrain}': node {node}: allowed_values: {troop}")]
    BadAllowedValue {
        /// The terrain's id.
        terrain: String,
        /// The node.
        node: NodeId,
        /// The word that is no troop.
        troop: ParseTroopError,
    },
    /// More regions than a region set can hold.
    #[error("terrain '{terrain}': {count} regions, at most {MAX_REGIONS} are supported")]
    TooManyRegions {
        /// The terrain's id.
        terrain: String,
        /// Regions in the file.
        count: usize,
    },
    /// Two regions with one id.
    #[error("terrain '{terrain}': region {region}: region id appears twice")]
    DuplicateRegion {
        /// The terrain's id.
        terrain: String,
        /// The repeated region id.
        region: u8,
    },
    /// A region around no base.
    #[error("terrain '{terrain}': region {region}: no bases")]
    EmptyRegion {
        /// The terrain's id.
        terrain: String,
        /// The region.
        region: u8,
    },
    /// A region holding no medal, or more than the box.
    #[error(
        "terrain '{terrain}': region {region}: {medals} medals, expected 1 to {MEDALS_IN_BOX}"
    )]
    RegionMedals {
        /// The terrain's id.
        terrain: String,
        /// The region.
        region: u8,
        /// The medals it says it holds.
        medals: u32,
    },
    /// A region naming a node the terrain does not have.
    #[error("terrain '{terrain}': region {region}: names unknown node {node}")]
    RegionUnknownNode {
        /// The terrain's id.
        terrain: String,
        /// The region.
        region: u8,
        /// The id it names.
        node: NodeId,
    },
    /// A region naming an HQ (R2.3: regions are made of bases).
    #[error("terrain '{terrain}': region {region}: names HQ {node}; an HQ is never part of a region (R2.3)")]
    RegionHq {
        /// The terrain's id.
        terrain: String,
        /// The region.
        region: u8,
        /// The HQ it names.
        node: NodeId,
    },
    /// A region naming one base twice.
    #[error("terrain '{terrain}': region {region}: names base {node} twice")]
    RegionBaseTwice {
        /// The terrain's id.
        terrain: String,
        /// The region.
        region: u8,
        /// The base named twice.
        node: NodeId,
    },
    /// Regions holding more medals than the box (R1.4).
    #[error(
        "terrain '{terrain}': regions hold {total} medals, the box has {MEDALS_IN_BOX} (R1.4)"
    )]
    TooManyMedals {
        /// The terrain's id.
        terrain: String,
        /// Medals over all regions.
        total: u32,
    },
    /// An objective of no medal.
    #[error("terrain '{terrain}': medals_to_win must be at least 1")]
    NoObjective {
        /// The terrain's id.
        terrain: String,
    },
    /// An objective no player can reach.
    #[error("terrain '{terrain}': objective {objective} is above the {total} medals available")]
    ObjectiveTooHigh {
        /// The terrain's id.
        terrain: String,
        /// Medals to win, as written.
        objective: u32,
        /// Medals over all regions.
        total: u32,
    },
}

/// Which rule a terrain id breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdProblem {
    /// The id is empty.
    #[error("is empty")]
    Empty,
    /// The id is longer than [`MAX_ID_LEN`].
    #[error("is too long")]
    TooLong,
    /// The id has a character other than a-z, 0-9 and _.
    #[error("has a character other than a-z, 0-9 and _")]
    BadCharacter,
    /// The id is `all`, which selects every terrain.
    #[error("is reserved (`all` selects every terrain)")]
    Reserved,
}

/// The effect names of terrain files, for messages.
fn effect_keys() -> String {
    SpecialEffect::ALL.map(SpecialEffect::key).join(", ")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    format: String,
    terrains: Vec<RawTerrain>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTerrain {
    id: String,
    name: String,
    medals_to_win: u32,
    hqs: RawHqs,
    nodes: Vec<RawNode>,
    regions: Vec<RawRegion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHqs {
    blue: Vec<u8>,
    red: Vec<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    id: u8,
    kind: String,
    #[serde(default)]
    effect: Option<String>,
    #[serde(default)]
    allowed_values: Option<Vec<String>>,
    adjacent: Vec<u8>,
    x: f32,
    y: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegion {
    id: u8,
    bases: Vec<u8>,
    medals: u32,
    x: f32,
    y: f32,
}

/// The eight retail terrains shipped with the engine, in rulebook order.
pub fn builtin_terrains() -> &'static [Terrain] {
    static BUILTIN: OnceLock<Vec<Terrain>> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        parse_terrains(BUILTIN_JSON).expect("the shipped terrain file is validated by its tests")
    })
}

/// Normalises a terrain name for lookup: "Castle Field", "castle-field" and "castle_field" agree.
fn lookup_key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Finds a shipped terrain by key or name, case and punctuation ignored.
pub fn builtin(name: &str) -> Result<&'static Terrain, TerrainError> {
    find(builtin_terrains(), name)
}

/// Finds a terrain of a list by key or name.
pub fn find<'a>(list: &'a [Terrain], name: &str) -> Result<&'a Terrain, TerrainError> {
    let key = lookup_key(name);
    list.iter()
        .find(|t| lookup_key(&t.key) == key || lookup_key(&t.name) == key)
        .ok_or_else(|| TerrainError::Unknown {
            given: name.to_string(),
            known: list.iter().map(|t| t.key.clone()).collect(),
        })
}

/// Reads and validates a terrain file in the shipped format.
pub fn load_terrain_file(path: &Path) -> Result<Vec<Terrain>, TerrainError> {
    parse_terrains(&input::read_text(path, input::TERRAIN_FILE)?)
}

/// Parses and validates terrain JSON text.
pub fn parse_terrains(text: &str) -> Result<Vec<Terrain>, TerrainError> {
    let raw: RawFile = serde_json::from_str(text).map_err(|e| TerrainError::Json {
        reason: e.to_string(),
        line: e.line(),
        column: e.column(),
    })?;
    if raw.format != FORMAT {
        return Err(TerrainError::Format { found: raw.format });
    }
    if raw.terrains.is_empty() {
        return Err(TerrainError::Empty);
    }
    let mut out: Vec<Terrain> = Vec::with_capacity(raw.terrains.len());
    for rt in &raw.terrains {
        let t = compile(rt)?;
        // Ids are looked up with underscores ignored, so `ab_c` and `abc` are one terrain.
        if out.iter().any(|o| lookup_key(&o.key) == lookup_key(&t.key)) {
            return Err(TerrainError::DuplicateTerrain(t.key));
        }
        out.push(t);
    }
    Ok(out)
}

/// The longest terrain id.
pub const MAX_ID_LEN: usize = 64;

/// Checks a terrain id: ids name record files (`records/<id>/…`) and are listed with commas
/// (`--terrains a,b`), where `all` means every terrain; so `[a-z0-9_]{1,64}`, not `all`.
pub fn check_id(id: &str) -> Result<(), TerrainError> {
    let problem = if id.is_empty() {
        Some(IdProblem::Empty)
    } else if id.len() > MAX_ID_LEN {
        Some(IdProblem::TooLong)
    } else if !id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        Some(IdProblem::BadCharacter)
    } else if id == "all" {
        Some(IdProblem::Reserved)
    } else {
        None
    };
    match problem {
        Some(problem) => Err(TerrainError::BadId {
            id: id.to_string(),
            problem,
        }),
        None => Ok(()),
    }
}

fn compile(rt: &RawTerrain) -> Result<Terrain, TerrainError> {
    check_id(&rt.id)?;
    let name = rt.id.clone();
    let mut raw_nodes: Vec<&RawNode> = rt.nodes.iter().collect();
    raw_nodes.sort_by_key(|n| n.id);
    if raw_nodes.len() > MAX_NODES {
        return Err(TerrainError::TooManyNodes {
            terrain: name,
            count: raw_nodes.len(),
        });
    }
    for w in raw_nodes.windows(2) {
        if w[0].id == w[1].id {
            return Err(TerrainError::DuplicateNode {
                terrain: name,
                node: NodeId(w[0].id),
            });
        }
    }
    let ids: Vec<u8> = raw_nodes.iter().map(|n| n.id).collect();
    let index = |id: u8| ids.iter().position(|&x| x == id);

    let neighbours = compile_adjacency(&name, &raw_nodes, &index)?;
    check_connected(&name, &ids, &neighbours)?;
    let hqs = compile_hqs(&name, rt, &raw_nodes, &index)?;
    let nodes = compile_nodes(&name, &raw_nodes, &hqs)?;

    let mut bases: NodeMask = 0;
    let mut effect_nodes = [0 as NodeMask; 7];
    let mut allowed_troops = [0xFFu8; MAX_NODES];
    for (i, n) in nodes.iter().enumerate() {
        if n.kind != NodeKind::Hq(Colour::Blue) && n.kind != NodeKind::Hq(Colour::Red) {
            bases |= 1 << i;
        }
        if let Some(e) = n.effect {
            effect_nodes[e as usize] |= 1 << i;
        }
        if let Some(allowed) = &n.allowed {
            allowed_troops[i] = allowed.iter().fold(0, |m, t| m | (1 << t.index()));
        }
    }

    let regions = compile_regions(&name, rt, &index, bases)?;
    let mut node_regions = [0u32; MAX_NODES];
    for (r, region) in regions.iter().enumerate() {
        for b in bits(region.bases) {
            node_regions[b] |= 1 << r;
        }
    }
    check_medals(&name, rt, &regions)?;

    Ok(Terrain {
        key: rt.id.clone(),
        name: rt.name.clone(),
        medals_to_win: rt.medals_to_win as u8,
        nodes,
        regions,
        neighbours,
        hqs,
        bases,
        node_regions,
        effect_nodes,
        allowed_troops,
    })
}

fn compile_adjacency(
    name: &str,
    raw_nodes: &[&RawNode],
    index: &dyn Fn(u8) -> Option<usize>,
) -> Result<[NodeMask; MAX_NODES], TerrainError> {
    let mut neighbours = [0 as NodeMask; MAX_NODES];
    for (i, n) in raw_nodes.iter().enumerate() {
        for &nb in &n.adjacent {
            if nb == n.id {
                return Err(TerrainError::SelfLoop {
                    terrain: name.into(),
                    node: NodeId(n.id),
                });
            }
            let j = index(nb).ok_or_else(|| TerrainError::UnknownNeighbour {
                terrain: name.into(),
                node: NodeId(n.id),
                neighbour: NodeId(nb),
            })?;
            neighbours[i] |= 1 << j;
        }
    }
    for (i, n) in raw_nodes.iter().enumerate() {
        for j in bits(neighbours[i]) {
            if neighbours[j] & (1 << i) == 0 {
                return Err(TerrainError::Asymmetric {
                    terrain: name.into(),
                    a: NodeId(n.id),
                    b: NodeId(raw_nodes[j].id),
                });
            }
        }
    }
    Ok(neighbours)
}

/// Flood fill from the first node: every node must be reached.
fn check_connected(
    name: &str,
    ids: &[u8],
    neighbours: &[NodeMask; MAX_NODES],
) -> Result<(), TerrainError> {
    let all: NodeMask = if ids.len() == 32 {
        u32::MAX
    } else {
        (1u32 << ids.len()) - 1
    };
    let mut reached: NodeMask = 1;
    loop {
        let next = reached | bits(reached).fold(0, |a, i| a | neighbours[i]);
        if next == reached {
            break;
        }
        reached = next;
    }
    match bits(all & !reached).next() {
        None => Ok(()),
        Some(i) => Err(TerrainError::Disconnected {
            terrain: name.into(),
            node: NodeId(ids[i]),
            from: NodeId(ids[0]),
        }),
    }
}

fn compile_hqs(
    name: &str,
    rt: &RawTerrain,
    raw_nodes: &[&RawNode],
    index: &dyn Fn(u8) -> Option<usize>,
) -> Result<[NodeMask; 2], TerrainError> {
    let terrain = || name.to_string();
    let mut hqs = [0 as NodeMask; 2];
    for (colour, list) in [(Colour::Blue, &rt.hqs.blue), (Colour::Red, &rt.hqs.red)] {
        if list.is_empty() {
            return Err(TerrainError::NoHq {
                terrain: terrain(),
                colour,
            });
        }
        for &id in list {
            let node = NodeId(id);
            let i = index(id).ok_or_else(|| TerrainError::HqNotANode {
                terrain: terrain(),
                colour,
                node,
            })?;
            if raw_nodes[i].kind != "hq" {
                return Err(TerrainError::HqNotKindHq {
                    terrain: terrain(),
                    colour,
                    node,
                    kind: raw_nodes[i].kind.clone(),
                });
            }
            hqs[colour.index()] |= 1 << i;
        }
    }
    if let Some(i) = bits(hqs[0] & hqs[1]).next() {
        return Err(TerrainError::HqOfBothColours {
            terrain: terrain(),
            node: NodeId(raw_nodes[i].id),
        });
    }
    for (i, n) in raw_nodes.iter().enumerate() {
        if n.kind == "hq" && (hqs[0] | hqs[1]) & (1 << i) == 0 {
            return Err(TerrainError::HqWithoutColour {
                terrain: terrain(),
                node: NodeId(n.id),
            });
        }
    }
    Ok(hqs)
}

fn compile_nodes(
    name: &str,
    raw_nodes: &[&RawNode],
    hqs: &[NodeMask; 2],
) -> Result<Vec<Node>, TerrainError> {
    raw_nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let at = NodeAt {
                terrain: name,
                node: NodeId(n.id),
            };
            let kind = match n.kind.as_str() {
                "hq" if hqs[0] & (1 << i) != 0 => NodeKind::Hq(Colour::Blue),
                "hq" => NodeKind::Hq(Colour::Red),
                "base" => NodeKind::Base,
                "special" => NodeKind::Special,
                other => {
                    return Err(TerrainError::BadKind {
                        terrain: name.into(),
                        node: at.node,
                        kind: other.into(),
                    })
                }
            };
            let effect = match &n.effect {
                None => None,
                Some(key) => Some(
                    SpecialEffect::ALL
                        .into_iter()
                        .find(|e| e.key() == key)
                        .ok_or_else(|| TerrainError::UnknownEffect {
                            terrain: name.into(),
                            node: at.node,
                            effect: key.clone(),
                        })?,
                ),
            };
            check_effect_placement(at, kind, effect)?;
            Ok(Node {
                id: at.node,
                kind,
                effect,
                allowed: parse_allowed(at, n, effect)?,
                x: n.x,
                y: n.y,
            })
        })
        .collect()
}

/// The node being compiled, for its errors.
#[derive(Clone, Copy)]
struct NodeAt<'a> {
    terrain: &'a str,
    node: NodeId,
}

/// Special bases carry an effect; plain bases none; HQs only a value restriction.
fn check_effect_placement(
    at: NodeAt,
    kind: NodeKind,
    effect: Option<SpecialEffect>,
) -> Result<(), TerrainError> {
    let (terrain, node) = (at.terrain.to_string(), at.node);
    match (kind, effect) {
        (NodeKind::Special, None) => Err(TerrainError::SpecialWithoutEffect { terrain, node }),
        (NodeKind::Base, Some(effect)) => Err(TerrainError::EffectOnPlainBase {
            terrain,
            node,
            effect,
        }),
        (NodeKind::Hq(_), Some(effect)) if effect != SpecialEffect::ValueRestriction => {
            Err(TerrainError::EffectOnHq {
                terrain,
                node,
                effect,
            })
        }
        _ => Ok(()),
    }
}

/// The troops a value restriction allows (R5.4), which only a value restriction may list.
fn parse_allowed(
    at: NodeAt,
    n: &RawNode,
    effect: Option<SpecialEffect>,
) -> Result<Option<Vec<Troop>>, TerrainError> {
    let (terrain, node) = (at.terrain.to_string(), at.node);
    let restricted = effect == Some(SpecialEffect::ValueRestriction);
    match (&n.allowed_values, restricted) {
        (None, false) => Ok(None),
        (None, true) => Err(TerrainError::NoAllowedValues { terrain, node }),
        (Some(_), false) => Err(TerrainError::AllowedValuesWithoutRestriction { terrain, node }),
        (Some(vals), true) => {
            let troops = vals
                .iter()
                .map(|v| v.parse::<Troop>())
                .collect::<Result<Vec<_>, ParseTroopError>>()
                .map_err(|troop| TerrainError::BadAllowedValue {
                    terrain: terrain.clone(),
                    node,
                    troop,
                })?;
            if troops.is_empty() {
                return Err(TerrainError::EmptyAllowedValues { terrain, node });
            }
            Ok(Some(troops))
        }
    }
}

fn compile_regions(
    name: &str,
    rt: &RawTerrain,
    index: &dyn Fn(u8) -> Option<usize>,
    bases: NodeMask,
) -> Result<Vec<Region>, TerrainError> {
    let terrain = || name.to_string();
    if rt.regions.len() > MAX_REGIONS {
        return Err(TerrainError::TooManyRegions {
            terrain: terrain(),
            count: rt.regions.len(),
        });
    }
    let mut out: Vec<Region> = Vec::with_capacity(rt.regions.len());
    for r in &rt.regions {
        let region = r.id;
        if out.iter().any(|o| o.id == region) {
            return Err(TerrainError::DuplicateRegion {
                terrain: terrain(),
                region,
            });
        }
        if r.bases.is_empty() {
            return Err(TerrainError::EmptyRegion {
                terrain: terrain(),
                region,
            });
        }
        if r.medals == 0 || r.medals > MEDALS_IN_BOX {
            return Err(TerrainError::RegionMedals {
                terrain: terrain(),
                region,
                medals: r.medals,
            });
        }
        let mut mask: NodeMask = 0;
        for &b in &r.bases {
            let node = NodeId(b);
            let i = index(b).ok_or_else(|| TerrainError::RegionUnknownNode {
                terrain: terrain(),
                region,
                node,
            })?;
            if bases & (1 << i) == 0 {
                return Err(TerrainError::RegionHq {
                    terrain: terrain(),
                    region,
                    node,
                });
            }
            if mask & (1 << i) != 0 {
                return Err(TerrainError::RegionBaseTwice {
                    terrain: terrain(),
                    region,
                    node,
                });
            }
            mask |= 1 << i;
        }
        out.push(Region {
            id: region,
            bases: mask,
            medals: r.medals as u8,
            x: r.x,
            y: r.y,
        });
    }
    Ok(out)
}

fn check_medals(name: &str, rt: &RawTerrain, regions: &[Region]) -> Result<(), TerrainError> {
    let terrain = name.to_string();
    let total: u32 = regions.iter().map(|r| r.medals as u32).sum();
    if total > MEDALS_IN_BOX {
        return Err(TerrainError::TooManyMedals { terrain, total });
    }
    if rt.medals_to_win == 0 {
        return Err(TerrainError::NoObjective { terrain });
    }
    if rt.medals_to_win > total {
        return Err(TerrainError::ObjectiveTooHigh {
            terrain,
            objective: rt.medals_to_win,
            total,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::RegionMask;

    #[test]
    fn shipped_file_is_valid() {
        let terrains = parse_terrains(BUILTIN_JSON).unwrap();
        assert_eq!(terrains.len(), 8);
    }

    #[test]
    fn terrain_ids_are_checked() {
        for good in ["castle_field", "x", "t2"] {
            assert_eq!(check_id(good), Ok(()));
        }
        let long = "a".repeat(MAX_ID_LEN + 1);
        let cases = [
            ("", IdProblem::Empty),
            ("all", IdProblem::Reserved),
            ("../../x", IdProblem::BadCharacter),
            ("a,b", IdProblem::BadCharacter),
            ("A", IdProblem::BadCharacter),
            ("a b", IdProblem::BadCharacter),
            ("é", IdProblem::BadCharacter),
            (long.as_str(), IdProblem::TooLong),
        ];
        for (bad, problem) in cases {
            let e = check_id(bad).unwrap_err();
            assert_eq!(
                e,
                TerrainError::BadId {
                    id: bad.into(),
                    problem
                }
            );
            assert!(
                e.to_string().contains(&format!("terrain id '{bad}'")),
                "{e}"
            );
        }
        let mut file: serde_json::Value = serde_json::from_str(BUILTIN_JSON).unwrap();
        file["terrains"][1]["id"] = "castlefield".into();
        let e = parse_terrains(&file.to_string()).unwrap_err();
        assert_eq!(e, TerrainError::DuplicateTerrain("castlefield".into()));
    }

    #[test]
    fn lookup_ignores_case_and_punctuation() {
        assert_eq!(lookup_key("Station Metal-X"), "stationmetalx");
        assert_eq!(lookup_key("station_metal_x"), "stationmetalx");
    }

    /// The bitmask tables say the same as the node and region lists they are compiled from.
    #[test]
    fn tables_agree_with_the_lists() {
        for t in builtin_terrains() {
            let n = t.node_count();
            assert!(
                t.nodes.windows(2).all(|w| w[0].id < w[1].id),
                "ids ascending"
            );
            for i in 0..MAX_NODES {
                let nb = t.neighbours[i];
                assert!(i < n || nb == 0);
                assert_eq!(nb >> n, 0, "{}: neighbours beyond the terrain", t.key);
                assert!(
                    bits(nb).all(|j| t.neighbours[j] & (1 << i) != 0),
                    "symmetric"
                );
            }
            for (i, node) in t.nodes.iter().enumerate() {
                let bit = 1 << i;
                let hq = match node.kind {
                    NodeKind::Hq(c) => Some(c),
                    _ => None,
                };
                for c in Colour::BOTH {
                    assert_eq!(t.hqs[c.index()] & bit != 0, hq == Some(c));
                }
                assert_eq!(t.bases & bit != 0, hq.is_none());
                for (e, mask) in SpecialEffect::ALL.iter().zip(t.effect_nodes) {
                    assert_eq!(mask & bit != 0, node.effect == Some(*e));
                }
                let allowed = node.allowed.as_ref().map_or(0xFF, |a| {
                    a.iter().fold(0u8, |m, troop| m | 1 << troop.index())
                });
                assert_eq!(t.allowed_troops[i], allowed);
                let regions: RegionMask = t
                    .regions
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.bases & bit != 0)
                    .fold(0, |m, (r, _)| m | 1 << r);
                assert_eq!(t.node_regions[i], regions, "{}: node {}", t.key, node.id);
            }
        }
    }
}
