//! Figures with 95% intervals that respect how a study's games are related: the games of one
//! deal (both first players, both variants) share their tiles, so they are one cluster, and
//! every standard error here is a cluster-robust one (clusters = deals).

use crate::tournament::stats::{wilson_interval, Z95};
use serde::{Deserialize, Serialize};

/// A figure and its 95% interval, over `n` games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Observations (games or players) behind it.
    pub n: u64,
    /// Deals behind it: the independent units its interval rests on.
    pub deals: u64,
}

impl Estimate {
    /// A figure whose interval cannot be estimated from these deals (too few of them, or no
    /// spread among them): its ends are infinite, and the reports print "not estimable" instead.
    pub fn not_estimable(value: f64, n: u64, deals: u64) -> Estimate {
        Estimate {
            value,
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
            n,
            deals,
        }
    }

    /// Whether the interval is known (both ends finite).
    pub fn is_estimable(&self) -> bool {
        self.lo.is_finite() && self.hi.is_finite()
    }

    /// "not estimable (3 deals)", what the reports print in place of an unknown interval.
    pub fn not_estimable_note(&self) -> String {
        let s = if self.deals == 1 { "" } else { "s" };
        format!("not estimable ({} deal{s})", self.deals)
    }

    /// Whether the interval holds `x`.
    pub fn covers(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// Whether two intervals share a point.
    pub fn overlaps(&self, other: &Estimate) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }

    /// For showing a change of a share (a score, a share of games; in pp): the interval cut to
    /// [−1, 1], the only values such a change can take. With two or three deals a t interval
    /// reaches past them ("[-124.2, +124.2] pp"). Only what is shown is cut: p-values and
    /// sample sizes read the interval itself, since a cut end would shrink its standard error.
    pub fn shown_as_share_change(&self) -> Estimate {
        if !self.is_estimable() {
            return *self;
        }
        Estimate {
            lo: self.lo.max(-1.0),
            hi: self.hi.min(1.0),
            ..*self
        }
    }

    /// The same figure scaled, e.g. to percent or percentage points.
    pub fn scaled(&self, k: f64) -> Estimate {
        let (a, b) = (self.lo * k, self.hi * k);
        Estimate {
            value: self.value * k,
            lo: a.min(b),
            hi: a.max(b),
            n: self.n,
            deals: self.deals,
        }
    }
}

/// Two-sided 95% quantile of Student's t distribution with `df` degrees of freedom (rounded
/// to a whole number, at least 1): the printed table up to 10, then the Cornish–Fisher
/// expansion in `1/df` (within 0.001 of the tables there, tending to [`Z95`]). With `G` deals
/// a cluster-robust interval has `G − 1` degrees of freedom; the normal quantile would make
/// few-deal intervals too narrow.
pub fn t95(df: f64) -> f64 {
    const TABLE: [f64; 10] = [
        12.706_205, 4.302_653, 3.182_446, 2.776_445, 2.570_582, 2.446_912, 2.364_624, 2.306_004,
        2.262_157, 2.228_139,
    ];
    let v = df.round().max(1.0);
    if v <= TABLE.len() as f64 {
        return TABLE[v as usize - 1];
    }
    let z = Z95;
    let z2 = z * z;
    let g1 = (z2 + 1.0) * z / 4.0;
    let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)
}

/// Mean of values grouped in clusters, with the cluster-robust standard error
/// `sqrt(G/(G−1) · Σ_g (Σ_{i∈g} (x_i − mean))²) / n` over `G` clusters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusteredMean {
    /// The mean.
    pub mean: f64,
    /// Its cluster-robust standard error.
    pub se: f64,
    /// Plain (independent games) standard error, for the design effect.
    pub se_iid: f64,
    /// Observations.
    pub n: u64,
    /// Clusters (deals) among them.
    pub clusters: u64,
}

/// The clustered mean of `(cluster, value)` pairs, or `None` without values; their order
/// does not matter (`sort_by_cluster`).
pub fn clustered_mean(items: &mut [(u64, f64)]) -> Option<ClusteredMean> {
    if items.is_empty() {
        return None;
    }
    sort_by_cluster(items);
    let n = items.len() as f64;
    let mean = items.iter().map(|&(_, x)| x).sum::<f64>() / n;
    let (mut between, mut within, mut clusters) = (0.0, 0.0, 0u64);
    for group in items.chunk_by(|a, b| a.0 == b.0) {
        let s: f64 = group.iter().map(|&(_, x)| x - mean).sum();
        between += s * s;
        within += group
            .iter()
            .map(|&(_, x)| (x - mean) * (x - mean))
            .sum::<f64>();
        clusters += 1;
    }
    let g = clusters as f64;
    let correction = if clusters > 1 { g / (g - 1.0) } else { 1.0 };
    Some(ClusteredMean {
        mean,
        se: (correction * between).sqrt() / n,
        se_iid: (within / (n * (n - 1.0).max(1.0))).sqrt(),
        n: items.len() as u64,
        clusters,
    })
}

/// A proportion (values in [0, 1]; a draw may count 0.5) with a Wilson interval computed on
/// the effective number of games: `n` shrunk by the design effect of the clusters, never
/// below the number of clusters nor above `n` (so correlation never narrows the interval).
/// With one deal the spread between deals is unknown: not estimable.
pub fn proportion(items: &mut [(u64, f64)]) -> Option<Estimate> {
    let m = clustered_mean(items)?;
    if m.clusters < 2 {
        return Some(Estimate::not_estimable(m.mean, m.n, m.clusters));
    }
    let (n, g) = (m.n as f64, m.clusters as f64);
    let effective = if m.se > 0.0 && m.se_iid > 0.0 {
        (n * (m.se_iid / m.se).powi(2)).clamp(g, n)
    } else {
        g
    };
    let (lo, hi) = wilson_interval(m.mean * effective, effective, Z95);
    Some(Estimate {
        value: m.mean,
        lo: lo.min(m.mean),
        hi: hi.max(m.mean),
        n: m.n,
        deals: m.clusters,
    })
}

/// A mean with a t interval (`G − 1` degrees of freedom over `G` deals) from the clustered
/// standard error; not estimable from one deal.
pub fn mean(items: &mut [(u64, f64)]) -> Option<Estimate> {
    let m = clustered_mean(items)?;
    if m.clusters < 2 {
        return Some(Estimate::not_estimable(m.mean, m.n, m.clusters));
    }
    let half = t95((m.clusters - 1) as f64) * m.se;
    Some(Estimate {
        value: m.mean,
        lo: m.mean - half,
        hi: m.mean + half,
        n: m.n,
        deals: m.clusters,
    })
}

/// The sample standard deviation with the large-sample interval
/// `sd / (1 ± z/sqrt(2(n−1)))` (exact for normal data as n grows; game lengths are close to
/// normal away from the turn cap); `deals` is only carried along. Not estimable when the upper
/// end would be infinite (two games). The values are sorted first, so that the figure does not
/// depend on their order (the order games finished in, with several played at once).
pub fn std_dev(values: &mut [f64], deals: u64) -> Option<Estimate> {
    let n = values.len() as f64;
    if n < 2.0 {
        return None;
    }
    values.sort_unstable_by(f64::total_cmp);
    let m = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt();
    let k = Z95 / (2.0 * (n - 1.0)).sqrt();
    if k >= 1.0 {
        return Some(Estimate::not_estimable(sd, values.len() as u64, deals));
    }
    Some(Estimate {
        value: sd,
        lo: sd / (1.0 + k),
        hi: sd / (1.0 - k),
        n: values.len() as u64,
        deals,
    })
}

/// The mean difference between two conditions on the same deals: `a` and `b` hold
/// `(deal, value)`; each deal's difference is the mean of its `a` values minus the mean of its
/// `b` values, and deals missing from either side are left out. A t interval over deals (see
/// [`mean`]); not estimable when every deal's difference is the same, because then the deals
/// say nothing about how much the difference varies (with few deals the interval would
/// otherwise collapse to a point).
pub fn paired_difference(a: &mut [(u64, f64)], b: &mut [(u64, f64)]) -> Option<Estimate> {
    let (ma, mb) = (deal_means(a), deal_means(b));
    let mut diffs = Vec::with_capacity(ma.len());
    let mut j = 0;
    for &(deal, x) in &ma {
        while j < mb.len() && mb[j].0 < deal {
            j += 1;
        }
        if j < mb.len() && mb[j].0 == deal {
            diffs.push((deal, x - mb[j].1));
        }
    }
    let first = diffs.first()?.1;
    if diffs.iter().all(|&(_, d)| d == first) {
        let deals = diffs.len() as u64;
        return Some(Estimate::not_estimable(first, deals, deals));
    }
    mean(&mut diffs)
}

/// Sorts `(cluster, value)` pairs by cluster, then by value: sums over them then do not depend
/// on the order the games were played or read in, to the last bit.
fn sort_by_cluster(items: &mut [(u64, f64)]) {
    items.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
}

/// Each deal's mean value, in deal order.
fn deal_means(items: &mut [(u64, f64)]) -> Vec<(u64, f64)> {
    sort_by_cluster(items);
    items
        .chunk_by(|a, b| a.0 == b.0)
        .map(|g| {
            (
                g[0].0,
                g.iter().map(|&(_, x)| x).sum::<f64>() / g.len() as f64,
            )
        })
        .collect()
}

/// Ludii's balance of two seats, `1 − |2p − 1|` for the first seat's score `p`, with the
/// interval its interval maps to (1 when the interval holds 1/2).
pub fn balance_of(p: &Estimate) -> Estimate {
    let f = |x: f64| 1.0 - (2.0 * x - 1.0).abs();
    if !p.is_estimable() {
        return Estimate::not_estimable(f(p.value), p.n, p.deals);
    }
    let hi = if p.covers(0.5) {
        1.0
    } else {
        f(p.lo).max(f(p.hi))
    };
    Estimate {
        value: f(p.value),
        lo: f(p.lo).min(f(p.hi)),
        hi,
        n: p.n,
        deals: p.deals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clustered_error_grows_with_correlation_and_equals_plain_without_it() {
        // Independent: one value per cluster.
        let mut iid: Vec<(u64, f64)> = (0..100).map(|i| (i, (i % 2) as f64)).collect();
        let m = clustered_mean(&mut iid).unwrap();
        assert!((m.se / m.se_iid - 1.0).abs() < 1e-9, "{m:?}");
        // Perfectly correlated pairs: the same information as 50 games.
        let mut pairs: Vec<(u64, f64)> = (0..100).map(|i| (i / 2, ((i / 2) % 2) as f64)).collect();
        let m = clustered_mean(&mut pairs).unwrap();
        assert!(m.se > 1.35 * m.se_iid, "{m:?}");
        let p = proportion(&mut pairs).unwrap();
        let plain = wilson_interval(50.0, 100.0, Z95);
        assert!(p.hi - p.lo > 1.3 * (plain.1 - plain.0));
    }

    #[test]
    fn proportions_of_all_or_nothing_keep_a_width() {
        let mut all: Vec<(u64, f64)> = (0..20).map(|i| (i, 1.0)).collect();
        let p = proportion(&mut all).unwrap();
        assert_eq!(p.value, 1.0);
        assert!(p.lo < 0.9 && p.hi == 1.0, "{p:?}");
        assert!(proportion(&mut []).is_none());
    }

    #[test]
    fn paired_difference_uses_common_deals_only() {
        let mut a = vec![(1, 1.0), (1, 0.0), (2, 1.0), (3, 1.0)];
        let mut b = vec![(1, 0.0), (2, 0.0), (4, 1.0)];
        let d = paired_difference(&mut a, &mut b).unwrap();
        assert_eq!(d.n, 2);
        assert!((d.value - 0.75).abs() < 1e-12);
        assert!(d.is_estimable() && d.hi - d.lo > 1.0, "t with 1 df: {d:?}");
    }

    #[test]
    fn a_share_change_is_shown_within_100_pp() {
        let (mut a, mut b) = (vec![(1, 1.0), (2, 0.0)], vec![(1, 0.0), (2, 0.0)]);
        let wide = paired_difference(&mut a, &mut b).unwrap();
        assert!(wide.lo < -1.0 && wide.hi > 1.0, "t with 1 df: {wide:?}");
        let shown = wide.shown_as_share_change();
        assert_eq!((shown.value, shown.lo, shown.hi), (0.5, -1.0, 1.0));
        assert_eq!(
            super::super::analysis::pp(&wide),
            "+50.0 pp [-100.0, +100.0]"
        );
        let narrow = Estimate {
            value: 0.1,
            lo: -0.2,
            hi: 0.4,
            n: 40,
            deals: 20,
        };
        assert_eq!(narrow.shown_as_share_change(), narrow);
        let unknown = Estimate::not_estimable(0.5, 2, 1);
        assert!(!unknown.shown_as_share_change().is_estimable());
    }

    #[test]
    fn few_deals_never_give_a_point_or_an_infinite_printed_interval() {
        // Two deals with the same difference: no spread, so no interval (not [0, 0]).
        let mut a = vec![(1, 1.0), (2, 1.0)];
        let mut b = vec![(1, 1.0), (2, 1.0)];
        let d = paired_difference(&mut a, &mut b).unwrap();
        assert!(!d.is_estimable() && d.value == 0.0 && d.deals == 2, "{d:?}");
        // One deal: the spread between deals is unknown.
        let mut one = vec![(7, 1.0), (7, 0.0)];
        assert!(!mean(&mut one.clone()).unwrap().is_estimable());
        let p = proportion(&mut one).unwrap();
        assert!(!p.is_estimable() && p.deals == 1, "{p:?}");
        assert!(!balance_of(&p).is_estimable());
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        for (df, table) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (3.0, 3.182),
            (4.0, 2.776),
            (5.0, 2.571),
            (10.0, 2.228),
            (30.0, 2.042),
            (11.0, 2.201),
            (1000.0, 1.962),
        ] {
            assert!((t95(df) - table).abs() < 0.001, "{df}: {}", t95(df));
        }
    }

    #[test]
    fn balance_maps_the_interval() {
        let p = Estimate {
            value: 0.6,
            lo: 0.55,
            hi: 0.65,
            n: 10,
            deals: 5,
        };
        let b = balance_of(&p);
        assert!((b.value - 0.8).abs() < 1e-12 && (b.lo - 0.7).abs() < 1e-12);
        assert!((b.hi - 0.9).abs() < 1e-12);
        let even = balance_of(&Estimate { lo: 0.45, ..p });
        assert_eq!(even.hi, 1.0);
    }

    #[test]
    fn std_dev_interval_holds_the_estimate() {
        let v: Vec<f64> = (0..200).map(|i| (i % 10) as f64).collect();
        let s = std_dev(&mut v.clone(), 100).unwrap();
        assert!(s.lo < s.value && s.value < s.hi);
        assert!(std_dev(&mut [1.0], 1).is_none());
        assert!(!std_dev(&mut [1.0, 2.0], 1).unwrap().is_estimable());
    }

    #[test]
    fn a_clustered_mean_does_not_depend_on_the_order_within_a_cluster() {
        // Two values of one deal, in either order, among others: the games of a deal come in
        // the order they finished (or were taken from an earlier study), and the drama of
        // results/balance's reused study differed in its last bit with them swapped.
        let values = [0.24, 0.54, 0.37, 0.6, 0.63, 0.07, 0.01, 0.84];
        let pairs: Vec<(u64, f64)> = values
            .iter()
            .enumerate()
            .map(|(i, &x)| (i as u64 / 2, x))
            .collect();
        let swapped: Vec<(u64, f64)> = pairs.chunks(2).flat_map(|c| [c[1], c[0]]).collect();
        let [a, b] = [pairs, swapped].map(|mut p| clustered_mean(&mut p).unwrap());
        for (x, y) in [(a.mean, b.mean), (a.se, b.se), (a.se_iid, b.se_iid)] {
            assert_eq!(x.to_bits(), y.to_bits());
        }
    }

    #[test]
    fn std_dev_does_not_depend_on_the_order_of_the_values() {
        // Eighty game lengths whose mean and squared deviations round to another standard
        // deviation (in its last bit) when summed in reverse.
        let v: Vec<f64> = [
            24, 38, 45, 44, 22, 28, 23, 35, 44, 34, 35, 40, 32, 45, 26, 23, 35, 20, 32, 33, 39, 44,
            44, 20, 42, 34, 28, 43, 45, 27, 38, 23, 30, 20, 20, 20, 40, 37, 20, 32, 41, 26, 33, 43,
            20, 36, 27, 44, 34, 35, 37, 27, 31, 27, 41, 27, 44, 34, 29, 20, 33, 37, 40, 23, 25, 40,
            43, 29, 23, 43, 30, 43, 42, 36, 33, 36, 41, 26, 29, 29,
        ]
        .map(f64::from)
        .to_vec();
        let mut reversed: Vec<f64> = v.iter().rev().copied().collect();
        let mut rotated: Vec<f64> = v[40..].iter().chain(&v[..40]).copied().collect();
        let sd = std_dev(&mut v.clone(), 40).unwrap().value;
        assert_eq!(
            sd.to_bits(),
            std_dev(&mut reversed, 40).unwrap().value.to_bits()
        );
        assert_eq!(
            sd.to_bits(),
            std_dev(&mut rotated, 40).unwrap().value.to_bits()
        );
    }
}
