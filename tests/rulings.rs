//! One test per ruling of RULES.md (R1.1–R13.2 and the §14 table A1–A24), named after it.
//!
//! Positions are written as JSON literals in the position-file format (docs/positions.md); node
//! ids are those of the rules specification. Where a ruling needed a choice, the comment next to
//! the test that pins it says so.

use toybattle::info::Observation;
use toybattle::record::position::{Position, PositionChance, PositionPhase};
use toybattle::rules::{
    Colour, Deal, Decision, DecisionList, Game, Outcome, Phase, Referee, State, Troop, TroopCounts,
    Variant, WinType,
};
use toybattle::terrain::{self, NodeId, SpecialEffect, Terrain, MEDALS_IN_BOX};

use Colour::{Blue, Red};

// ----- Helpers ---------------------------------------------------------------------------------

/// The game and state of a position literal; `"format"` may be left out.
fn pos(json: &str) -> (Game, State) {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("test position is JSON");
    v.as_object_mut()
        .expect("a position is a JSON object")
        .entry("format")
        .or_insert_with(|| "toybattle-position/1".into());
    Position::parse(&v.to_string())
        .and_then(|p| p.to_game_state(None))
        .unwrap_or_else(|e| panic!("bad test position: {e}"))
}

/// Legal decisions in notation, in the engine's order.
fn legal(game: &Game, s: &State) -> Vec<String> {
    let mut list = DecisionList::new();
    game.legal_decisions(s, &mut list);
    list.iter().map(|d| d.notation(game.terrain())).collect()
}

/// Node ids where `troop` may be placed now.
fn slots(game: &Game, s: &State, troop: &str) -> Vec<u8> {
    let prefix = format!("place {troop} ");
    legal(game, s)
        .iter()
        .filter_map(|d| d.strip_prefix(&prefix).map(|n| n.parse().unwrap()))
        .collect()
}

/// Applies decisions in notation; each must be legal.
fn play(game: &Game, s: &mut State, steps: &[&str]) {
    for step in steps {
        let d = Decision::parse(step, game.terrain()).unwrap_or_else(|e| panic!("{e}"));
        game.apply(s, d)
            .unwrap_or_else(|e| panic!("step '{step}' refused: {e}"));
    }
}

/// `step` is refused and the state is left unchanged.
fn refuse(game: &Game, s: &State, step: &str) {
    let mut t = *s;
    let d = Decision::parse(step, game.terrain()).unwrap();
    assert!(game.apply(&mut t, d).is_err(), "'{step}' was accepted");
    assert_eq!(t, *s, "a refused decision changed the state");
}

fn stack(game: &Game, s: &State, id: u8) -> Vec<String> {
    let n = game.terrain().index_of(NodeId(id)).unwrap();
    s.board().stack(n).map(|t| t.to_string()).collect()
}

fn counts(list: &[Troop]) -> TroopCounts {
    TroopCounts::from_troops(list.iter().copied())
}

/// The phase in position words (node ids).
fn phase(game: &Game, s: &State) -> PositionPhase {
    Position::from_state(game, s).phase
}

fn regions_taken(game: &Game, s: &State) -> Vec<u8> {
    Position::from_state(game, s).regions_taken
}

fn won(winner: Colour, win: WinType) -> Option<Outcome> {
    Some(Outcome { winner, win })
}

fn ids_of(t: &Terrain, mask: u32) -> Vec<u8> {
    t.ids(mask).iter().map(|n| n.get()).collect()
}

fn ids(game: &Game, mask: u32) -> Vec<u8> {
    game.terrain().ids(mask).iter().map(|n| n.get()).collect()
}

fn builtin(key: &str) -> Game {
    Game::builtin(key, Variant::Normal).unwrap()
}

const ACTION: PositionPhase = PositionPhase::Action;

// ----- §1 Components ---------------------------------------------------------------------------

#[test]
fn r1_1_each_colour_has_24_tiles_three_of_each_troop() {
    assert_eq!(TroopCounts::FULL.total(), 24);
    assert!(Troop::ALL.iter().all(|&t| TroopCounts::FULL.get(t) == 3));
    let game = builtin("castle_field");
    for seed in 0..20 {
        let deal = Deal::from_seed(seed);
        deal.validate().unwrap();
        let s = game.initial_state(&deal);
        for c in Colour::BOTH {
            assert_eq!(s.tile_census(c), TroopCounts::FULL);
        }
    }
}

#[test]
fn r1_2_troop_values_and_names() {
    let labels: Vec<&str> = Troop::ALL.iter().map(|t| t.value_label()).collect();
    assert_eq!(labels, ["X", "1", "2", "3", "4", "5", "6", "7"]);
    let names = [
        "Kwak", "Skully", "Cap'n", "Jumbo", "Hook", "XB-42", "Star", "Roxy",
    ];
    let parsed: Vec<Troop> = names.iter().map(|n| n.parse().unwrap()).collect();
    assert_eq!(parsed, Troop::ALL);
}

#[test]
fn r1_3_kwak_has_no_strength() {
    for t in Troop::ALL {
        assert!(Troop::Kwak.covers(t), "Kwak covers {t}");
        assert!(t.covers(Troop::Kwak), "{t} covers Kwak");
    }
    // Between numbered troops only the printed value counts, strictly.
    for a in &Troop::ALL[1..] {
        for b in &Troop::ALL[1..] {
            assert_eq!(a.covers(*b), a.index() > b.index(), "{a} on {b}");
        }
    }
}

#[test]
fn r1_4_no_terrain_uses_more_than_16_medals() {
    for t in terrain::builtin_terrains() {
        assert!(t.total_medals() <= MEDALS_IN_BOX, "{}", t.name);
    }
}

// ----- §2 Terrains -----------------------------------------------------------------------------

#[test]
fn r2_1_the_eight_retail_terrains() {
    let names: Vec<&str> = terrain::builtin_terrains()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Castle Field",
            "Tropical Pool",
            "City of Clouds",
            "Volcanic Jungle",
            "Cursed Cemetery",
            "Caribbean Sea",
            "Station Metal-X",
            "Battlefield"
        ]
    );
}

#[test]
fn r2_2_hq_ownership_per_terrain() {
    for t in terrain::builtin_terrains() {
        let (blue, red) = (ids_of(t, t.hqs[0]), ids_of(t, t.hqs[1]));
        let (want_blue, want_red): (&[u8], &[u8]) = match t.key.as_str() {
            "caribbean_sea" => (&[1, 2], &[41]),
            "tropical_pool" => (&[1, 2], &[41, 42]),
            _ => (&[1], &[41]),
        };
        assert_eq!(
            (blue.as_slice(), red.as_slice()),
            (want_blue, want_red),
            "{}",
            t.name
        );
    }
}

#[test]
fn r2_3_regions_list_bases_never_hqs() {
    for t in terrain::builtin_terrains() {
        for r in &t.regions {
            assert_eq!(r.bases & !t.bases, 0, "{} region {}", t.name, r.id);
            assert!(r.medals > 0);
        }
    }
}

#[test]
fn r2_4_medal_objective_per_terrain() {
    let objectives: Vec<(&str, u8)> = terrain::builtin_terrains()
        .iter()
        .map(|t| (t.key.as_str(), t.medals_to_win))
        .collect();
    assert_eq!(
        objectives,
        [
            ("castle_field", 7),
            ("tropical_pool", 6),
            ("city_of_clouds", 8),
            ("volcanic_jungle", 7),
            ("cursed_cemetery", 7),
            ("caribbean_sea", 5),
            ("station_metal_x", 7),
            ("battlefield", 8)
        ]
    );
}

/// A terrain's special effect and the ids of the nodes carrying it.
type SpecialBases = (SpecialEffect, &'static [u8]);

#[test]
fn r2_5_special_bases_per_terrain() {
    use SpecialEffect::*;
    let table: [(&str, Option<SpecialBases>); 8] = [
        ("castle_field", Some((ReturnOwnTroop, &[15, 16, 20, 21]))),
        (
            "tropical_pool",
            Some((ValueRestriction, &[2, 12, 16, 17, 18, 22, 41])),
        ),
        ("city_of_clouds", Some((DrawOne, &[13, 16, 19, 22]))),
        ("volcanic_jungle", Some((MoveAdjacentEnemy, &[15, 19]))),
        (
            "cursed_cemetery",
            Some((RecoverFromDiscard, &[12, 14, 22, 24])),
        ),
        ("caribbean_sea", None),
        ("station_metal_x", Some((NoTroopEffect, &[16, 17, 18]))),
        ("battlefield", Some((FreezeOpponentRack, &[14, 16, 19, 21]))),
    ];
    for (key, special) in table {
        let t = terrain::builtin(key).unwrap();
        for effect in SpecialEffect::ALL {
            let want: &[u8] = match special {
                Some((e, nodes)) if e == effect => nodes,
                _ => &[],
            };
            assert_eq!(ids_of(t, t.nodes_with(effect)), want, "{key} {effect:?}");
        }
    }
}

// ----- §3 Setup --------------------------------------------------------------------------------

#[test]
fn r3_1_the_side_fixes_the_colour_and_its_hq() {
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["Roxy"], "red": ["Roxy"]}}"#);
    assert_eq!(legal(&game, &s), ["draw", "place Roxy 11", "place Roxy 12"]);
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "red",
        "racks": {"blue": ["Roxy"], "red": ["Roxy"]}}"#);
    assert_eq!(legal(&game, &s), ["draw", "place Roxy 24", "place Roxy 25"]);
}

#[test]
fn r3_2_medals_start_at_zero() {
    let game = builtin("city_of_clouds");
    let s = game.initial_state(&Deal::from_seed(5));
    assert_eq!(
        (s.medals(Blue), s.medals(Red), s.regions_taken()),
        (0, 0, 0)
    );
}

#[test]
fn r3_3_each_reserve_is_a_shuffle_of_the_colours_tiles() {
    let a = Deal::from_seed(1);
    let b = Deal::from_seed(2);
    for c in Colour::BOTH {
        let all = |d: &Deal| counts(&[d.removed[c].clone(), d.reserve[c].clone()].concat());
        assert_eq!(all(&a), TroopCounts::FULL);
        assert_eq!(all(&b), TroopCounts::FULL);
    }
    assert_ne!(a.reserve, b.reserve, "different seeds shuffle differently");
}

#[test]
fn r3_4_four_tiles_removed_unseen() {
    let game = builtin("castle_field");
    let s = game.initial_state(&Deal::from_seed(9));
    for c in Colour::BOTH {
        assert_eq!(s.removed(c).total(), 4);
        assert_eq!(s.reserve_len(c) + s.rack_len(c), 20);
        // Nobody learns them: the owner knows only reserve ∪ removed, the opponent nothing.
        assert_eq!(
            Observation::new(&s, c).unseen(c),
            s.reserve(c).plus(&s.removed(c))
        );
        assert_eq!(
            Observation::new(&s, c.opponent()).unseen(c),
            TroopCounts::FULL
        );
    }
}

#[test]
fn r3_5_first_player_draws_3_second_draws_4() {
    let game = builtin("castle_field");
    for seed in 0..10 {
        let deal = Deal::from_seed(seed);
        let s = game.initial_state(&deal);
        let first = deal.first;
        assert_eq!(s.active(), first);
        assert_eq!(s.rack_len(first), 3);
        assert_eq!(s.rack_len(first.opponent()), 4);
        assert_eq!(
            s.rack(first),
            counts(&deal.reserve[first][..3]),
            "the opening rack is the top of the reserve"
        );
    }
}

#[test]
fn r3_6_discard_empty_and_nothing_frozen_at_setup() {
    let game = builtin("battlefield");
    let s = game.initial_state(&Deal::from_seed(4));
    for c in Colour::BOTH {
        assert_eq!(s.discard(c), TroopCounts::EMPTY);
        assert_eq!(s.frozen_len(c), 0);
    }
    assert_eq!(s.phase(), Phase::Action);
    assert_eq!(s.board().tile_count(), 0);
}

// ----- §4 Turn structure -----------------------------------------------------------------------

#[test]
fn r4_1_players_alternate_one_action_each_no_pass() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["Roxy"]}, "reserves": {"blue": ["Star", "Jumbo"]}}"#);
    assert!(
        !legal(&game, &s).contains(&"decline".to_string()),
        "no pass"
    );
    refuse(&game, &s, "decline");
    play(&game, &mut s, &["draw", "chance Star", "chance Jumbo"]);
    assert_eq!((s.active(), s.turn(), phase(&game, &s)), (Red, 2, ACTION));
    assert_eq!(
        s.rack(Blue),
        counts(&[Troop::Roxy, Troop::Star, Troop::Jumbo])
    );
}

#[test]
fn r4_2_draw_quantity_and_legality() {
    let draw_phase = |json: &str| {
        let (game, mut s) = pos(json);
        play(&game, &mut s, &["draw"]);
        phase(&game, &s)
    };
    let two = draw_phase(r#"{"terrain": "castle_field", "to_move": "blue"}"#);
    assert_eq!(two, PositionPhase::Chance(PositionChance::Draw(2)));
    let one_left = draw_phase(
        r#"{"terrain": "castle_field", "to_move": "blue",
        "reserves": {"blue": ["Star"]}}"#,
    );
    assert_eq!(one_left, PositionPhase::Chance(PositionChance::Draw(1)));
    let one_space = draw_phase(
        r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["X", "X", "X", "1", "1", "1", "2"]}}"#,
    );
    assert_eq!(one_space, PositionPhase::Chance(PositionChance::Draw(1)));

    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["X", "X", "X", "1", "1", "1", "2", "2"]}}"#);
    assert_ne!(legal(&game, &s)[0], "draw", "full rack");
    refuse(&game, &s, "draw");
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["Roxy"]}, "reserves": {"blue": []}}"#);
    assert_ne!(legal(&game, &s)[0], "draw", "empty reserve");
    refuse(&game, &s, "draw");
}

#[test]
fn r4_3_place_only_unfrozen_tiles() {
    let (game, s) = pos(r#"{"terrain": "battlefield", "to_move": "blue",
        "racks": {"blue": ["Roxy", "Star"]}, "frozen": {"blue": ["Roxy"]}}"#);
    assert_eq!(legal(&game, &s), ["draw", "place Star 11", "place Star 12"]);
    refuse(&game, &s, "place Roxy 11");
}

/// A Skully that fills the rack to 8 leaves no room for the queued Castle Field return.
#[test]
fn r4_4_rack_never_exceeds_8() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"]},
        "racks": {"blue": ["Skully", "Roxy", "Roxy", "Roxy", "Star", "Star", "Star", "Hook"]},
        "reserves": {"blue": ["Jumbo", "Jumbo"]}}"#);
    play(&game, &mut s, &["place Skully 15"]);
    assert_eq!(legal(&game, &s), ["decline", "draw"]);
    play(&game, &mut s, &["draw"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::Chance(PositionChance::Draw(1)),
        "room for one tile only"
    );
    play(&game, &mut s, &["chance Jumbo"]);
    assert_eq!(s.rack_len(Blue), 8);
    assert_eq!(
        (s.active(), phase(&game, &s)),
        (Red, ACTION),
        "no return offered"
    );
}

#[test]
fn r4_5_own_frozen_tiles_thaw_at_the_end_of_the_turn() {
    let (game, mut s) = pos(r#"{"terrain": "battlefield", "to_move": "blue",
        "racks": {"blue": ["Roxy", "Star"]}, "frozen": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Star 11", "decline"]);
    assert_eq!((s.active(), s.turn()), (Red, 2));
    assert_eq!(s.frozen_len(Blue), 0);
    assert_eq!(s.frozen(Blue), TroopCounts::EMPTY);
}

// ----- §5 Placement legality -------------------------------------------------------------------

#[test]
fn r5_1_never_on_own_hq() {
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["X", "1", "2", "3", "4", "5", "6", "7"]}}"#);
    assert!(legal(&game, &s).iter().all(|d| !d.ends_with(" 1")));
    // Hook goes on any base, but neither HQ: not its own, and not the unconnected enemy HQ.
    let bases: Vec<u8> = (11..=25).collect();
    assert_eq!(slots(&game, &s, "Hook"), bases);
    refuse(&game, &s, "place Roxy 1");
}

#[test]
fn r5_2_empty_own_lower_enemy_or_enemy_hq() {
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Skully"], "12": ["red:Star"], "13": ["red:Jumbo"]},
        "racks": {"blue": ["Jumbo", "XB-42"]}}"#);
    // Jumbo: own Skully yes, equal Jumbo no, higher Star no. XB-42 covers the Jumbo.
    assert_eq!(
        legal(&game, &s),
        ["draw", "place Jumbo 11", "place XB-42 11", "place XB-42 13"]
    );
    refuse(&game, &s, "place Jumbo 13");
    let (game, s) = pos(CASTLE_CHAIN_TO_RED_HQ);
    assert!(slots(&game, &s, "Skully").contains(&41));
}

/// Blue holds 11, 13, 17, 22 and 24: a connected chain from HQ 1 to red HQ 41.
const CASTLE_CHAIN_TO_RED_HQ: &str = r#"{"terrain": "castle_field", "to_move": "blue",
    "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"], "17": ["blue:Kwak"],
               "22": ["blue:Roxy"], "24": ["blue:Roxy"]},
    "racks": {"blue": ["Skully", "Capn", "Roxy"]}}"#;

#[test]
fn r5_3_kwak_covers_and_is_covered_by_anything() {
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["red:Roxy"], "12": ["red:Kwak"]},
        "racks": {"blue": ["Kwak", "Skully"]}}"#);
    assert_eq!(
        legal(&game, &s),
        ["draw", "place Kwak 11", "place Kwak 12", "place Skully 12"]
    );
}

/// Blue holds 13, 14, 15, 17 and 21 of Tropical Pool: every base and red HQ 41 are in reach.
const POOL_BLUE_EVERYWHERE: &str = r#"{"terrain": "tropical_pool", "to_move": "blue",
    "stacks": {"13": ["blue:Roxy"], "14": ["blue:Star"], "15": ["blue:Star"],
               "17": ["blue:Roxy"], "21": ["blue:Roxy"]},
    "racks": {"blue": ["Kwak", "Skully", "Jumbo", "Star"]},
    "medals": {"blue": 1}, "regions_taken": [3]}"#;

#[test]
fn r5_4_tropical_pool_value_restrictions() {
    let (game, s) = pos(POOL_BLUE_EVERYWHERE);
    assert_eq!(
        slots(&game, &s, "Skully"),
        [11, 12, 13, 14, 15, 19, 20, 21, 22, 23]
    );
    assert_eq!(
        slots(&game, &s, "Jumbo"),
        [11, 13, 14, 15, 16, 18, 19, 20, 21, 23]
    );
    assert_eq!(
        slots(&game, &s, "Star"),
        [11, 13, 14, 15, 17, 19, 20, 21, 23, 41]
    );
    refuse(&game, &s, "place Skully 41");
}

#[test]
fn r5_5_connection_through_own_tiles_only() {
    // 13 is empty and 14 red: both cut the paths from HQ 1.
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Roxy"], "12": ["blue:Roxy"], "14": ["red:Kwak"]},
        "racks": {"blue": ["Roxy"]}}"#);
    assert_eq!(
        legal(&game, &s),
        [
            "draw",
            "place Roxy 11",
            "place Roxy 12",
            "place Roxy 13",
            "place Roxy 14"
        ]
    );
    refuse(&game, &s, "place Roxy 17");
}

#[test]
fn r5_6_hook_ignores_connection_on_bases_only() {
    let (game, s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"24": ["red:Skully"], "25": ["red:Roxy"]},
        "racks": {"blue": ["Hook", "Roxy"]}}"#);
    let anywhere: Vec<u8> = (11..=24).collect();
    assert_eq!(
        slots(&game, &s, "Hook"),
        anywhere,
        "strength still applies (25)"
    );
    assert_eq!(slots(&game, &s, "Roxy"), [11, 12]);
    refuse(&game, &s, "place Hook 41");
}

#[test]
fn r5_7_tiles_cut_off_stay_in_play() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "red",
        "stacks": {"11": ["blue:Roxy"], "13": ["blue:Skully"], "17": ["blue:Roxy"],
                   "18": ["red:Kwak"], "22": ["red:Kwak"], "24": ["red:Kwak"]},
        "racks": {"blue": ["Roxy"], "red": ["Star"]}}"#);
    play(&game, &mut s, &["place Star 13", "decline"]);
    assert_eq!(stack(&game, &s, 17), ["blue:Roxy"], "still on the terrain");
    // Blue's 17 no longer starts a path: its neighbours 15, 20, 22 are out of reach.
    assert_eq!(
        legal(&game, &s),
        ["draw", "place Roxy 11", "place Roxy 12", "place Roxy 13"]
    );
}

#[test]
fn r5_8_stacks_grow_on_top_without_limit() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["red:Skully", "blue:Capn", "red:Jumbo", "blue:Hook", "red:XB-42",
                          "blue:Star"]},
        "racks": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Roxy 11"]);
    assert_eq!(
        stack(&game, &s, 11),
        [
            "red:Skully",
            "blue:Capn",
            "red:Jumbo",
            "blue:Hook",
            "red:XB-42",
            "blue:Star",
            "blue:Roxy"
        ]
    );
}

// ----- §6 Resolving a placement ----------------------------------------------------------------

#[test]
fn r6_1_the_placed_tile_goes_on_top_and_occupies() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"12": ["red:Skully"]}, "racks": {"blue": ["Star"]}}"#);
    play(&game, &mut s, &["place Star 12"]);
    let n = game.terrain().index_of(NodeId(12)).unwrap();
    assert_eq!(stack(&game, &s, 12), ["red:Skully", "blue:Star"]);
    assert_ne!(s.board().occupied(Blue) & n.bit(), 0);
    assert_eq!(s.board().occupied(Red) & n.bit(), 0);
    assert_eq!(s.rack(Blue), TroopCounts::EMPTY);
}

#[test]
fn r6_2_region_check_after_placing_on_a_base() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"], "15": ["blue:Skully"]},
        "racks": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Roxy 17"]);
    assert_eq!(s.medals(Blue), 1);
    assert_eq!(regions_taken(&game, &s), [2]);
}

#[test]
fn r6_3_placing_on_an_enemy_hq_wins_at_once() {
    let (game, mut s) = pos(CASTLE_CHAIN_TO_RED_HQ);
    play(&game, &mut s, &["place Skully 41"]);
    assert_eq!(s.outcome(), won(Blue, WinType::Hq));
    assert!(s.is_over());
    assert!(
        legal(&game, &s).is_empty(),
        "no Skully effect after the capture"
    );
    refuse(&game, &s, "draw");
}

#[test]
fn r6_4_placements_on_active_special_bases_are_queued() {
    let (game, mut s) = pos(CASTLE_11_13);
    play(&game, &mut s, &["place Roxy 15"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::SpecialEffect { node: NodeId(15) }
    );
    assert_eq!(legal(&game, &s), ["decline", "return 11", "return 13"]);
}

/// Blue holds 11 and 13 of Castle Field, next to special base 15.
const CASTLE_11_13: &str = r#"{"terrain": "castle_field", "to_move": "blue",
    "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"]},
    "racks": {"blue": ["Roxy", "Star"]}}"#;

#[test]
fn r6_5_troop_effect_before_special_base_effect() {
    let (game, mut s) = pos(CASTLE_11_13);
    play(&game, &mut s, &["place Star 15"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::TroopEffect {
            troop: Troop::Star,
            node: NodeId(15)
        }
    );
    assert_eq!(legal(&game, &s), ["decline", "draw"]);
    play(&game, &mut s, &["decline"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::SpecialEffect { node: NodeId(15) }
    );
}

/// Blue holds 11, 13 and 17 of Castle Field; a Cap'n on special base 15 completes region 2
/// and can bring a second tile to special base 20.
const CASTLE_CAPN: &str = r#"{"terrain": "castle_field", "to_move": "blue",
    "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"], "17": ["blue:Kwak"]},
    "racks": {"blue": ["Capn", "Star", "Roxy"]}}"#;

#[test]
fn r6_6_special_effects_after_all_troop_effects_in_placement_order() {
    let (game, mut s) = pos(CASTLE_CAPN);
    play(&game, &mut s, &["place Capn 15", "place Star 20"]);
    assert_eq!(s.medals(Blue), 1, "region 2 at the Cap'n's placement");
    // The Star's own effect comes first, then the queued bases: 15, then 20.
    assert_eq!(legal(&game, &s), ["decline", "draw"]);
    play(&game, &mut s, &["decline"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::SpecialEffect { node: NodeId(15) }
    );
    assert_eq!(
        legal(&game, &s),
        [
            "decline",
            "return 11",
            "return 13",
            "return 17",
            "return 20"
        ]
    );
    play(&game, &mut s, &["decline"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::SpecialEffect { node: NodeId(20) }
    );
    assert_eq!(
        legal(&game, &s),
        [
            "decline",
            "return 11",
            "return 13",
            "return 15",
            "return 17"
        ]
    );
    play(&game, &mut s, &["decline"]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
}

#[test]
fn r6_6_castle_return_cancels_the_returned_tiles_queued_effect() {
    let (game, mut s) = pos(CASTLE_CAPN);
    play(
        &game,
        &mut s,
        &["place Capn 15", "place Star 20", "decline", "return 20"],
    );
    // The Star's entry for 20 was dropped: the turn ends.
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
    assert_eq!(s.rack(Blue), counts(&[Troop::Star, Troop::Roxy]));
    assert!(stack(&game, &s, 20).is_empty());
}

#[test]
fn r6_7_the_turn_ends_when_the_placement_has_fully_resolved() {
    let (game, mut s) = pos(CASTLE_CAPN);
    play(
        &game,
        &mut s,
        &["place Capn 15", "place Star 20", "decline", "decline"],
    );
    assert_eq!((s.active(), s.turn()), (Blue, 1), "base 20 still to come");
    play(&game, &mut s, &["decline"]);
    assert_eq!((s.active(), s.turn()), (Red, 2));
}

// ----- §7 Troop effects ------------------------------------------------------------------------

/// Blue holds 11 of Castle Field; blue places the troop under test on 12 (next to HQ 1).
fn place_on_12(troop: &str, red_rack: &str, blue_reserve: &str) -> (Game, State) {
    let (game, mut s) = pos(&format!(
        r#"{{"terrain": "castle_field", "to_move": "blue",
        "stacks": {{"11": ["blue:Kwak"], "23": ["red:Roxy"]}},
        "racks": {{"blue": ["{troop}"], "red": {red_rack}}},
        "reserves": {{"blue": {blue_reserve}}}}}"#
    ));
    play(&game, &mut s, &[&format!("place {troop} 12")]);
    (game, s)
}

#[test]
fn r7_1_kwak_has_no_effect() {
    let (game, s) = place_on_12("Kwak", "[]", r#"["Star"]"#);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
}

#[test]
fn r7_2_skully_draws_two_or_none() {
    let (game, mut s) = place_on_12("Skully", "[]", r#"["Star", "Jumbo", "Hook"]"#);
    assert_eq!(legal(&game, &s), ["decline", "draw"]);
    play(&game, &mut s, &["draw"]);
    assert_eq!(
        game.chance_outcomes(&s).to_vec(),
        [(Troop::Jumbo, 1), (Troop::Hook, 1), (Troop::Star, 1)]
    );
    play(&game, &mut s, &["chance Hook"]);
    assert_eq!(
        legal(&game, &s),
        ["chance Jumbo", "chance Star"],
        "no stopping at one"
    );
    play(&game, &mut s, &["chance Star"]);
    assert_eq!(s.rack(Blue), counts(&[Troop::Hook, Troop::Star]));
    assert_eq!(s.active(), Red);
}

#[test]
fn r7_3_capn_places_one_extra_tile() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"]}, "racks": {"blue": ["Capn", "Roxy", "Hook"]}}"#);
    play(&game, &mut s, &["place Capn 13"]);
    let options = legal(&game, &s);
    assert_eq!(options[0], "decline");
    // Connection counts the Cap'n itself: 15, 17, 18 are reached through it.
    assert_eq!(slots(&game, &s, "Roxy"), [11, 12, 13, 15, 17, 18]);
    assert_eq!(
        slots(&game, &s, "Hook").len(),
        15,
        "Hook keeps its exception"
    );
    play(&game, &mut s, &["place Roxy 18"]);
    assert_eq!(stack(&game, &s, 18), ["blue:Roxy"]);
    assert_eq!(s.active(), Red);

    // With nothing left to place, the Cap'n offers nothing.
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "racks": {"blue": ["Capn"]}}"#);
    play(&game, &mut s, &["place Capn 11"]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));

    // A second Cap'n chains again.
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"]}, "racks": {"blue": ["Capn", "Capn", "Roxy"]}}"#);
    play(&game, &mut s, &["place Capn 13", "place Capn 17"]);
    assert!(slots(&game, &s, "Roxy").contains(&20));
}

#[test]
fn r7_4_jumbo_discards_an_adjacent_enemy_top_tile() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "15": ["blue:Star", "red:Roxy"], "17": ["blue:Roxy"],
                   "18": ["red:Kwak"]},
        "racks": {"blue": ["Jumbo"]}}"#);
    play(&game, &mut s, &["place Jumbo 13"]);
    assert_eq!(legal(&game, &s), ["decline", "discard 15", "discard 18"]);
    play(&game, &mut s, &["discard 15"]);
    assert_eq!(stack(&game, &s, 15), ["blue:Star"]);
    assert_eq!(s.discard(Red), counts(&[Troop::Roxy]));
    // The uncovered Star completes region 2 (13, 15, 17).
    assert_eq!(s.medals(Blue), 1);
    assert_eq!(regions_taken(&game, &s), [2]);
    assert_eq!(s.active(), Red);
}

#[test]
fn r7_5_hook_has_no_effect_after_placement() {
    let (game, s) = place_on_12("Hook", r#"["Roxy"]"#, r#"["Star"]"#);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
}

#[test]
fn r7_6_xb42_discards_a_random_tile_of_the_opponents_rack() {
    let (game, mut s) = place_on_12("XB-42", r#"["Roxy", "Roxy", "Star"]"#, r#"["Star"]"#);
    assert_eq!(legal(&game, &s), ["decline", "use"]);
    play(&game, &mut s, &["use"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::Chance(PositionChance::RackDiscard)
    );
    assert_eq!(
        game.chance_outcomes(&s).to_vec(),
        [(Troop::Star, 1), (Troop::Roxy, 2)]
    );
    refuse(&game, &s, "chance Kwak");
    play(&game, &mut s, &["chance Roxy"]);
    assert_eq!(s.rack(Red), counts(&[Troop::Star, Troop::Roxy]));
    assert_eq!(s.discard(Red), counts(&[Troop::Roxy]));
    assert_eq!(s.active(), Red);

    let (game, s) = place_on_12("XB-42", "[]", r#"["Star"]"#);
    assert_eq!(
        (s.active(), phase(&game, &s)),
        (Red, ACTION),
        "empty rack: nothing"
    );
}

#[test]
fn r7_7_star_draws_one() {
    let (game, mut s) = place_on_12("Star", "[]", r#"["Jumbo", "Hook"]"#);
    assert_eq!(legal(&game, &s), ["decline", "draw"]);
    play(&game, &mut s, &["draw"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::Chance(PositionChance::Draw(1))
    );
    play(&game, &mut s, &["chance Hook"]);
    assert_eq!((s.active(), s.rack(Blue)), (Red, counts(&[Troop::Hook])));

    let (game, s) = place_on_12("Star", "[]", "[]");
    assert_eq!(
        (s.active(), phase(&game, &s)),
        (Red, ACTION),
        "empty reserve: nothing"
    );
}

#[test]
fn r7_8_roxy_has_no_effect() {
    let (game, s) = place_on_12("Roxy", r#"["Roxy"]"#, r#"["Star"]"#);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
}

// ----- §8 Regions and medals -------------------------------------------------------------------

#[test]
fn r8_1_control_needs_every_base_of_the_region_on_top() {
    // Blue's Roxy on 15 is covered by red: region 2 (13, 15, 17) is not blue's.
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"], "15": ["blue:Roxy", "red:Kwak"]},
        "racks": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Roxy 17"]);
    assert_eq!((s.medals(Blue), s.medals(Red)), (0, 0));
    assert!(regions_taken(&game, &s).is_empty());
}

/// Blue holds 11, 12, 13, 14, 17, 22; 18 completes regions 1 (3 medals) and 4 (2 medals).
fn castle_18_completes_two_regions(medals: &str, taken: &str) -> (Game, State) {
    pos(&format!(
        r#"{{"terrain": "castle_field", "to_move": "blue",
        "stacks": {{"11": ["blue:Kwak"], "12": ["blue:Kwak"], "13": ["blue:Kwak"],
                   "14": ["blue:Skully"], "17": ["blue:Skully"], "22": ["blue:Skully"],
                   "23": ["red:Roxy"]}},
        "racks": {{"blue": ["Roxy", "Jumbo"]}},
        "medals": {medals}, "regions_taken": {taken}}}"#
    ))
}

#[test]
fn r8_2_one_check_gives_every_completed_region_to_the_top_tiles_owner() {
    let (game, mut s) = castle_18_completes_two_regions("{}", "[]");
    play(&game, &mut s, &["place Roxy 18"]);
    assert_eq!((s.medals(Blue), s.medals(Red)), (5, 0));
    assert_eq!(regions_taken(&game, &s), [1, 4]);
}

/// A Volcanic Jungle move gives medals to both players: red's moved tile completes red's
/// region 2 at the destination, the blue tile it uncovers completes blue's region 5.
#[test]
fn r8_3_either_player_may_gain_medals() {
    let (game, mut s) = pos(&volcanic_double_completion("{}", "[]"));
    play(&game, &mut s, &["place Hook 15", "move 18 15"]);
    assert_eq!((s.medals(Blue), s.medals(Red)), (3, 2));
    assert_eq!(regions_taken(&game, &s), [2, 5]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
}

/// Volcanic Jungle: red holds 11, 12, 14 (region 2 but for special base 15) and tops 18 over a
/// blue tile; blue holds 17, 20, 21, 23 (region 5 but for 18).
fn volcanic_double_completion(medals: &str, taken: &str) -> String {
    format!(
        r#"{{"terrain": "volcanic_jungle", "to_move": "blue",
        "stacks": {{"11": ["red:Kwak"], "12": ["red:Kwak"], "14": ["red:Kwak"],
                   "18": ["blue:Skully", "red:Roxy"],
                   "17": ["blue:Roxy"], "20": ["blue:Roxy"], "21": ["blue:Roxy"],
                   "23": ["blue:Skully"]}},
        "racks": {{"blue": ["Hook"]}}, "medals": {medals}, "regions_taken": {taken}}}"#
    )
}

#[test]
fn r8_4_medals_are_kept_and_taken_regions_give_nothing() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "red",
        "stacks": {"13": ["red:Roxy"], "15": ["red:Roxy"], "22": ["red:Kwak"],
                   "24": ["red:Kwak"]},
        "racks": {"red": ["Star"]}, "medals": {"blue": 1}, "regions_taken": [2]}"#);
    play(&game, &mut s, &["place Star 17", "decline"]);
    assert_eq!((s.medals(Blue), s.medals(Red)), (1, 0));
    assert_eq!(regions_taken(&game, &s), [2]);
}

#[test]
fn r8_5_reaching_the_objective_wins_immediately() {
    let (game, mut s) = castle_18_completes_two_regions(r#"{"blue": 2}"#, "[2, 6]");
    play(&game, &mut s, &["place Roxy 18"]);
    assert_eq!(s.medals(Blue), 7);
    assert_eq!(s.outcome(), won(Blue, WinType::Medals));
}

// ----- §9 Special bases ------------------------------------------------------------------------

#[test]
fn r9_1_castle_field_returns_one_of_your_top_tiles_elsewhere() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"], "15": ["blue:Skully"],
                   "14": ["blue:Hook", "red:Roxy"], "16": ["blue:Jumbo"]},
        "racks": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Roxy 15"]);
    // Not 15 (the triggering base), not 14 (blue's Hook is covered).
    assert_eq!(
        legal(&game, &s),
        ["decline", "return 11", "return 13", "return 16"]
    );
    play(&game, &mut s, &["return 16"]);
    assert!(stack(&game, &s, 16).is_empty());
    assert_eq!(s.rack(Blue), counts(&[Troop::Jumbo]));
    assert_eq!(
        s.public_rack(Blue),
        counts(&[Troop::Jumbo]),
        "it was face up"
    );
    assert_eq!(s.active(), Red);
}

#[test]
fn r9_2_tropical_pool_restricted_nodes() {
    let t = terrain::builtin("tropical_pool").unwrap();
    let mask = |troops: &[Troop]| troops.iter().fold(0u8, |m, t| m | 1 << t.index());
    use Troop::*;
    let expected = [
        (12, mask(&[Kwak, Skully, Capn])),
        (22, mask(&[Kwak, Skully, Capn])),
        (16, mask(&[Kwak, Jumbo, Hook, Xb42])),
        (18, mask(&[Kwak, Jumbo, Hook, Xb42])),
        (17, mask(&[Kwak, Star, Roxy])),
        (2, mask(&[Kwak, Star, Roxy])),
        (41, mask(&[Kwak, Star, Roxy])),
        (1, 0xFF),
        (42, 0xFF),
        (13, 0xFF),
    ];
    for (id, bits) in expected {
        let i = t.index_of(NodeId(id)).unwrap();
        assert_eq!(t.allowed_troops(i), bits, "node {id}");
    }
}

#[test]
fn r9_3_city_of_clouds_draws_one() {
    let (game, mut s) = pos(r#"{"terrain": "city_of_clouds", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"]}, "racks": {"blue": ["Roxy"]},
        "reserves": {"blue": ["Star"]}}"#);
    play(&game, &mut s, &["place Roxy 13"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::SpecialEffect { node: NodeId(13) }
    );
    assert_eq!(legal(&game, &s), ["decline", "draw"]);
    play(&game, &mut s, &["draw", "chance Star"]);
    assert_eq!((s.active(), s.rack(Blue)), (Red, counts(&[Troop::Star])));
}

/// Volcanic Jungle: blue reaches special base 15 through 11 and 14; red tops 12 and 18.
const VOLCANIC_15: &str = r#"{"terrain": "volcanic_jungle", "to_move": "blue",
    "stacks": {"11": ["blue:Roxy"], "14": ["blue:Roxy"], "12": ["red:Skully"],
               "18": ["blue:Star", "red:Kwak"]},
    "racks": {"blue": ["Roxy"]}}"#;

#[test]
fn r9_4_volcanic_jungle_moves_an_adjacent_enemy_tile() {
    let (game, mut s) = pos(VOLCANIC_15);
    play(&game, &mut s, &["place Roxy 15"]);
    assert_eq!(
        legal(&game, &s),
        [
            "decline",
            "move 12 11",
            "move 12 15",
            "move 18 15",
            "move 18 17",
            "move 18 21"
        ]
    );
    play(&game, &mut s, &["move 18 17"]);
    // Only the top tile moves.
    assert_eq!(stack(&game, &s, 18), ["blue:Star"]);
    assert_eq!(stack(&game, &s, 17), ["red:Kwak"]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
}

#[test]
fn r9_5_cursed_cemetery_recovers_your_own_discarded_tile() {
    let (game, mut s) = pos(r#"{"terrain": "cursed_cemetery", "to_move": "blue",
        "stacks": {"11": ["blue:Roxy"]}, "racks": {"blue": ["Roxy"]},
        "discard": {"blue": ["Jumbo", "Star", "Star"], "red": ["Hook"]}}"#);
    play(&game, &mut s, &["place Roxy 14"]);
    assert_eq!(
        legal(&game, &s),
        ["decline", "recover Jumbo", "recover Star"]
    );
    refuse(&game, &s, "recover Hook");
    play(&game, &mut s, &["recover Star"]);
    assert_eq!(s.rack(Blue), counts(&[Troop::Star]));
    assert_eq!(s.discard(Blue), counts(&[Troop::Jumbo, Troop::Star]));
    assert_eq!(s.public_rack(Blue), counts(&[Troop::Star]));
    assert_eq!(s.active(), Red);
}

#[test]
fn r9_6_caribbean_sea_blue_has_two_hqs() {
    let (game, s) = pos(r#"{"terrain": "caribbean_sea", "to_move": "blue",
        "racks": {"blue": ["Roxy"]}}"#);
    assert_eq!(
        slots(&game, &s, "Roxy"),
        [11, 13, 15],
        "paths start at HQ 1 or 2"
    );
    // Red reaches both blue HQs; either one wins.
    let (game, mut s) = pos(r#"{"terrain": "caribbean_sea", "to_move": "red",
        "stacks": {"20": ["red:Kwak"], "21": ["red:Kwak"], "18": ["red:Kwak"],
                   "15": ["red:Skully"], "12": ["red:Skully"], "11": ["red:Skully"]},
        "racks": {"red": ["Roxy"]}, "medals": {"red": 2}, "regions_taken": [3]}"#);
    let red_slots = slots(&game, &s, "Roxy");
    assert!(red_slots.contains(&1) && red_slots.contains(&2));
    play(&game, &mut s, &["place Roxy 2"]);
    assert_eq!(s.outcome(), won(Red, WinType::Hq));
}

/// Station Metal-X: blue holds 11 and 15, next to special bases 16, 17, 18.
const STATION_11_15: &str = r#"{"terrain": "station_metal_x", "to_move": "blue",
    "stacks": {"11": ["blue:Roxy"], "15": ["blue:Roxy"]},
    "racks": {"blue": ["Star", "Hook"]}}"#;

#[test]
fn r9_7_station_metal_x_suppresses_troop_effects() {
    let (game, mut s) = pos(STATION_11_15);
    play(&game, &mut s, &["place Star 16"]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
    // Next to a special base, the effect stays.
    let (game, mut s) = pos(STATION_11_15);
    play(&game, &mut s, &["place Star 13"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::TroopEffect {
            troop: Troop::Star,
            node: NodeId(13)
        }
    );
}

/// Battlefield: blue reaches special bases 14 and 19 through 12 and 15.
fn battlefield(blue_rack: &str, red_rack: &str, red_reserve: &str) -> (Game, State) {
    pos(&format!(
        r#"{{"terrain": "battlefield", "to_move": "blue",
        "stacks": {{"12": ["blue:Roxy"], "15": ["blue:Roxy"]}},
        "racks": {{"blue": {blue_rack}, "red": {red_rack}}},
        "reserves": {{"red": {red_reserve}}}}}"#
    ))
}

#[test]
fn r9_8_battlefield_freezes_a_random_opponent_tile_for_one_turn() {
    let (game, mut s) = battlefield(r#"["Roxy"]"#, r#"["Roxy", "Star"]"#, r#"["Kwak", "Kwak"]"#);
    play(&game, &mut s, &["place Roxy 14"]);
    assert_eq!(legal(&game, &s), ["decline", "use"]);
    play(&game, &mut s, &["use"]);
    assert_eq!(
        game.chance_outcomes(&s).to_vec(),
        [(Troop::Star, 1), (Troop::Roxy, 1)]
    );
    play(&game, &mut s, &["chance Roxy"]);
    assert_eq!(s.active(), Red);
    assert_eq!(s.frozen(Red), counts(&[Troop::Roxy]));
    assert_eq!(
        legal(&game, &s),
        ["draw", "place Star 23", "place Star 24"],
        "the frozen Roxy cannot be placed"
    );
    play(&game, &mut s, &["draw", "chance Kwak", "chance Kwak"]);
    assert_eq!(
        (s.active(), s.frozen_len(Red)),
        (Blue, 0),
        "thawed at the end of red's turn"
    );
}

// ----- §10 End of the game ---------------------------------------------------------------------

#[test]
fn r10_1_capn_extra_placement_on_an_hq_wins_and_stops_the_queue() {
    let (game, mut s) = pos(CASTLE_CHAIN_TO_RED_HQ);
    // The Cap'n on special base 15 queues a return; the capture ends the game first.
    play(&game, &mut s, &["place Capn 15"]);
    assert_eq!(s.medals(Blue), 1);
    play(&game, &mut s, &["place Roxy 41"]);
    assert_eq!(s.outcome(), won(Blue, WinType::Hq));
    assert!(legal(&game, &s).is_empty());
}

/// Castle Field: blue's Kwak tops red's Skully on 22; red holds 17 and 20 (region 6 but for 22).
fn castle_return_uncovers_red(red_medals: u8, taken: &str) -> (Game, State) {
    pos(&format!(
        r#"{{"terrain": "castle_field", "to_move": "blue",
        "stacks": {{"11": ["blue:Kwak"], "13": ["blue:Kwak"], "17": ["red:Roxy"],
                   "20": ["red:Roxy"], "22": ["red:Skully", "blue:Kwak"]}},
        "racks": {{"blue": ["Roxy"]}},
        "medals": {{"red": {red_medals}}}, "regions_taken": {taken}}}"#
    ))
}

#[test]
fn r10_2_the_objective_wins_whoever_is_active() {
    let (game, mut s) = castle_return_uncovers_red(6, "[1, 8]");
    play(&game, &mut s, &["place Roxy 15", "return 22"]);
    assert_eq!(s.medals(Red), 7);
    assert_eq!(
        s.outcome(),
        won(Red, WinType::Medals),
        "red wins during blue's turn"
    );
}

#[test]
fn r10_3_blocked_player_more_medals_wins_tie_loses() {
    // Red's only tile, a Skully, cannot cover blue's Roxies next to HQ 41; the reserve is empty.
    let blocked = |medals: &str, taken: &str| {
        let (_, s) = pos(&format!(
            r#"{{"terrain": "castle_field", "to_move": "red",
            "stacks": {{"24": ["blue:Roxy"], "25": ["blue:Roxy"]}},
            "racks": {{"red": ["Skully"]}}, "reserves": {{"red": []}},
            "medals": {medals}, "regions_taken": {taken}}}"#
        ));
        s.outcome()
    };
    assert_eq!(
        blocked("{}", "[]"),
        won(Blue, WinType::Blocked),
        "tie: red ended it"
    );
    assert_eq!(blocked(r#"{"red": 1}"#, "[2]"), won(Red, WinType::Blocked));
    assert_eq!(
        blocked(r#"{"blue": 1}"#, "[2]"),
        won(Blue, WinType::Blocked)
    );
}

/// A placement never both captures and completes: HQs belong to no region. The one event
/// that changes two bases is the Volcanic Jungle move, pinned by `a7_...`.
#[test]
fn r10_4_a_placement_cannot_both_capture_and_complete() {
    for t in terrain::builtin_terrains() {
        for c in Colour::BOTH {
            for hq in terrain::nodes(t.hqs[c.index()]) {
                assert_eq!(t.node_regions(hq), 0, "{} HQ {}", t.name, t.id_of(hq));
            }
        }
    }
}

/// No turn limit: the engine's turn counter saturates rather than ending the game.
#[test]
fn r10_5_no_turn_limit() {
    let (game, mut s) = pos(
        r#"{"terrain": "castle_field", "to_move": "blue", "turn": 65535,
        "first_player": "blue"}"#,
    );
    play(&game, &mut s, &["draw", "chance Kwak", "chance Kwak"]);
    assert!(!s.is_over());
    assert_eq!((s.active(), s.turn()), (Red, 65535));
    assert!(!legal(&game, &s).is_empty());
}

// ----- §11 Hidden information ------------------------------------------------------------------

#[test]
fn r11_1_public_facts_are_in_both_observations() {
    let (game, mut s) = castle_return_uncovers_red(0, "[]");
    play(&game, &mut s, &["place Roxy 15", "return 22"]);
    assert_eq!(s.medals(Red), 1, "region 6 by the uncovered Skully");
    for observer in Colour::BOTH {
        let obs = Observation::new(&s, observer);
        assert_eq!(
            obs.board(),
            s.board(),
            "every stack, covered tiles included"
        );
        for c in Colour::BOTH {
            assert_eq!(obs.discard(c), s.discard(c));
            assert_eq!(obs.medals(c), s.medals(c));
            assert_eq!(obs.rack_len(c), s.rack_len(c));
            assert_eq!(obs.reserve_len(c), s.reserve_len(c));
            assert_eq!(obs.frozen_len(c), s.frozen_len(c));
        }
        assert_eq!(obs.regions_taken(), s.regions_taken());
        assert_eq!(obs.first_player(), s.first_player());
    }
    // The returned Kwak was face up: red knows it is on blue's rack.
    let red = Observation::new(&s, Red);
    assert_eq!(red.opponent_public_rack(), counts(&[Troop::Kwak]));
}

#[test]
fn r11_2_racks_and_frozen_tiles_are_seen_by_their_owner_only() {
    let with_frozen = |frozen: &str, blue_rack: &str| {
        pos(&format!(
            r#"{{"terrain": "battlefield", "to_move": "red",
            "racks": {{"red": ["Star", "Roxy"], "blue": {blue_rack}}},
            "frozen": {{"red": {frozen}}}}}"#
        ))
        .1
    };
    let a = with_frozen(r#"["Star"]"#, r#"["Jumbo"]"#);
    let b = with_frozen(r#"["Roxy"]"#, r#"["Jumbo"]"#);
    assert_eq!(Observation::new(&a, Blue), Observation::new(&b, Blue));
    assert_ne!(Observation::new(&a, Red), Observation::new(&b, Red));
    assert_eq!(Observation::new(&a, Blue).frozen_len(Red), 1);
    assert_eq!(Observation::new(&a, Red).frozen(), counts(&[Troop::Star]));
    assert_eq!(
        Observation::new(&a, Red).rack(),
        counts(&[Troop::Star, Troop::Roxy])
    );
    // Blue's rack: a Jumbo or a Hook is all one to red.
    let c = with_frozen(r#"["Star"]"#, r#"["Hook"]"#);
    assert_eq!(Observation::new(&a, Red), Observation::new(&c, Red));
    assert_ne!(Observation::new(&a, Blue), Observation::new(&c, Blue));
}

#[test]
fn r11_3_reserve_and_removed_tiles_are_known_to_nobody() {
    let with_reserve = |reserve: &str| {
        pos(&format!(
            r#"{{"terrain": "castle_field", "to_move": "blue",
            "stacks": {{"11": ["blue:Kwak"]}}, "racks": {{"blue": ["Roxy"]}},
            "reserves": {{"blue": {reserve}}}}}"#
        ))
        .1
    };
    let a = with_reserve(r#"["Star", "Roxy"]"#);
    let b = with_reserve(r#"["Kwak", "Skully"]"#);
    for observer in Colour::BOTH {
        assert_eq!(
            Observation::new(&a, observer),
            Observation::new(&b, observer)
        );
    }
    // Blue knows the union: 24 tiles less the rack Roxy and the Kwak on 11.
    let mut union = TroopCounts::FULL;
    union.remove(Troop::Roxy);
    union.remove(Troop::Kwak);
    assert_eq!(Observation::new(&a, Blue).unseen(Blue), union);
}

#[test]
fn r11_4_random_events_and_their_weights() {
    let game = builtin("castle_field");
    let deal = Deal::from_seed(11);
    let mut s = game.initial_state(&deal);
    let p = s.active();
    play(&game, &mut s, &["draw"]);
    let weights: Vec<(Troop, u8)> = game.chance_outcomes(&s).to_vec();
    let expected: Vec<(Troop, u8)> = Troop::ALL
        .iter()
        .map(|&t| (t, s.reserve(p).get(t)))
        .filter(|&(_, w)| w > 0)
        .collect();
    assert_eq!(weights, expected, "a draw is weighted by the reserve");
    // The referee draws the deal's next tile.
    let mut referee = Referee::new(deal.clone());
    let next = deal.reserve[p][deal.opening_draw(p)];
    assert_eq!(referee.resolve(&game, &s), Decision::Chance(next));
}

// ----- §12 Decisions ---------------------------------------------------------------------------

/// Walks random games on every terrain, calling `check` at every step.
fn walk_random_games(mut check: impl FnMut(&Game, &State, &[String])) {
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(12);
    for t in terrain::builtin_terrains() {
        let game = Game::builtin(&t.key, Variant::Normal).unwrap();
        for seed in 0..4 {
            let mut s = game.initial_state(&Deal::from_seed(seed));
            while !s.is_over() && s.turn() < 120 {
                check(&game, &s, &legal(&game, &s));
                let d = toybattle::rules::random_decision(&game, &s, &mut rng).unwrap();
                game.apply_legal(&mut s, d);
            }
        }
    }
}

#[test]
fn r12_1_the_action_is_mandatory() {
    walk_random_games(|_, s, options| {
        if s.phase() == Phase::Action {
            assert!(!options.is_empty());
            assert!(options
                .iter()
                .all(|d| d == "draw" || d.starts_with("place ")));
        }
    });
}

/// Every effect phase offers `decline` first, and is offered only with something to choose.
#[test]
fn r12_2_optional_effects_can_be_declined() {
    let mut effects = 0;
    walk_random_games(|_, s, options| {
        if matches!(
            s.phase(),
            Phase::TroopEffect { .. } | Phase::SpecialEffect { .. }
        ) {
            effects += 1;
            assert_eq!(options[0], "decline");
            assert!(options.len() >= 2);
        }
    });
    assert!(effects > 100, "the walk reached effect phases");
}

#[test]
fn r12_3_chance_and_suppressions_offer_no_choice() {
    walk_random_games(|game, s, options| {
        if s.is_chance() {
            assert!(options.iter().all(|d| d.starts_with("chance ")));
            assert_eq!(options.len(), game.chance_outcomes(s).len());
        }
        if let Phase::TroopEffect { node, .. } = s.phase() {
            let effect = game.terrain().effect_at(node);
            assert_ne!(effect, Some(SpecialEffect::NoTroopEffect));
        }
    });
}

// ----- §13 Beginner game -----------------------------------------------------------------------

#[test]
fn r13_1_beginner_special_bases_are_plain() {
    let beginner = |json: &str| {
        let (game, s) = pos(json);
        let game = Game::new(game.terrain_arc().clone(), Variant::Beginner);
        (game, s)
    };
    let (game, mut s) = beginner(CASTLE_11_13);
    play(&game, &mut s, &["place Roxy 15"]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION), "no return");
    let (game, mut s) = beginner(STATION_11_15);
    play(&game, &mut s, &["place Star 16"]);
    assert_eq!(
        legal(&game, &s),
        ["decline", "draw"],
        "the Star keeps its effect"
    );
}

#[test]
fn r13_2_beginner_lifts_every_restriction() {
    let (game, s) = pos(r#"{"terrain": "station_metal_x", "variant": "beginner",
        "to_move": "blue", "racks": {"blue": ["Hook"]}}"#);
    let every_base: Vec<u8> = (11..=23).collect();
    assert_eq!(slots(&game, &s, "Hook"), every_base);
}

// ----- §14 Rulings A1–A24 ----------------------------------------------------------------------

#[test]
fn a1_kwak_covers_kwak_both_ways() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["red:Kwak"], "24": ["blue:Kwak"]},
        "racks": {"blue": ["Kwak"], "red": ["Kwak"]}}"#);
    play(&game, &mut s, &["place Kwak 11"]);
    assert!(slots(&game, &s, "Kwak").contains(&24));
    play(&game, &mut s, &["place Kwak 24"]);
    assert_eq!(stack(&game, &s, 24), ["blue:Kwak", "red:Kwak"]);
}

#[test]
fn a2_kwak_passes_every_pool_restriction() {
    let (game, s) = pos(POOL_BLUE_EVERYWHERE);
    let everywhere: Vec<u8> = (11..=23).chain([41]).collect();
    assert_eq!(slots(&game, &s, "Kwak"), everywhere);
}

#[test]
fn a3_pool_hq_restriction() {
    // Red reaches both blue HQs: HQ 1 takes any tile, HQ 2 only 6, 7 or Kwak.
    let (game, s) = pos(r#"{"terrain": "tropical_pool", "to_move": "red",
        "stacks": {"21": ["red:Roxy"], "17": ["red:Roxy"], "13": ["red:Roxy"],
                   "11": ["red:Star"]},
        "racks": {"red": ["Skully", "Star", "Kwak"]}}"#);
    let at = |troop| slots(&game, &s, troop);
    assert!(at("Skully").contains(&1) && !at("Skully").contains(&2));
    assert!(at("Star").contains(&1) && at("Star").contains(&2));
    assert!(at("Kwak").contains(&2));
    refuse(&game, &s, "place Skully 2");
}

#[test]
fn a4_hook_on_station_special_bases_only_when_connected() {
    let (game, s) = pos(r#"{"terrain": "station_metal_x", "to_move": "blue",
        "racks": {"blue": ["Hook"]}}"#);
    let not_special: Vec<u8> = (11..=23).filter(|n| !(16..=18).contains(n)).collect();
    assert_eq!(slots(&game, &s, "Hook"), not_special);
    let (game, s) = pos(STATION_11_15);
    let hook = slots(&game, &s, "Hook");
    assert!([16, 17, 18].iter().all(|n| hook.contains(n)));
}

#[test]
fn a5_kwak_stays_a_joker_on_station_special_bases() {
    let (game, s) = pos(r#"{"terrain": "station_metal_x", "to_move": "blue",
        "stacks": {"11": ["blue:Roxy"], "15": ["blue:Roxy"], "17": ["red:Roxy"]},
        "racks": {"blue": ["Kwak", "Star"]}}"#);
    assert!(slots(&game, &s, "Kwak").contains(&17));
    assert!(!slots(&game, &s, "Star").contains(&17));
}

#[test]
fn a6_each_special_placement_triggers_once_even_if_covered() {
    let (game, mut s) = pos(CASTLE_CAPN);
    play(&game, &mut s, &["place Capn 15", "place Roxy 15"]);
    assert_eq!(stack(&game, &s, 15), ["blue:Capn", "blue:Roxy"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::SpecialEffect { node: NodeId(15) }
    );
    play(&game, &mut s, &["decline"]);
    assert_eq!(
        (s.active(), phase(&game, &s)),
        (Blue, PositionPhase::SpecialEffect { node: NodeId(15) }),
        "the covered Cap'n's entry and the Roxy's entry each trigger"
    );
    play(&game, &mut s, &["decline"]);
    assert_eq!(s.active(), Red);
}

#[test]
fn a7_volcanic_move_destination_region_checked_before_origin() {
    // Red would reach 7 at the destination (region 2), blue 7 at the origin (region 5).
    let json = volcanic_double_completion(r#"{"blue": 4, "red": 5}"#, "[1, 3, 4, 6]");
    let (game, mut s) = pos(&json);
    play(&game, &mut s, &["place Hook 15", "move 18 15"]);
    assert_eq!(s.outcome(), won(Red, WinType::Medals));
    assert_eq!(
        (s.medals(Red), s.medals(Blue)),
        (7, 4),
        "the origin is never checked"
    );
}

#[test]
fn a8_a_freeze_can_block_a_player_who_then_loses_the_tie() {
    let (game, mut s) = battlefield(r#"["Capn", "Roxy"]"#, r#"["Star", "Roxy"]"#, "[]");
    play(
        &game,
        &mut s,
        &[
            "place Capn 14",
            "place Roxy 19",
            "use",
            "chance Roxy",
            "use",
            "chance Star",
        ],
    );
    assert_eq!(s.outcome(), won(Blue, WinType::Blocked));
    assert_eq!(s.active(), Red, "checked at the start of red's turn");
}

#[test]
fn a9_beginner_pool_has_no_restriction_at_all() {
    let (game, s) = pos(POOL_BLUE_EVERYWHERE);
    let game = Game::new(game.terrain_arc().clone(), Variant::Beginner);
    let everywhere: Vec<u8> = (11..=23).chain([41]).collect();
    for troop in ["Skully", "Jumbo", "Star", "Kwak"] {
        assert_eq!(slots(&game, &s, troop), everywhere, "{troop}");
    }
}

#[test]
fn a10_castle_return_never_from_the_triggering_base_rack_at_most_7() {
    // The rack holds 7 after the placement: the return is still allowed.
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "13": ["blue:Kwak"], "15": ["blue:Skully"]},
        "racks": {"blue": ["Roxy", "Roxy", "Roxy", "Star", "Star", "Star", "Hook", "Hook"]}}"#);
    play(&game, &mut s, &["place Roxy 15"]);
    assert_eq!(s.rack_len(Blue), 7);
    assert_eq!(legal(&game, &s), ["decline", "return 11", "return 13"]);
    refuse(&game, &s, "return 15");
}

#[test]
fn a11_castle_return_may_give_the_opponent_medals() {
    let (game, mut s) = castle_return_uncovers_red(0, "[]");
    play(&game, &mut s, &["place Roxy 15", "return 22"]);
    assert_eq!(stack(&game, &s, 22), ["red:Skully"]);
    assert_eq!((s.medals(Blue), s.medals(Red)), (0, 1));
    assert_eq!(regions_taken(&game, &s), [6]);
}

#[test]
fn a12_volcanic_move_destination_any_adjacent_base() {
    let (game, mut s) = pos(VOLCANIC_15);
    play(&game, &mut s, &["place Roxy 15", "move 12 11"]);
    // Onto blue's Roxy, whatever the strength, and no effect follows.
    assert_eq!(stack(&game, &s, 11), ["blue:Roxy", "red:Skully"]);
    assert_eq!((s.active(), phase(&game, &s)), (Red, ACTION));
    // Onto the special base itself.
    let (game, mut s) = pos(VOLCANIC_15);
    play(&game, &mut s, &["place Roxy 15", "move 18 15"]);
    assert_eq!(stack(&game, &s, 15), ["blue:Roxy", "red:Kwak"]);
    // Never an HQ: no HQ lies two steps from a Jungle special base.
    let t = game.terrain();
    for special in terrain::nodes(t.nodes_with(SpecialEffect::MoveAdjacentEnemy)) {
        let two_steps = t.neighbours_of(t.neighbours(special));
        assert_eq!(two_steps & (t.hqs[0] | t.hqs[1]), 0);
    }
}

#[test]
fn a13_freezes_pick_distinct_unfrozen_tiles_and_count_towards_8() {
    let (game, mut s) = battlefield(
        r#"["Capn", "Roxy"]"#,
        r#"["Star", "Roxy", "Kwak", "Kwak", "Kwak", "Skully", "Skully", "Skully"]"#,
        r#"["Hook"]"#,
    );
    play(
        &game,
        &mut s,
        &[
            "place Capn 14",
            "place Roxy 19",
            "use",
            "chance Roxy",
            "use",
        ],
    );
    assert_eq!(
        game.chance_outcomes(&s).to_vec(),
        [(Troop::Kwak, 3), (Troop::Skully, 3), (Troop::Star, 1)],
        "the frozen Roxy cannot be picked again"
    );
    play(&game, &mut s, &["chance Star"]);
    assert_eq!((s.active(), s.frozen_len(Red)), (Red, 2));
    // 8 tiles with 2 frozen: no DRAW; only Kwak and Skully can be placed.
    refuse(&game, &s, "draw");
    assert!(legal(&game, &s)
        .iter()
        .all(|d| d.starts_with("place Kwak") || d.starts_with("place Skully")));
    play(&game, &mut s, &["place Kwak 23"]);
    assert_eq!((s.active(), s.frozen_len(Red)), (Blue, 0));
}

#[test]
fn a14_skully_draws_one_when_only_one_fits() {
    let (game, mut s) = place_on_12("Skully", "[]", r#"["Star"]"#);
    play(&game, &mut s, &["draw"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::Chance(PositionChance::Draw(1))
    );
    play(&game, &mut s, &["chance Star"]);
    assert_eq!(s.active(), Red);
}

#[test]
fn a15_draw_action_takes_two_when_two_are_possible() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "reserves": {"blue": ["Star", "Jumbo"]}}"#);
    play(&game, &mut s, &["draw", "chance Star"]);
    refuse(&game, &s, "decline");
    assert_eq!(legal(&game, &s), ["chance Jumbo"]);
}

#[test]
fn a16_jumbo_any_value_never_a_covered_tile() {
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "15": ["red:Roxy"], "17": ["red:Kwak"],
                   "18": ["red:Skully", "blue:Hook"]},
        "racks": {"blue": ["Jumbo"]}}"#);
    play(&game, &mut s, &["place Jumbo 13"]);
    assert_eq!(legal(&game, &s), ["decline", "discard 15", "discard 17"]);
    refuse(&game, &s, "discard 18");
}

#[test]
fn a17_xb42_target_uniform_over_the_rack() {
    let (game, mut s) = place_on_12(
        "XB-42",
        r#"["Kwak", "Skully", "Skully", "Roxy"]"#,
        r#"["Star"]"#,
    );
    play(&game, &mut s, &["use"]);
    assert_eq!(
        game.chance_outcomes(&s).to_vec(),
        [(Troop::Kwak, 1), (Troop::Skully, 2), (Troop::Roxy, 1)]
    );
}

#[test]
fn a18_region_check_before_the_troop_effect() {
    // Jumbo on 18 would offer red's Roxy on 23, but the medals end the game first.
    let (game, mut s) = castle_18_completes_two_regions(r#"{"blue": 2}"#, "[2, 6]");
    play(&game, &mut s, &["place Jumbo 18"]);
    assert_eq!(s.outcome(), won(Blue, WinType::Medals));
    assert!(legal(&game, &s).is_empty());
}

#[test]
fn a19_regions_closed_by_an_hq_need_only_their_bases() {
    // Region 1 of Castle Field is closed off by blue HQ 1.
    let game = builtin("castle_field");
    let t = game.terrain();
    assert_eq!(ids(&game, t.regions[0].bases), [11, 12, 13, 14, 18]);
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Kwak"], "12": ["blue:Kwak"], "13": ["blue:Kwak"],
                   "14": ["blue:Skully"]},
        "racks": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Roxy 18"]);
    assert_eq!((s.medals(Blue), regions_taken(&game, &s)), (3, vec![1]));
}

#[test]
fn a20_first_player_independent_of_colour() {
    let blue_first = (0..200)
        .filter(|&seed| Deal::from_seed(seed).first == Blue)
        .count();
    assert!((60..=140).contains(&blue_first), "{blue_first} of 200");
}

#[test]
fn a21_disconnected_tiles_keep_full_occupying_power() {
    // Blue's 15 and 17 are cut off (13 empty); placing on 13 still completes region 2.
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "blue",
        "stacks": {"11": ["blue:Roxy"], "15": ["blue:Skully"], "17": ["blue:Skully"]},
        "racks": {"blue": ["Roxy"]}}"#);
    play(&game, &mut s, &["place Roxy 13"]);
    assert_eq!(s.medals(Blue), 1);
}

#[test]
fn a22_tiles_returned_to_a_rack_are_public() {
    let (game, mut s) = pos(r#"{"terrain": "cursed_cemetery", "to_move": "blue",
        "stacks": {"11": ["blue:Roxy"]}, "racks": {"blue": ["Roxy"]},
        "discard": {"blue": ["Star"]}}"#);
    play(&game, &mut s, &["place Roxy 14", "recover Star"]);
    assert_eq!(
        Observation::new(&s, Red).opponent_public_rack(),
        counts(&[Troop::Star])
    );
    // Once placed again it is no longer a rack tile anyone knows of.
    play(&game, &mut s, &["draw", "chance Kwak", "chance Kwak"]);
    play(&game, &mut s, &["place Star 13", "decline"]);
    assert_eq!(s.public_rack(Blue), TroopCounts::EMPTY);
}

#[test]
fn a23_both_sides_share_one_objective() {
    // Red reaches 7 on Castle Field exactly as blue does (r8_5).
    let (game, mut s) = pos(r#"{"terrain": "castle_field", "to_move": "red",
        "stacks": {"18": ["red:Kwak"], "23": ["red:Kwak"], "24": ["red:Kwak"],
                   "25": ["red:Roxy"]},
        "racks": {"red": ["Roxy"]}, "medals": {"red": 4}, "regions_taken": [2, 3, 6, 7]}"#);
    play(&game, &mut s, &["place Roxy 22"]);
    assert_eq!(s.outcome(), won(Red, WinType::Medals));
    assert_eq!(s.medals(Red), game.terrain().medals_to_win);
}

#[test]
fn a24_frozen_tiles_count_towards_the_rack_limit() {
    let (game, mut s) = pos(r#"{"terrain": "battlefield", "to_move": "blue",
        "racks": {"blue": ["Skully", "Roxy", "Roxy", "Roxy", "Star", "Star", "Star", "Hook"]},
        "frozen": {"blue": ["Roxy", "Roxy"]},
        "reserves": {"blue": ["Jumbo", "Jumbo"]}}"#);
    refuse(&game, &s, "draw");
    play(&game, &mut s, &["place Skully 12", "draw"]);
    assert_eq!(
        phase(&game, &s),
        PositionPhase::Chance(PositionChance::Draw(1)),
        "7 tiles, 2 of them frozen: room for one"
    );
}
