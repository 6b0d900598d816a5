//! What the human is shown: built from their [`Observation`] and public facts only.
//!
//! [`HumanView::new`] takes no `State`, `Referee` or `Deal`: whatever it holds came through the
//! observation (which has the opponent's hidden rack, both reserves' order and contents and the
//! removed tiles erased) or is public (the log of steps with hidden chance outcomes masked, the
//! level, the result). So no view can carry hidden information, whatever its caller does.

use super::Level;
use crate::info::Observation;
use crate::record::notes::HintCandidate;
use crate::rules::{Colour, Deal, Decision, DecisionList, Game, Phase, State, Troop, Variant};
use crate::terrain::{bits, NodeIndex};
use serde::Serialize;

/// A value for each colour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sides<T> {
    /// Blue's value.
    pub blue: T,
    /// Red's value.
    pub red: T,
}

impl<T> Sides<T> {
    fn of(f: impl Fn(Colour) -> T) -> Sides<T> {
        Sides {
            blue: f(Colour::Blue),
            red: f(Colour::Red),
        }
    }
}

/// Who takes the next step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToMove {
    /// The human decides: see [`super::Session::legal`].
    Human,
    /// The bot decides: call [`super::Session::advance`].
    Bot,
    /// A chance event is pending: call [`super::Session::advance`].
    Chance,
    /// The game is over.
    Over,
}

/// A tile on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TileView {
    /// Whose tile it is.
    pub colour: Colour,
    /// Its troop (public once on the board).
    pub troop: Troop,
}

/// A node of the terrain with its stack (every tile on the board is public, R11.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeView {
    /// The node id of the terrain (as in `toybattle show`).
    pub id: u8,
    /// Bottom tile first, top tile last; empty when nobody has placed here.
    pub stack: Vec<TileView>,
}

/// What the human knows of the bot's rack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpponentRack {
    /// Tiles on the rack.
    pub count: u8,
    /// Tiles whose troop is public (they came from the board or the discard, R11.1).
    pub known: Vec<Troop>,
    /// How many of its tiles are frozen (which ones, the human does not know, R9.8).
    pub frozen: u8,
}

/// One step of the game as the human saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// Index of the step in the game (from 0).
    pub step: usize,
    /// The turn it was taken in, from 1.
    pub turn: u16,
    /// Who took it; `None` for a chance event resolved by the referee.
    pub actor: Option<Colour>,
    /// The step in notation; a chance outcome the human did not see reads `chance ?`.
    pub text: String,
    /// What the step answered, in words, e.g. "red draws (2 to draw)".
    pub during: String,
}

/// The human's estimated chance to win at a step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WinPoint {
    /// Steps played when the estimate was made.
    pub step: usize,
    /// The turn then, from 1.
    pub turn: u16,
    /// The human's win probability, 0 to 1, read from the human's own observation by one
    /// search ([`crate::review::estimate`]); 1 or 0 once the game is over.
    pub human: f64,
}

/// A region whose medals have been taken (R8): by whom and when. Public: every player sees the
/// board when a region is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TakenRegion {
    /// The region id, as in the terrain file.
    pub id: u8,
    /// The player who took its medals.
    pub by: Colour,
    /// The medals it gave.
    pub medals: u8,
    /// The turn it was taken in, from 1.
    pub turn: u16,
}

/// The regions taken by the step from `before` to `after`, added to `out`. The taker is read
/// from `after`'s board: at the moment of taking, the taker's tiles top every base of the region,
/// and nothing else happens in the same step (a step that takes two regions, as a move that
/// completes one for each player, names each region's own taker).
pub fn note_taken_regions(game: &Game, before: &State, after: &State, out: &mut Vec<TakenRegion>) {
    let t = game.terrain();
    for r in bits(after.regions_taken() & !before.regions_taken()) {
        let region = &t.regions[r];
        let by = bits(region.bases)
            .find_map(|n| after.board().top(NodeIndex::new(n)))
            .map(|tile| tile.colour());
        if let Some(by) = by {
            out.push(TakenRegion {
                id: region.id,
                by,
                medals: region.medals,
                turn: after.turn(),
            });
        }
    }
}

/// The regions taken in a line of play from `deal`'s start, in the order they were taken. The
/// referee's states are replayed, but only who took which region (public) comes out.
pub(super) fn taken_regions(
    game: &Game,
    deal: &Deal,
    line: impl Iterator<Item = Decision>,
) -> Vec<TakenRegion> {
    let mut out = Vec::new();
    let mut state = game.initial_state(deal);
    for d in line {
        let before = state;
        if game.apply(&mut state, d).is_err() {
            break; // the session's line was legal when played; nothing to name past an error
        }
        note_taken_regions(game, &before, &state, &mut out);
    }
    out
}

/// How many of a hint's candidates are shown at once (on the board, at the top of the list).
pub const HINT_SHOWN: usize = 3;

/// A hint's candidates in the order a player reads them (see [`hint_order`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HintOrder {
    /// The candidates the search tried often enough for their chances to mean something (at
    /// least a tenth of the most-tried one's visits), best chances first.
    pub tried: Vec<HintCandidate>,
    /// The others, tried too rarely for their chances to be trusted, most tried first.
    pub rarely: Vec<HintCandidate>,
}

/// Orders a hint for a player: a search lists its candidates by visits, and a rarely tried one
/// can show high chances on a few lucky playouts (a 94% candidate of 30 visits below a 69% one
/// of 9,000). So the candidates tried at least a tenth as often as the most-tried one come
/// first, best chances first (ties: more visits first); the rest follow, most tried first. The
/// first [`HINT_SHOWN`] of `tried` are the ones shown on the board.
pub fn hint_order(candidates: &[HintCandidate]) -> HintOrder {
    let most = candidates.iter().map(|c| c.visits).max().unwrap_or(0);
    let (mut tried, mut rarely): (Vec<HintCandidate>, Vec<HintCandidate>) = candidates
        .iter()
        .cloned()
        .partition(|c| c.visits * 10 >= most);
    tried.sort_by(|a, b| b.value.total_cmp(&a.value).then(b.visits.cmp(&a.visits)));
    rarely.sort_by_key(|c| std::cmp::Reverse(c.visits));
    HintOrder { tried, rarely }
}

/// Whether [`super::Session::undo`] would take something back now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UndoStatus {
    /// Whether undo would take back a decision of the human now.
    pub available: bool,
    /// Why not, in words, when it is not available.
    pub reason: Option<String>,
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultView {
    /// The player who won (the bot when the human resigned); `None` for a void game.
    pub winner: Option<Colour>,
    /// "hq", "medals", "blocked", "resign", or "void" (a copy of the game showed its deal,
    /// see [`crate::session::ShownDeals`]).
    pub end: String,
}

/// Everything the human may see, serialisable for an interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HumanView {
    /// Terrain key, e.g. "castle_field".
    pub terrain: String,
    /// Terrain name for people, e.g. "Castle Field".
    pub terrain_name: String,
    /// Normal game or beginner game (§13).
    pub variant: Variant,
    /// The bot's play level.
    pub level: Level,
    /// The human's colour.
    pub human: Colour,
    /// The bot's colour.
    pub bot: Colour,
    /// The first player of the game.
    pub first: Colour,
    /// Turns begun.
    pub turn: u16,
    /// The player the pending step belongs to (the drawing player during a draw).
    pub active: Colour,
    /// Who takes the next step: human, bot, chance, or nobody once the game is over.
    pub to_move: ToMove,
    /// The pending step in words, e.g. "blue chooses the action (turn 3)".
    pub phase: String,
    /// Every node of the terrain, in id order.
    pub nodes: Vec<NodeView>,
    /// The human's rack, frozen tiles included.
    pub rack: Vec<Troop>,
    /// The human's frozen rack tiles (R9.8): they cannot be placed this turn.
    pub frozen: Vec<Troop>,
    /// What the human knows of the bot's rack: its size, its public tiles, how many are frozen.
    pub opponent_rack: OpponentRack,
    /// Tiles left in each reserve.
    pub reserve: Sides<u8>,
    /// Each colour's discard (public).
    pub discard: Sides<Vec<Troop>>,
    /// Tiles of each colour whose place the human does not know: for the human, reserve and
    /// removed tiles together; for the bot, its hidden rack tiles, reserve and removed tiles.
    pub unseen: Sides<Vec<Troop>>,
    /// Medals each colour has taken.
    pub medals: Sides<u8>,
    /// Medals a player needs to win on this terrain (R2.4).
    pub medals_to_win: u8,
    /// Ids of the regions whose medals have been taken (R8).
    pub regions_taken: Vec<u8>,
    /// The regions taken, in the order they were taken, each with its taker and medals.
    pub taken_regions: Vec<TakenRegion>,
    /// How the game ended; `None` while it goes on.
    pub result: Option<ResultView>,
    /// Every step so far.
    pub log: Vec<LogEntry>,
    /// The human's estimated win probability at the start of each turn, and once more when
    /// the rules end the game.
    pub win_history: Vec<WinPoint>,
    /// Whether the human can undo now, and why not.
    pub undo: UndoStatus,
    /// The human's legal decisions, grouped by kind and troop (or a move's origin); empty
    /// unless [`ToMove::Human`].
    pub decisions: Vec<DecisionGroup>,
    /// What the bot weighed at each of its decisions: empty until the game is over (the
    /// candidates name the bot's hidden rack tiles), then one entry per bot decision.
    pub bot_thoughts: Vec<BotThought>,
}

/// What the bot weighed at one of its decisions, shown once the game is over.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotThought {
    /// Index of the bot's decision among the game's steps (from 0).
    pub step: usize,
    /// The decision it took, in notation.
    pub decision: String,
    /// Iterations its search ran (0 for a level that does not search or a forced decision).
    pub iterations: u64,
    /// Its best candidates, best first (at most five; none without a search).
    pub candidates: Vec<BotCandidate>,
}

/// One candidate decision of the bot's search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotCandidate {
    /// The decision in notation.
    pub decision: String,
    /// How often the search tried it.
    pub visits: u64,
    /// The bot's estimated win probability after it, 0 to 1.
    pub win: f64,
}

/// The public facts a view holds besides the observation.
pub(super) struct PublicFacts {
    pub level: Level,
    pub to_move: ToMove,
    pub result: Option<ResultView>,
    pub taken_regions: Vec<TakenRegion>,
    pub log: Vec<LogEntry>,
    pub win_history: Vec<WinPoint>,
    pub undo: UndoStatus,
    pub bot_thoughts: Vec<BotThought>,
}

impl HumanView {
    /// The view of the human who observes `obs`.
    pub(super) fn new(game: &Game, obs: &Observation, facts: PublicFacts) -> HumanView {
        let terrain = game.terrain();
        let human = obs.observer();
        let bot = human.opponent();
        let board = obs.board();
        let nodes = terrain
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| NodeView {
                id: n.id.get(),
                stack: board
                    .stack(NodeIndex::new(i))
                    .map(|t| TileView {
                        colour: t.colour(),
                        troop: t.troop(),
                    })
                    .collect(),
            })
            .collect();
        HumanView {
            terrain: terrain.key.clone(),
            terrain_name: terrain.name.clone(),
            variant: game.variant(),
            level: facts.level,
            human,
            bot,
            first: obs.first_player(),
            turn: obs.turn(),
            active: obs.active(),
            to_move: facts.to_move,
            phase: game.describe_phase(obs.view()),
            nodes,
            rack: obs.rack().to_vec(),
            frozen: obs.frozen().to_vec(),
            opponent_rack: OpponentRack {
                count: obs.rack_len(bot),
                known: obs.opponent_public_rack().to_vec(),
                frozen: obs.frozen_len(bot),
            },
            reserve: Sides::of(|c| obs.reserve_len(c)),
            discard: Sides::of(|c| obs.discard(c).to_vec()),
            unseen: Sides::of(|c| obs.unseen(c).to_vec()),
            medals: Sides::of(|c| obs.medals(c)),
            medals_to_win: terrain.medals_to_win,
            regions_taken: bits(obs.regions_taken())
                .map(|r| terrain.regions[r].id)
                .collect(),
            result: facts.result,
            taken_regions: facts.taken_regions,
            log: facts.log,
            win_history: facts.win_history,
            undo: facts.undo,
            bot_thoughts: facts.bot_thoughts,
            decisions: match facts.to_move {
                ToMove::Human => {
                    let mut legal = DecisionList::new();
                    obs.legal_decisions(game, &mut legal);
                    group(game, &legal)
                }
                _ => Vec::new(),
            },
        }
    }
}

/// What a group of decisions does, for a click interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupKind {
    /// The DRAW action, or accepting a draw (Skully, Star, City of Clouds).
    Draw,
    /// Placing one troop of the rack: its options are the nodes (also Cap'n's extra tile).
    Place,
    /// Refusing an optional effect.
    Decline,
    /// Accepting XB-42 or Battlefield (the target is then drawn by chance).
    Use,
    /// Jumbo: the base whose top tile is discarded.
    Discard,
    /// Castle Field: the base whose top tile returns to the rack.
    Return,
    /// Volcanic Jungle: moving the enemy top tile of one base (`from`) to an adjacent base.
    Move,
    /// Cursed Cemetery: the troop taken back from the discard.
    Recover,
}

/// One legal decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DecisionOption {
    /// The decision in notation, as [`super::Session::apply`] takes it.
    pub notation: String,
    /// The node it targets (placement, discard, return, move destination), by id.
    pub node: Option<u8>,
    /// The troop it takes back (recover).
    pub troop: Option<Troop>,
}

/// The human's legal decisions of one kind (and one troop, or one source node), in the order
/// of the rules' legal list; numbering the options of all groups in order from 1 gives the
/// numbers `toybattle play` shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DecisionGroup {
    /// What the group's decisions do.
    pub kind: GroupKind,
    /// In words, e.g. "place Jumbo", "move from 14".
    pub label: String,
    /// The troop placed, for `place`.
    pub troop: Option<Troop>,
    /// The node the tile moves from, for `move` (id).
    pub from: Option<u8>,
    /// The group's decisions, in the order of the rules' legal list.
    pub options: Vec<DecisionOption>,
}

/// Groups a legal list: consecutive decisions of the same kind (and troop or source) together.
pub(super) fn group(game: &Game, legal: &DecisionList) -> Vec<DecisionGroup> {
    let terrain = game.terrain();
    let id = |n: NodeIndex| terrain.id_of(n).get();
    let mut groups: Vec<DecisionGroup> = Vec::new();
    for &d in legal {
        let (kind, troop, from, node, recovered) = match d {
            Decision::Draw => (GroupKind::Draw, None, None, None, None),
            Decision::Decline => (GroupKind::Decline, None, None, None, None),
            Decision::Use => (GroupKind::Use, None, None, None, None),
            Decision::Place { troop, node } => {
                (GroupKind::Place, Some(troop), None, Some(id(node)), None)
            }
            Decision::Discard { node } => (GroupKind::Discard, None, None, Some(id(node)), None),
            Decision::Return { node } => (GroupKind::Return, None, None, Some(id(node)), None),
            Decision::Move { from, to } => {
                (GroupKind::Move, None, Some(id(from)), Some(id(to)), None)
            }
            Decision::Recover { troop } => (GroupKind::Recover, None, None, None, Some(troop)),
            Decision::Chance(_) => continue, // never the human's
        };
        let option = DecisionOption {
            notation: d.notation(terrain),
            node,
            troop: recovered,
        };
        match groups.last_mut() {
            Some(g) if g.kind == kind && g.troop == troop && g.from == from => {
                g.options.push(option)
            }
            _ => groups.push(DecisionGroup {
                kind,
                label: label(kind, troop, from),
                troop,
                from,
                options: vec![option],
            }),
        }
    }
    groups
}

fn label(kind: GroupKind, troop: Option<Troop>, from: Option<u8>) -> String {
    match kind {
        GroupKind::Place => format!("place {}", troop.map_or("", |t| t.name())),
        GroupKind::Move => format!("move from {}", from.unwrap_or(0)),
        GroupKind::Draw => "draw".into(),
        GroupKind::Decline => "decline".into(),
        GroupKind::Use => "use".into(),
        GroupKind::Discard => "discard".into(),
        GroupKind::Return => "return".into(),
        GroupKind::Recover => "recover".into(),
    }
}

/// Whether the human sees the outcome of the chance event pending in `phase`, where `active`
/// is the player whose step caused it (R11): their own draw; any XB-42 discard (the tile goes
/// to the public discard); a Battlefield freeze of their own rack. Not the bot's draws, nor
/// which of the bot's tiles the human's Battlefield froze (R9.8).
pub(super) fn human_sees(phase: Phase, active: Colour, human: Colour) -> bool {
    use crate::rules::Chance;
    match phase {
        Phase::Chance(Chance::Draw { .. }) => active == human,
        Phase::Chance(Chance::RackDiscard) => true,
        Phase::Chance(Chance::Freeze) => active != human,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(decision: &str, visits: u64, value: f64) -> HintCandidate {
        HintCandidate {
            decision: decision.into(),
            visits,
            value,
        }
    }

    /// A 94% candidate of 30 visits does not come before a 69% one of 9,000 (issue 30): the
    /// candidates tried often come first, best chances first.
    #[test]
    fn a_hint_lists_the_often_tried_candidates_by_chances_then_the_rare_ones() {
        let order = hint_order(&[
            candidate("place Roxy 24", 9000, 0.69),
            candidate("place Star 13", 30, 0.94),
            candidate("draw", 5000, 0.75),
            candidate("place Kwak 12", 800, 0.70),
            candidate("place Hook 14", 200, 0.40),
        ]);
        let names = |v: &[HintCandidate]| v.iter().map(|c| c.decision.clone()).collect::<Vec<_>>();
        assert_eq!(names(&order.tried), ["draw", "place Roxy 24"]);
        assert_eq!(
            names(&order.rarely),
            ["place Kwak 12", "place Hook 14", "place Star 13"]
        );
        assert_eq!(
            hint_order(&[]),
            HintOrder {
                tried: vec![],
                rarely: vec![]
            }
        );
    }
}
