//! The shipped terrain file against the RULES.md §15 table, and every `TerrainError` the loader
//! can give, each produced by a minimal mutation of the shipped JSON.

use serde_json::{json, Value};
use std::path::Path;
use toybattle::rules::{Colour, Troop};
use toybattle::terrain::{
    builtin, builtin_terrains, load_terrain_file, parse_terrains, NodeId, NodeIndex, NodeKind,
    SpecialEffect, Terrain, TerrainError,
};

const SHIPPED: &str = include_str!("../src/terrain/terrains.json");

/// One row of the RULES.md §15 terrain summary.
struct Row {
    key: &'static str,
    name: &'static str,
    hqs: usize,
    bases: usize,
    specials: usize,
    edges: usize,
    regions: usize,
    medals: u32,
    to_win: u8,
    blue_hqs: &'static [u8],
    red_hqs: &'static [u8],
    special_bases: &'static [(u8, SpecialEffect)],
}

use SpecialEffect::*;

/// RULES.md §15, row by row (nodes = hqs + bases; bases include special bases).
const TABLE: [Row; 8] = [
    Row {
        key: "castle_field",
        name: "Castle Field",
        hqs: 2,
        bases: 15,
        specials: 4,
        edges: 24,
        regions: 8,
        medals: 14,
        to_win: 7,
        blue_hqs: &[1],
        red_hqs: &[41],
        special_bases: &[
            (15, ReturnOwnTroop),
            (16, ReturnOwnTroop),
            (20, ReturnOwnTroop),
            (21, ReturnOwnTroop),
        ],
    },
    Row {
        key: "tropical_pool",
        name: "Tropical Pool",
        hqs: 4,
        bases: 13,
        specials: 5,
        edges: 24,
        regions: 8,
        medals: 12,
        to_win: 6,
        blue_hqs: &[1, 2],
        red_hqs: &[41, 42],
        special_bases: &[
            (12, ValueRestriction),
            (16, ValueRestriction),
            (17, ValueRestriction),
            (18, ValueRestriction),
            (22, ValueRestriction),
        ],
    },
    Row {
        key: "city_of_clouds",
        name: "City of Clouds",
        hqs: 2,
        bases: 14,
        specials: 4,
        edges: 28,
        regions: 13,
        medals: 16,
        to_win: 8,
        blue_hqs: &[1],
        red_hqs: &[41],
        special_bases: &[(13, DrawOne), (16, DrawOne), (19, DrawOne), (22, DrawOne)],
    },
    Row {
        key: "volcanic_jungle",
        name: "Volcanic Jungle",
        hqs: 2,
        bases: 13,
        specials: 2,
        edges: 22,
        regions: 6,
        medals: 14,
        to_win: 7,
        blue_hqs: &[1],
        red_hqs: &[41],
        special_bases: &[(15, MoveAdjacentEnemy), (19, MoveAdjacentEnemy)],
    },
    Row {
        key: "cursed_cemetery",
        name: "Cursed Cemetery",
        hqs: 2,
        bases: 15,
        specials: 4,
        edges: 28,
        regions: 10,
        medals: 14,
        to_win: 7,
        blue_hqs: &[1],
        red_hqs: &[41],
        special_bases: &[
            (12, RecoverFromDiscard),
            (14, RecoverFromDiscard),
            (22, RecoverFromDiscard),
            (24, RecoverFromDiscard),
        ],
    },
    Row {
        key: "caribbean_sea",
        name: "Caribbean Sea",
        hqs: 3,
        bases: 12,
        specials: 0,
        edges: 20,
        regions: 6,
        medals: 11,
        to_win: 5,
        blue_hqs: &[1, 2],
        red_hqs: &[41],
        special_bases: &[],
    },
    Row {
        key: "station_metal_x",
        name: "Station Metal-X",
        hqs: 2,
        bases: 13,
        specials: 3,
        edges: 28,
        regions: 14,
        medals: 14,
        to_win: 7,
        blue_hqs: &[1],
        red_hqs: &[41],
        special_bases: &[
            (16, NoTroopEffect),
            (17, NoTroopEffect),
            (18, NoTroopEffect),
        ],
    },
    Row {
        key: "battlefield",
        name: "Battlefield",
        hqs: 2,
        bases: 14,
        specials: 4,
        edges: 24,
        regions: 9,
        medals: 16,
        to_win: 8,
        blue_hqs: &[1],
        red_hqs: &[41],
        special_bases: &[
            (14, FreezeOpponentRack),
            (16, FreezeOpponentRack),
            (19, FreezeOpponentRack),
            (21, FreezeOpponentRack),
        ],
    },
];

fn count(t: &Terrain, f: impl Fn(NodeKind) -> bool) -> usize {
    t.nodes.iter().filter(|n| f(n.kind)).count()
}

fn edges(t: &Terrain) -> usize {
    let ends: u32 = (0..t.node_count())
        .map(|i| t.neighbours(NodeIndex::new(i)).count_ones())
        .sum();
    ends as usize / 2
}

#[test]
fn shipped_file_holds_the_eight_terrains_of_the_summary_table() {
    let terrains = builtin_terrains();
    let keys: Vec<&str> = terrains.iter().map(|t| t.key.as_str()).collect();
    let expected: Vec<&str> = TABLE.iter().map(|r| r.key).collect();
    assert_eq!(keys, expected, "rulebook order (R2.1)");
    for (t, row) in terrains.iter().zip(&TABLE) {
        let k = row.key;
        assert_eq!(t.name, row.name, "{k}");
        assert_eq!(t.node_count(), row.hqs + row.bases, "{k}: nodes");
        assert_eq!(
            count(t, |n| matches!(n, NodeKind::Hq(_))),
            row.hqs,
            "{k}: HQs"
        );
        assert_eq!(t.bases.count_ones() as usize, row.bases, "{k}: bases");
        assert_eq!(
            count(t, |n| n == NodeKind::Special),
            row.specials,
            "{k}: specials"
        );
        assert_eq!(edges(t), row.edges, "{k}: edges");
        assert_eq!(t.regions.len(), row.regions, "{k}: regions");
        assert_eq!(t.total_medals(), row.medals, "{k}: medals");
        assert_eq!(t.medals_to_win, row.to_win, "{k}: objective (R2.4)");
        assert_eq!(
            t.ids(t.hqs[Colour::Blue.index()])
                .iter()
                .map(|n| n.get())
                .collect::<Vec<u8>>(),
            row.blue_hqs,
            "{k}: blue HQs"
        );
        assert_eq!(
            t.ids(t.hqs[Colour::Red.index()])
                .iter()
                .map(|n| n.get())
                .collect::<Vec<u8>>(),
            row.red_hqs,
            "{k}: red HQs"
        );
        let specials: Vec<(u8, SpecialEffect)> = t
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Special)
            .map(|n| (n.id.get(), n.effect.expect("a special base has an effect")))
            .collect();
        assert_eq!(specials, row.special_bases, "{k}: special bases (§9)");
    }
}

#[test]
fn node_ids_follow_the_side_convention() {
    // R2.2: blue HQs 1–9, bases 10–40, red HQs 41+.
    for t in builtin_terrains() {
        for n in &t.nodes {
            let ok = match n.kind {
                NodeKind::Hq(Colour::Blue) => (1..=9).contains(&n.id.get()),
                NodeKind::Hq(Colour::Red) => n.id.get() >= 41,
                NodeKind::Base | NodeKind::Special => (10..=40).contains(&n.id.get()),
            };
            assert!(ok, "{}: node {} is {:?}", t.key, n.id, n.kind);
        }
    }
}

#[test]
fn tropical_pool_value_restrictions_match_r9_2() {
    let t = builtin("tropical_pool").unwrap();
    let v = |s: &[&str]| -> Vec<Troop> { s.iter().map(|x| x.parse().unwrap()).collect() };
    let expected: [(u8, Vec<Troop>); 7] = [
        (2, v(&["6", "7", "X"])),
        (12, v(&["1", "2", "X"])),
        (16, v(&["3", "4", "5", "X"])),
        (17, v(&["6", "7", "X"])),
        (18, v(&["3", "4", "5", "X"])),
        (22, v(&["1", "2", "X"])),
        (41, v(&["6", "7", "X"])),
    ];
    let mut found: Vec<(u8, Vec<Troop>)> = t
        .nodes
        .iter()
        .filter_map(|n| n.allowed.clone().map(|a| (n.id.get(), a)))
        .collect();
    for (_, a) in &mut found {
        a.sort();
    }
    let mut expected = expected.to_vec();
    for (_, a) in &mut expected {
        a.sort();
    }
    assert_eq!(found, expected);
}

#[test]
fn lookup_accepts_key_or_name_and_names_the_known_terrains_otherwise() {
    assert_eq!(builtin("Castle Field").unwrap().key, "castle_field");
    assert_eq!(builtin("station-metal-x").unwrap().key, "station_metal_x");
    let err = builtin("narnia").unwrap_err();
    assert!(
        matches!(&err, TerrainError::Unknown { given, known } if given == "narnia" && known.len() == 8)
    );
    let msg = err.to_string();
    assert!(
        msg.contains("narnia") && msg.contains("battlefield"),
        "{msg}"
    );
}

#[test]
fn shipped_file_loads_from_disk_like_the_builtin_copy() {
    let path = std::env::temp_dir().join(format!("toybattle-terrains-{}.json", std::process::id()));
    std::fs::write(&path, SHIPPED).unwrap();
    let loaded = load_terrain_file(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(loaded.unwrap(), builtin_terrains());
}

#[test]
fn missing_file_is_an_io_error_naming_the_path() {
    let path = Path::new("/nonexistent/toybattle/terrains.json");
    let err = load_terrain_file(path).unwrap_err();
    assert!(matches!(err, TerrainError::Io { .. }), "{err:?}");
    assert!(err
        .to_string()
        .contains("/nonexistent/toybattle/terrains.json"));
}

// ----- Mutations of the shipped file -----------------------------------------------------------

/// An edit of one JSON object (a node, a region, the HQ lists).
type Edit = fn(&mut Value);

/// Whether an error is of the kind a mutation must give.
type Kind = fn(&TerrainError) -> bool;

fn shipped() -> Value {
    serde_json::from_str(SHIPPED).unwrap()
}

fn terrain_mut<'a>(file: &'a mut Value, key: &str) -> &'a mut Value {
    file["terrains"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["id"] == key)
        .unwrap_or_else(|| panic!("no terrain {key}"))
}

fn node_mut<'a>(file: &'a mut Value, key: &str, id: u8) -> &'a mut Value {
    terrain_mut(file, key)["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("no node {id} on {key}"))
}

fn region_mut<'a>(file: &'a mut Value, key: &str, id: u8) -> &'a mut Value {
    terrain_mut(file, key)["regions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no region {id} on {key}"))
}

fn push(list: &mut Value, v: Value) {
    list.as_array_mut().unwrap().push(v);
}

fn remove(list: &mut Value, v: u64) {
    list.as_array_mut().unwrap().retain(|x| x != v);
}

/// Loads the shipped file after `mutate`; the load must fail, and the message must name every
/// word of `names`.
fn refused(mutate: impl FnOnce(&mut Value), names: &[&str]) -> TerrainError {
    let mut file = shipped();
    mutate(&mut file);
    let err = parse_terrains(&file.to_string()).expect_err("the mutated file must be refused");
    let msg = err.to_string();
    for n in names {
        assert!(msg.contains(n), "message '{msg}' does not name '{n}'");
    }
    err
}

#[test]
fn unmutated_file_is_accepted() {
    assert_eq!(
        parse_terrains(&shipped().to_string()).unwrap(),
        builtin_terrains()
    );
}

#[test]
fn unknown_neighbour() {
    let err = refused(
        |f| push(&mut node_mut(f, "castle_field", 11)["adjacent"], json!(99)),
        &["castle_field", "11", "99"],
    );
    assert_eq!(
        err,
        TerrainError::UnknownNeighbour {
            terrain: "castle_field".into(),
            node: NodeId(11),
            neighbour: NodeId(99)
        }
    );
}

#[test]
fn asymmetric_adjacency() {
    let err = refused(
        |f| remove(&mut node_mut(f, "volcanic_jungle", 11)["adjacent"], 14),
        &["volcanic_jungle", "11", "14"],
    );
    assert_eq!(
        err,
        TerrainError::Asymmetric {
            terrain: "volcanic_jungle".into(),
            a: NodeId(14),
            b: NodeId(11)
        }
    );
}

#[test]
fn self_loop() {
    let err = refused(
        |f| push(&mut node_mut(f, "battlefield", 13)["adjacent"], json!(13)),
        &["battlefield", "13"],
    );
    assert!(
        matches!(
            err,
            TerrainError::SelfLoop {
                node: NodeId(13),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn disconnected_graph() {
    // Cut red HQ 41 of Castle Field off: its only edges go to 24 and 25.
    let err = refused(
        |f| {
            node_mut(f, "castle_field", 41)["adjacent"] = json!([]);
            remove(&mut node_mut(f, "castle_field", 24)["adjacent"], 41);
            remove(&mut node_mut(f, "castle_field", 25)["adjacent"], 41);
        },
        &["castle_field", "41"],
    );
    assert_eq!(
        err,
        TerrainError::Disconnected {
            terrain: "castle_field".into(),
            node: NodeId(41),
            from: NodeId(1)
        }
    );
}

#[test]
fn duplicate_node() {
    let err = refused(
        |f| {
            let copy = node_mut(f, "city_of_clouds", 17).clone();
            push(&mut terrain_mut(f, "city_of_clouds")["nodes"], copy);
        },
        &["city_of_clouds", "17"],
    );
    assert!(
        matches!(
            err,
            TerrainError::DuplicateNode {
                node: NodeId(17),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn too_many_nodes() {
    let err = refused(
        |f| {
            let nodes = &mut terrain_mut(f, "castle_field")["nodes"];
            for id in 26..=41u8 {
                push(
                    nodes,
                    json!({"id": id + 100, "kind": "base", "adjacent": [], "x": 0, "y": 0}),
                );
            }
        },
        &["castle_field", "33"],
    );
    assert!(
        matches!(err, TerrainError::TooManyNodes { count: 33, .. }),
        "{err:?}"
    );
}

#[test]
fn bad_kind() {
    let err = refused(
        |f| node_mut(f, "cursed_cemetery", 13)["kind"] = json!("castle"),
        &["cursed_cemetery", "13", "castle"],
    );
    assert!(
        matches!(
            err,
            TerrainError::BadKind {
                node: NodeId(13),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn unknown_effect() {
    let err = refused(
        |f| node_mut(f, "castle_field", 15)["effect"] = json!("teleport"),
        &["castle_field", "15", "teleport", "draw_one"],
    );
    assert_eq!(
        err,
        TerrainError::UnknownEffect {
            terrain: "castle_field".into(),
            node: NodeId(15),
            effect: "teleport".into()
        }
    );
}

/// Checks one refusal per case: the mutation of node `id` of `key`, and the kind of error it
/// must give.
fn node_refusals(cases: &[(&str, u8, Edit, Kind)]) {
    for (key, id, mutate, kind) in cases {
        let err = refused(|f| mutate(node_mut(f, key, *id)), &[key, &id.to_string()]);
        assert!(kind(&err), "{key} node {id}: {err:?}");
    }
}

#[test]
fn misplaced_effects() {
    use TerrainError::*;
    node_refusals(&[
        (
            "castle_field",
            15,
            |n| {
                n.as_object_mut().unwrap().remove("effect");
            },
            |e| {
                matches!(
                    e,
                    SpecialWithoutEffect {
                        node: NodeId(15),
                        ..
                    }
                )
            },
        ),
        (
            "castle_field",
            13,
            |n| n["effect"] = json!("draw_one"),
            |e| {
                matches!(
                    e,
                    EffectOnPlainBase {
                        node: NodeId(13),
                        effect: DrawOne,
                        ..
                    }
                )
            },
        ),
        (
            "castle_field",
            1,
            |n| n["effect"] = json!("draw_one"),
            |e| {
                matches!(
                    e,
                    EffectOnHq {
                        node: NodeId(1),
                        effect: DrawOne,
                        ..
                    }
                )
            },
        ),
        (
            "castle_field",
            13,
            |n| n["allowed_values"] = json!(["1"]),
            |e| {
                matches!(
                    e,
                    AllowedValuesWithoutRestriction {
                        node: NodeId(13),
                        ..
                    }
                )
            },
        ),
    ]);
}

#[test]
fn value_restriction_problems() {
    use TerrainError::*;
    node_refusals(&[
        (
            "tropical_pool",
            12,
            |n| {
                n.as_object_mut().unwrap().remove("allowed_values");
            },
            |e| {
                matches!(
                    e,
                    NoAllowedValues {
                        node: NodeId(12),
                        ..
                    }
                )
            },
        ),
        (
            "tropical_pool",
            12,
            |n| n["allowed_values"] = json!([]),
            |e| {
                matches!(
                    e,
                    EmptyAllowedValues {
                        node: NodeId(12),
                        ..
                    }
                )
            },
        ),
        (
            "tropical_pool",
            12,
            |n| n["allowed_values"] = json!(["1", "9"]),
            |e| matches!(e, BadAllowedValue { node: NodeId(12), troop, .. } if troop.0 == "9"),
        ),
    ]);
}

#[test]
fn hq_ownership_problems() {
    use TerrainError::*;
    let cases: [(Edit, &str, Kind); 5] = [
        (
            |h| h["blue"] = json!([]),
            "blue has no HQ",
            |e| {
                matches!(
                    e,
                    NoHq {
                        colour: Colour::Blue,
                        ..
                    }
                )
            },
        ),
        (
            |h| h["red"] = json!([99]),
            "red HQ 99 is not a node",
            |e| {
                matches!(
                    e,
                    HqNotANode {
                        colour: Colour::Red,
                        node: NodeId(99),
                        ..
                    }
                )
            },
        ),
        (
            |h| h["red"] = json!([41, 12]),
            "red HQ 12 is a node of kind 'base'",
            |e| matches!(e, HqNotKindHq { colour: Colour::Red, node: NodeId(12), kind, .. } if kind == "base"),
        ),
        (
            |h| h["red"] = json!([41, 2]),
            "node 2 is an HQ of both colours",
            |e| {
                matches!(
                    e,
                    HqOfBothColours {
                        node: NodeId(2),
                        ..
                    }
                )
            },
        ),
        (
            |h| h["blue"] = json!([1]),
            "node 2 is an HQ but belongs to no colour",
            |e| {
                matches!(
                    e,
                    HqWithoutColour {
                        node: NodeId(2),
                        ..
                    }
                )
            },
        ),
    ];
    for (mutate, problem, kind) in cases {
        let err = refused(
            |f| mutate(&mut terrain_mut(f, "caribbean_sea")["hqs"]),
            &["caribbean_sea", problem],
        );
        assert!(kind(&err), "{err:?}");
    }
}

#[test]
fn region_problems() {
    use TerrainError::*;
    let cases: [(Edit, &str, Kind); 6] = [
        (
            |r| push(&mut r["bases"], json!(1)),
            "names HQ 1",
            |e| {
                matches!(
                    e,
                    RegionHq {
                        region: 1,
                        node: NodeId(1),
                        ..
                    }
                )
            },
        ),
        (
            |r| push(&mut r["bases"], json!(99)),
            "names unknown node 99",
            |e| {
                matches!(
                    e,
                    RegionUnknownNode {
                        region: 1,
                        node: NodeId(99),
                        ..
                    }
                )
            },
        ),
        (
            |r| push(&mut r["bases"], json!(11)),
            "names base 11 twice",
            |e| {
                matches!(
                    e,
                    RegionBaseTwice {
                        region: 1,
                        node: NodeId(11),
                        ..
                    }
                )
            },
        ),
        (
            |r| r["bases"] = json!([]),
            "no bases",
            |e| matches!(e, EmptyRegion { region: 1, .. }),
        ),
        (
            |r| r["medals"] = json!(0),
            "0 medals",
            |e| {
                matches!(
                    e,
                    RegionMedals {
                        region: 1,
                        medals: 0,
                        ..
                    }
                )
            },
        ),
        (
            |r| r["medals"] = json!(17),
            "17 medals",
            |e| {
                matches!(
                    e,
                    RegionMedals {
                        region: 1,
                        medals: 17,
                        ..
                    }
                )
            },
        ),
    ];
    for (mutate, problem, kind) in cases {
        let err = refused(
            |f| mutate(region_mut(f, "castle_field", 1)),
            &["castle_field", "region 1", problem],
        );
        assert!(kind(&err), "{err:?}");
    }
}

#[test]
fn duplicate_region() {
    let err = refused(
        |f| {
            let copy = region_mut(f, "battlefield", 4).clone();
            push(&mut terrain_mut(f, "battlefield")["regions"], copy);
        },
        &["battlefield", "region 4", "twice"],
    );
    assert_eq!(
        err,
        TerrainError::DuplicateRegion {
            terrain: "battlefield".into(),
            region: 4
        }
    );
}

#[test]
fn too_many_regions() {
    let err = refused(
        |f| {
            let regions = &mut terrain_mut(f, "castle_field")["regions"];
            for id in 9..=33u8 {
                push(
                    regions,
                    json!({"id": id, "bases": [11], "medals": 1, "x": 0, "y": 0}),
                );
            }
        },
        &["castle_field", "33 regions"],
    );
    assert!(
        matches!(err, TerrainError::TooManyRegions { count: 33, .. }),
        "{err:?}"
    );
}

#[test]
fn more_than_sixteen_medals() {
    // Castle Field holds 14; region 2 going from 1 to 4 medals makes 17 (R1.4).
    let err = refused(
        |f| region_mut(f, "castle_field", 2)["medals"] = json!(4),
        &["castle_field", "17 medals", "16"],
    );
    assert_eq!(
        err,
        TerrainError::TooManyMedals {
            terrain: "castle_field".into(),
            total: 17
        }
    );
}

#[test]
fn objective_problems() {
    let err = refused(
        |f| terrain_mut(f, "caribbean_sea")["medals_to_win"] = json!(12),
        &["caribbean_sea", "objective 12", "11 medals"],
    );
    assert_eq!(
        err,
        TerrainError::ObjectiveTooHigh {
            terrain: "caribbean_sea".into(),
            objective: 12,
            total: 11
        }
    );
    let err = refused(
        |f| terrain_mut(f, "caribbean_sea")["medals_to_win"] = json!(0),
        &["caribbean_sea", "medals_to_win"],
    );
    assert_eq!(
        err,
        TerrainError::NoObjective {
            terrain: "caribbean_sea".into()
        }
    );
}

#[test]
fn file_level_problems() {
    let err = refused(
        |f| f["format"] = json!("toybattle-terrains/2"),
        &["toybattle-terrains/2"],
    );
    assert!(matches!(err, TerrainError::Format { .. }), "{err:?}");
    let err = refused(|f| f["terrains"] = json!([]), &["no terrain"]);
    assert_eq!(err, TerrainError::Empty);
    let err = refused(
        |f| {
            let copy = terrain_mut(f, "battlefield").clone();
            push(&mut f["terrains"], copy);
        },
        &["battlefield", "twice"],
    );
    assert_eq!(err, TerrainError::DuplicateTerrain("battlefield".into()));
    let err = refused(
        |f| node_mut(f, "castle_field", 11)["colour"] = json!("blue"),
        &["colour"],
    );
    assert!(
        matches!(&err, TerrainError::Json { reason, line: 1, .. } if reason.contains("unknown field")),
        "unknown field: {err:?}"
    );
}

#[test]
fn malformed_json_is_an_error_not_a_panic() {
    for text in ["", "{", "[]", "null", &SHIPPED[..SHIPPED.len() / 2]] {
        let err = parse_terrains(text).unwrap_err();
        assert!(
            matches!(err, TerrainError::Json { .. }),
            "{text:?}: {err:?}"
        );
    }
}
