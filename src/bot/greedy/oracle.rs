//! The greedy rules as first written (every candidate's terms recomputed from scratch, the
//! opponent's holding chances by a loop per call): the oracle that the faster [`super::Judge`]
//! must agree with decision for decision and draw for draw.

use super::*;

/// The rules and the evaluation for one decision of one player. The search bots borrow its
/// evaluation to score playouts they cut short (`SearchConfig::eval_turns`).
pub(super) struct OldJudge<'a> {
    game: &'a Game,
    me: Colour,
    /// Tiles the opponent may hold: their unseen tiles and their publicly known rack tiles.
    opponent_pool: TroopCounts,
    /// Bases where Hook may ignore the connection rule (R5.6, A4).
    hook_free: NodeMask,
}

impl<'a> OldJudge<'a> {
    pub(super) fn new(game: &'a Game, observation: &Observation) -> OldJudge<'a> {
        let me = observation.observer();
        OldJudge {
            game,
            me,
            opponent_pool: observation
                .unseen(me.opponent())
                .plus(&observation.opponent_public_rack()),
            hook_free: game.hook_unconnected_bases(),
        }
    }

    /// The decision of these rules in `s`, where `me` decides. `depth` 0 is the real decision,
    /// whose candidates are played to the end of the turn; deeper ones are scored at once. The
    /// search bots' greedy playouts call it too (`PlayoutPolicy::Greedy`).
    pub(super) fn pick<R: Rng>(&self, s: &State, depth: u8, rng: &mut R) -> Decision {
        let mut list = DecisionList::new();
        self.game.legal_decisions(s, &mut list);
        if list.len() == 1 {
            return list[0];
        }
        fixed_rule(self.me, s, &mut list).unwrap_or_else(|| self.best(s, &list, depth, rng))
    }

    /// The best scored decision of `list`; `decline` only when nothing scores strictly better,
    /// other ties broken by the seed.
    fn best<R: Rng>(&self, s: &State, list: &DecisionList, depth: u8, rng: &mut R) -> Decision {
        let scores: ArrayVec<i32, MAX_DECISIONS> =
            list.iter().map(|&d| self.score(s, d, depth, rng)).collect();
        let top = scores.iter().copied().max().unwrap_or(i32::MIN);
        let decline_ties = list
            .iter()
            .zip(&scores)
            .any(|(&d, &v)| d == Decision::Decline && v == top);
        if decline_ties {
            return Decision::Decline;
        }
        let ties = scores.iter().filter(|&&v| v == top).count();
        let k = rng.random_range(0..ties);
        list.iter()
            .zip(&scores)
            .filter(|&(_, &v)| v == top)
            .nth(k)
            .map(|(&d, _)| d)
            .unwrap_or(list[0])
    }

    /// The score after `d`: at depth 0, after the rest of the turn played by these rules.
    fn score<R: Rng>(&self, s: &State, d: Decision, depth: u8, rng: &mut R) -> i32 {
        let mut next = *s;
        self.game.apply_legal(&mut next, d);
        let mut steps = 0;
        while !next.is_over() && next.active() == self.me {
            if next.is_chance() {
                let outcome = sample_chance(self.game, &next, rng);
                self.game.apply_legal(&mut next, outcome);
            } else if depth == 0 {
                let later = self.pick(&next, depth + 1, rng);
                self.game.apply_legal(&mut next, later);
                steps += 1;
            } else {
                break;
            }
        }
        match self.evaluate(&next) {
            // A win now beats the same win later in the turn (rules 1 and 2 are about now).
            v if v >= BLOCKED_WIN => v - steps,
            v => v,
        }
    }

    /// The position's worth for `me`, normally with the opponent to move.
    pub(super) fn evaluate(&self, s: &State) -> i32 {
        if let Some(o) = s.outcome() {
            return match (o.winner == self.me, o.win) {
                (true, WinType::Hq) => WIN + HQ_WIN_BONUS,
                (true, WinType::Medals) => WIN + MEDAL_WIN_BONUS,
                (true, WinType::Blocked) => BLOCKED_WIN,
                (false, _) => -WIN,
            };
        }
        self.terms(s).iter().sum()
    }

    /// The terms of [`Judge::evaluate`] for an unfinished game, in [`TERMS`] order; the
    /// evaluation is their sum.
    pub(super) fn terms(&self, s: &State) -> [i32; TERMS.len()] {
        let (me, them) = (self.me, self.me.opponent());
        let bases = self.game.terrain().bases;
        let board = s.board();
        let presence = (board.occupied(me) & bases).count_ones() as i32
            - (board.occupied(them) & bases).count_ones() as i32;
        let connected = [
            self.game.connected_nodes(s, Colour::Blue),
            self.game.connected_nodes(s, Colour::Red),
        ];
        [
            MEDAL * (s.medals(me) as i32 - s.medals(them) as i32),
            RACK_WORTH[s.rack_len(me) as usize] - RACK_WORTH[s.rack_len(them) as usize],
            PRESENCE * presence,
            self.regions(s, &connected),
            self.race(&connected),
            -self.threats(s, &connected),
            -self.exposure(s, connected[them.index()]),
        ]
    }

    /// Progress in uncontested regions, and our own regions one base from complete.
    fn regions(&self, s: &State, connected: &[NodeMask; 2]) -> i32 {
        let (me, them) = (self.me, self.me.opponent());
        let terrain = self.game.terrain();
        let (mine_top, theirs_top) = (s.board().occupied(me), s.board().occupied(them));
        let mut gain_at = [0i32; MAX_NODES];
        let mut v = 0;
        for (r, region) in terrain.regions.iter().enumerate() {
            if s.regions_taken() & (1 << r) != 0 {
                continue;
            }
            let n = region.bases.count_ones() as i32;
            let m = region.medals as i32;
            let mine = (region.bases & mine_top).count_ones() as i32;
            let theirs = (region.bases & theirs_top).count_ones() as i32;
            if theirs == 0 {
                v += PROGRESS_PER_MEDAL * m * mine * mine / (n * n);
            }
            if mine == 0 {
                v -= PROGRESS_PER_MEDAL * m * theirs * theirs / (n * n);
            }
            if mine == n - 1 {
                gain_at[(region.bases & !mine_top).trailing_zeros() as usize] += m;
            }
        }
        let to_win = self.game.medals_to_win() as i32;
        let best = bits(connected[me.index()])
            .map(|b| match gain_at[b] {
                0 => 0,
                g if s.medals(me) as i32 + g >= to_win => HQ_ATTACK,
                g => ONE_AWAY_PER_MEDAL * g,
            })
            .max()
            .unwrap_or(0);
        v + best
    }

    /// The race to the enemy HQ: placements each side still needs to be connected to it.
    fn race(&self, connected: &[NodeMask; 2]) -> i32 {
        let (me, them) = (self.me, self.me.opponent());
        let mine = self.steps_to_hq(connected[me.index()], them);
        let theirs = self.steps_to_hq(connected[them.index()], me);
        let attack = if mine == 0 { HQ_ATTACK } else { 0 };
        STEP * (theirs - mine) + attack
    }

    /// Placements a player whose placeable nodes are `reach` needs before an HQ of `target`
    /// is among them (each placement on a base opens its neighbours); capped at `MAX_STEPS`.
    fn steps_to_hq(&self, mut reach: NodeMask, target: Colour) -> i32 {
        let terrain = self.game.terrain();
        let hqs = terrain.hqs[target.index()];
        let mut steps = 0;
        while reach & hqs == 0 && steps < MAX_STEPS {
            let grown = reach | terrain.neighbours_of(reach & terrain.bases);
            if grown == reach {
                return MAX_STEPS;
            }
            reach = grown;
            steps += 1;
        }
        steps
    }

    /// What the opponent threatens on their next turn: the worst of an HQ capture (directly or
    /// through a Cap'n), and taking the last missing base of regions.
    fn threats(&self, s: &State, connected: &[NodeMask; 2]) -> i32 {
        let (me, them) = (self.me, self.me.opponent());
        let terrain = self.game.terrain();
        let reach = connected[them.index()];
        let my_hqs = terrain.hqs[me.index()];
        let mut worst = 0.0f64;
        for hq in bits(my_hqs & reach) {
            worst = worst.max(LOSS_THREAT * self.holds_fit(s, self.fit(s, hq)));
        }
        if self.opponent_pool.get(Troop::Capn) > 0 {
            let capn = 1u8 << Troop::Capn.index();
            let steps = terrain.neighbours_of(my_hqs) & terrain.bases & reach;
            if bits(steps).any(|b| self.fit(s, b) & capn != 0) {
                worst = worst.max(LOSS_THREAT * CAPN_THREAT_SHARE);
            }
        }
        let theirs_top = s.board().occupied(them);
        let mut gain_at = [0i32; MAX_NODES];
        for (r, region) in terrain.regions.iter().enumerate() {
            let missing = region.bases & !theirs_top;
            if s.regions_taken() & (1 << r) == 0 && missing.count_ones() == 1 {
                gain_at[missing.trailing_zeros() as usize] += region.medals as i32;
            }
        }
        let to_win = self.game.medals_to_win() as i32;
        for (b, &gain) in gain_at.iter().enumerate().filter(|(_, &g)| g > 0) {
            let mut fit = self.fit(s, b);
            if reach & (1 << b) == 0 {
                // Unconnected: only a Hook may go there.
                fit &= if self.hook_free & (1 << b) != 0 {
                    1 << Troop::Hook.index()
                } else {
                    0
                };
            }
            let weight = if s.medals(them) as i32 + gain >= to_win {
                LOSS_THREAT
            } else {
                REGION_THREAT_PER_MEDAL * gain as f64
            };
            worst = worst.max(weight * self.holds_fit(s, fit));
        }
        worst as i32
    }

    /// Our top tiles the opponent can reach and cover, weighted by what they hold.
    fn exposure(&self, s: &State, reach: NodeMask) -> i32 {
        let terrain = self.game.terrain();
        let mut total = 0.0;
        for b in bits(s.board().occupied(self.me) & terrain.bases & reach) {
            let open_medals: u32 = bits(terrain.node_regions[b] & !s.regions_taken())
                .map(|r| terrain.regions[r].medals as u32)
                .sum();
            let stake = PRESENCE as f64 + EXPOSED_STAKE_PER_MEDAL * open_medals as f64;
            total += stake * self.holds_fit(s, self.fit(s, b));
        }
        total as i32
    }

    /// Troop types (bit per troop) the opponent could place on node `n` if connected: allowed
    /// there (R5.4) and, over one of our tiles, able to cover it (R5.2, R5.3).
    fn fit(&self, s: &State, n: usize) -> u8 {
        let allowed = self.game.troops_allowed_on(n);
        let coverable = match s.board().top(NodeIndex::new(n)) {
            Some(top) if top.colour() == self.me => Troop::ALL
                .iter()
                .filter(|t| t.covers(top.troop()))
                .fold(0u8, |m, t| m | 1 << t.index()),
            _ => u8::MAX,
        };
        allowed & coverable
    }

    /// Chance that the opponent's rack holds a tile of one of the `types`, as if their rack were
    /// drawn at random from the tiles they may hold.
    fn holds_fit(&self, s: &State, types: u8) -> f64 {
        let pool = self.opponent_pool.total() as u32;
        let fitting: u32 = bits(types as u32)
            .map(|t| self.opponent_pool.0[t] as u32)
            .sum();
        let rack = (s.rack_len(self.me.opponent()) as u32).min(pool);
        let mut none = 1.0;
        for i in 0..rack {
            if fitting + i >= pool {
                return 1.0; // every tile left to deal fits
            }
            none *= (pool - fitting - i) as f64 / (pool - i) as f64;
        }
        1.0 - none
    }
}
