//! Reading terrain files (`toybattle-terrains/1`) into validated [`Terrain`]s.
//!
//! Every inconsistency is a [`TerrainError`] naming the terrain and the node or region at fault;
//! nothing here panics on user input.

use super::{
    bits, Node, NodeId, NodeKind, NodeMask, Region, SpecialEffect, Terrain, MAX_NODES, MAX_REGIONS,
    MEDALS_IN_BOX,
};
use crate::vocabulary::{Colour, Troop};
use serde::Deserialize;
use std::path::Path;
use std::sync::OnceLock;

/// The format tag every terrain file carries.
pub const FORMAT: &str = "toybattle-terrains/1";

const BUILTIN_JSON: &str = include_str!("terrains.json");

/// Why a terrain file was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TerrainError {
    #[error("cannot read terrain file {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("terrain file is not valid JSON of the expected shape: {0}")]
    Json(String),
    #[error("terrain file format is '{found}', expected '{FORMAT}'")]
    Format { found: String },
    #[error("terrain file holds no terrain")]
    Empty,
    #[error(
        "terrain id '{id}' {problem}: an id is 1 to {MAX_ID_LEN} characters from a-z, 0-9 and _ \
         (it names record files and is listed with commas), and not 'all'"
    )]
    BadId { id: String, problem: &'static str },
    #[error("terrain '{0}' appears twice")]
    DuplicateTerrain(String),
    #[error("unknown terrain '{given}'; known terrains: {known}")]
    Unknown { given: String, known: String },
    #[error("terrain '{terrain}': node id {node} appears twice")]
    DuplicateNode { terrain: String, node: u8 },
    #[error("terrain '{terrain}': {count} nodes, at most {MAX_NODES} are supported")]
    TooManyNodes { terrain: String, count: usize },
    #[error("terrain '{terrain}': node {node} lists unknown neighbour {neighbour}")]
    UnknownNeighbour {
        terrain: String,
        node: u8,
        neighbour: u8,
    },
    #[error("terrain '{terrain}': node {node} lists itself as a neighbour")]
    SelfLoop { terrain: String, node: u8 },
    #[error("terrain '{terrain}': node {a} lists {b} as adjacent but {b} does not list {a}")]
    Asymmetric { terrain: String, a: u8, b: u8 },
    #[error("terrain '{terrain}': node {node} cannot be reached from node {from}; the graph must be connected")]
    Disconnected { terrain: String, node: u8, from: u8 },
    #[error("terrain '{terrain}': node {node} has unknown kind '{kind}', expected 'hq', 'base' or 'special'")]
    BadKind {
        terrain: String,
        node: u8,
        kind: String,
    },
    #[error("terrain '{terrain}': {problem}")]
    Hq { terrain: String, problem: String },
    #[error("terrain '{terrain}': node {node}: {problem}")]
    Effect {
        terrain: String,
        node: u8,
        problem: String,
    },
    #[error("terrain '{terrain}': region {region}: {problem}")]
    Region {
        terrain: String,
        region: u8,
        problem: String,
    },
    #[error("terrain '{terrain}': {count} regions, at most {MAX_REGIONS} are supported")]
    TooManyRegions { terrain: String, count: usize },
    #[error("terrain '{terrain}': {problem}")]
    Medals { terrain: String, problem: String },
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
            known: list
                .iter()
                .map(|t| t.key.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Reads and validates a terrain file in the shipped format.
pub fn load_terrain_file(path: &Path) -> Result<Vec<Terrain>, TerrainError> {
    let text = std::fs::read_to_string(path).map_err(|e| TerrainError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    parse_terrains(&text)
}

/// Parses and validates terrain JSON text.
pub fn parse_terrains(text: &str) -> Result<Vec<Terrain>, TerrainError> {
    let raw: RawFile = serde_json::from_str(text).map_err(|e| TerrainError::Json(e.to_string()))?;
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
        Some("is empty")
    } else if id.len() > MAX_ID_LEN {
        Some("is too long")
    } else if !id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        Some("has a character other than a-z, 0-9 and _")
    } else if id == "all" {
        Some("is reserved (`all` selects every terrain)")
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
                node: w[0].id,
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
                    node: n.id,
                });
            }
            let j = index(nb).ok_or_else(|| TerrainError::UnknownNeighbour {
                terrain: name.into(),
                node: n.id,
                neighbour: nb,
            })?;
            neighbours[i] |= 1 << j;
        }
    }
    for (i, n) in raw_nodes.iter().enumerate() {
        for j in bits(neighbours[i]) {
            if neighbours[j] & (1 << i) == 0 {
                return Err(TerrainError::Asymmetric {
                    terrain: name.into(),
                    a: n.id,
                    b: raw_nodes[j].id,
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
            node: ids[i],
            from: ids[0],
        }),
    }
}

fn compile_hqs(
    name: &str,
    rt: &RawTerrain,
    raw_nodes: &[&RawNode],
    index: &dyn Fn(u8) -> Option<usize>,
) -> Result<[NodeMask; 2], TerrainError> {
    let hq_err = |problem: String| TerrainError::Hq {
        terrain: name.into(),
        problem,
    };
    let mut hqs = [0 as NodeMask; 2];
    for (colour, list) in [(Colour::Blue, &rt.hqs.blue), (Colour::Red, &rt.hqs.red)] {
        if list.is_empty() {
            return Err(hq_err(format!("{colour} has no HQ")));
        }
        for &id in list {
            let i = index(id).ok_or_else(|| hq_err(format!("{colour} HQ {id} is not a node")))?;
            if raw_nodes[i].kind != "hq" {
                return Err(hq_err(format!(
                    "{colour} HQ {id} is a node of kind '{}'",
                    raw_nodes[i].kind
                )));
            }
            hqs[colour.index()] |= 1 << i;
        }
    }
    if hqs[0] & hqs[1] != 0 {
        return Err(hq_err("a node is an HQ of both colours".into()));
    }
    for (i, n) in raw_nodes.iter().enumerate() {
        if n.kind == "hq" && (hqs[0] | hqs[1]) & (1 << i) == 0 {
            return Err(hq_err(format!(
                "node {} is an HQ but belongs to no colour",
                n.id
            )));
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
            let effect_err = |problem: String| TerrainError::Effect {
                terrain: name.into(),
                node: n.id,
                problem,
            };
            let kind = match n.kind.as_str() {
                "hq" if hqs[0] & (1 << i) != 0 => NodeKind::Hq(Colour::Blue),
                "hq" => NodeKind::Hq(Colour::Red),
                "base" => NodeKind::Base,
                "special" => NodeKind::Special,
                other => {
                    return Err(TerrainError::BadKind {
                        terrain: name.into(),
                        node: n.id,
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
                        .ok_or_else(|| effect_err(format!("unknown effect '{key}'")))?,
                ),
            };
            check_effect_placement(kind, effect).map_err(effect_err)?;
            let allowed = parse_allowed(n, effect).map_err(effect_err)?;
            Ok(Node {
                id: NodeId(n.id),
                kind,
                effect,
                allowed,
                x: n.x,
                y: n.y,
            })
        })
        .collect()
}

/// Special bases carry an effect; plain bases none; HQs only a value restriction.
fn check_effect_placement(kind: NodeKind, effect: Option<SpecialEffect>) -> Result<(), String> {
    match (kind, effect) {
        (NodeKind::Special, None) => Err("a special base needs an effect".into()),
        (NodeKind::Base, Some(e)) => Err(format!("a plain base cannot carry effect '{}'", e.key())),
        (NodeKind::Hq(_), Some(e)) if e != SpecialEffect::ValueRestriction => Err(format!(
            "an HQ can only carry a value restriction, not '{}'",
            e.key()
        )),
        _ => Ok(()),
    }
}

fn parse_allowed(n: &RawNode, effect: Option<SpecialEffect>) -> Result<Option<Vec<Troop>>, String> {
    let restricted = effect == Some(SpecialEffect::ValueRestriction);
    match (&n.allowed_values, restricted) {
        (None, false) => Ok(None),
        (None, true) => Err("a value restriction needs 'allowed_values'".into()),
        (Some(_), false) => Err("'allowed_values' needs effect 'value_restriction'".into()),
        (Some(vals), true) => {
            let troops = vals
                .iter()
                .map(|v| {
                    v.parse::<Troop>()
                        .map_err(|e| format!("allowed_values: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if troops.is_empty() {
                return Err("'allowed_values' is empty".into());
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
    if rt.regions.len() > MAX_REGIONS {
        return Err(TerrainError::TooManyRegions {
            terrain: name.into(),
            count: rt.regions.len(),
        });
    }
    let mut out: Vec<Region> = Vec::with_capacity(rt.regions.len());
    for r in &rt.regions {
        let region_err = |problem: String| TerrainError::Region {
            terrain: name.into(),
            region: r.id,
            problem,
        };
        if out.iter().any(|o| o.id == r.id) {
            return Err(region_err("region id appears twice".into()));
        }
        if r.bases.is_empty() {
            return Err(region_err("no bases".into()));
        }
        if r.medals == 0 || r.medals > MEDALS_IN_BOX {
            return Err(region_err(format!(
                "{} medals, expected 1 to {MEDALS_IN_BOX}",
                r.medals
            )));
        }
        let mut mask: NodeMask = 0;
        for &b in &r.bases {
            let i = index(b).ok_or_else(|| region_err(format!("names unknown node {b}")))?;
            if bases & (1 << i) == 0 {
                return Err(region_err(format!(
                    "names HQ {b}; an HQ is never part of a region (R2.3)"
                )));
            }
            if mask & (1 << i) != 0 {
                return Err(region_err(format!("names base {b} twice")));
            }
            mask |= 1 << i;
        }
        out.push(Region {
            id: r.id,
            bases: mask,
            medals: r.medals as u8,
            x: r.x,
            y: r.y,
        });
    }
    Ok(out)
}

fn check_medals(name: &str, rt: &RawTerrain, regions: &[Region]) -> Result<(), TerrainError> {
    let total: u32 = regions.iter().map(|r| r.medals as u32).sum();
    let medal_err = |problem: String| TerrainError::Medals {
        terrain: name.into(),
        problem,
    };
    if total > MEDALS_IN_BOX {
        return Err(medal_err(format!(
            "regions hold {total} medals, the box has {MEDALS_IN_BOX} (R1.4)"
        )));
    }
    if rt.medals_to_win == 0 {
        return Err(medal_err("medals_to_win must be at least 1".into()));
    }
    if rt.medals_to_win > total {
        return Err(medal_err(format!(
            "objective {} is above the {total} medals available",
            rt.medals_to_win
        )));
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
        for bad in ["", "all", "../../x", "a,b", "A", "a b", "é", long.as_str()] {
            let e = check_id(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("terrain id '{bad}'")), "{e}");
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
