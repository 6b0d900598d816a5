//! A player's observation (information set) and determinization.

use super::RackEvidence;
use crate::rules::tile::TILES_PER_COLOUR;
use crate::rules::{Board, Colour, DecisionList, Game, Phase, State, Troop, TroopCounts};
use crate::terrain::{NodeIndex, MAX_NODES};
use crate::vocabulary::ByColour;
use rand::Rng;

/// What one player knows (R11): everything public, their own rack, and the sizes — never the
/// contents — of the opponent's rack, both reserves and both sets of removed tiles.
///
/// Built from a [`State`] by hiding what the observer may not see; the hidden parts are erased,
/// not merely hidden behind accessors, so two states that differ only in what the observer
/// cannot know give equal observations. Bots are handed observations only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    observer: Colour,
    /// The state with every hidden multiset erased (sizes kept).
    view: State,
    /// Tiles of each colour the observer cannot place: for the observer, reserve ∪ removed;
    /// for the opponent, rack (less what is public) ∪ reserve ∪ removed (R11.3).
    unseen: ByColour<TroopCounts>,
    /// What the opponent's play has shown about their rack; none unless given.
    evidence: RackEvidence,
}

impl Observation {
    /// The observation of `observer` in `state`.
    pub fn new(state: &State, observer: Colour) -> Observation {
        let me = observer;
        let them = observer.opponent();
        let view = state.hidden_from(observer);
        let on_board = board_census(state.board());
        let mut unseen = ByColour::<TroopCounts>::default();
        let seen_own = state.rack(me).plus(&on_board[me]).plus(&state.discard(me));
        let seen_theirs = state
            .public_rack(them)
            .plus(&on_board[them])
            .plus(&state.discard(them));
        unseen[me] = TroopCounts::FULL
            .minus(&seen_own)
            .expect("consistent state");
        unseen[them] = TroopCounts::FULL
            .minus(&seen_theirs)
            .expect("consistent state");
        Observation {
            observer,
            view,
            unseen,
            evidence: RackEvidence::NONE,
        }
    }

    /// The same observation with `evidence` about the opponent's rack, as kept by an
    /// [`EvidenceTracker`](super::EvidenceTracker) over the game so far.
    pub fn with_evidence(mut self, evidence: RackEvidence) -> Observation {
        self.evidence = evidence;
        self
    }

    /// What the opponent's play has shown about their rack.
    pub fn opponent_evidence(&self) -> RackEvidence {
        self.evidence
    }

    /// The state with every hidden multiset erased: for rules queries on public facts.
    pub(crate) fn view(&self) -> &State {
        &self.view
    }

    /// The player whose view this is.
    pub fn observer(&self) -> Colour {
        self.observer
    }
    /// What the game is waiting for.
    pub fn phase(&self) -> Phase {
        self.view.phase()
    }
    /// The player whose turn it is.
    pub fn active(&self) -> Colour {
        self.view.active()
    }
    /// Turns begun so far, counting from 1.
    pub fn turn(&self) -> u16 {
        self.view.turn()
    }
    /// The player who took the first turn (R3.5).
    pub fn first_player(&self) -> Colour {
        self.view.first_player()
    }
    /// The terrain's stacks of tiles; all public (R11.1).
    pub fn board(&self) -> &Board {
        self.view.board()
    }
    /// The observer's own rack.
    pub fn rack(&self) -> TroopCounts {
        self.view.rack(self.observer)
    }
    /// The observer's own frozen tiles.
    pub fn frozen(&self) -> TroopCounts {
        self.view.frozen(self.observer)
    }
    /// Tiles of the opponent's rack whose identity is public (R11.1).
    pub fn opponent_public_rack(&self) -> TroopCounts {
        self.view.public_rack(self.observer.opponent())
    }
    /// How many tiles are on the rack of `c`, frozen ones included (public, R11.1).
    pub fn rack_len(&self, c: Colour) -> u8 {
        self.view.rack_len(c)
    }
    /// How many tiles are in the reserve of `c` (public).
    pub fn reserve_len(&self, c: Colour) -> u8 {
        self.view.reserve_len(c)
    }
    /// How many rack tiles of `c` are frozen by Battlefield (R9.8).
    pub fn frozen_len(&self, c: Colour) -> u8 {
        self.view.frozen_len(c)
    }
    /// The discard of `c`: face-up tiles out of play (public).
    pub fn discard(&self, c: Colour) -> TroopCounts {
        self.view.discard(c)
    }
    /// Medals taken by `c` (R8.2).
    pub fn medals(&self, c: Colour) -> u8 {
        self.view.medals(c)
    }
    /// Regions whose medals have been taken, one bit per region of the terrain (R8.4).
    pub fn regions_taken(&self) -> u32 {
        self.view.regions_taken()
    }
    /// Tiles of colour `c` whose place the observer does not know (see the field's doc).
    pub fn unseen(&self, c: Colour) -> TroopCounts {
        self.unseen[c]
    }
    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.view.is_over()
    }

    /// Whether the observer has a decision to make now.
    pub fn is_my_decision(&self) -> bool {
        !self.view.is_over() && !self.view.is_chance() && self.view.active() == self.observer
    }

    /// The observer's legal decisions. They depend only on what the observer knows, so they are
    /// exactly those of the true state. Empty when it is not the observer's decision.
    pub fn legal_decisions(&self, game: &Game, out: &mut DecisionList) {
        out.clear();
        if self.is_my_decision() {
            game.legal_decisions(&self.view, out);
        }
    }

    /// A full state consistent with this observation, the unseen tiles dealt uniformly at random
    /// into the places whose sizes are known: the observer's reserve and removed tiles; the
    /// opponent's unknown rack tiles, reserve and removed tiles; the opponent's frozen tiles
    /// among their rack.
    pub fn determinize<R: Rng>(&self, rng: &mut R) -> State {
        self.determinize_with(&RackBelief::UNIFORM, rng)
    }

    /// As [`Observation::determinize`], but the opponent's unknown rack tiles are drawn from
    /// their unseen tiles with the troop weights of `belief` (without replacement), the rest of
    /// the unseen tiles going uniformly to their reserve and removed tiles. Every state it
    /// returns is consistent with the observation; only the odds of each change.
    pub fn determinize_with<R: Rng>(&self, belief: &RackBelief, rng: &mut R) -> State {
        let them = self.observer.opponent();
        let mut s = self.own_dealt(rng);
        let mut pool = Pool::new(self.unseen[them]);
        let public = s.public_rack(them);
        let hidden_rack = (s.rack_len(them) - public.total()) as usize;
        // Held tiles first, from the troops the evidence allows (all, when it cannot be met:
        // an opponent that missed a win) with the odds their choice gave, then the rest of the
        // hidden rack from any troop.
        let barred = match belief.trusts_evidence {
            true => self.evidence.barred(),
            false => 0,
        };
        let held = match belief.trusts_evidence || belief.held.is_some() {
            true => self.evidence.held() as usize,
            false => 0,
        };
        let held_weights = belief.held.as_ref().unwrap_or(&belief.weights);
        let held = pool.take_weighted(held.min(hidden_rack), !barred, held_weights, rng);
        let rest = pool.take_weighted(
            hidden_rack - held.total() as usize,
            ALL_TROOPS,
            &belief.weights,
            rng,
        );
        let rack = public.plus(&held).plus(&rest);
        let reserve = pool.take(s.reserve_len(them) as usize, rng);
        let removed = pool.rest();
        let frozen_len = s.frozen_len(them) as usize;
        let frozen = if frozen_len > 0 {
            Pool::new(rack).take(frozen_len, rng)
        } else {
            TroopCounts::EMPTY
        };
        s.fill_hidden(them, rack, frozen, reserve, removed);
        s
    }

    /// As [`Observation::determinize`], but the opponent's rack is `rack`, of which `frozen`
    /// are frozen: only the reserves and removed tiles are dealt. This is what a player who
    /// had seen the opponent's rack would know; a cheating reference deals with it to measure
    /// what the rack alone is worth (`results/learning.md`). `None` when the observation does
    /// not allow that rack: another size, public tiles or frozen count, or tiles that are not
    /// among the opponent's unseen ones.
    pub fn determinize_knowing_rack<R: Rng>(
        &self,
        rack: TroopCounts,
        frozen: TroopCounts,
        rng: &mut R,
    ) -> Option<State> {
        let them = self.observer.opponent();
        let mut s = self.own_dealt(rng);
        let hidden = rack.minus(&s.public_rack(them))?;
        let allowed = rack.total() == s.rack_len(them)
            && frozen.total() == s.frozen_len(them)
            && rack.contains(&frozen);
        let rest = self.unseen[them].minus(&hidden).filter(|_| allowed)?;
        let mut pool = Pool::new(rest);
        let reserve = pool.take(s.reserve_len(them) as usize, rng);
        s.fill_hidden(them, rack, frozen, reserve, pool.rest());
        Some(s)
    }

    /// The view with the observer's own reserve and removed tiles dealt from their unseen
    /// tiles; the opponent's hidden places are still to fill.
    fn own_dealt<R: Rng>(&self, rng: &mut R) -> State {
        let mut s = self.view;
        let me = self.observer;
        let mut pool = Pool::new(self.unseen[me]);
        let reserve = pool.take(s.reserve_len(me) as usize, rng);
        s.fill_hidden(me, s.rack(me), s.frozen(me), reserve, pool.rest());
        s
    }
}

/// A rack weight outside 1 to [`RackBelief::MAX_WEIGHT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "rack weight {weight} for {troop} is out of range: expected 1 to {}",
    RackBelief::MAX_WEIGHT
)]
pub struct RackWeightError {
    /// The troop whose weight was refused.
    pub troop: Troop,
    /// The weight given.
    pub weight: u32,
}

/// Relative odds, per troop, that an unseen tile of the opponent is on their rack rather than
/// in their reserve or among the removed tiles: players keep some troops on the rack longer than
/// others, so the rack is not a uniform sample of the unseen tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackBelief {
    /// Weight per troop (`Troop::index` order), each 1 to [`RackBelief::MAX_WEIGHT`].
    weights: [u32; 8],
    /// The weights of the tiles held through the opponent's latest turn
    /// ([`RackEvidence::held`]), when their choice of action changed them (each at least 1);
    /// `weights` otherwise.
    held: Option<[u32; 8]>,
    /// Whether the observation's [`RackEvidence`] is trusted: the held tiles are then dealt
    /// only from the troops it does not bar.
    trusts_evidence: bool,
}

impl RackBelief {
    /// Largest accepted weight.
    pub const MAX_WEIGHT: u32 = 1000;
    /// Every unseen tile equally likely to be on the rack.
    pub const UNIFORM: RackBelief = RackBelief {
        weights: [1; 8],
        held: None,
        trusts_evidence: false,
    };

    /// A belief from per-troop weights, or an error naming the troop whose weight is outside
    /// 1 to [`RackBelief::MAX_WEIGHT`].
    pub fn new(weights: [u32; 8]) -> Result<RackBelief, RackWeightError> {
        for troop in Troop::ALL {
            let weight = weights[troop.index()];
            if !(1..=Self::MAX_WEIGHT).contains(&weight) {
                return Err(RackWeightError { troop, weight });
            }
        }
        Ok(RackBelief {
            weights,
            held: None,
            trusts_evidence: false,
        })
    }

    /// The same belief, also trusting what the opponent's play has shown (see
    /// [`RackEvidence`]): right against players who never miss an immediate win.
    pub fn trusting_evidence(self) -> RackBelief {
        RackBelief {
            trusts_evidence: true,
            ..self
        }
    }

    /// The same belief, with the tiles held through the opponent's latest turn dealt with their
    /// weights times `odds` (per troop, 0 to 1: what the opponent's choice of action says, see
    /// [`TurnChoice`](super::TurnChoice)). Odds keep three more digits than the weights, so a
    /// troop at odds 0.01 is still dealt a hundredth as often; none falls to 0.
    pub fn with_held_odds(self, odds: [f64; 8]) -> RackBelief {
        let scale = f64::from(Self::HELD_SCALE);
        let held = std::array::from_fn(|t| {
            let w = f64::from(self.weights[t]) * scale * odds[t].clamp(0.0, 1.0);
            (w.round() as u32).max(1)
        });
        RackBelief {
            held: Some(held),
            ..self
        }
    }

    /// How many times finer held weights are than `weights`.
    const HELD_SCALE: u32 = 1000;
}

/// Every troop, as a mask over `Troop::index`.
const ALL_TROOPS: u8 = 0xFF;

/// Tiles of each colour on the board.
fn board_census(board: &Board) -> ByColour<TroopCounts> {
    let mut out = ByColour::<TroopCounts>::default();
    for n in 0..MAX_NODES {
        for t in board.stack(NodeIndex::new(n)) {
            out[t.colour()].add(t.troop());
        }
    }
    out
}

/// A multiset of tiles dealt out at random without replacement.
struct Pool {
    tiles: [Troop; TILES_PER_COLOUR as usize],
    len: usize,
}

impl Pool {
    fn new(counts: TroopCounts) -> Pool {
        let mut tiles = [Troop::Kwak; TILES_PER_COLOUR as usize];
        let mut len = 0;
        for t in Troop::ALL {
            for _ in 0..counts.get(t) {
                tiles[len] = t;
                len += 1;
            }
        }
        Pool { tiles, len }
    }

    /// Takes `k` tiles uniformly at random.
    fn take<R: Rng>(&mut self, k: usize, rng: &mut R) -> TroopCounts {
        debug_assert!(k <= self.len, "taking {k} of {}", self.len);
        let mut out = TroopCounts::EMPTY;
        for _ in 0..k {
            out.add(self.remove(rng.random_range(0..self.len)));
        }
        out
    }

    /// Removes and returns tile `j`; the last tile takes its place.
    fn remove(&mut self, j: usize) -> Troop {
        let t = self.tiles[j];
        self.len -= 1;
        self.tiles[j] = self.tiles[self.len];
        t
    }

    /// Takes up to `k` tiles of the troops in `allowed` (bit `Troop::index`), each pick with
    /// odds proportional to its troop's weight in `weights`; fewer when the allowed ones run
    /// out.
    fn take_weighted<R: Rng>(
        &mut self,
        k: usize,
        allowed: u8,
        weights: &[u32; 8],
        rng: &mut R,
    ) -> TroopCounts {
        if *weights == [1; 8] && allowed == ALL_TROOPS {
            return self.take(k, rng); // the same random stream as before beliefs existed
        }
        let weight = |t: Troop| weights[t.index()] * ((allowed >> t.index()) & 1) as u32;
        let mut out = TroopCounts::EMPTY;
        for _ in 0..k {
            let total: u32 = self.tiles[..self.len].iter().map(|&t| weight(t)).sum();
            if total == 0 {
                break;
            }
            let mut x = rng.random_range(0..total);
            let mut j = 0;
            while x >= weight(self.tiles[j]) {
                x -= weight(self.tiles[j]);
                j += 1;
            }
            out.add(self.remove(j));
        }
        out
    }

    fn rest(&self) -> TroopCounts {
        TroopCounts::from_troops(self.tiles[..self.len].iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Deal, Setup, Variant};
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    const BLUE: Colour = Colour::Blue;
    const RED: Colour = Colour::Red;

    /// An opening with red to act: blue, who observes, has seen none of red's rack. On
    /// Battlefield, where a rack may hold frozen tiles (R9.8).
    fn opening() -> (Game, State) {
        let game = Game::builtin("battlefield", Variant::Normal).unwrap();
        let deal = Deal::from_seed(4).with_first(RED);
        let s = game.initial_state(&deal);
        (game, s)
    }

    /// The state of `setup`, which must be valid.
    fn state(game: &Game, setup: &Setup) -> State {
        game.state_from_setup(setup)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Some troop of `a` that differs from some troop of `b`, as a pair.
    fn distinct_pair(a: TroopCounts, b: TroopCounts) -> (Troop, Troop) {
        a.to_vec()
            .into_iter()
            .flat_map(|x| b.to_vec().into_iter().map(move |y| (x, y)))
            .find(|(x, y)| x != y)
            .expect("two different troops")
    }

    /// Moves one `out` tile from `from` to `to`, and one `back` tile from `to` to `from`.
    fn swap(from: &mut TroopCounts, to: &mut TroopCounts, (out, back): (Troop, Troop)) {
        from.remove(out);
        to.add(out);
        to.remove(back);
        from.add(back);
    }

    #[test]
    fn hidden_multisets_are_erased_from_the_view() {
        let (game, s) = opening();
        let mut setup = s.to_setup();
        let t = setup.racks[RED].nth(0);
        setup.public_rack[RED].add(t);
        setup.frozen[RED].add(t);
        let s = state(&game, &setup);
        let obs = Observation::new(&s, BLUE);
        let view = obs.view();
        assert_eq!(view.rack(RED), s.public_rack(RED), "only the public tiles");
        assert_eq!(
            view.frozen(RED),
            TroopCounts::EMPTY,
            "not which tile is frozen"
        );
        assert_eq!(view.frozen_len(RED), 1, "but how many");
        assert_eq!(view.rack(BLUE), s.rack(BLUE), "own rack");
        for c in Colour::BOTH {
            assert_eq!(view.reserve(c), TroopCounts::EMPTY);
            assert_eq!(view.removed(c), TroopCounts::EMPTY);
            assert_eq!(view.rack_len(c), s.rack_len(c));
            assert_eq!(view.reserve_len(c), s.reserve_len(c));
        }
    }

    #[test]
    fn states_differing_only_in_hidden_tiles_look_the_same() {
        let (game, a) = opening();
        let mut setup = a.to_setup();
        // Red's hidden rack against red's reserve; blue's reserve against blue's removed tiles.
        let pair = distinct_pair(setup.racks[RED], setup.reserves[RED]);
        let (rack, reserve) = (&mut setup.racks[RED], &mut setup.reserves[RED]);
        swap(rack, reserve, pair);
        let pair = distinct_pair(setup.reserves[BLUE], setup.removed[BLUE]);
        let (reserve, removed) = (&mut setup.reserves[BLUE], &mut setup.removed[BLUE]);
        swap(reserve, removed, pair);
        let b = state(&game, &setup);
        assert_ne!(a, b);
        assert_eq!(Observation::new(&a, BLUE), Observation::new(&b, BLUE));
        assert_ne!(
            Observation::new(&a, RED),
            Observation::new(&b, RED),
            "red sees its own rack"
        );
    }

    #[test]
    fn which_opponent_tile_is_frozen_is_hidden() {
        let (game, s) = opening();
        let (x, y) = distinct_pair(s.rack(RED), s.rack(RED));
        let frozen = |t: Troop| {
            let mut setup = s.to_setup();
            setup.frozen[RED].add(t);
            state(&game, &setup)
        };
        let (a, b) = (frozen(x), frozen(y));
        assert_eq!(Observation::new(&a, BLUE), Observation::new(&b, BLUE));
        assert_ne!(Observation::new(&a, RED), Observation::new(&b, RED));
    }

    #[test]
    fn pool_deals_every_tile_exactly_once() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let all = TroopCounts([3, 0, 1, 2, 3, 0, 1, 3]);
        for k in 0..=all.total() as usize {
            let mut pool = Pool::new(all);
            let taken = pool.take(k, &mut rng);
            assert_eq!(taken.total() as usize, k);
            assert_eq!(taken.plus(&pool.rest()), all);
        }
    }
}
