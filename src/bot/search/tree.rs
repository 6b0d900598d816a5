//! The search tree shared by ISMCTS, PIMC (one tree per determinization) and cheating UCT.
//!
//! Nodes are reached by decision sequences: every decision of either player is a tree level,
//! including consecutive decisions of one player inside a turn. Chance events (draws, XB-42 and
//! Battlefield targets) are sampled with `sample_chance` and only advance the state; they are
//! never tree levels. A node's legal decisions can therefore change between visits (another
//! determinization, another draw), so selection uses availability counts as in SO-ISMCTS:
//! a child's availability grows each time it was legal when its parent was visited, and UCB uses
//! it in place of the parent's visits. Each child stores rewards from the point of view of the
//! player who chose it, so opponent decisions are selected by UCB for the opponent. With a
//! fixed state and no chance event availability equals the parent's visits: plain UCT.
//!
//! With `SearchConfig::observed_chance`, a chance outcome the searching player sees (its own
//! draws, an XB-42 discard, a freeze of its own tile) still only advances the sampled state but
//! also leads to a branch for that outcome, below which the tree goes on: the searcher's later
//! decisions are then its own information sets, conditioned on what it drew, instead of one
//! node shared by every draw (strategy fusion on the searcher's own side). Outcomes it does not
//! see (the opponent's draws, which of the opponent's tiles it froze) stay merged. Branches are
//! never selected, so no chance outcome is ever a choice. Against `greedy` this lifted ISMCTS
//! by 9 points at 20,000 iterations and 4 at 60,000 (results/search-strength.md).
//!
//! Two guides (on by default; `SearchConfig::decisive` and `prior`) use the tactical playout
//! policy's weights (`playout.rs`) inside the tree:
//! `decisive` makes a node where a decision wins at once follow only that decision (so a move
//! that leaves the opponent an HQ capture or a medal win is refuted on its first visit instead
//! of after many), and `prior` is a progressive bias — untried children are expanded in
//! proportion to their weight and a child's UCB score gains `prior × w / (visits + 1)` — so that
//! a small budget looks at region takes, HQ defences and attacks first. Against `greedy` at
//! 2,000 iterations they raise ISMCTS from about 54% to 64% (results/search-strength.md).
//! With `policy_prior`, the prior's weights are the learned policy model's
//! (`model::policy`), which also weighs the troop placed, instead of the hand-set ones.
//!
//! Nodes live in one arena `Vec` with index links (first child, next sibling). With
//! `SearchConfig::shared_tree`, the search's threads work on one tree ([`run_shared`]).

use super::playout::{play_out, Context, Reward, Scratch, WIN};
use super::{rng_for, Root, RootStats, Settings, Stop};
use crate::model::policy::{PolicyModel, PRIOR_CAP};
use crate::rules::{sample_chance, Chance, Colour, Decision, DecisionList, Phase, State};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

const NONE: u32 = u32::MAX;

struct Node {
    /// The decision leading here from the parent.
    decision: Decision,
    /// Who made `decision`: `reward` is from their point of view.
    player: Colour,
    first_child: u32,
    next_sibling: u32,
    visits: u32,
    available: u32,
    reward: f64,
}

/// Runs `stop` iterations (or until its deadline) of a tree search from `root`, whose legal
/// decisions are `legal`, and returns the root children's statistics.
pub(super) fn run(
    settings: &Settings,
    root: Root,
    legal: &[Decision],
    stop: Stop,
    rng: &mut Xoshiro256PlusPlus,
) -> RootStats {
    let mut iterations = 0;
    let mut tree = Tree::new(root.active(), settings.config.policy_model());
    let mut scratch = Scratch::default();
    let mut path = Vec::with_capacity(64);
    let started = Instant::now();
    while !stop.reached(iterations) {
        tree.iterate(settings, root.sample(rng), &mut path, &mut scratch, rng);
        iterations += 1;
        if tree.decided(legal, &stop, iterations, started) {
            break;
        }
    }
    tree.root_stats(legal, iterations)
}

/// Tree parallelism that thread timing cannot change: iterations on one tree until `stop`,
/// their playouts on `threads` threads. The caller's thread makes every descent and every
/// back-up, in a fixed order: descent i, then the back-up of iteration i − `threads`. So each
/// descent sees the same tree whatever the timing, with the visits of the `threads` iterations
/// still being played out counted and their rewards not yet (a virtual loss, which steers it to
/// other lines). A leaf is played out by whichever thread claims it first (a helper, or the
/// caller while it waits for the reward it must back up next), with its own random stream
/// (from `seed` and its number); a playout's result does not depend on the thread or its
/// scratch (the scratch's caches hold exact evaluations). So the result depends on the seed and
/// the number of threads only; and the caller, when a reward is late (its thread was
/// descheduled), plays the leaf out again itself rather than wait. The descents and back-ups
/// are not parallel: the speed-up is the playouts'. (A first version, where the threads took
/// a locked tree in turn, was about as fast, but its decisions depended on the thread timing.)
pub(super) fn run_shared(
    settings: &Settings,
    root: Root,
    legal: &[Decision],
    stop: Stop,
    seed: u64,
    threads: usize,
) -> RootStats {
    let queue = Queue::new(threads + 1);
    let over = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let thread = std::thread::Builder::new().name("search-helper".into());
            let help = || queue.help(settings, seed, &over);
            // A helper the system refuses is not needed: the caller plays what nobody claims.
            let _ = thread.spawn_scoped(scope, help);
        }
        // Raised when the search ends, and also if it panics, so that the scope's end, which
        // waits for the helpers, never waits for ever.
        let _over = Raise(&over);
        let mut tree = Tree::new(root.active(), settings.config.policy_model());
        let iterations = queue.run(
            &mut tree,
            settings,
            (root, legal),
            stop,
            seed,
            threads as u64,
        );
        tree.root_stats(legal, iterations)
    })
}

/// A descent of [`run_shared`] waiting for its playout.
#[derive(Clone, Copy)]
struct Leaf {
    s: State,
    /// Whether the descent expanded a node (else its state is scored as it is).
    expanded: bool,
    /// The iteration's number in the search, which seeds its playout.
    number: u64,
}

/// Sets the playouts' random streams of [`run_shared`] apart from the trees' (`rng_for(seed,
/// k)`).
const PLAYOUT_STREAMS: u64 = 0x5EED_0F97_A100_75AB;

impl Leaf {
    /// Plays the leaf out with its own random stream and scores where it stopped.
    fn play(mut self, settings: &Settings, seed: u64, scratch: &mut Scratch) -> Reward {
        if self.expanded {
            let mut rng = rng_for(seed ^ PLAYOUT_STREAMS, self.number);
            play_out(settings, &mut self.s, scratch, &mut rng);
        }
        Reward::of_state(settings, &self.s)
    }
}

/// The leaves of [`run_shared`] between their descent and their back-up, in a ring of slots
/// (leaf i in slot i mod the ring's length). Leaves are published and claimed in order.
struct Queue {
    slots: Vec<Slot>,
    /// Leaves published so far.
    published: AtomicU64,
    /// Leaves claimed so far: the next to claim is this one.
    claimed: AtomicU64,
}

/// One leaf's place in the [`Queue`]. The leaf stays in it until the slot is reused, so that
/// the caller can play it out again when the thread that claimed it is late.
#[derive(Default)]
struct Slot {
    leaf: Mutex<Option<Leaf>>,
    /// The number of the slot's leaf, and its reward once played out.
    reward: Mutex<(u64, Option<Reward>)>,
    /// The number of the leaf whose reward is ready, plus one (0: none yet).
    ready: AtomicU64,
}

/// How long the caller waits for a reward before it plays the leaf out again itself: far
/// longer than a playout, as long as the time slice another process may take from a thread.
const LATE: Duration = Duration::from_millis(1);

impl Queue {
    fn new(len: usize) -> Queue {
        Queue {
            slots: (0..len).map(|_| Slot::default()).collect(),
            published: AtomicU64::new(0),
            claimed: AtomicU64::new(0),
        }
    }

    fn slot(&self, i: u64) -> &Slot {
        &self.slots[(i % self.slots.len() as u64) as usize]
    }

    /// The caller's part: descents and back-ups, each back-up `lag` iterations behind its
    /// descent (so `lag` leaves are out at each descent, and the ring needs `lag` + 1 slots);
    /// returns the iterations made.
    fn run(
        &self,
        tree: &mut Tree,
        settings: &Settings,
        (root, legal): (Root, &[Decision]),
        stop: Stop,
        seed: u64,
        lag: u64,
    ) -> u64 {
        let started = Instant::now();
        let mut rng = rng_for(seed, 0);
        let mut scratch = Scratch::default();
        let mut paths = vec![Vec::with_capacity(64); self.slots.len()];
        let ring = self.slots.len() as u64;
        let mut made = 0u64;
        while !stop.reached(made) {
            let mut s = root.sample(&mut rng);
            let path = &mut paths[(made % ring) as usize];
            let expanded = tree.descend(settings, &mut s, path, &mut rng);
            let slot = self.slot(made);
            *lock(&slot.leaf) = Some(Leaf {
                s,
                expanded,
                number: made,
            });
            *lock(&slot.reward) = (made, None);
            made += 1;
            self.published.store(made, Ordering::Release);
            if made > lag {
                self.back_up(tree, &paths, made - 1 - lag, settings, seed, &mut scratch);
            }
            // Visits count at the descent, so the leaves still out are in the lead already.
            if tree.decided(legal, &stop, made, started) {
                break;
            }
        }
        for i in made.saturating_sub(lag)..made {
            self.back_up(tree, &paths, i, settings, seed, &mut scratch);
        }
        made
    }

    /// Backs up leaf i's reward along its path (`paths` by slot).
    fn back_up(
        &self,
        tree: &mut Tree,
        paths: &[Vec<u32>],
        i: u64,
        settings: &Settings,
        seed: u64,
        scratch: &mut Scratch,
    ) {
        let path = &paths[(i % paths.len() as u64) as usize];
        tree.back_up(path, &self.reward(i, settings, seed, scratch));
    }

    /// Leaf i's reward, once ready; meanwhile the caller plays out the leaves nobody has
    /// claimed, as a helper does. If it waits longer than [`LATE`] (the thread playing the
    /// leaf out was descheduled, or died), it plays the leaf out again itself: the same
    /// reward, since a playout depends only on its leaf.
    fn reward(&self, i: u64, settings: &Settings, seed: u64, scratch: &mut Scratch) -> Reward {
        let slot = self.slot(i);
        let start = Instant::now();
        loop {
            if slot.ready.load(Ordering::Acquire) == i + 1 {
                if let (n, Some(reward)) = *lock(&slot.reward) {
                    if n == i {
                        return reward;
                    }
                }
            }
            if start.elapsed() > LATE {
                let leaf = lock(&slot.leaf).expect("a published leaf stays in its slot");
                return leaf.play(settings, seed, scratch);
            }
            if !self.play_next(settings, seed, scratch) {
                std::hint::spin_loop();
            }
        }
    }

    /// Claims the next published leaf, if any, plays it out and leaves its reward in its slot;
    /// false when there was none to claim.
    fn play_next(&self, settings: &Settings, seed: u64, scratch: &mut Scratch) -> bool {
        let c = self.claimed.load(Ordering::Acquire);
        let claimable = c < self.published.load(Ordering::Acquire);
        if !claimable || !self.claim(c) {
            return false;
        }
        let slot = self.slot(c);
        let leaf = lock(&slot.leaf).expect("a published leaf stays in its slot");
        let reward = leaf.play(settings, seed, scratch);
        let mut kept = lock(&slot.reward);
        // Too late if the caller played it again and moved on: the slot holds another leaf.
        if kept.0 == c {
            kept.1 = Some(reward);
            slot.ready.store(c + 1, Ordering::Release);
        }
        true
    }

    /// Claims leaf i if it is the next to claim.
    fn claim(&self, i: u64) -> bool {
        (self.claimed)
            .compare_exchange(i, i + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// A helper's part: plays out the published leaves it claims, until `over`.
    fn help(&self, settings: &Settings, seed: u64, over: &AtomicBool) {
        let mut scratch = Scratch::default();
        while !over.load(Ordering::Acquire) {
            spin_until(|| {
                self.play_next(settings, seed, &mut scratch) || over.load(Ordering::Acquire)
            });
        }
    }
}

/// Sets its flag when dropped.
struct Raise<'a>(&'a AtomicBool);

impl Drop for Raise<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Spins until `done` (a helper waiting for a leaf), yielding the core only after a long wait
/// (about a tenth of a millisecond): the waits last microseconds, and a yielded core can go to
/// another process for a whole time slice.
fn spin_until(mut done: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < 1 << 14 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

struct Tree {
    nodes: Vec<Node>,
    index: ChildIndex,
    /// The player deciding at the root.
    searcher: Colour,
    /// The policy model of the prior (`policy_prior`), resolved once per tree.
    policy: Option<&'static PolicyModel>,
}

impl Tree {
    fn new(searcher: Colour, policy: Option<&'static PolicyModel>) -> Tree {
        let root = Node {
            decision: Decision::Decline,
            player: Colour::Blue,
            first_child: NONE,
            next_sibling: NONE,
            visits: 0,
            available: 0,
            reward: 0.0,
        };
        Tree {
            nodes: vec![root],
            index: ChildIndex::new(),
            searcher,
            policy,
        }
    }

    /// One iteration on the sampled state `s` by one worker alone: descend, play out, back up.
    fn iterate(
        &mut self,
        settings: &Settings,
        mut s: State,
        path: &mut Vec<u32>,
        scratch: &mut Scratch,
        rng: &mut Xoshiro256PlusPlus,
    ) {
        if self.descend(settings, &mut s, path, rng) {
            play_out(settings, &mut s, scratch, rng);
        }
        self.back_up(path, &Reward::of_state(settings, &s));
    }

    /// The tree part of one iteration on the sampled state `s`: selects down the tree, applying
    /// the decisions (and chance outcomes) to `s`, and expands one node. `path` is left holding
    /// the nodes visited, root excluded, each with its visit already counted (the root's too);
    /// the reward comes with [`Tree::back_up`]. True when a node was expanded, so that `s` is
    /// to be played out; false when the descent ended the game or reached the last turn.
    fn descend(
        &mut self,
        settings: &Settings,
        s: &mut State,
        path: &mut Vec<u32>,
        rng: &mut Xoshiro256PlusPlus,
    ) -> bool {
        let game = settings.game;
        path.clear();
        self.nodes[0].visits += 1;
        let mut node = 0;
        loop {
            while s.is_chance() {
                let d = sample_chance(game, s, rng);
                let seen = settings.config.observed_chance && observed_by(s, self.searcher);
                game.apply_legal(s, d);
                if seen {
                    node = self.chance_child(node, d);
                }
            }
            if s.is_over() || s.turn() > settings.last_turn {
                return false;
            }
            let (child, expanded) = self.select(settings, s, node, rng);
            game.apply_legal(s, self.nodes[child as usize].decision);
            self.nodes[child as usize].visits += 1;
            path.push(child);
            node = child;
            if expanded {
                return true;
            }
        }
    }

    /// Adds `reward` to every node of a descent's `path` (their visits were counted by the
    /// descent).
    fn back_up(&mut self, path: &[u32], reward: &Reward) {
        for &n in path {
            let node = &mut self.nodes[n as usize];
            node.reward += reward.for_player(node.player);
        }
    }

    /// The child of `node` to follow in state `s`: an untried legal decision (expanded now,
    /// second value true) drawn uniformly or, with a prior, by weight; else the legal child with
    /// the best UCB score (plus the progressive bias). Every legal child already in the tree has
    /// its availability counted. With `decisive`, a decision that wins at once is the only one.
    fn select(
        &mut self,
        settings: &Settings,
        s: &State,
        node: u32,
        rng: &mut Xoshiro256PlusPlus,
    ) -> (u32, bool) {
        let game = settings.game;
        let mut legal = DecisionList::new();
        game.legal_decisions(s, &mut legal);
        let guided = settings.config.decisive || settings.config.prior > 0.0;
        let ctx = guided.then(|| Context::new(game, s, true));
        if let (true, Some(ctx)) = (settings.config.decisive, &ctx) {
            if let Some(&win) = legal.iter().find(|&&d| ctx.weight(d) == WIN) {
                legal.clear();
                legal.push(win);
            }
        }
        // Hand-set prior weights are capped (an HQ defence; wins are capped with it), and the
        // bias is the capped weight divided by the cap, so in 0..1. The policy model's weight
        // is the decision's probability among the legal ones, scaled to the cap (at least 1,
        // so that every decision can be expanded).
        let policy = self.policy;
        let strength =
            |m: &PolicyModel, ctx: &Context, d: Decision| m.strength(ctx.tactic(d), d.troop());
        let total: f64 = match (&ctx, policy) {
            (Some(ctx), Some(m)) => legal.iter().map(|&d| strength(m, ctx, d)).sum(),
            _ => 0.0,
        };
        let prior = |d: Decision| match (&ctx, settings.config.prior > 0.0, policy) {
            (Some(ctx), true, Some(m)) => {
                let p = strength(m, ctx, d) / total;
                ((f64::from(PRIOR_CAP) * p).round() as u32).max(1)
            }
            (Some(ctx), true, None) => ctx.weight(d).min(PRIOR_CAP),
            _ => 1,
        };
        let generation = self.index.fill(&self.nodes, node);
        let mut untried = 0u32;
        let mut pick = None;
        let mut best = NONE;
        let mut best_score = f64::NEG_INFINITY;
        for &d in &legal {
            let k = key(d);
            if self.index.stamp[k] != generation {
                let w = prior(d);
                untried += w;
                if rng.random_range(0..untried) < w {
                    pick = Some(d);
                }
                continue;
            }
            let c = self.index.child[k];
            let child = &mut self.nodes[c as usize];
            child.available += 1;
            let v = child.visits as f64;
            let mut score = child.reward / v
                + settings.config.exploration * (ln_count(child.available) / v).sqrt();
            if settings.config.prior > 0.0 {
                score += settings.config.prior * prior(d) as f64 / f64::from(PRIOR_CAP) / (v + 1.0);
            }
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        match pick {
            Some(d) => (self.add_child(node, d, s.active()), true),
            None => (best, false),
        }
    }

    /// The branch of `node` for the chance outcome `d`, added on first sight. Chance branches
    /// are never selected: they are followed when the sampled outcome is `d`.
    fn chance_child(&mut self, node: u32, d: Decision) -> u32 {
        let generation = self.index.fill(&self.nodes, node);
        let k = key(d);
        if self.index.stamp[k] == generation {
            self.index.child[k]
        } else {
            self.add_child(node, d, self.searcher)
        }
    }

    fn add_child(&mut self, parent: u32, decision: Decision, player: Colour) -> u32 {
        let id = self.nodes.len() as u32;
        let p = &mut self.nodes[parent as usize];
        let next_sibling = p.first_child;
        p.first_child = id;
        self.nodes.push(Node {
            decision,
            player,
            first_child: NONE,
            next_sibling,
            visits: 0,
            available: 1,
            reward: 0.0,
        });
        id
    }

    /// The root's children, in sibling order.
    fn root_children(&self) -> impl Iterator<Item = &Node> {
        let mut c = self.nodes[0].first_child;
        std::iter::from_fn(move || {
            let child = self.nodes.get(c as usize)?;
            c = child.next_sibling;
            Some(child)
        })
    }

    /// Whether a search stopping when decided (`stop`) stops after `done` iterations, begun at
    /// `started`: at a check, the most visited of the root's `legal` decisions leads every
    /// other by more visits than the iterations left (divided by the `decided_factor`), so
    /// no run of them (at `decided_factor` 1) could change the choice.
    fn decided(&self, legal: &[Decision], stop: &Stop, done: u64, started: Instant) -> bool {
        if !stop.check_decided(done) {
            return false;
        }
        let (mut first, mut second) = (0u64, 0u64);
        for child in self.root_children().filter(|c| legal.contains(&c.decision)) {
            let v = u64::from(child.visits);
            if v > first {
                (first, second) = (v, first);
            } else if v > second {
                second = v;
            }
        }
        first > second.saturating_add(stop.catch_up(done, started))
    }

    fn root_stats(&self, legal: &[Decision], iterations: u64) -> RootStats {
        let mut stats = RootStats::new(legal.len());
        stats.iterations = iterations;
        for child in self.root_children() {
            if let Some(i) = legal.iter().position(|&d| d == child.decision) {
                stats.visits[i] = u64::from(child.visits);
                stats.reward[i] = child.reward;
            }
        }
        stats
    }
}

/// Whether `searcher` learns the outcome of the chance event pending in `s`: its own draws,
/// any XB-42 discard (face up, R7.6), and a freeze of one of its own tiles (R9.8, R11.2).
fn observed_by(s: &State, searcher: Colour) -> bool {
    match s.phase() {
        Phase::Chance(Chance::Draw { .. }) => s.active() == searcher,
        Phase::Chance(Chance::RackDiscard) => true,
        Phase::Chance(Chance::Freeze) => s.active() != searcher,
        _ => false,
    }
}

/// Number of distinct decision keys (see [`key`]).
const KEYS: usize = 2048;

/// A dense key per decision, below [`KEYS`]: nodes are below 32 and troops below 8.
#[inline]
fn key(d: Decision) -> usize {
    match d {
        Decision::Draw => 0,
        Decision::Decline => 1,
        Decision::Use => 2,
        Decision::Recover { troop } => 8 + troop.index(),
        Decision::Chance(t) => 16 + t.index(),
        Decision::Discard { node } => 32 + node.usize(),
        Decision::Return { node } => 64 + node.usize(),
        Decision::Place { troop, node } => 256 + troop.index() * 32 + node.usize(),
        Decision::Move { from, to } => 1024 + from.usize() * 32 + to.usize(),
    }
}

/// Finds a node's child for a decision in constant time: the children are written into a table
/// by decision key, stamped with a generation so that the table never needs clearing.
struct ChildIndex {
    stamp: Vec<u32>,
    child: Vec<u32>,
    generation: u32,
}

impl ChildIndex {
    fn new() -> ChildIndex {
        ChildIndex {
            stamp: vec![0; KEYS],
            child: vec![NONE; KEYS],
            generation: 0,
        }
    }

    /// Indexes the children of `node`; returns the generation that marks them.
    fn fill(&mut self, nodes: &[Node], node: u32) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 2^32 fills old stamps could match again: start over.
            self.stamp.fill(0);
            self.generation = 1;
        }
        let mut c = nodes[node as usize].first_child;
        while c != NONE {
            let k = key(nodes[c as usize].decision);
            self.stamp[k] = self.generation;
            self.child[k] = c;
            c = nodes[c as usize].next_sibling;
        }
        self.generation
    }
}

/// Counts below this have their logarithm in a table: a count's logarithm is asked for every
/// child at every selection step, and a lookup costs a fraction of `ln`.
const LN_TABLE: usize = 1 << 16;

/// `(n as f64).ln()`, the same bits, read from a table for counts below [`LN_TABLE`].
fn ln_count(n: u32) -> f64 {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    let table = TABLE.get_or_init(|| (0..LN_TABLE).map(|k| (k as f64).ln()).collect());
    table
        .get(n as usize)
        .copied()
        .unwrap_or_else(|| (n as f64).ln())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::search::SearchConfig;
    use crate::rules::{Deal, Game, Tile, Troop, Variant};
    use crate::terrain::{bits, NodeIndex};
    use rand::SeedableRng;

    /// The table changes no selection: every count's logarithm is `ln`'s, to the bit, on both
    /// sides of the table's end.
    #[test]
    fn ln_count_is_ln() {
        let end = LN_TABLE as u32;
        for n in (0..2000).chain(end - 5..end + 5).chain([u32::MAX]) {
            assert_eq!(
                ln_count(n).to_bits(),
                (n as f64).ln().to_bits(),
                "count {n}"
            );
        }
    }

    /// The children of node `n`, newest first.
    fn children(tree: &Tree, n: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut c = tree.nodes[n as usize].first_child;
        while c != NONE {
            out.push(c);
            c = tree.nodes[c as usize].next_sibling;
        }
        out
    }

    /// The outcomes of the chance branches below the root's DRAW child.
    fn draw_branches(observed_chance: bool) -> Vec<Decision> {
        let game = Game::builtin("castle_field", Variant::Normal).expect("built-in terrain");
        let s = game.initial_state(&Deal::from_seed(9));
        let mut tree = Tree::new(s.active(), None);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let config = SearchConfig {
            observed_chance,
            ..SearchConfig::DEFAULT
        };
        let settings = Settings::plain(&game, &config);
        let mut scratch = Scratch::default();
        let mut path = Vec::new();
        for _ in 0..3000 {
            tree.iterate(&settings, s, &mut path, &mut scratch, &mut rng);
        }
        let draw = children(&tree, 0)
            .into_iter()
            .find(|&c| tree.nodes[c as usize].decision == Decision::Draw)
            .expect("DRAW was searched");
        children(&tree, draw)
            .into_iter()
            .map(|c| tree.nodes[c as usize].decision)
            .filter(|d| d.is_chance())
            .collect()
    }

    /// With `observed_chance` the searcher's own first draw branches the tree by the tile drawn
    /// (several tiles are possible from a fresh reserve); without it no chance branch exists.
    #[test]
    fn own_draws_branch_the_tree_only_with_observed_chance() {
        let branches = draw_branches(true);
        assert!(branches.len() > 1, "{branches:?}");
        assert!(branches.len() <= Troop::ALL.len());
        assert!(draw_branches(false).is_empty());
    }

    /// The virtual loss: a descent counts its visits at once with no reward, so that the next
    /// descents before its back-up see the line as lost; the back-up adds the reward and no
    /// visit.
    #[test]
    fn a_descent_counts_its_visits_and_the_back_up_its_reward() {
        let game = Game::builtin("city_of_clouds", Variant::Normal).expect("built-in terrain");
        let s = game.initial_state(&Deal::from_seed(3));
        let mut tree = Tree::new(s.active(), None);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let config = SearchConfig::DEFAULT;
        let settings = Settings::plain(&game, &config);
        let (mut scratch, mut path) = (Scratch::default(), Vec::new());
        for _ in 0..200 {
            tree.iterate(&settings, s, &mut path, &mut scratch, &mut rng);
        }
        let before: Vec<(u32, f64)> = tree.nodes.iter().map(|n| (n.visits, n.reward)).collect();
        let mut t = s;
        assert!(tree.descend(&settings, &mut t, &mut path, &mut rng));
        play_out(&settings, &mut t, &mut scratch, &mut rng);
        let pending = path.clone();
        assert_eq!(tree.nodes[0].visits, before[0].0 + 1);
        for &n in &pending {
            let old = before.get(n as usize).copied().unwrap_or((0, 0.0));
            let node = &tree.nodes[n as usize];
            assert_eq!((node.visits, node.reward), (old.0 + 1, old.1), "node {n}");
        }
        let reward = Reward::of_state(&settings, &t);
        tree.back_up(&pending, &reward);
        for &n in &pending {
            let old = before.get(n as usize).copied().unwrap_or((0, 0.0));
            let node = &tree.nodes[n as usize];
            assert_eq!(node.visits, old.0 + 1, "node {n}");
            assert_eq!(
                node.reward,
                old.1 + reward.for_player(node.player),
                "node {n}"
            );
        }
    }

    /// A leaf claimed by a thread that never delivers (descheduled, or dead) is played out
    /// again by the caller after [`LATE`], to the same reward as its own playout gives.
    #[test]
    fn a_late_leaf_is_played_again_by_the_caller() {
        let game = Game::builtin("caribbean_sea", Variant::Normal).expect("built-in terrain");
        let s = game.initial_state(&Deal::from_seed(8));
        let config = SearchConfig {
            eval_turns: 2,
            ..SearchConfig::DEFAULT
        };
        let settings = Settings::plain(&game, &config);
        let queue = Queue::new(3);
        let leaf = Leaf {
            s,
            expanded: true,
            number: 0,
        };
        *lock(&queue.slot(0).leaf) = Some(leaf);
        *lock(&queue.slot(0).reward) = (0, None);
        queue.published.store(1, Ordering::Release);
        assert!(queue.claim(0), "a stalled helper claims the leaf");
        let mut scratch = Scratch::default();
        let start = Instant::now();
        let again = queue.reward(0, &settings, 5, &mut scratch);
        assert!(start.elapsed() >= LATE);
        let own = leaf.play(&settings, 5, &mut Scratch::default());
        assert_eq!(again.for_player(Colour::Blue), own.for_player(Colour::Blue));
    }

    /// R11.2/R11.3: the searcher sees its own draws, not the opponent's; XB-42 discards are
    /// face up (R7.6); of a Battlefield freeze only the frozen player learns the tile (R9.8).
    #[test]
    fn observed_chance_follows_what_the_searcher_sees() {
        let game = Game::builtin("battlefield", Variant::Normal).expect("built-in terrain");
        let mut s = game.initial_state(&Deal::from_seed(4));
        let me = s.active();
        game.apply_legal(&mut s, Decision::Draw);
        assert!(matches!(s.phase(), Phase::Chance(Chance::Draw { .. })));
        assert!(observed_by(&s, me));
        assert!(!observed_by(&s, me.opponent()));
        let cases = [
            (Chance::RackDiscard, true, true),
            (Chance::Freeze, false, true),
        ];
        for (chance, active_sees, other_sees) in cases {
            let mut setup = s.to_setup();
            setup.phase = Phase::Chance(chance);
            if chance == Chance::RackDiscard {
                // The discard follows an XB-42 just placed (R7.6).
                let held = [&mut setup.reserves, &mut setup.racks, &mut setup.removed];
                let place = held.into_iter().find(|p| p[me].get(Troop::Xb42) > 0);
                place.expect("an XB-42 off the board")[me].remove(Troop::Xb42);
                let base = NodeIndex::new(bits(game.terrain().bases).next().unwrap());
                setup.stacks.insert(base, vec![Tile::new(me, Troop::Xb42)]);
            }
            let t = game
                .state_from_setup(&setup)
                .expect("a possible chance event");
            assert_eq!(observed_by(&t, me), active_sees, "{chance:?}");
            assert_eq!(observed_by(&t, me.opponent()), other_sees, "{chance:?}");
        }
    }
}
