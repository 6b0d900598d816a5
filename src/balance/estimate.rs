//! Figures with 95% intervals that respect how a study's games are related: the games of one
//! deal (both first players, both variants) share their tiles, so they are one cluster, and
//! every standard error here is a cluster-robust one (clusters = deals).

use crate::tournament::stats::{wilson_interval, Z95};
use serde::Serialize;

/// A figure and its 95% interval, over `n` games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Observations (games or players) behind it.
    pub n: u64,
}

impl Estimate {
    /// Whether the interval holds `x`.
    pub fn covers(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// Whether two intervals share a point.
    pub fn overlaps(&self, other: &Estimate) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }

    /// The same figure scaled, e.g. to percent or percentage points.
    pub fn scaled(&self, k: f64) -> Estimate {
        let (a, b) = (self.lo * k, self.hi * k);
        Estimate {
            value: self.value * k,
            lo: a.min(b),
            hi: a.max(b),
            n: self.n,
        }
    }
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

/// The clustered mean of `(cluster, value)` pairs, or `None` without values.
pub fn clustered_mean(items: &mut [(u64, f64)]) -> Option<ClusteredMean> {
    if items.is_empty() {
        return None;
    }
    items.sort_unstable_by_key(|&(c, _)| c);
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
pub fn proportion(items: &mut [(u64, f64)]) -> Option<Estimate> {
    let m = clustered_mean(items)?;
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
    })
}

/// A mean with a normal interval from the clustered standard error.
pub fn mean(items: &mut [(u64, f64)]) -> Option<Estimate> {
    let m = clustered_mean(items)?;
    let half = if m.clusters > 1 {
        Z95 * m.se
    } else {
        f64::INFINITY
    };
    Some(Estimate {
        value: m.mean,
        lo: m.mean - half,
        hi: m.mean + half,
        n: m.n,
    })
}

/// The sample standard deviation with the large-sample interval
/// `sd / (1 ± z/sqrt(2(n−1)))` (exact for normal data as n grows; game lengths are close to
/// normal away from the turn cap).
pub fn std_dev(values: &[f64]) -> Option<Estimate> {
    let n = values.len() as f64;
    if n < 2.0 {
        return None;
    }
    let m = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt();
    let k = Z95 / (2.0 * (n - 1.0)).sqrt();
    let hi = if k < 1.0 {
        sd / (1.0 - k)
    } else {
        f64::INFINITY
    };
    Some(Estimate {
        value: sd,
        lo: sd / (1.0 + k),
        hi,
        n: values.len() as u64,
    })
}

/// The mean difference between two conditions on the same deals: `a` and `b` hold
/// `(deal, value)`; each deal's difference is the mean of its `a` values minus the mean of its
/// `b` values, and deals missing from either side are left out. Normal interval over deals.
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
    mean(&mut diffs)
}

/// Each deal's mean value, in deal order.
fn deal_means(items: &mut [(u64, f64)]) -> Vec<(u64, f64)> {
    items.sort_unstable_by_key(|&(c, _)| c);
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
    }

    #[test]
    fn balance_maps_the_interval() {
        let p = Estimate {
            value: 0.6,
            lo: 0.55,
            hi: 0.65,
            n: 10,
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
        let s = std_dev(&v).unwrap();
        assert!(s.lo < s.value && s.value < s.hi);
        assert!(std_dev(&[1.0]).is_none());
    }
}
