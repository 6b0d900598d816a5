//! Claims that survive many tests: p-values read from the report's intervals, Holm's
//! step-down correction for the number of comparisons a headline is chosen from, the games a
//! row would need to resolve an effect of a given size, and Cochran's test of whether an
//! effect is the same on every terrain (before its terrains are pooled).
//!
//! Why Holm and not Benjamini–Hochberg: a designer acts on each headline on its own, so the
//! chance that *any* headline is a fluke (the family-wise error) is what matters, and Holm
//! controls it under any dependence between the comparisons (the first player's and blue's
//! scores of one terrain share their games).

use super::estimate::{t95, Estimate};
use crate::tournament::stats::Z95;
use serde::{Deserialize, Serialize};

/// The level every claim is tested at.
pub const ALPHA: f64 = 0.05;

/// The power a sample-size line asks for: an effect of the stated size is found 4 times in 5.
pub const POWER: f64 = 0.8;

/// Standard normal quantile of [`POWER`].
const Z_POWER: f64 = 0.841_621_233_572_914_3;

/// The standard error behind an estimate's interval: the half of the interval towards
/// `toward` over the quantile it was built with (Student's t with `deals − 1` degrees of
/// freedom; Wilson intervals of proportions are close to it). `None` when not estimable.
pub fn standard_error(e: &Estimate, toward: f64) -> Option<f64> {
    if !e.is_estimable() || e.deals < 2 {
        return None;
    }
    let half = if toward < e.value {
        e.value - e.lo
    } else {
        e.hi - e.value
    };
    let se = half / t95((e.deals - 1) as f64);
    (se > 0.0).then_some(se)
}

/// Two-sided p-value of the hypothesis that the figure is `null`, from its interval: the
/// t statistic `(value − null) / se` with `deals − 1` degrees of freedom. A figure whose 95%
/// interval just excludes `null` has p close to 0.05. `None` when not estimable.
pub fn p_value(e: &Estimate, null: f64) -> Option<f64> {
    let se = standard_error(e, null)?;
    let t = (e.value - null) / se;
    Some(t_two_sided(t, (e.deals - 1) as f64))
}

/// Holm's step-down adjusted p-values, in the order given: the smallest p is multiplied by
/// the number of tests `m`, the next by `m − 1`, and so on, each kept at least as large as
/// the one before. A claim survives when its adjusted p is below [`ALPHA`].
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// Games a row needs for an effect of `effect` (same units as the estimate) to be found at
/// 5% (two-sided) with 80% power, scaled from the row's own games and standard error (so the
/// clustering of its deals is carried along): `n · ((z₀.₉₇₅ + z₀.₈) · se / effect)²`.
pub fn games_needed(e: &Estimate, effect: f64) -> Option<u64> {
    let se = standard_error(e, e.value + 1.0)?.max(standard_error(e, e.value - 1.0)?);
    let k = (Z95 + Z_POWER) * se / effect.abs();
    Some((e.n as f64 * k * k).ceil() as u64)
}

/// Cochran's Q test of homogeneity over independent estimates of one effect (one per terrain:
/// terrains are dealt from different seeds): `Q = Σ wᵢ (xᵢ − x̄)²` with `wᵢ = 1/seᵢ²` and `x̄`
/// their weighted mean, chi-squared with `k − 1` degrees of freedom. Returns `(Q, df, p)`, or
/// `None` with fewer than two estimable estimates.
pub fn cochran_q(estimates: &[Estimate]) -> Option<(f64, u32, f64)> {
    let pairs: Vec<(f64, f64)> = estimates
        .iter()
        .filter_map(|e| {
            let se = standard_error(e, e.value + 1.0)?.max(standard_error(e, e.value - 1.0)?);
            Some((e.value, 1.0 / (se * se)))
        })
        .collect();
    if pairs.len() < 2 {
        return None;
    }
    let w: f64 = pairs.iter().map(|p| p.1).sum();
    let mean = pairs.iter().map(|p| p.0 * p.1).sum::<f64>() / w;
    let q: f64 = pairs.iter().map(|(x, w)| w * (x - mean) * (x - mean)).sum();
    let df = pairs.len() as u32 - 1;
    Some((q, df, chi2_upper(q, df as f64)))
}

/// `P(|T| ≥ |t|)` for Student's t with `df` degrees of freedom: `I_{df/(df+t²)}(df/2, 1/2)`.
pub fn t_two_sided(t: f64, df: f64) -> f64 {
    let df = df.max(1.0);
    beta_regularized(df / (df + t * t), df / 2.0, 0.5)
}

/// `P(X ≥ x)` for chi-squared with `df` degrees of freedom: the upper regularized gamma
/// function `Q(df/2, x/2)`.
pub fn chi2_upper(x: f64, df: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    gamma_upper_regularized(df / 2.0, x / 2.0)
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, 9 terms: about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let s: f64 = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

/// The regularized incomplete beta function `I_x(a, b)`, by its continued fraction
/// (Lentz's method), on the side where it converges fast.
fn beta_regularized(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        for num in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + num * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + num / c;
            if c.abs() < TINY {
                c = TINY;
            }
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The upper regularized gamma function `Q(a, x)`: its series below `a + 1`, its continued
/// fraction above.
fn gamma_upper_regularized(a: f64, x: f64) -> f64 {
    let front = (a * x.ln() - x - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut n) = (1.0 / a, 1.0 / a, a);
        for _ in 0..500 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        return (1.0 - front * sum).clamp(0.0, 1.0);
    }
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..500 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        d = 1.0 / if d.abs() < TINY { TINY } else { d };
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        h *= d * c;
        if (d * c - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (front * h).clamp(0.0, 1.0)
}

/// One headline's family: the comparisons it was chosen from and those that survive Holm's
/// correction for their number.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Family {
    /// What was compared, e.g. "the first player's and blue's scores against 50%".
    pub what: String,
    /// The preset (and variant) the family belongs to.
    pub preset: String,
    /// Comparisons with an estimable interval: the number the claim was chosen from.
    pub comparisons: usize,
    /// Every comparison, with its estimate, unadjusted and Holm-adjusted p, largest effect
    /// first.
    pub tests: Vec<Test>,
    /// How many surviving comparisons the summary lists, largest first, and where the others
    /// are read; `None` to list them all. A family of many cells (a troop on each terrain)
    /// would otherwise make one paragraph of dozens of figures.
    #[serde(skip)]
    pub listed: Option<Listed>,
}

/// The summary's listing of a large family: its largest surviving comparisons only.
#[derive(Clone, Debug)]
pub struct Listed {
    /// The most comparisons listed.
    pub at_most: usize,
    /// Where every comparison is read, e.g. "the heat map … and troops_by_terrain.csv".
    pub rest_in: String,
}

/// One comparison of a family.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Test {
    /// What it is, in the game's words, e.g. "Caribbean Sea: blue".
    pub label: String,
    /// The figure and its 95% interval.
    pub estimate: Estimate,
    /// The figure of no effect (0.5 for a score, 0 for a change).
    pub null: f64,
    /// Two-sided p-value against `null`.
    pub p: f64,
    /// Holm-adjusted p-value over the family.
    pub holm: f64,
}

impl Test {
    /// Whether the claim survives Holm's correction at 5%.
    pub fn shown(&self) -> bool {
        self.holm < ALPHA
    }
}

impl Family {
    /// A family of `(label, estimate)` comparisons against `null`; estimates without an
    /// interval are left out (and not counted).
    pub fn new(
        what: impl Into<String>,
        preset: impl Into<String>,
        null: f64,
        items: impl IntoIterator<Item = (String, Estimate)>,
    ) -> Family {
        let mut tests: Vec<Test> = items
            .into_iter()
            .filter_map(|(label, estimate)| {
                Some(Test {
                    p: p_value(&estimate, null)?,
                    label,
                    estimate,
                    null,
                    holm: 1.0,
                })
            })
            .collect();
        let adjusted = holm(&tests.iter().map(|t| t.p).collect::<Vec<_>>());
        for (t, a) in tests.iter_mut().zip(adjusted) {
            t.holm = a;
        }
        tests.sort_by(|a, b| {
            let size = |t: &Test| (t.estimate.value - t.null).abs();
            size(b).total_cmp(&size(a))
        });
        Family {
            what: what.into(),
            preset: preset.into(),
            comparisons: tests.len(),
            tests,
            listed: None,
        }
    }

    /// The family with only its `at_most` largest surviving comparisons listed in the summary,
    /// the rest to be read in `rest_in`.
    pub fn listing_at_most(mut self, at_most: usize, rest_in: impl Into<String>) -> Family {
        self.listed = Some(Listed {
            at_most,
            rest_in: rest_in.into(),
        });
        self
    }

    /// The comparisons that survive, largest effect first.
    pub fn shown(&self) -> impl Iterator<Item = &Test> {
        self.tests.iter().filter(|t| t.shown())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(value: f64, lo: f64, hi: f64, deals: u64) -> Estimate {
        Estimate {
            value,
            lo,
            hi,
            n: 2 * deals,
            deals,
        }
    }

    #[test]
    fn distributions_match_the_printed_tables() {
        // t: the 95% quantiles give p = 0.05.
        for df in [1.0, 4.0, 10.0, 30.0, 200.0] {
            let p = t_two_sided(t95(df), df);
            assert!((p - 0.05).abs() < 2e-4, "df {df}: {p}");
        }
        assert!((t_two_sided(0.0, 5.0) - 1.0).abs() < 1e-12);
        // Chi-squared 95% quantiles: 3.841 (1 df), 7.815 (3), 14.067 (7), 43.773 (30).
        for (x, df) in [
            (3.841_459, 1.0),
            (7.814_728, 3.0),
            (14.067_14, 7.0),
            (43.772_97, 30.0),
        ] {
            let p = chi2_upper(x, df);
            assert!((p - 0.05).abs() < 1e-5, "df {df}: {p}");
        }
        assert!((chi2_upper(2.0, 2.0) - (-1.0f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn a_p_value_read_from_an_interval_that_just_excludes_the_null_is_five_percent() {
        let half = t95(99.0) * 0.02;
        let e = est(0.5 + half, 0.5, 0.5 + 2.0 * half, 100);
        assert!((p_value(&e, 0.5).unwrap() - 0.05).abs() < 1e-3);
        assert!(p_value(&Estimate::not_estimable(0.6, 4, 2), 0.5).is_none());
    }

    /// Holm's worked example: p = 0.01, 0.04, 0.03, 0.005 over four tests adjust to
    /// 0.03, 0.06, 0.06, 0.02 (the 0.04 kept at least as large as the 0.03 before it).
    #[test]
    fn holm_adjusts_step_down_and_keeps_the_order() {
        let a = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (x, y) in a.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!((x - y).abs() < 1e-12, "{a:?}");
        }
        assert_eq!(holm(&[0.9, 0.3]), vec![0.9, 0.6]);
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0], "capped at 1");
    }

    /// One interval of 16 just excluding 50% is what chance gives: not shown after Holm.
    #[test]
    fn one_unadjusted_hit_among_many_is_not_shown() {
        let half = t95(62.0) * 0.04;
        let mut items = vec![(
            "hit".to_string(),
            est(0.5 - 1.2 * half, 0.5 - 2.2 * half, 0.5 - 0.2 * half, 63),
        )];
        items.extend((0..15).map(|i| (format!("t{i}"), est(0.5, 0.5 - half, 0.5 + half, 63))));
        let f = Family::new("scores", "p", 0.5, items);
        assert_eq!(f.comparisons, 16);
        assert!(
            f.tests[0].p < 0.05 && !f.tests[0].shown(),
            "{:?}",
            f.tests[0]
        );
        assert_eq!(f.shown().count(), 0);
    }

    #[test]
    fn games_needed_scale_with_the_square_of_the_precision() {
        let se = 0.02;
        let half = t95(99.0) * se;
        let e = est(0.5, 0.5 - half, 0.5 + half, 100);
        let n = games_needed(&e, 0.02).unwrap() as f64;
        // (1.96 + 0.84)² · 200 games ≈ 1,570.
        assert!((n - 200.0 * 2.8016f64.powi(2)).abs() < 2.0, "{n}");
        let quarter = games_needed(&e, 0.04).unwrap() as f64;
        assert!((n / quarter - 4.0).abs() < 0.01);
    }

    #[test]
    fn cochran_rejects_different_terrains_and_keeps_equal_ones() {
        let half = t95(99.0) * 0.01;
        let at = |v: f64| est(v, v - half, v + half, 100);
        let (_, df, p) = cochran_q(&[at(0.0), at(0.005), at(-0.005)]).unwrap();
        assert!(df == 2 && p > 0.5, "{p}");
        let (_, _, p) = cochran_q(&[at(0.05), at(-0.05), at(0.0)]).unwrap();
        assert!(p < 1e-6, "{p}");
        assert!(cochran_q(&[at(0.0)]).is_none());
    }
}
