//! Calibration of the win estimate (`toybattle::review::estimate`) on recorded self-play games,
//! and the check of its half-turn zig-zag. Results and commands: results/review.md.
//!
//! ```sh
//! # positions: GAMES games sampled from the records, K turn starts each, both players
//! nice -n 19 cargo run --profile test --example calibrate_estimate -- \
//!     points OUT.tsv GAMES K SEED RECORDS_DIR...
//! # fit Platt scaling on the games of one half, tables before/after on the other half
//! cargo run --profile test --example calibrate_estimate -- fit OUT.tsv
//! # zig-zag: each player's estimate at every turn start of GAMES games, old and new kind
//! nice -n 19 cargo run --profile test --example calibrate_estimate -- zigzag GAMES SEED RECORDS_DIR...
//! ```
//!
//! `points` appends one line per position (`game path, step, player, playout mean, won`) as
//! each game is done and skips the games already in OUT.tsv, so an interrupted run resumes.
//! Games are split into halves by a hash of their path, so both players' positions of a game
//! fall in the same half.

use rayon::prelude::*;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use toybattle::bot::preset::resolve;
use toybattle::bot::search::win_probability;
use toybattle::bot::Budget;
use toybattle::info::{EvidenceTracker, Observation};
use toybattle::record::GameRecord;
use toybattle::review::{estimate_seed, playout_mean, Calibration, ESTIMATE_PLAYOUTS};
use toybattle::rules::{Colour, Decision, Game, State};
use toybattle::vocabulary::hash::splitmix64;

/// Bands of estimates: tenths of the 0–1 range.
const BANDS: usize = 10;

/// Every `*.json` under the folders, sorted.
fn records(dirs: &[String]) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for d in dirs {
        walk(Path::new(d), &mut out);
    }
    out.sort();
    out
}

/// `count` records picked by `seed` (a partial Fisher–Yates shuffle).
fn sample<T>(mut paths: Vec<T>, count: usize, seed: u64) -> Vec<T> {
    let mut x = seed;
    for i in 0..paths.len().min(count) {
        x = splitmix64(x);
        let j = i + (x % (paths.len() - i) as u64) as usize;
        paths.swap(i, j);
    }
    paths.truncate(count);
    paths
}

/// A moment the win history notes: (steps done, state, evidence).
type Moment = (usize, State, EvidenceTracker);

/// A record's game, its winner and the moments after each step that start a turn. `None` for a
/// record that does not load or was not won.
fn moments(path: &Path) -> Option<(Game, GameRecord, Colour, Vec<Moment>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let record: GameRecord = serde_json::from_str(&text).ok()?;
    let winner = record.result.winner?;
    let game = Game::builtin(&record.terrain, record.variant).ok()?;
    let mut state = game.initial_state(&record.deal);
    let mut evidence = EvidenceTracker::new(&game, &state);
    let mut out = Vec::new();
    for (step, text) in record.steps.iter().enumerate() {
        let d = Decision::parse(text, game.terrain()).ok()?;
        let before = state;
        game.apply(&mut state, d).ok()?;
        evidence.step(&game, &before, d, &state);
        // As the session notes its win history: at every turn start.
        if !state.is_over() && !state.is_chance() && state.turn() != before.turn() {
            out.push((step + 1, state, evidence));
        }
    }
    Some((game, record, winner, out))
}

fn observation(m: &Moment, c: Colour) -> Observation {
    Observation::new(&m.1, c).with_evidence(m.2.about(c.opponent()))
}

/// Lines `path\tstep\tplayer\tplayout mean\twon` for `k` turn starts of one game.
fn points_of(path: &Path, k: usize, seed: u64) -> String {
    let Some((game, record, winner, moments)) = moments(path) else {
        return format!("{}\t-\t-\t-\t-\n", path.display()); // not won: nothing, but done
    };
    let picked = sample((0..moments.len()).collect(), k, seed ^ record.deal.seed);
    let mut out = String::new();
    for i in picked {
        let m = &moments[i];
        for c in Colour::BOTH {
            let s = estimate_seed(record.deal.seed, c, m.0);
            let p = playout_mean(&game, &observation(m, c), s, None);
            out += &format!(
                "{}\t{}\t{}\t{p:.6}\t{}\n",
                path.display(),
                m.0,
                c.name(),
                u8::from(c == winner)
            );
        }
    }
    out
}

fn points(args: &[String]) {
    let [out, games, k, seed, dirs @ ..] = args else {
        panic!("points OUT.tsv GAMES K SEED RECORDS_DIR...");
    };
    let (games, k, seed): (usize, usize, u64) = (
        games.parse().unwrap(),
        k.parse().unwrap(),
        seed.parse().unwrap(),
    );
    let done: HashSet<String> = std::fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split('\t').next().map(str::to_string))
        .collect();
    let todo: Vec<PathBuf> = sample(records(dirs), games, seed)
        .into_iter()
        .filter(|p| !done.contains(&p.display().to_string()))
        .collect();
    eprintln!("{} games to do, {} done before", todo.len(), done.len());
    let file = std::sync::Mutex::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(out)
            .unwrap(),
    );
    todo.par_iter().for_each(|p| {
        let lines = points_of(p, k, seed);
        file.lock().unwrap().write_all(lines.as_bytes()).unwrap();
    });
}

/// Platt scaling: the logistic regression of the outcome on the logit of the estimate
/// (Newton's method on the log-likelihood).
fn fit_platt(data: &[(f64, bool)]) -> Calibration {
    let x: Vec<(f64, f64)> = data
        .iter()
        .map(|&(p, won)| {
            let edge = 0.5 / ESTIMATE_PLAYOUTS as f64;
            let p = p.clamp(edge, 1.0 - edge);
            ((p / (1.0 - p)).ln(), f64::from(u8::from(won)))
        })
        .collect();
    let (mut a, mut b) = (1.0, 0.0);
    for _ in 0..50 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(l, y) in &x {
            let q = 1.0 / (1.0 + (-(a * l + b)).exp());
            let w = q * (1.0 - q);
            ga += (y - q) * l;
            gb += y - q;
            haa += w * l * l;
            hab += w * l;
            hbb += w;
        }
        let det = haa * hbb - hab * hab;
        a += (hbb * ga - hab * gb) / det;
        b += (haa * gb - hab * ga) / det;
    }
    Calibration {
        slope: a,
        intercept: b,
    }
}

/// The calibration table of (estimate, won) pairs, as Markdown, with the Brier score.
fn table(data: &[(f64, bool)]) -> String {
    let mut bands = [(0usize, 0.0f64, 0usize); BANDS];
    for &(p, won) in data {
        let b = ((p * BANDS as f64) as usize).min(BANDS - 1);
        bands[b].0 += 1;
        bands[b].1 += p;
        bands[b].2 += usize::from(won);
    }
    let mut out = String::from(
        "| estimate | positions | mean estimate | won | 95% interval of won |\n|---|---|---|---|---|\n",
    );
    for (b, &(n, sum, won)) in bands.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let rate = won as f64 / n as f64;
        let half = 1.96 * (rate * (1.0 - rate) / n as f64).sqrt();
        out += &format!(
            "| {}–{}% | {n} | {:.1}% | {:.1}% | {:.1}–{:.1}% |\n",
            b * 10,
            b * 10 + 10,
            100.0 * sum / n as f64,
            100.0 * rate,
            100.0 * (rate - half).max(0.0),
            100.0 * (rate + half).min(1.0)
        );
    }
    let brier: f64 = data
        .iter()
        .map(|&(p, won)| (p - f64::from(u8::from(won))).powi(2))
        .sum::<f64>()
        / data.len().max(1) as f64;
    out + &format!("\n{} positions; Brier score {brier:.4}\n", data.len())
}

fn fit(args: &[String]) {
    let [file] = args else {
        panic!("fit OUT.tsv");
    };
    let text = std::fs::read_to_string(file).unwrap();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let mut games = [HashSet::new(), HashSet::new()];
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (Ok(p), Ok(won)) = (f[3].parse::<f64>(), f[4].parse::<u8>()) else {
            continue;
        };
        let half = splitmix64(
            f[0].bytes()
                .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b)),
        ) & 1;
        games[half as usize].insert(f[0].to_string());
        match half {
            0 => train.push((p, won == 1)),
            _ => test.push((p, won == 1)),
        }
    }
    let c = fit_platt(&train);
    println!(
        "Platt scaling fitted on {} positions of {} games: slope {:.4}, intercept {:.4}\n",
        train.len(),
        games[0].len(),
        c.slope,
        c.intercept
    );
    println!(
        "Held-out half ({} games), before:\n\n{}",
        games[1].len(),
        table(&test)
    );
    let after: Vec<(f64, bool)> = test.iter().map(|&(p, w)| (c.apply(p), w)).collect();
    println!("Held-out half, after:\n\n{}", table(&after));
    for p in [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] {
        println!("{p:.1} → {:.4}", c.apply(p));
    }
}

/// The old estimate (before this change): a search's value when the observer decides, the
/// playout mean otherwise; 2,000 iterations of the strong level's settings.
fn old_estimate(game: &Game, obs: &Observation, seed: u64) -> f64 {
    let strong = resolve("strong").expect("a shipped level");
    let toybattle::bot::preset::BotConfig::Search { algorithm, config } = strong.config else {
        unreachable!("strong searches")
    };
    win_probability(
        game,
        obs,
        algorithm,
        &config,
        Budget::iterations(2_000),
        seed,
        None,
    )
}

/// Mean absolute change between consecutive history points, and the mean zig-zag: how far each
/// point stands from the mean of its two neighbours, signed +1 at the observer's own turn
/// starts and −1 at the opponent's (a systematic alternation shows as a non-zero mean).
fn alternation(series: &[(bool, f64)]) -> (f64, f64, usize) {
    let steps: Vec<f64> = series.windows(2).map(|w| (w[1].1 - w[0].1).abs()).collect();
    let zig: Vec<f64> = series
        .windows(3)
        .map(|w| {
            let dev = w[1].1 - (w[0].1 + w[2].1) / 2.0;
            if w[1].0 {
                dev
            } else {
                -dev
            }
        })
        .collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    (mean(&steps), mean(&zig), steps.len())
}

fn zigzag(args: &[String]) {
    let [games, seed, dirs @ ..] = args else {
        panic!("zigzag GAMES SEED RECORDS_DIR...");
    };
    let paths = sample(records(dirs), games.parse().unwrap(), seed.parse().unwrap());
    let per_game: Vec<[Vec<(bool, f64)>; 4]> = paths
        .par_iter()
        .filter_map(|p| moments(p))
        .map(|(game, record, _, moments)| {
            let mut out: [Vec<(bool, f64)>; 4] = Default::default();
            for (i, c) in Colour::BOTH.into_iter().enumerate() {
                for m in &moments {
                    let obs = observation(m, c);
                    let own = m.1.active() == c;
                    let s = estimate_seed(record.deal.seed, c, m.0);
                    out[2 * i].push((own, old_estimate(&game, &obs, s)));
                    out[2 * i + 1].push((own, toybattle::review::estimate(&game, &obs, s)));
                }
            }
            out
        })
        .collect();
    for (kind, label) in [
        (0, "old (search at own turn, playouts at the other's)"),
        (1, "new (calibrated playout mean)"),
    ] {
        let (mut steps, mut zig, mut n) = (0.0, 0.0, 0usize);
        for g in &per_game {
            for c in 0..2 {
                let (s, z, k) = alternation(&g[2 * c + kind]);
                steps += s * k as f64;
                zig += z * k as f64;
                n += k;
            }
        }
        println!(
            "{label}: {} games, {n} half-turn changes; mean |change| {:.2} points; mean zig-zag {:+.2} points",
            per_game.len(),
            100.0 * steps / n as f64,
            100.0 * zig / n as f64
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("points") => points(&args[1..]),
        Some("fit") => fit(&args[1..]),
        Some("zigzag") => zigzag(&args[1..]),
        _ => {
            eprintln!("usage: calibrate_estimate points|fit|zigzag ... (see the file's header)");
            std::process::exit(2);
        }
    }
}
