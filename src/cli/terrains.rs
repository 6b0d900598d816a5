//! `toybattle terrains`: the terrains with their facts, as a table or as JSON.

use super::{
    available_terrains, emit, id_list, print_json, special_groups, special_nodes, CliResult,
};
use serde::Serialize;
use std::path::PathBuf;
use toybattle::terrain::{bits, NodeIndex, NodeKind, Terrain};

#[derive(clap::Args)]
pub struct Args {
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The facts of one terrain, as printed with `--json`.
#[derive(Serialize)]
struct Facts {
    key: String,
    name: String,
    nodes: usize,
    hqs: usize,
    /// Bases, special bases included (an HQ is not a base).
    bases: usize,
    special_bases: usize,
    edges: usize,
    regions: usize,
    total_medals: u32,
    medals_to_win: u8,
    blue_hqs: Vec<u8>,
    red_hqs: Vec<u8>,
    /// Every node with an effect or a value restriction (restricted HQs included).
    specials: Vec<super::SpecialNode>,
}

impl Facts {
    fn of(t: &Terrain) -> Facts {
        let hqs = (t.hqs[0] | t.hqs[1]).count_ones() as usize;
        let special_bases = t
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Special)
            .count();
        // Each edge appears in the neighbour sets of both its ends.
        let degree_sum: u32 = bits(node_mask(t))
            .map(|i| t.neighbours(NodeIndex::new(i)).count_ones())
            .sum();
        Facts {
            key: t.key.clone(),
            name: t.name.clone(),
            nodes: t.node_count(),
            hqs,
            bases: t.bases.count_ones() as usize,
            special_bases,
            edges: degree_sum as usize / 2,
            regions: t.regions.len(),
            total_medals: t.total_medals(),
            medals_to_win: t.medals_to_win,
            blue_hqs: t.ids(t.hqs[0]).iter().map(|n| n.get()).collect(),
            red_hqs: t.ids(t.hqs[1]).iter().map(|n| n.get()).collect(),
            specials: special_nodes(t),
        }
    }
}

fn node_mask(t: &Terrain) -> u32 {
    match t.node_count() {
        32 => u32::MAX,
        n => (1u32 << n) - 1,
    }
}

pub fn run(args: Args) -> CliResult {
    let terrains = available_terrains(args.terrain_file.as_deref())?;
    let facts: Vec<Facts> = terrains.iter().map(|t| Facts::of(t)).collect();
    if args.json {
        return print_json(&facts);
    }
    let mut text = table(&facts) + "\n";
    for (t, f) in terrains.iter().zip(&facts) {
        text += &specials_text(t, f);
    }
    emit(&text)
}

/// The numeric facts, one terrain per line, within 80 columns.
fn table(facts: &[Facts]) -> String {
    let mut out = format!(
        "{:<16} {:>13} {:>5} {:>7} {:>6} {:>6}  {:<8} {:<8}\n",
        "terrain", "nodes (H/B/S)", "edges", "regions", "medals", "to win", "blue HQ", "red HQ"
    );
    for f in facts {
        let nodes = format!("{} ({}/{}/{})", f.nodes, f.hqs, f.bases, f.special_bases);
        out += &format!(
            "{:<16} {:>13} {:>5} {:>7} {:>6} {:>6}  {:<8} {:<8}\n",
            f.key,
            nodes,
            f.edges,
            f.regions,
            f.total_medals,
            f.medals_to_win,
            id_list(&f.blue_hqs),
            id_list(&f.red_hqs)
        );
    }
    out += "nodes: all (HQs/bases/special bases); bases include special bases, HQs are not bases\n";
    out.lines()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect()
}

/// "Castle Field (castle_field)" followed by its special bases and their effects.
fn specials_text(t: &Terrain, f: &Facts) -> String {
    let groups = special_groups(t);
    if groups.is_empty() {
        return format!("{} ({}): no special bases\n", f.name, f.key);
    }
    let mut out = format!("{} ({}):\n", f.name, f.key);
    for (nodes, description) in groups {
        out += &format!("  {nodes:<16} {description}\n");
    }
    out
}
