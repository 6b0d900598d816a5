//! The fingerprint of the terrain data and rules options a game was played on.
//!
//! A record names its terrain by key, but a `--terrain-file` may give that key other data: a
//! record must not replay as "valid" on data it was not played on. The fingerprint is a stable
//! 64-bit hash (FNV-1a, in 16 hex digits) of a canonical text of everything on a terrain that
//! the rules read (medals to win; every node's id, kind, effect, allowed troops and
//! neighbours; every region's id, bases and medals) and of the variant. Names and drawing
//! positions are left out: they change no rule.

use super::GameRecord;
use crate::rules::Game;
use crate::terrain::{bits, NodeKind, Terrain};
use crate::vocabulary::hash::fnv1a;
use std::fmt::Write;

/// The fingerprint of `game`'s terrain data and variant, e.g. `"3f9a0c12d4e5b687"`.
pub fn fingerprint(game: &Game) -> String {
    let mut text = format!("{}variant {}\n", canonical(game.terrain()), game.variant());
    // What-ifs change rules, so they count; the retail rules add nothing (old fingerprints hold).
    let w = game.what_if();
    if !w.is_retail() {
        let _ = write!(
            text,
            "what-if objective {:?} removed {} racks {:?}",
            w.objective, w.removed, w.racks
        );
        // Restricted play joins the line only when used: older what-if fingerprints hold.
        if !w.restricted.is_empty() {
            let _ = write!(text, " restricted {}", w.restricted.describe());
        }
        text.push('\n');
    }
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// One line per node and region, ids ascending, so that the order of a terrain file does not
/// change the fingerprint.
fn canonical(t: &Terrain) -> String {
    let mut text = format!("terrain-fingerprint/1\nmedals_to_win {}\n", t.medals_to_win);
    let ids = |mask: u32| {
        bits(mask)
            .map(|i| t.id_of(crate::terrain::NodeIndex::new(i)).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    for (i, n) in t.nodes.iter().enumerate() {
        let kind = match n.kind {
            NodeKind::Hq(c) => format!("hq {}", c.name()),
            NodeKind::Base => "base".into(),
            NodeKind::Special => "special".into(),
        };
        let allowed = n.allowed.as_ref().map(|a| {
            let mut v: Vec<usize> = a.iter().map(|t| t.index()).collect();
            v.sort_unstable();
            v
        });
        let _ = writeln!(
            text,
            "node {} {kind} effect {} allowed {:?} neighbours {}",
            n.id,
            n.effect.map_or("none", |e| e.key()),
            allowed,
            ids(t.neighbours[i])
        );
    }
    let mut regions: Vec<_> = t.regions.iter().collect();
    regions.sort_by_key(|r| r.id);
    for r in regions {
        let _ = writeln!(
            text,
            "region {} medals {} bases {}",
            r.id,
            r.medals,
            ids(r.bases)
        );
    }
    text
}

/// A record played on other terrain data (or another variant) than the game it is replayed on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "the record was played on terrain data with fingerprint {recorded}, but the terrain \
     '{terrain}' given ({variant} variant) has fingerprint {given}: replay it with the \
     --terrain-file it was played on"
)]
pub struct FingerprintMismatch {
    /// The terrain key of the game given.
    pub terrain: String,
    /// The variant of the game given.
    pub variant: String,
    /// The fingerprint written in the record.
    pub recorded: String,
    /// The fingerprint of the terrain data and variant given.
    pub given: String,
}

/// Refuses a record whose fingerprint differs from `game`'s; a record without one (written
/// before records had fingerprints) passes.
pub fn check_fingerprint(record: &GameRecord, game: &Game) -> Result<(), FingerprintMismatch> {
    let given = fingerprint(game);
    match &record.terrain_fingerprint {
        Some(recorded) if *recorded != given => Err(FingerprintMismatch {
            terrain: game.terrain().key.clone(),
            variant: game.variant().to_string(),
            recorded: recorded.clone(),
            given,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn fingerprints_tell_terrains_variants_and_rule_data_apart() {
        let game = |key: &str, v| Game::builtin(key, v).unwrap();
        let castle = fingerprint(&game("castle_field", Variant::Normal));
        assert_eq!(castle.len(), 16);
        assert_eq!(castle, fingerprint(&game("castle_field", Variant::Normal)));
        assert_ne!(
            castle,
            fingerprint(&game("castle_field", Variant::Beginner))
        );
        assert_ne!(castle, fingerprint(&game("tropical_pool", Variant::Normal)));
        let mut t = crate::terrain::builtin("castle_field").unwrap().clone();
        t.name = "Renamed".into();
        t.nodes[0].x += 1.0;
        let same = Game::new(std::sync::Arc::new(t.clone()), Variant::Normal);
        assert_eq!(fingerprint(&same), castle, "names and drawing do not count");
        t.regions[0].medals += 1;
        let other = Game::new(std::sync::Arc::new(t), Variant::Normal);
        assert_ne!(fingerprint(&other), castle);
    }
}
