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
//!
//! Two research options change whose information the opponent's replies are chosen from
//! (`SearchConfig::multi_observer`, `opponent_rack`): one tree per player, each decision selected
//! in its player's tree (multiple-observer ISMCTS, [`iterate_observers`]), and a branch on the
//! rack the opponent holds in the determinization ([`Tree::rack_branch`]). Both were measured
//! far weaker against `greedy` than the single tree (results/search-strength.md, eighth round):
//! they split the opponent's statistics over what it holds.
//!
//! Nodes live in one arena `Vec` with index links (first child, next sibling).

use super::playout::{play_out, Context, Reward, WIN};
use super::{Root, RootStats, Settings, Stop};
use crate::rules::{
    sample_chance, Chance, Colour, Decision, DecisionList, Phase, State, Troop, TroopCounts,
};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

const NONE: u32 = u32::MAX;
/// Policy weights are capped here for the prior (an HQ defence; wins are capped with it), and
/// the bias is the capped weight divided by it, so in 0..1.
const PRIOR_CAP: u32 = 256;

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
    let searcher = root.active();
    let mut iterations = 0;
    if settings.multi_observer {
        let mut trees = [Tree::new(Colour::Blue), Tree::new(Colour::Red)];
        while !stop.reached(iterations) {
            let s = root.sample(rng);
            iterate_observers(&mut trees, settings, s, rng);
            iterations += 1;
        }
        return trees[searcher.index()].root_stats(legal, iterations);
    }
    let mut tree = Tree::new(searcher);
    while !stop.reached(iterations) {
        let s = root.sample(rng);
        tree.iterate(settings, s, rng);
        iterations += 1;
    }
    tree.root_stats(legal, iterations)
}

/// One iteration of multiple-observer ISMCTS (`SearchConfig::multi_observer`) on the sampled
/// state `s`: one tree per player, each over that player's information sets. Every decision is
/// selected in the tree of the player who makes it, so the opponent's replies come from
/// statistics of its own information sets (its own draws branch its tree with
/// `observed_chance`, and with `opponent_rack` its tree starts from the rack it holds in `s`);
/// the other tree only follows the decision. Both trees back up the same reward.
fn iterate_observers(
    trees: &mut [Tree; 2],
    settings: &Settings,
    mut s: State,
    rng: &mut Xoshiro256PlusPlus,
) {
    let game = settings.game;
    let mut node = [0u32; 2];
    for tree in trees.iter_mut() {
        tree.path.clear();
    }
    if settings.opponent_rack {
        let other = s.active().opponent().index();
        node[other] = trees[other].rack_branch(0, s.rack(Colour::BOTH[other]));
    }
    loop {
        while s.is_chance() {
            let d = sample_chance(game, &s, rng);
            let seen = Colour::BOTH.map(|c| settings.observed_chance && observed_by(&s, c));
            game.apply_legal(&mut s, d);
            for c in 0..2 {
                if seen[c] {
                    node[c] = trees[c].chance_child(node[c], d);
                }
            }
        }
        if s.is_over() || s.turn() > settings.last_turn {
            break;
        }
        let me = s.active().index();
        let (child, expanded) = trees[me].select(settings, &s, node[me], rng);
        let d = trees[me].nodes[child as usize].decision;
        let other = 1 - me;
        let follow = trees[other].child_or_new(node[other], d, s.active());
        game.apply_legal(&mut s, d);
        trees[me].path.push(child);
        trees[other].path.push(follow);
        node[me] = child;
        node[other] = follow;
        if expanded {
            play_out(settings, &mut s, rng);
            break;
        }
    }
    let reward = Reward::of_state(settings, &s);
    for tree in trees.iter_mut() {
        tree.back_up(&reward);
    }
}

struct Tree {
    nodes: Vec<Node>,
    /// Nodes visited by the current iteration, root excluded.
    path: Vec<u32>,
    index: ChildIndex,
    /// The player deciding at the root.
    searcher: Colour,
}

impl Tree {
    fn new(searcher: Colour) -> Tree {
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
            path: Vec::with_capacity(64),
            index: ChildIndex::new(),
            searcher,
        }
    }

    /// One iteration on the sampled state `s`: select down the tree, expand one node, play out,
    /// back up the rewards.
    fn iterate(&mut self, settings: &Settings, mut s: State, rng: &mut Xoshiro256PlusPlus) {
        let game = settings.game;
        self.path.clear();
        let mut node = 0;
        let mut split = false;
        loop {
            while s.is_chance() {
                let d = sample_chance(game, &s, rng);
                let seen = settings.observed_chance && observed_by(&s, self.searcher);
                game.apply_legal(&mut s, d);
                if seen {
                    node = self.chance_child(node, d);
                }
            }
            if s.is_over() || s.turn() > settings.last_turn {
                break;
            }
            if settings.opponent_rack && !split && s.active() != self.searcher {
                split = true;
                node = self.rack_branch(node, s.rack(s.active()));
            }
            let (child, expanded) = self.select(settings, &s, node, rng);
            game.apply_legal(&mut s, self.nodes[child as usize].decision);
            self.path.push(child);
            node = child;
            if expanded {
                play_out(settings, &mut s, rng);
                break;
            }
        }
        let reward = Reward::of_state(settings, &s);
        self.back_up(&reward);
    }

    /// Adds `reward` to the root and to every node of the current iteration's path.
    fn back_up(&mut self, reward: &Reward) {
        self.nodes[0].visits += 1;
        for &n in &self.path {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
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
        let guided = settings.decisive || settings.prior > 0.0;
        let ctx = guided.then(|| Context::new(game, s, true));
        if let (true, Some(ctx)) = (settings.decisive, &ctx) {
            if let Some(&win) = legal.iter().find(|&&d| ctx.weight(d) == WIN) {
                legal.clear();
                legal.push(win);
            }
        }
        let prior = |d: Decision| match (&ctx, settings.prior > 0.0) {
            (Some(ctx), true) => ctx.weight(d).min(PRIOR_CAP),
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
                + settings.exploration * ((child.available as f64).ln() / v).sqrt();
            if settings.prior > 0.0 {
                score += settings.prior * prior(d) as f64 / f64::from(PRIOR_CAP) / (v + 1.0);
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
        self.child_or_new(node, d, self.searcher)
    }

    /// The child of `node` for decision `d` made by `player`, added if missing.
    fn child_or_new(&mut self, node: u32, d: Decision, player: Colour) -> u32 {
        let generation = self.index.fill(&self.nodes, node);
        let k = key(d);
        if self.index.stamp[k] == generation {
            self.index.child[k]
        } else {
            self.add_child(node, d, player)
        }
    }

    /// The branch below `node` for the rack `rack`: a path of chance branches, one per tile in
    /// troop order, so that each multiset of tiles has a branch of its own.
    fn rack_branch(&mut self, mut node: u32, rack: TroopCounts) -> u32 {
        for t in Troop::ALL {
            for _ in 0..rack.get(t) {
                node = self.chance_child(node, Decision::Chance(t));
            }
        }
        node
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

    fn root_stats(&self, legal: &[Decision], iterations: u64) -> RootStats {
        let mut stats = RootStats::new(legal.len());
        stats.iterations = iterations;
        let mut c = self.nodes[0].first_child;
        while c != NONE {
            let child = &self.nodes[c as usize];
            if let Some(i) = legal.iter().position(|&d| d == child.decision) {
                stats.visits[i] = u64::from(child.visits);
                stats.reward[i] = child.reward;
            }
            c = child.next_sibling;
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
        Decision::Discard { node } => 32 + node as usize,
        Decision::Return { node } => 64 + node as usize,
        Decision::Place { troop, node } => 256 + troop.index() * 32 + node as usize,
        Decision::Move { from, to } => 1024 + from as usize * 32 + to as usize,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::{Observation, RackBelief};
    use crate::rules::{Deal, Game, Troop, Variant};
    use rand::SeedableRng;

    fn settings(game: &Game, observed_chance: bool) -> Settings<'_> {
        Settings {
            observed_chance,
            ..Settings::plain(game)
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

    /// The opening of a City of Clouds deal and what the player to move sees of it.
    fn opening() -> (Game, State, Observation) {
        let game = Game::builtin("city_of_clouds", Variant::Normal).expect("built-in terrain");
        let s = game.initial_state(&Deal::from_seed(3));
        (game, s, Observation::new(&s, s.active()))
    }

    /// The outcomes of the chance branches below the root's DRAW child.
    fn draw_branches(observed_chance: bool) -> Vec<Decision> {
        let game = Game::builtin("castle_field", Variant::Normal).expect("built-in terrain");
        let s = game.initial_state(&Deal::from_seed(9));
        let mut tree = Tree::new(s.active());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let settings = settings(&game, observed_chance);
        for _ in 0..3000 {
            tree.iterate(&settings, s, &mut rng);
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

    /// The nodes below `n` reached through chance branches only, with their depth.
    fn chance_paths(tree: &Tree, n: u32, depth: usize, out: &mut Vec<(u32, usize)>) {
        out.push((n, depth));
        for c in children(tree, n) {
            if tree.nodes[c as usize].decision.is_chance() {
                chance_paths(tree, c, depth + 1, out);
            }
        }
    }

    /// With `multi_observer` and `opponent_rack`, the opponent's tree starts with one branch per
    /// rack it held in the determinizations (a path of its tiles in troop order), while the
    /// searcher's tree, which must not know that rack, starts with the searcher's decisions.
    #[test]
    fn the_opponents_tree_branches_on_the_rack_it_holds() {
        let (game, s, seen) = opening();
        let me = s.active();
        let settings = Settings {
            multi_observer: true,
            opponent_rack: true,
            ..settings(&game, true)
        };
        let mut trees = [Tree::new(Colour::Blue), Tree::new(Colour::Red)];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut racks = Vec::new();
        for _ in 0..2000 {
            let d = seen.determinize_with(&RackBelief::UNIFORM, &mut rng);
            racks.push(d.rack(me.opponent()).0);
            iterate_observers(&mut trees, &settings, d, &mut rng);
        }
        racks.sort_unstable();
        racks.dedup();
        assert!(racks.len() > 1, "the opponent's rack is hidden");
        let theirs = &trees[me.opponent().index()];
        let rack_len = usize::from(s.rack_len(me.opponent()));
        let mut paths = Vec::new();
        chance_paths(theirs, 0, 0, &mut paths);
        assert!(paths.iter().all(|&(_, depth)| depth <= rack_len));
        let ends = paths
            .iter()
            .filter(|&&(_, depth)| depth == rack_len)
            .count();
        assert_eq!(ends, racks.len(), "one branch per rack held");
        let mine = &trees[me.index()];
        for c in children(mine, 0) {
            let child = &mine.nodes[c as usize];
            assert!(!child.decision.is_chance() && child.player == me);
        }
        // Each decision is selected, and its availability counted, only in its player's tree.
        for (tree, owner) in [(mine, me), (theirs, me.opponent())] {
            let decisions = || tree.nodes[1..].iter().filter(|n| !n.decision.is_chance());
            assert!(decisions()
                .filter(|n| n.player != owner)
                .all(|n| n.available == 1));
            assert!(decisions().any(|n| n.player == owner && n.available > 1));
        }
        assert_eq!(mine.nodes[0].visits, 2000);
        assert_eq!(theirs.nodes[0].visits, 2000);
    }

    /// With `opponent_rack` alone, the single tree keeps the searcher's root decisions merged
    /// over the opponent's racks and branches on that rack where the opponent's first reply
    /// begins: below a root decision that ends the turn, only rack branches.
    #[test]
    fn the_single_tree_branches_on_the_opponents_rack_at_its_first_reply() {
        let (game, s, seen) = opening();
        let me = s.active();
        let settings = Settings {
            opponent_rack: true,
            ..Settings::plain(&game)
        };
        let mut tree = Tree::new(me);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        for _ in 0..3000 {
            let d = seen.determinize_with(&RackBelief::UNIFORM, &mut rng);
            tree.iterate(&settings, d, &mut rng);
        }
        let mut checked = 0;
        for c in children(&tree, 0) {
            let child = &tree.nodes[c as usize];
            assert!(!child.decision.is_chance() && child.player == me);
            let mut after = s;
            game.apply_legal(&mut after, child.decision);
            let below = children(&tree, c);
            if after.active() != me && !below.is_empty() {
                checked += 1;
                assert!(below
                    .iter()
                    .all(|&g| tree.nodes[g as usize].decision.is_chance()));
            }
        }
        assert!(
            checked > 0,
            "some root decision ends the turn and was followed"
        );
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
            let t = game
                .state_from_setup(&setup)
                .expect("a possible chance event");
            assert_eq!(observed_by(&t, me), active_sees, "{chance:?}");
            assert_eq!(observed_by(&t, me.opponent()), other_sees, "{chance:?}");
        }
    }
}
