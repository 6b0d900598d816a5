//! `toybattle show`: a terrain's graph as a text picture, then its adjacency, regions and
//! special bases, all within 80 columns.

use super::{emit, id_list, select_terrains, special_groups, CliResult};
use std::path::PathBuf;
use toybattle::terrain::{bits, NodeIndex, NodeKind, Terrain};

#[derive(clap::Args)]
pub struct Args {
    /// Terrain key or name, e.g. `castle_field` or "Castle Field".
    #[arg(long, value_name = "TERRAIN")]
    terrain: String,
    /// Read the terrains from this file (format `toybattle-terrains/1`) instead of the shipped ones.
    #[arg(long, value_name = "FILE")]
    terrain_file: Option<PathBuf>,
}

/// Picture size in characters. Terminal cells are about twice as tall as wide, so 64 × 28
/// keeps a square board roughly square.
const WIDTH: usize = 64;
const HEIGHT: usize = 28;
/// Left margin of the picture.
const MARGIN: usize = 4;

pub fn run(args: Args) -> CliResult {
    let list = select_terrains(&args.terrain, args.terrain_file.as_deref())?;
    let [terrain] = list.as_slice() else {
        return Err(format!(
            "show draws one terrain; '{}' names {}",
            args.terrain,
            list.len()
        ));
    };
    emit(&describe(terrain))
}

/// The whole text of `show` for one terrain.
pub fn describe(t: &Terrain) -> String {
    let mut out = format!(
        "{} ({}): {} medals to win\n\n",
        t.name, t.key, t.medals_to_win
    );
    out += &Canvas::picture(t).render();
    out += "\n[n] HQ (blue 1-9 at the bottom, red 41+ at the top)   n* special base\n\
            Rk=m region k holding m medals\n\n";
    out += &adjacency(t);
    out += &regions(t);
    out += &specials(t);
    out
}

/// A grid of characters; node labels are protected from being overwritten by region labels.
struct Canvas {
    cells: Vec<Vec<char>>,
    taken: Vec<Vec<bool>>,
}

/// The terrain's picture with `label(i)` written at node index `i` (the game's picture of
/// `toybattle play`, which writes the stacks' top tiles there).
pub fn picture_with_labels(t: &Terrain, label: &dyn Fn(usize) -> String) -> String {
    Canvas::labelled(t, label).render()
}

/// A node's label in the plain picture: `[n]` for an HQ, `n*` for a special base.
pub fn node_label(t: &Terrain, i: usize) -> String {
    let n = &t.nodes[i];
    match n.kind {
        NodeKind::Hq(_) => format!("[{}]", n.id),
        NodeKind::Special => format!("{}*", n.id),
        NodeKind::Base => n.id.to_string(),
    }
}

impl Canvas {
    fn picture(t: &Terrain) -> Canvas {
        Canvas::labelled(t, &|i| node_label(t, i))
    }

    fn labelled(t: &Terrain, node_label: &dyn Fn(usize) -> String) -> Canvas {
        let mut c = Canvas {
            cells: vec![vec![' '; WIDTH]; HEIGHT],
            taken: vec![vec![false; WIDTH]; HEIGHT],
        };
        for i in 0..t.node_count() {
            for j in bits(t.neighbours(NodeIndex::new(i))).filter(|&j| j > i) {
                c.edge(
                    cell(t.nodes[i].x, t.nodes[i].y),
                    cell(t.nodes[j].x, t.nodes[j].y),
                );
            }
        }
        for (i, n) in t.nodes.iter().enumerate() {
            c.label(cell(n.x, n.y), &node_label(i));
        }
        for r in &t.regions {
            c.label(cell(r.x, r.y), &format!("R{}={}", r.id, r.medals));
        }
        c
    }

    /// Draws the segment between two cells with a character that follows its slope.
    fn edge(&mut self, (c0, r0): (usize, usize), (c1, r1): (usize, usize)) {
        let (dc, dr) = (c1 as f32 - c0 as f32, r1 as f32 - r0 as f32);
        // A row is about twice as tall as a column is wide.
        let slope = 2.0 * dr / dc.abs().max(f32::EPSILON);
        let glyph = match slope {
            s if s.abs() < 0.5 => '-',
            s if s.abs() > 3.0 => '|',
            s if (s > 0.0) == (dc > 0.0) => '\\',
            _ => '/',
        };
        // One cell per step along the longer axis: a continuous line, one glyph thick.
        let steps = dc.abs().max(dr.abs()) as usize;
        for k in 0..=steps {
            let f = k as f32 / steps.max(1) as f32;
            let (c, r) = (
                (c0 as f32 + f * dc).round() as usize,
                (r0 as f32 + f * dr).round() as usize,
            );
            self.cells[r][c] = glyph;
        }
    }

    /// Writes a label centred on a cell, shifted sideways if it would cover another label; a
    /// label with no room nearby is left out (everything is also listed below the picture).
    fn label(&mut self, (col, row): (usize, usize), text: &str) {
        let len = text.chars().count();
        let centred = col as isize - (len as isize - 1) / 2;
        for shift in [0, 1, -1, 2, -2, 3, -3] {
            let start = centred + shift;
            if start < 0 || start as usize + len > WIDTH {
                continue;
            }
            let start = start as usize;
            // One free cell either side keeps neighbouring labels apart.
            let lo = start.saturating_sub(1);
            let hi = (start + len + 1).min(WIDTH);
            if self.taken[row][lo..hi].iter().any(|&t| t) {
                continue;
            }
            for (k, ch) in text.chars().enumerate() {
                self.cells[row][start + k] = ch;
                self.taken[row][start + k] = true;
            }
            return;
        }
    }

    /// The picture without the empty rows above and below it.
    fn render(&self) -> String {
        let lines: Vec<String> = self
            .cells
            .iter()
            .map(|row| row.iter().collect::<String>().trim_end().to_string())
            .collect();
        let first = lines.iter().position(|l| !l.is_empty()).unwrap_or(0);
        let last = lines.iter().rposition(|l| !l.is_empty()).unwrap_or(0);
        lines[first..=last]
            .iter()
            .map(|l| match l.is_empty() {
                true => "\n".to_string(),
                false => format!("{}{l}\n", " ".repeat(MARGIN)),
            })
            .collect()
    }
}

/// The cell of a point given in percent of the picture (y grows downwards, blue at the bottom).
fn cell(x: f32, y: f32) -> (usize, usize) {
    let scale =
        |v: f32, n: usize| ((v.clamp(0.0, 100.0) / 100.0) * (n - 1) as f32).round() as usize;
    (scale(x, WIDTH), scale(y, HEIGHT))
}

/// "13: 11 15 17 18", three nodes per line.
fn adjacency(t: &Terrain) -> String {
    let entries: Vec<String> = (0..t.node_count())
        .map(|i| {
            let ids: Vec<String> = t
                .ids(t.neighbours(NodeIndex::new(i)))
                .iter()
                .map(|n| n.to_string())
                .collect();
            format!("{:>2}: {}", t.id_of(NodeIndex::new(i)), ids.join(" "))
        })
        .collect();
    let mut out = String::from("Adjacency:\n");
    for row in entries.chunks(3) {
        let line: String = row.iter().map(|e| format!("  {e:<24}")).collect();
        out += line.trim_end();
        out.push('\n');
    }
    out
}

/// "R1  11, 12, 13 → 3 medals", one region per line.
fn regions(t: &Terrain) -> String {
    let mut out = format!(
        "\nRegions ({} medals in all, {} to win):\n",
        t.total_medals(),
        t.medals_to_win
    );
    for r in &t.regions {
        let medals = if r.medals == 1 { "medal" } else { "medals" };
        out += &format!(
            "  R{:<3} {} → {} {medals}\n",
            r.id,
            id_list(&t.ids(r.bases).iter().map(|n| n.get()).collect::<Vec<u8>>()),
            r.medals
        );
    }
    out
}

fn specials(t: &Terrain) -> String {
    let groups = special_groups(t);
    if groups.is_empty() {
        return "\nNo special bases.\n".to_string();
    }
    let mut out = String::from("\nSpecial bases:\n");
    for (nodes, description) in groups {
        out += &format!("  {nodes:<16} {description}\n");
    }
    out
}
