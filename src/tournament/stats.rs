//! Tournament statistics for matches between two bots.
//!
//! Games are played in *pairs*: every deal is played twice with the seats
//! swapped, so that a lucky deal or a seat advantage cancels out within the
//! pair. A game scores 1 (win), 0 (loss) or 0.5 (draw, i.e. stopped by the
//! turn cap), so a pair scores 0, 0.5, 1, 1.5 or 2. Counting pairs by their
//! score gives the *pentanomial* distribution used by chess engine testing
//! frameworks (fishtest, OpenBench). Treating the pair rather than the game
//! as the independent sample is what makes the error bars honest: the two
//! games of a pair are correlated (same deal), and the pentanomial variance
//! accounts for that correlation.
//!
//! Conventions used throughout (all documented at the item concerned):
//! * no function panics, whatever its input, and none returns NaN;
//! * "score" always means the *per-game* score in `[0, 1]`;
//! * Elo means the logistic Elo difference of the first bot over the second.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Two-sided 95% quantile of the standard normal distribution, Φ⁻¹(0.975).
pub const Z95: f64 = 1.959963984540054;

/// Scores are clamped into `[SCORE_EPS, 1 - SCORE_EPS]` before being turned
/// into Elo, so a perfect (or perfectly bad) score maps to a finite value of
/// about ±2400 Elo instead of ±infinity.
pub const SCORE_EPS: f64 = 1e-6;

/// Per-game score of each pentanomial cell: a pair scoring 0, 0.5, 1, 1.5 or
/// 2 points is 0, 0.25, 0.5, 0.75 or 1 per game.
const CELL_SCORE: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Pseudo-count given to *empty* pentanomial cells before the SPRT
/// likelihood is maximised (fishtest's `regularize`, epsilon = 1e-3). Without
/// it the constrained maximum-likelihood problem can be degenerate (e.g. all
/// pairs in one cell leave no room to move the mean). Cells that are not
/// empty are left untouched, so with enough data it has no effect at all.
const SPRT_PSEUDO_COUNT: f64 = 1e-3;

/// Weight of the pseudo-pair put at each end of the pentanomial (one lost both games, one won
/// both) before the Elo interval is computed: z²/4 pairs each, z² pseudo-games in all, half
/// won, as the Agresti–Coull interval adds z² pseudo-trials to a binomial. Without them a
/// result whose pairs all agree (two pairs each won once and lost once, or a clean sweep) has
/// no spread, and the interval shrinks to a point: "+0 [+0, +0]".
pub const EDGE_PSEUDO_PAIRS: f64 = Z95 * Z95 / 4.0;

/// Wilson score interval for a binomial proportion.
///
/// With `p = successes / n`, the interval is
/// `(p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n)`.
/// Unlike the plain normal ("Wald") interval it stays inside `[0, 1]` and
/// behaves sensibly for proportions near 0 or 1 and for small `n`, which is
/// why it is used for win rates.
///
/// `successes` is clamped into `[0, n]`. When `n <= 0` (or any argument is
/// not finite) nothing is known and `(0, 1)` is returned.
pub fn wilson_interval(successes: f64, n: f64, z: f64) -> (f64, f64) {
    if !(n > 0.0 && n.is_finite() && successes.is_finite() && z.is_finite()) {
        return (0.0, 1.0);
    }
    let p = successes.clamp(0.0, n) / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z.abs() / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At p = 0 (or 1) the end is exactly 0 (or 1) in theory; rounding can leave it a hair
    // inside (3.5e-18 for 0 of 64), above the rate itself.
    let lo = if p <= 0.0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let hi = if p >= 1.0 {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (lo, hi)
}

/// Two-sided exact sign test: the probability, if each of the `x + y` discordant games were
/// won by either side with probability one half, of a split at least as uneven as `x`/`y`.
/// The binomial terms are stepped in logarithms (`C(n, i+1) = C(n, i)·(n−i)/(i+1)`), so
/// thousands of games neither overflow nor underflow.
pub fn sign_test_p(x: u64, y: u64) -> f64 {
    let n = (x + y) as f64;
    let mut ln_choose = 0.0;
    let mut tail = 0.0;
    for i in 0..=x.min(y) {
        if i > 0 {
            ln_choose += ((n - i as f64 + 1.0) / i as f64).ln();
        }
        tail += (ln_choose - n * std::f64::consts::LN_2).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Logistic Elo difference implied by a per-game score `s`:
/// `-400 · log10(1/s − 1)`, the inverse of [`score_from_elo`].
///
/// The logistic model says a player `d` Elo stronger scores
/// `1 / (1 + 10^(−d/400))`. Because a score of exactly 0 or 1 would give
/// ±infinity, `s` is first clamped into `[SCORE_EPS, 1 − SCORE_EPS]`, so the
/// result always lies within about ±2400 Elo. A NaN score gives 0.
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        return 0.0;
    }
    let s = score.clamp(SCORE_EPS, 1.0 - SCORE_EPS);
    // `+ 0.0` turns the -0.0 produced at s = 0.5 into a plain 0.0.
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// Expected per-game score of a player `elo` points stronger under the
/// logistic model: `1 / (1 + 10^(−elo/400))`. A NaN input gives 0.5.
pub fn score_from_elo(elo: f64) -> f64 {
    if elo.is_nan() {
        return 0.5;
    }
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo estimate with a 95% confidence interval, both on the score scale
/// (`score*`, per game, in `[0, 1]`) and on the Elo scale (`elo`, `lo`, `hi`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Point estimate, `elo_from_score(score)`.
    pub elo: f64,
    /// Lower end of the 95% interval, `elo_from_score(score_lo)`.
    pub lo: f64,
    /// Upper end of the 95% interval, `elo_from_score(score_hi)`.
    pub hi: f64,
    /// Mean per-game score.
    pub score: f64,
    /// Lower end of the 95% interval for the per-game score.
    pub score_lo: f64,
    /// Upper end of the 95% interval for the per-game score.
    pub score_hi: f64,
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:+.1} Elo [{:+.1}, {:+.1}] (score {:.4} [{:.4}, {:.4}])",
            self.elo, self.lo, self.hi, self.score, self.score_lo, self.score_hi
        )
    }
}

/// Counts of game pairs by pair score (the pentanomial distribution).
///
/// `counts[i]` is the number of pairs that scored `i / 2` points:
/// 0 = LL, 1 = LD/DL, 2 = WL/LW/DD, 3 = WD/DW, 4 = WW.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs per pair score ×2 (index 0 = LL … 4 = WW).
    pub counts: [u64; 5],
}

/// Half-points scored in one game: 0, 1 or 2. The score is clamped into
/// `[0, 1]` and rounded to the nearest half; NaN counts as a draw.
fn half_points(score: f64) -> usize {
    if score.is_nan() {
        return 1;
    }
    // In [0, 2] after the clamp, so the cast is exact.
    (score.clamp(0.0, 1.0) * 2.0).round() as usize
}

impl Pentanomial {
    /// Records one pair from the scores of its two games (each 1 = win,
    /// 0.5 = draw, 0 = loss for the bot being measured). Scores are clamped
    /// into `[0, 1]` and rounded to the nearest half; a NaN score counts as
    /// a draw. Counts saturate instead of overflowing.
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let cell = half_points(first) + half_points(second);
        if let Some(c) = self.counts.get_mut(cell) {
            *c = c.saturating_add(1);
        }
    }

    /// Number of pairs recorded.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().fold(0u64, |a, &c| a.saturating_add(c))
    }

    /// Adds the counts of `other` into `self` (e.g. from parallel workers).
    pub fn merge(&mut self, other: &Pentanomial) {
        for (c, o) in self.counts.iter_mut().zip(other.counts.iter()) {
            *c = c.saturating_add(*o);
        }
    }

    /// Mean per-game score in `[0, 1]`; 0.5 (no evidence either way) when
    /// there are no pairs.
    pub fn mean_score(&self) -> f64 {
        self.moments().map_or(0.5, |(_, mean, _)| mean)
    }

    /// `(pairs, mean, variance)` of the per-game score *averaged over a
    /// pair*, i.e. of `x = pair score / 2`. The variance is the population
    /// variance of the pair scores divided by 4. `None` without pairs.
    fn moments(&self) -> Option<(f64, f64, f64)> {
        let n = self.pairs() as f64;
        if n <= 0.0 {
            return None;
        }
        let freq = self.counts.map(|c| c as f64 / n);
        let mean: f64 = freq.iter().zip(CELL_SCORE).map(|(p, x)| p * x).sum();
        let var: f64 = freq
            .iter()
            .zip(CELL_SCORE)
            .map(|(p, x)| p * (x - mean) * (x - mean))
            .sum();
        Some((n, mean, var))
    }

    /// Elo estimate with a 95% confidence interval from the pentanomial
    /// variance.
    ///
    /// Each pair is one independent sample of `x = pair score / 2`. Its
    /// variance is `var(pair score) / 4`, so the standard error of the mean
    /// per-game score is `sqrt(var / pairs)`. The interval `mean ± Z95 · se` is
    /// computed with [`EDGE_PSEUDO_PAIRS`] added at x = 0 and x = 1 (so that it
    /// stays valid when every pair agrees, at a score of 0% or 100% included),
    /// clamped into `[0, 1]` and widened, if need be, to hold the plain mean,
    /// which stays the point estimate. It is mapped to Elo through
    /// [`elo_from_score`], which is monotone so the ends stay in order; a score
    /// end of 0 or 1 is an Elo end without bound (see [`elo_text`]).
    ///
    /// When every pair was lost (or every pair won), the pairs say no more than
    /// the games, and the pseudo-pairs would pull a few pairs' interval past 50%
    /// ("lost all 4 games: Elo ≤ +124"). The interval is then the Wilson interval
    /// of the `2 · pairs` games, the one every score column prints: from four
    /// games on, its open end stays on the losing (or winning) side of an even
    /// score (two games lost leave 0% [0, 65.8]).
    ///
    /// With zero pairs: score 0.5 and elo 0, score interval `[0, 1]`, and Elo
    /// interval `[elo_from_score(0), elo_from_score(1)]` (about ±2400, finite
    /// so that it serialises to JSON as numbers).
    pub fn elo_estimate(&self) -> EloEstimate {
        let (score, score_lo, score_hi) = match self.moments() {
            None => (0.5, 0.0, 1.0),
            Some((n, mean, _)) if mean <= 0.0 || mean >= 1.0 => {
                let (lo, hi) = wilson_interval(2.0 * n * mean, 2.0 * n, Z95);
                (mean, lo, hi)
            }
            Some((n, mean, _)) => {
                let w = EDGE_PSEUDO_PAIRS;
                let n2 = n + 2.0 * w;
                let m2 = (n * mean + w) / n2;
                let spread: f64 = self
                    .counts
                    .iter()
                    .zip(CELL_SCORE)
                    .map(|(&c, x)| c as f64 * (x - m2) * (x - m2))
                    .sum();
                let var2 = (spread + w * m2 * m2 + w * (1.0 - m2) * (1.0 - m2)) / n2;
                let half = Z95 * (var2 / n2).sqrt();
                let (lo, hi) = ((m2 - half).max(0.0), (m2 + half).min(1.0));
                (mean, lo.min(mean), hi.max(mean))
            }
        };
        EloEstimate {
            elo: elo_from_score(score),
            lo: elo_from_score(score_lo),
            hi: elo_from_score(score_hi),
            score,
            score_lo,
            score_hi,
        }
    }
}

/// An Elo estimate for people, rounded to whole Elo (so that the printed estimate is always
/// inside the printed interval): "+35 [-12, +80]"; an end of the score interval at 0% or 100%
/// has no Elo bound and prints "-∞" or "+∞"; a score of 100% (or 0%) has no finite estimate
/// and prints "won all 8 games: Elo ≥ +127" (or "lost all 8 games: Elo ≤ -127").
pub fn elo_text(e: &EloEstimate, games: u64) -> String {
    let bound = |s: f64| match s {
        s if s >= 1.0 => "+∞".to_string(),
        s if s <= 0.0 => "-∞".to_string(),
        // `+ 0.0` turns a rounded -0 into 0, printed "+0".
        s => format!("{:+.0}", elo_from_score(s).round() + 0.0),
    };
    if e.score >= 1.0 {
        format!("won all {games} games: Elo ≥ {}", bound(e.score_lo))
    } else if e.score <= 0.0 {
        format!("lost all {games} games: Elo ≤ {}", bound(e.score_hi))
    } else {
        format!(
            "{} [{}, {}]",
            bound(e.score),
            bound(e.score_lo),
            bound(e.score_hi)
        )
    }
}

/// A rate and its interval in percent, all with one decimal, "49.8 [49.6-50.0]": rounding
/// every number alike keeps the printed rate inside the printed interval.
pub fn percent_text(rate: f64, lo: f64, hi: f64) -> String {
    format!("{:.1} [{:.1}-{:.1}]", 100.0 * rate, 100.0 * lo, 100.0 * hi)
}

/// Parameters of a sequential probability ratio test: H0 "the Elo
/// difference is `elo0`" against H1 "it is `elo1`", with type I error rate
/// `alpha` (accepting H1 when H0 holds) and type II rate `beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtParams {
    /// Elo difference under the null hypothesis H0.
    pub elo0: f64,
    /// Elo difference under the alternative H1 (must exceed `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    pub beta: f64,
}

/// Outcome of an SPRT check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// LLR fell to the lower bound: accept H0 (Elo ≈ `elo0`).
    H0,
    /// LLR reached the upper bound: accept H1 (Elo ≈ `elo1`).
    H1,
    /// Neither bound reached yet: keep playing.
    Continue,
}

/// Wald's stopping bounds for the log-likelihood ratio:
/// `(ln(β / (1 − α)), ln((1 − β) / α))`. Stopping when the LLR leaves this
/// interval keeps the error rates at (approximately) α and β.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// Maximum-likelihood distribution over the five pentanomial cells with
/// mean per-game score `s`, given the empirical frequencies `freq` (all
/// strictly positive, summing to 1).
///
/// Maximising `Σ p̂ᵢ ln pᵢ` subject to `Σ pᵢ = 1` and `Σ pᵢ xᵢ = s` gives,
/// by Lagrange multipliers, `pᵢ = p̂ᵢ / (1 + λ (xᵢ − s))`, where λ solves
/// `f(λ) = Σ p̂ᵢ (xᵢ − s) / (1 + λ (xᵢ − s)) = 0`. All denominators stay
/// positive for `λ ∈ (−1/(1 − s), 1/s)` (the cell scores span `[0, 1]`);
/// `f` decreases strictly from +∞ to −∞ on that interval, so bisection finds
/// the unique root. `s` must lie strictly inside `(0, 1)`.
fn mle_with_mean(freq: &[f64; 5], s: f64) -> [f64; 5] {
    let f = |lambda: f64| -> f64 {
        freq.iter()
            .zip(CELL_SCORE)
            .map(|(p, x)| p * (x - s) / (1.0 + lambda * (x - s)))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    let mut out = [0.0; 5];
    for ((o, p), x) in out.iter_mut().zip(freq).zip(CELL_SCORE) {
        *o = p / (1.0 + lambda * (x - s));
    }
    out
}

/// Generalized log-likelihood ratio of H1 (Elo = `elo1`) against H0
/// (Elo = `elo0`) for the pentanomial results `p`, as fishtest computes it.
///
/// For each hypothesis the distribution over the five pair outcomes is
/// fitted by maximum likelihood under the constraint that its mean per-game
/// score equals `score_from_elo(eloᵢ)` (see `mle_with_mean`); then
/// `LLR = N · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ)`. Empty cells first get a pseudo-count of
/// 1e-3 (fishtest's regularisation; `N` and `p̂` include it), so the fit is
/// always well posed. Returns 0 with no pairs or non-finite Elo arguments.
/// Hypothesis scores are clamped into `[SCORE_EPS, 1 − SCORE_EPS]`.
pub fn sprt_llr(p: &Pentanomial, elo0: f64, elo1: f64) -> f64 {
    if p.pairs() == 0 || !elo0.is_finite() || !elo1.is_finite() {
        return 0.0;
    }
    let counts = p
        .counts
        .map(|c| if c == 0 { SPRT_PSEUDO_COUNT } else { c as f64 });
    let n: f64 = counts.iter().sum();
    let freq = counts.map(|c| c / n);
    let clamp = |elo: f64| score_from_elo(elo).clamp(SCORE_EPS, 1.0 - SCORE_EPS);
    let p0 = mle_with_mean(&freq, clamp(elo0));
    let p1 = mle_with_mean(&freq, clamp(elo1));
    let per_pair: f64 = (0..5).map(|i| freq[i] * (p1[i] / p0[i]).ln()).sum();
    if per_pair.is_finite() {
        n * per_pair
    } else {
        0.0
    }
}

/// Runs the SPRT check: returns the current LLR and whether it has crossed
/// the lower bound (accept H0), the upper bound (accept H1) or neither.
pub fn sprt_decide(p: &Pentanomial, params: &SprtParams) -> (f64, SprtDecision) {
    let llr = sprt_llr(p, params.elo0, params.elo1);
    let (lower, upper) = sprt_bounds(params.alpha, params.beta);
    let decision = if llr <= lower {
        SprtDecision::H0
    } else if llr >= upper {
        SprtDecision::H1
    } else {
        SprtDecision::Continue
    };
    (llr, decision)
}

/// Mean and 95% confidence half-width of `values` (e.g. game lengths),
/// using the normal approximation: `Z95 · sd / sqrt(n)` with the sample
/// standard deviation (n − 1 denominator).
///
/// Non-finite values are skipped. With no values the result is `(0, ∞)`;
/// with one value it is `(value, ∞)`: the spread is unknown.
pub fn mean_and_ci95(values: &[f64]) -> (f64, f64) {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    let n = finite().count() as f64;
    if n == 0.0 {
        return (0.0, f64::INFINITY);
    }
    let mean = finite().sum::<f64>() / n;
    if n < 2.0 {
        return (mean, f64::INFINITY);
    }
    let var = finite().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (mean, Z95 * (var / n).sqrt())
}

/// Why sequential-test parameters are refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtParamsError {
    /// An Elo bound that is infinite or not a number.
    #[error("elo0 and elo1 must be finite numbers")]
    NotFinite,
    /// Bounds in the wrong order: the test needs elo0 < elo1.
    #[error("elo0 ({elo0}) must be smaller than elo1 ({elo1})")]
    EloOrder {
        /// The null hypothesis's Elo difference.
        elo0: f64,
        /// The alternative's Elo difference.
        elo1: f64,
    },
    /// An error rate outside (0, 0.5).
    #[error("{name} ({value}) must be strictly between 0 and 0.5")]
    Risk {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The rate given.
        value: f64,
    },
}

/// Why a `--sprt` value is refused; every message quotes the value and says what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// Other than 2 or 4 comma-separated fields.
    #[error("invalid --sprt value {input:?}: got {count} comma-separated fields, {SPRT_EXPECTED}")]
    FieldCount {
        /// The value given.
        input: String,
        /// Fields found.
        count: usize,
    },
    /// A field that is not a finite number.
    #[error("invalid --sprt value {input:?}: {field:?} is not a finite number, {SPRT_EXPECTED}")]
    NotANumber {
        /// The value given.
        input: String,
        /// The field at fault.
        field: String,
    },
    /// Numbers that make no test.
    #[error("invalid --sprt value {input:?}: {problem}")]
    Params {
        /// The value given.
        input: String,
        /// What is wrong with the numbers.
        problem: SprtParamsError,
    },
}

impl SprtParams {
    /// Checks `elo0 < elo1`, `0 < alpha < 0.5`, `0 < beta < 0.5`, all finite.
    pub fn validate(&self) -> Result<(), SprtParamsError> {
        if !(self.elo0.is_finite() && self.elo1.is_finite()) {
            return Err(SprtParamsError::NotFinite);
        }
        if self.elo0 >= self.elo1 {
            return Err(SprtParamsError::EloOrder {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtParamsError::Risk { name, value });
            }
        }
        Ok(())
    }
}

impl fmt::Display for SprtParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

const SPRT_EXPECTED: &str = "expected elo0,elo1[,alpha,beta] such as 0,5 or 0,5,0.05,0.05";

/// Parses the `--sprt elo0,elo1[,alpha,beta]` flag value. `alpha` and `beta`
/// default to 0.05. The error names the input and says what was expected.
impl FromStr for SprtParams {
    type Err = SprtError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = input.split(',').map(str::trim).collect();
        if fields.len() != 2 && fields.len() != 4 {
            return Err(SprtError::FieldCount {
                input: input.into(),
                count: fields.len(),
            });
        }
        let mut nums = Vec::with_capacity(fields.len());
        for field in &fields {
            match field.parse::<f64>() {
                Ok(v) if v.is_finite() => nums.push(v),
                _ => {
                    return Err(SprtError::NotANumber {
                        input: input.into(),
                        field: field.to_string(),
                    });
                }
            }
        }
        let params = SprtParams {
            elo0: nums[0],
            elo1: nums[1],
            alpha: nums.get(2).copied().unwrap_or(0.05),
            beta: nums.get(3).copied().unwrap_or(0.05),
        };
        params.validate().map_err(|problem| SprtError::Params {
            input: input.into(),
            problem,
        })?;
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn wilson_half_of_hundred() {
        // Textbook Wilson interval for 50/100 at z = 1.96 (e.g. any online
        // Wilson calculator; by hand: 0.5 ± 1.96/1.038416·sqrt(0.00259604)).
        let (lo, hi) = wilson_interval(50.0, 100.0, 1.96);
        assert!(close(lo, 0.4038, 1e-4), "lo = {lo}");
        assert!(close(hi, 0.5962, 1e-4), "hi = {hi}");
    }

    #[test]
    fn wilson_extremes_and_empty() {
        // With p = 0 the Wilson lower bound is exactly 0, with p = 1 the
        // upper bound is exactly 1 (the ± term equals the centre offset).
        let (lo, hi0) = wilson_interval(0.0, 10.0, Z95);
        assert!(close(lo, 0.0, 1e-12) && hi0 < 0.5);
        let (lo1, hi) = wilson_interval(10.0, 10.0, Z95);
        assert_eq!(wilson_interval(0.0, 64.0, Z95).0, 0.0, "was 3.5e-18");
        assert_eq!(wilson_interval(64.0, 64.0, Z95).1, 1.0);
        assert!(close(hi, 1.0, 1e-12) && lo1 > 0.5);
        // Documented convention: n = 0 says nothing, so (0, 1).
        assert_eq!(wilson_interval(0.0, 0.0, Z95), (0.0, 1.0));
        assert_eq!(wilson_interval(f64::NAN, 5.0, Z95), (0.0, 1.0));
    }

    #[test]
    fn elo_known_values() {
        // -400·log10(1/0.75 − 1) = 400·log10(3) = 190.848...
        assert!(close(elo_from_score(0.75), 190.85, 0.01));
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(elo_from_score(0.5).is_sign_positive());
        assert!(close(elo_from_score(0.25), -190.85, 0.01));
        for elo in [-500.0, -100.0, -3.0, 0.0, 7.5, 250.0, 800.0] {
            assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
        }
    }

    #[test]
    fn elo_clamped_at_extremes() {
        // Documented clamp of s into [1e-6, 1 − 1e-6]: 400·log10(999999).
        let top = elo_from_score(1.0);
        assert!(top.is_finite() && close(top, 2399.99, 0.01));
        assert!(close(elo_from_score(0.0), -top, 1e-9));
        assert_eq!(elo_from_score(f64::NAN), 0.0);
        assert_eq!(score_from_elo(f64::NAN), 0.5);
    }

    #[test]
    fn sprt_bounds_five_percent() {
        // ln(0.05/0.95) = −ln 19 = −2.944..., ln(0.95/0.05) = ln 19.
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!(close(lo, -19f64.ln(), 1e-12) && close(hi, 19f64.ln(), 1e-12));
        assert!(close(hi, 2.944, 1e-3));
    }

    #[test]
    fn pentanomial_add_merge_mean() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 0.0); // WL -> cell 2
        p.add_pair(1.0, 1.0); // WW -> cell 4
        p.add_pair(0.5, 0.0); // DL -> cell 1
        p.add_pair(2.0, -1.0); // clamped to WL -> cell 2
        assert_eq!(p.counts, [0, 1, 2, 0, 1]);
        assert_eq!(p.pairs(), 4);
        // (0.25 + 0.5 + 0.5 + 1) / 4 per game.
        assert!(close(p.mean_score(), 0.5625, 1e-12));
        let mut q = Pentanomial {
            counts: [1, 0, 0, 0, 0],
        };
        q.merge(&p);
        assert_eq!(q.counts, [1, 1, 2, 0, 1]);
        assert_eq!(Pentanomial::default().mean_score(), 0.5);
    }

    #[test]
    fn split_pairs_leave_an_interval() {
        // Two pairs, each won once and lost once: score 0.5 with no spread among the pairs,
        // which once gave "+0 [+0, +0]". With a pseudo-pair of weight z²/4 at each end:
        // 3.92 pairs of mean 0.5, variance 0.96·0.25·2/3.92, half-width Z95·sqrt(var/3.92).
        let e = Pentanomial {
            counts: [0, 0, 2, 0, 0],
        }
        .elo_estimate();
        let n = 2.0 + 2.0 * EDGE_PSEUDO_PAIRS;
        let half = Z95 * (2.0 * EDGE_PSEUDO_PAIRS * 0.25 / n / n).sqrt();
        assert!(close(e.score_hi - 0.5, half, 1e-12) && close(0.5 - e.score_lo, half, 1e-12));
        assert_eq!(elo_text(&e, 4), "+0 [-296, +296]");
        // Forty such pairs: narrower, still not empty.
        let many = Pentanomial {
            counts: [0, 0, 40, 0, 0],
        }
        .elo_estimate();
        assert!(many.lo < -1.0 && many.hi > 1.0 && many.hi < e.hi);
    }

    #[test]
    fn a_clean_sweep_has_no_upper_bound() {
        let won = Pentanomial {
            counts: [0, 0, 0, 0, 4],
        }
        .elo_estimate();
        assert_eq!(won.score, 1.0);
        assert!(won.score_lo > 0.5 && won.score_hi == 1.0);
        let text = elo_text(&won, 8);
        assert!(text.starts_with("won all 8 games: Elo ≥ +"), "{text}");
        assert!(!text.contains("2400"), "{text}");
        let lost = Pentanomial {
            counts: [4, 0, 0, 0, 0],
        }
        .elo_estimate();
        let text = elo_text(&lost, 8);
        assert!(text.starts_with("lost all 8 games: Elo ≤ -"), "{text}");
        // Won or drawn, never lost: a finite estimate, an open upper end.
        let unbeaten = Pentanomial {
            counts: [0, 0, 0, 2, 2],
        }
        .elo_estimate();
        let text = elo_text(&unbeaten, 8);
        assert!(text.ends_with(", +∞]") && !text.contains("all"), "{text}");
    }

    /// A result where every pair was lost (or won) has the Wilson interval of its games, the
    /// one the score column prints: two pairs lost once printed "lost all 4 games: Elo ≤ +124"
    /// beside a score of "0.0% [0.0, 49.0]".
    #[test]
    fn a_clean_sweep_bound_agrees_with_the_score_interval() {
        for pairs in 1..=40u64 {
            let lost = Pentanomial {
                counts: [pairs, 0, 0, 0, 0],
            }
            .elo_estimate();
            let (lo, hi) = wilson_interval(0.0, 2.0 * pairs as f64, Z95);
            assert_eq!((lost.score, lost.score_lo, lost.score_hi), (0.0, lo, hi));
            // Two games lost say little (Wilson: 0% [0, 65.8]); four say "below even".
            assert_eq!(lost.hi < 0.0, pairs >= 2, "{pairs} pairs lost: {lost}");
            let won = Pentanomial {
                counts: [0, 0, 0, 0, pairs],
            }
            .elo_estimate();
            let (lo, hi) = wilson_interval(2.0 * pairs as f64, 2.0 * pairs as f64, Z95);
            assert_eq!((won.score, won.score_lo, won.score_hi), (1.0, lo, hi));
            assert_eq!(won.lo > 0.0, pairs >= 2, "{pairs} pairs won: {won}");
        }
        let two_lost = Pentanomial {
            counts: [2, 0, 0, 0, 0],
        }
        .elo_estimate();
        assert_eq!(elo_text(&two_lost, 4), "lost all 4 games: Elo ≤ -7");
        assert_eq!(format!("{:.1}", 100.0 * two_lost.score_hi), "49.0");
    }

    /// The printed estimate lies inside the printed interval for every small result, and the
    /// interval is never empty.
    #[test]
    fn printed_estimates_lie_inside_their_printed_intervals() {
        let number = |s: &str| s.trim().replace('∞', "inf").parse::<f64>().unwrap();
        for code in 0..3usize.pow(5) {
            let counts = std::array::from_fn(|i| (code / 3usize.pow(i as u32) % 3) as u64);
            let p = Pentanomial { counts };
            if p.pairs() == 0 {
                continue;
            }
            let e = p.elo_estimate();
            assert!(e.score_lo <= e.score && e.score <= e.score_hi && e.score_lo < e.score_hi);
            let text = elo_text(&e, 2 * p.pairs());
            if let Some((est, rest)) = text.split_once(" [") {
                let (lo, hi) = rest.trim_end_matches(']').split_once(", ").unwrap();
                let (lo, est, hi) = (number(lo), number(est), number(hi));
                assert!(lo <= est && est <= hi && lo < hi, "{counts:?}: {text}");
            }
        }
        // 99,600 of 200,000: once printed "49.8 [50-50]".
        let (lo, hi) = wilson_interval(99_600.0, 200_000.0, Z95);
        assert_eq!(percent_text(0.498, lo, hi), "49.8 [49.6-50.0]");
        assert_eq!(percent_text(0.0, 0.0, 0.3085), "0.0 [0.0-30.9]");
    }

    #[test]
    fn elo_estimate_contains_point_and_narrows() {
        let small = Pentanomial {
            counts: [10, 30, 100, 35, 12],
        };
        let big = Pentanomial {
            counts: small.counts.map(|c| c * 10),
        };
        let (a, b) = (small.elo_estimate(), big.elo_estimate());
        for e in [a, b] {
            assert!(e.lo < e.elo && e.elo < e.hi, "{e}");
            assert!(e.score_lo < e.score && e.score < e.score_hi);
        }
        assert!(close(a.elo, b.elo, 1e-9));
        // Ten times the data: the score interval shrinks by about sqrt(10) (exactly, but for
        // the two pseudo-pairs at the ends).
        let ratio = (a.score_hi - a.score_lo) / (b.score_hi - b.score_lo);
        assert!(close(ratio, 10f64.sqrt(), 0.05), "{ratio}");
    }

    #[test]
    fn elo_estimate_matches_hand_computation() {
        // Pair scores 0 and 2 equally often: per-game x = 0 or 1, mean 0.5, variance 0.25,
        // also with the pseudo-pairs at both ends, so se = sqrt(0.25/(100 + 2·z²/4)).
        let e = Pentanomial {
            counts: [50, 0, 0, 0, 50],
        }
        .elo_estimate();
        let se = (0.25 / (100.0 + 2.0 * EDGE_PSEUDO_PAIRS)).sqrt();
        assert!(close(e.score_hi - 0.5, Z95 * se, 1e-12));
        assert!(close(e.lo, -e.hi, 1e-9));
    }

    #[test]
    fn elo_estimate_empty_is_finite() {
        // Documented convention for zero pairs.
        let e = Pentanomial::default().elo_estimate();
        assert_eq!(
            (e.elo, e.score, e.score_lo, e.score_hi),
            (0.0, 0.5, 0.0, 1.0)
        );
        assert!(e.lo.is_finite() && e.hi.is_finite() && e.lo < 0.0 && e.hi > 0.0);
    }

    #[test]
    fn llr_zero_pairs() {
        assert_eq!(sprt_llr(&Pentanomial::default(), 0.0, 5.0), 0.0);
    }

    #[test]
    fn llr_symmetric_data_at_midpoint() {
        // Data symmetric around 0.5 = midpoint of score_from_elo(∓5): the
        // two constrained fits are mirror images, so the LLR is 0.
        let p = Pentanomial {
            counts: [50, 200, 600, 200, 50],
        };
        assert!(close(sprt_llr(&p, -5.0, 5.0), 0.0, 1e-9));
        // Also with empty cells (regularised symmetrically).
        let q = Pentanomial {
            counts: [0, 10, 30, 10, 0],
        };
        assert!(close(sprt_llr(&q, -5.0, 5.0), 0.0, 1e-9));
    }

    #[test]
    fn llr_strong_data_grows_with_n() {
        // Score well above elo1 = 5: LLR positive, and (no empty cells, so no
        // regularisation) doubling every count exactly doubles it.
        let p = Pentanomial {
            counts: [20, 60, 200, 150, 90],
        };
        let doubled = Pentanomial {
            counts: p.counts.map(|c| 2 * c),
        };
        let (a, b) = (sprt_llr(&p, 0.0, 5.0), sprt_llr(&doubled, 0.0, 5.0));
        assert!(a > 0.0);
        assert!(close(b, 2.0 * a, 1e-9 * b.abs()), "{a} {b}");
        // Data below elo0 gives a negative LLR.
        let weak = Pentanomial {
            counts: [90, 150, 200, 60, 20],
        };
        assert!(sprt_llr(&weak, 0.0, 5.0) < 0.0);
    }

    #[test]
    fn llr_matches_gsprt_normal_approximation() {
        // Normal (GSPRT) approximation from fishtest's LLR_alt2 / M. Van
        // den Bergh's "GSPRT approximation" note, per pair in per-game
        // units: N·(s1 − s0)·(2ŝ − s0 − s1) / (2σ̂²), with ŝ, σ̂² the mean and
        // variance of x = pair score / 2. Here exact ≈ 2.2200, approx ≈ 2.2256.
        let p = Pentanomial {
            counts: [100, 300, 1000, 350, 120],
        };
        let (n, s, var) = p.moments().unwrap_or_default();
        let (s0, s1) = (score_from_elo(0.0), score_from_elo(5.0));
        let approx = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
        let exact = sprt_llr(&p, 0.0, 5.0);
        assert!(approx > 0.0);
        assert!(
            ((exact - approx) / approx).abs() < 0.01,
            "{exact} vs {approx}"
        );
    }

    #[test]
    fn constrained_mle_meets_constraints() {
        // The Lagrange solution must be a distribution (sums to 1) whose
        // mean per-game score is the hypothesised s, for s on either side
        // of the empirical mean (0.512 here).
        let counts = [100.0, 300.0, 1000.0, 350.0, 120.0];
        let n: f64 = counts.iter().sum();
        let freq = counts.map(|c| c / n);
        for s in [0.3, 0.5, 0.512, 0.55, 0.9] {
            let q = mle_with_mean(&freq, s);
            let mean: f64 = q.iter().zip(CELL_SCORE).map(|(p, x)| p * x).sum();
            assert!(close(q.iter().sum(), 1.0, 1e-12), "s = {s}");
            assert!(close(mean, s, 1e-12), "s = {s}");
            assert!(q.iter().all(|&p| p > 0.0));
        }
    }

    #[test]
    fn llr_degenerate_inputs_do_not_panic() {
        let one_cell = Pentanomial {
            counts: [0, 0, 0, 0, 7],
        };
        assert!(sprt_llr(&one_cell, 0.0, 5.0).is_finite());
        assert!(sprt_llr(&one_cell, 3000.0, 5000.0).is_finite());
        assert_eq!(sprt_llr(&one_cell, f64::NAN, 5.0), 0.0);
        let huge = Pentanomial {
            counts: [u64::MAX; 5],
        };
        assert!(huge.elo_estimate().elo.is_finite());
    }

    #[test]
    fn sprt_decide_outcomes() {
        let params: SprtParams = "0,5".parse().unwrap_or_else(|e| panic!("{e}"));
        let none = Pentanomial::default();
        assert_eq!(sprt_decide(&none, &params).1, SprtDecision::Continue);
        let strong = Pentanomial {
            counts: [20, 60, 200, 150, 90],
        };
        assert_eq!(sprt_decide(&strong, &params).1, SprtDecision::H1);
        let weak = Pentanomial {
            counts: [90, 150, 200, 60, 20],
        };
        assert_eq!(sprt_decide(&weak, &params).1, SprtDecision::H0);
    }

    #[test]
    fn mean_and_ci95_values() {
        // Values 1..=5: mean 3, sample sd sqrt(2.5), half = Z95·sqrt(2.5/5).
        let (m, h) = mean_and_ci95(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(close(m, 3.0, 1e-12) && close(h, Z95 * 0.5f64.sqrt(), 1e-12));
        assert_eq!(mean_and_ci95(&[]), (0.0, f64::INFINITY));
        assert_eq!(mean_and_ci95(&[4.0, f64::NAN]), (4.0, f64::INFINITY));
    }

    #[test]
    fn sprt_params_parse() {
        let p: SprtParams = "0,5".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.elo0, p.elo1, p.alpha, p.beta), (0.0, 5.0, 0.05, 0.05));
        let q: SprtParams = "0, 5, 0.05, 0.1".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((q.alpha, q.beta), (0.05, 0.1));
        let problem = |s: &str| match s.parse::<SprtParams>() {
            Err(SprtError::Params { problem, .. }) => problem,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(
            problem("5,0"),
            SprtParamsError::EloOrder {
                elo0: 5.0,
                elo1: 0.0
            }
        );
        assert_eq!(
            problem("0,5,0.6,0.05"),
            SprtParamsError::Risk {
                name: "alpha",
                value: 0.6
            }
        );
        assert!(matches!(
            "0,5,0.05".parse::<SprtParams>(),
            Err(SprtError::FieldCount { count: 3, .. })
        ));
        assert!(matches!(
            "".parse::<SprtParams>(),
            Err(SprtError::FieldCount { count: 1, .. })
        ));
        let infinite = SprtParams {
            elo0: f64::INFINITY,
            ..p
        };
        assert_eq!(infinite.validate(), Err(SprtParamsError::NotFinite));
        let err = "a,b".parse::<SprtParams>().unwrap_err();
        assert!(
            matches!(&err, SprtError::NotANumber { field, .. } if field == "a"),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(
            err.contains("\"a,b\"") && err.contains("elo0,elo1"),
            "{err}"
        );
    }

    #[test]
    fn the_sign_test_matches_the_binomial_tail() {
        // 2 * P(X <= 1) for X ~ Binomial(6, 1/2) = 2 * 7/64.
        assert!((sign_test_p(1, 5) - 14.0 / 64.0).abs() < 1e-12);
        assert!((sign_test_p(5, 1) - 14.0 / 64.0).abs() < 1e-12);
        assert_eq!(sign_test_p(3, 3), 1.0);
        assert_eq!(sign_test_p(0, 0), 1.0);
        // 2 * 2^-10 when one side won all 10 discordant games.
        assert!((sign_test_p(10, 0) - 2.0 / 1024.0).abs() < 1e-15);
        // Thousands of games: finite, tiny, no underflow to NaN.
        let p = sign_test_p(100, 3000);
        assert!((0.0..1e-100).contains(&p), "{p}");
    }
}
