//! Fitting the policy model ([`PolicyModel`]) to the decisions the search chose in self-play.
//!
//! Every decision of a player who had at least two legal decisions and none that wins at once
//! (the search's `decisive` rule takes those without a prior) is a position: the tactic and
//! troop of each legal decision, which one the search played, and a target distribution over
//! them. The target is the played decision alone ([`PolicyTarget::Played`]) or, where the run
//! kept the search's root stats, the share of the root's visits each decision got
//! ([`PolicyTarget::Visits`], AlphaZero's target: it says how close the alternatives came, which
//! one played decision does not). The model's log-weights minimise the cross-entropy from the
//! targets (for one-hot targets, maximum likelihood of a conditional logit), by Newton's method
//! with a small ridge penalty, which also fixes the weights the loss leaves free (adding one
//! number to every tactic changes no probability).

use super::positions::{for_each_record, DatasetError};
use crate::bot::search::Tactics;
use crate::model::{PolicyModel, Tactic};
use crate::record::{replay, GameRecord};
use crate::rules::{Decision, DecisionList, Game};
use crate::tournament::roots::{read_roots, GameRoots};
use crate::vocabulary::linear::solve;
use std::path::Path;

/// Weights of the model: eight tactics, then eight troops.
const PARAMS: usize = 16;
/// The column of "no troop" in an option's troop (not a parameter).
const NO_TROOP: u8 = 8;

/// What the policy is fitted to at each position (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PolicyTarget {
    /// The decision played.
    #[default]
    Played,
    /// The share of the root's visits of each decision, where the game's root stats were kept;
    /// the decision played elsewhere.
    Visits,
}

/// Positions for the policy model: at each, the (tactic, troop) of every legal decision, the
/// one played and the target distribution.
#[derive(Clone, Debug, Default)]
pub struct PolicyData {
    target: PolicyTarget,
    /// Options of position `k`: `options[start[k]..start[k + 1]]`.
    options: Vec<(u8, u8)>,
    /// The target probability of each option, in the same order (summing to 1 per position).
    targets: Vec<f64>,
    start: Vec<usize>,
    /// The played option of each position, counted within it.
    played: Vec<u16>,
    /// The game of each position, counting from 0 in the order games were added.
    games: Vec<u32>,
    game_count: u32,
    /// Positions whose target came from root visits.
    from_visits: usize,
}

impl PolicyData {
    /// No positions; targets the decisions played.
    pub fn new() -> PolicyData {
        PolicyData::with_target(PolicyTarget::Played)
    }

    /// No positions; the fit will target `target`.
    pub fn with_target(target: PolicyTarget) -> PolicyData {
        PolicyData {
            target,
            start: vec![0],
            ..PolicyData::default()
        }
    }

    /// Positions whose target is the share of root visits (the rest target the played one).
    pub fn from_visits(&self) -> usize {
        self.from_visits
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.played.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.played.is_empty()
    }

    /// Games added.
    pub fn games(&self) -> u32 {
        self.game_count
    }

    /// Adds the positions of `record`, replayed on `game` (see the module doc).
    pub fn add_record(&mut self, game: &Game, record: &GameRecord) -> Result<(), String> {
        self.add_record_with_roots(game, record, None)
    }

    /// [`PolicyData::add_record`], with the game's root stats (which must be this record's:
    /// `tournament::roots::read_roots` checks them) as targets when fitting to visits.
    pub fn add_record_with_roots(
        &mut self,
        game: &Game,
        record: &GameRecord,
        roots: Option<&GameRoots>,
    ) -> Result<(), String> {
        replay(game, record).map_err(|e| e.to_string())?;
        let roots = roots.filter(|_| self.target == PolicyTarget::Visits);
        let visits = GameRoots::per_step(roots, record.steps.len(), |note| {
            (!note.visits.is_empty()).then_some(&note.visits)
        });
        let mut state = game.initial_state(&record.deal);
        let mut legal = DecisionList::new();
        for (step, visits) in record.steps.iter().zip(visits) {
            let d = Decision::parse(step, game.terrain()).map_err(|e| e.to_string())?;
            if !state.is_chance() && !state.is_over() {
                game.legal_decisions(&state, &mut legal);
                let shares = visits.map(|v| visit_shares(game, &legal, v)).transpose()?;
                let from_visits = matches!(shares, Some(Some(_)));
                let targets = match shares.flatten() {
                    Some(shares) => shares,
                    None => legal.iter().map(|&l| f64::from(u8::from(l == d))).collect(),
                };
                let tactics = Tactics::new(game, &state);
                self.add_position(&tactics, &legal, d, targets, from_visits);
            }
            game.apply(&mut state, d).map_err(|e| e.to_string())?;
        }
        self.game_count += 1;
        Ok(())
    }

    fn add_position(
        &mut self,
        tactics: &Tactics,
        legal: &DecisionList,
        played: Decision,
        targets: Vec<f64>,
        from_visits: bool,
    ) {
        let options: Vec<(u8, u8)> = legal
            .iter()
            .map(|&d| {
                let troop = d.troop().map_or(NO_TROOP, |t| t.index() as u8);
                (tactics.of(d).index() as u8, troop)
            })
            .collect();
        let win = Tactic::Win.index() as u8;
        let Some(at) = legal.iter().position(|&d| d == played) else {
            return;
        };
        if options.len() < 2 || options.iter().any(|o| o.0 == win) {
            return;
        }
        self.options.extend(options);
        self.targets.extend(targets);
        self.start.push(self.options.len());
        self.played.push(at as u16);
        self.games.push(self.game_count);
        self.from_visits += usize::from(from_visits);
    }

    /// Adds the positions of every record under `dir` (a run folder's `records`, or any folder
    /// of records, read recursively, in sorted order), with the run's root stats where it kept
    /// them and the target is [`PolicyTarget::Visits`]. Returns the number of records; at the
    /// first record refused, the error names it and the records before it stay added.
    pub fn add_records_under(&mut self, dir: &Path) -> Result<usize, DatasetError> {
        let run = dir.join("records").is_dir().then_some(dir);
        let visits = self.target == PolicyTarget::Visits;
        for_each_record(dir, |game, record, path| {
            let roots = match run {
                Some(run) if visits => {
                    let rel = path.strip_prefix(run).unwrap_or(path);
                    read_roots(run, &rel.to_string_lossy(), record)?
                }
                _ => None,
            };
            self.add_record_with_roots(game, record, roots.as_ref())
        })
    }

    fn options(&self, k: usize) -> &[(u8, u8)] {
        &self.options[self.start[k]..self.start[k + 1]]
    }

    fn targets(&self, k: usize) -> &[f64] {
        &self.targets[self.start[k]..self.start[k + 1]]
    }
}

/// Each legal decision's share of the root's `visits` (given in the game's notation); a
/// decision that was not listed had none. `None` when no visit was counted (a decision taken
/// without search, such as a win at once); a reason when a listed decision is not legal here.
fn visit_shares(
    game: &Game,
    legal: &DecisionList,
    visits: &[(String, u64)],
) -> Result<Option<Vec<f64>>, String> {
    let terrain = game.terrain();
    let mut counts = vec![0.0; legal.len()];
    for (notation, n) in visits {
        let d = Decision::parse(notation, terrain).map_err(|e| e.to_string())?;
        let at = legal.iter().position(|&l| l == d).ok_or_else(|| {
            format!("the root stats list {notation}, which is not a legal decision there")
        })?;
        counts[at] += *n as f64;
    }
    let total: f64 = counts.iter().sum();
    Ok((total > 0.0).then(|| counts.into_iter().map(|c| c / total).collect()))
}

/// Which positions a fit or a score reads: every game, or those of one side of a split that
/// holds out one game in `every`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Every position.
    All,
    /// The games not held out.
    Training {
        /// One game in this many is held out.
        every: u32,
    },
    /// The held-out games: those whose number is `every − 1` modulo `every`.
    HeldOut {
        /// One game in this many is held out.
        every: u32,
    },
}

impl Split {
    pub(crate) fn takes(self, game: u32) -> bool {
        match self {
            Split::All => true,
            Split::Training { every } => every == 0 || game % every != every - 1,
            Split::HeldOut { every } => every != 0 && game % every == every - 1,
        }
    }
}

/// How well a policy predicts the targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyScore {
    /// Positions scored.
    pub positions: usize,
    /// Mean cross-entropy from the target distribution, in nats (for the played decision as
    /// target, its negative log-likelihood).
    pub loss: f64,
    /// Share of positions where the played decision has the highest weight (ties share it).
    pub top1: f64,
}

/// How `weight` (a decision's weight from its tactic and troop column) predicts the targets
/// of the positions of `split`.
pub fn score_with(data: &PolicyData, split: Split, weight: impl Fn(u8, u8) -> f64) -> PolicyScore {
    let (mut positions, mut loss, mut top1) = (0usize, 0.0, 0.0);
    for k in (0..data.len()).filter(|&k| split.takes(data.games[k])) {
        let weights: Vec<f64> = data.options(k).iter().map(|&(t, r)| weight(t, r)).collect();
        let total: f64 = weights.iter().sum();
        let chosen = weights[usize::from(data.played[k])];
        let best = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if chosen == best {
            top1 += 1.0 / weights.iter().filter(|&&w| w == best).count() as f64;
        }
        loss -= data
            .targets(k)
            .iter()
            .zip(&weights)
            .filter(|(&q, _)| q > 0.0)
            .map(|(q, w)| q * (w / total).ln())
            .sum::<f64>();
        positions += 1;
    }
    let n = positions.max(1) as f64;
    PolicyScore {
        positions,
        loss: loss / n,
        top1: top1 / n,
    }
}

/// How `model` (its exact log-weights, not the search's rounded weights) predicts the targets
/// of `split`.
pub fn score(model: &PolicyModel, data: &PolicyData, split: Split) -> PolicyScore {
    let theta = params_of(model);
    score_with(data, split, |t, r| logit(&theta, t, r).exp())
}

fn params_of(model: &PolicyModel) -> [f64; PARAMS] {
    let mut theta = [0.0; PARAMS];
    theta[..8].copy_from_slice(&model.tactics());
    theta[8..].copy_from_slice(&model.troops());
    theta
}

fn logit(theta: &[f64; PARAMS], tactic: u8, troop: u8) -> f64 {
    let troop = if troop == NO_TROOP {
        0.0
    } else {
        theta[8 + usize::from(troop)]
    };
    theta[usize::from(tactic)] + troop
}

/// The model that fits the targets of `split` best (least cross-entropy with a ridge penalty of
/// `ridge` × the squared weights), by Newton's method; a win, which no position
/// offers, gets the largest tactic weight. Deterministic: the same data give the same model.
pub fn fit_policy(data: &PolicyData, split: Split, ridge: f64) -> PolicyModel {
    let mut theta = [0.0; PARAMS];
    for _ in 0..50 {
        let (gradient, mut hessian) = derivatives(data, split, &theta, ridge);
        // Newton's step solves (−H) Δ = g; the log-likelihood is concave, so it converges.
        for (i, row) in hessian.iter_mut().enumerate() {
            for (j, h) in row.iter_mut().enumerate() {
                *h = -*h;
                if i == j {
                    *h += 1e-12;
                }
            }
        }
        let step = solve(hessian, gradient);
        theta.iter_mut().zip(step).for_each(|(t, s)| *t += s);
        if step.iter().map(|s| s.abs()).fold(0.0, f64::max) < 1e-9 {
            break;
        }
    }
    let mut tactics: [f64; 8] = theta[..8].try_into().expect("eight tactics");
    let win = Tactic::Win.index();
    tactics[win] = (0..8)
        .filter(|&t| t != win)
        .map(|t| tactics[t])
        .fold(f64::NEG_INFINITY, f64::max);
    PolicyModel::new(tactics, theta[8..].try_into().expect("eight troops"))
}

type Matrix = [[f64; PARAMS]; PARAMS];

/// The gradient and Hessian of the penalized log-likelihood (minus the cross-entropy) at
/// `theta`. The Hessian does not depend on the targets, since each position's sum to 1.
fn derivatives(
    data: &PolicyData,
    split: Split,
    theta: &[f64; PARAMS],
    ridge: f64,
) -> ([f64; PARAMS], Matrix) {
    let mut gradient = theta.map(|t| -ridge * t);
    let mut hessian = [[0.0; PARAMS]; PARAMS];
    for (i, row) in hessian.iter_mut().enumerate() {
        row[i] = -ridge;
    }
    for k in (0..data.len()).filter(|&k| split.takes(data.games[k])) {
        let options = data.options(k);
        let top = options
            .iter()
            .map(|&(t, r)| logit(theta, t, r))
            .fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = options
            .iter()
            .map(|&(t, r)| (logit(theta, t, r) - top).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut mean = [0.0; PARAMS];
        let mut second = [[0.0; PARAMS]; PARAMS];
        for (&(t, r), w) in options.iter().zip(&weights) {
            let p = w / total;
            let active = features(t, r);
            for &i in active.iter().flatten() {
                mean[i] += p;
                for &j in active.iter().flatten() {
                    second[i][j] += p;
                }
            }
        }
        for (&(t, r), &q) in options.iter().zip(data.targets(k)) {
            for &i in features(t, r).iter().flatten() {
                gradient[i] += q;
            }
        }
        for i in 0..PARAMS {
            gradient[i] -= mean[i];
            for j in 0..PARAMS {
                hessian[i][j] -= second[i][j] - mean[i] * mean[j];
            }
        }
    }
    (gradient, hessian)
}

/// The parameters an option's logit adds: its tactic and, for a placement, its troop.
fn features(tactic: u8, troop: u8) -> [Option<usize>; 2] {
    let troop = (troop != NO_TROOP).then(|| 8 + usize::from(troop));
    [Some(usize::from(tactic)), troop]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions where the played decision always has one tactic: the fit learns to prefer it,
    /// and predicts it better than a uniform guess.
    #[test]
    fn the_fit_prefers_the_tactic_that_is_always_played() {
        let mut data = PolicyData::new();
        let region = Tactic::TakeRegion.index() as u8;
        let plain = Tactic::EmptyBase.index() as u8;
        for game in 0..40 {
            data.options
                .extend([(plain, 0), (region, 1), (plain, 2), (plain, NO_TROOP)]);
            data.start.push(data.options.len());
            let played = if game % 4 == 0 { 0 } else { 1 };
            data.targets
                .extend((0..4).map(|i| f64::from(u8::from(i == played))));
            data.played.push(played as u16);
            data.games.push(game);
            data.game_count += 1;
        }
        let model = fit_policy(&data, Split::All, 0.01);
        assert!(model.logit(Tactic::TakeRegion, None) > model.logit(Tactic::EmptyBase, None));
        let learned = score(&model, &data, Split::All);
        let uniform = score_with(&data, Split::All, |_, _| 1.0);
        assert!(learned.loss < uniform.loss, "{learned:?} {uniform:?}");
        assert_eq!(learned.top1, 0.75);
        assert_eq!(uniform.top1, 0.25);
        // Newton's method reached the optimum: the played share of 3/4 for the region take
        // within the penalty's pull.
        let p = |m: &PolicyModel| {
            let w = |t, r| m.logit(t, r).exp();
            let region = w(Tactic::TakeRegion, Some(crate::vocabulary::Troop::Skully));
            region
                / (region
                    + w(Tactic::EmptyBase, Some(crate::vocabulary::Troop::Kwak))
                    + w(Tactic::EmptyBase, Some(crate::vocabulary::Troop::Capn))
                    + w(Tactic::EmptyBase, None))
        };
        assert!((p(&model) - 0.75).abs() < 0.01, "{}", p(&model));
        assert_eq!(fit_policy(&data, Split::All, 0.01), model);
    }

    /// With visit shares as targets, the fit reproduces the shares wherever its weights can:
    /// here every option has its own tactic and troop pair, so each share is matched.
    #[test]
    fn the_fit_matches_the_visit_shares_it_is_given() {
        let mut data = PolicyData::with_target(PolicyTarget::Visits);
        let region = Tactic::TakeRegion.index() as u8;
        let plain = Tactic::EmptyBase.index() as u8;
        let shares = [0.1, 0.6, 0.1, 0.2];
        for game in 0..40 {
            data.options
                .extend([(plain, 0), (region, 1), (plain, 2), (plain, NO_TROOP)]);
            data.targets.extend(shares);
            data.start.push(data.options.len());
            data.played.push(1);
            data.games.push(game);
            data.game_count += 1;
        }
        let model = fit_policy(&data, Split::All, 1e-6);
        let theta = params_of(&model);
        let options = data.options(0);
        let w: Vec<f64> = options
            .iter()
            .map(|&(t, r)| logit(&theta, t, r).exp())
            .collect();
        let total: f64 = w.iter().sum();
        for (w, share) in w.iter().zip(shares) {
            assert!(
                (w / total - share).abs() < 1e-3,
                "{} against {share}",
                w / total
            );
        }
    }

    #[test]
    fn a_split_holds_out_one_game_in_every() {
        let held = (0..20).filter(|&g| Split::HeldOut { every: 10 }.takes(g));
        assert_eq!(held.collect::<Vec<_>>(), [9, 19]);
        assert_eq!(
            (0..20)
                .filter(|&g| Split::Training { every: 10 }.takes(g))
                .count(),
            18
        );
        assert!(Split::Training { every: 0 }.takes(9));
        assert!(!Split::HeldOut { every: 0 }.takes(9));
    }
}
