//! The layers of the crate hold: a module never uses one above it (docs/design.md, "Layers").
//!
//! Every `.rs` file under `src/` is read; the paths it names through `crate::` (in the library)
//! or `toybattle::` (in the binary, `src/main.rs` and `src/cli/`) are checked against the layer
//! order below. Comments are skipped, so a doc link to a higher layer is not an import.

use std::path::{Path, PathBuf};

/// The library's layers, lowest first. A module may use its own layer and those before it.
/// `balance`, `session` and `web` are listed ahead of their arrival.
const LAYERS: [&str; 13] = [
    "vocabulary",
    "terrain",
    "rules",
    "info",
    "model",
    "record",
    "bot",
    "tournament",
    "balance",
    "train",
    "review",
    "session",
    "web",
];

/// The binary (`src/main.rs`, `src/cli/`): above every library layer.
const BINARY: &str = "the binary";

/// The layer of a file, from its path relative to `src/`.
fn layer_of(relative: &Path) -> Result<&'static str, String> {
    let first = relative
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .unwrap_or("");
    let module = first.strip_suffix(".rs").unwrap_or(first);
    match module {
        "main" | "cli" => Ok(BINARY),
        "lib" => Ok("lib"),
        _ => LAYERS
            .iter()
            .copied()
            .find(|&l| l == module)
            .ok_or_else(|| {
                format!(
                    "src/{}: module '{module}' is in no layer; add it to LAYERS in tests/layers.rs \
                     and to docs/design.md",
                    relative.display()
                )
            }),
    }
}

/// Position of a layer in the order; the binary comes after every library layer.
fn rank(layer: &str) -> Option<usize> {
    if layer == BINARY {
        return Some(LAYERS.len());
    }
    LAYERS.iter().position(|&l| l == layer)
}

/// The top-level modules named after `prefix` (`crate::` or `toybattle::`) in one line of code:
/// `crate::rules::Game` gives `rules`; `crate::{rules::Game, info}` gives `rules` and `info`.
fn modules_named(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        // Only a whole path segment: not `mycrate::` or `$crate::`.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // The first segment of every path of the group, at the group's own depth.
            let mut depth = 0;
            let mut expect_path = true;
            let mut ident = String::new();
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expect_path = true,
                    c if depth == 0 && expect_path && (c.is_alphanumeric() || c == '_') => {
                        ident.push(c)
                    }
                    _ if depth == 0 && expect_path && !ident.is_empty() => {
                        out.push(std::mem::take(&mut ident));
                        expect_path = false;
                    }
                    _ => {}
                }
            }
            if !ident.is_empty() {
                out.push(ident);
            }
        } else {
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !ident.is_empty() {
                out.push(ident);
            }
        }
    }
    out
}

/// Every use of a higher layer in the text of one file, as messages.
fn violations(relative: &Path, text: &str) -> Vec<String> {
    let layer = match layer_of(relative) {
        Ok(l) => l,
        Err(e) => return vec![e],
    };
    if layer == "lib" {
        return Vec::new(); // the crate root declares every module
    }
    // The binary's `crate::` is the binary itself; it reaches the library as `toybattle::`.
    let prefix = if layer == BINARY {
        "toybattle::"
    } else {
        "crate::"
    };
    let own = rank(layer).expect("a known layer");
    let mut out = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for module in modules_named(code, prefix) {
            let here = format!("src/{}:{}", relative.display(), line_no + 1);
            match rank(&module) {
                Some(r) if r > own => out.push(format!(
                    "{here}: {layer} uses {module}, a higher layer: {}",
                    line.trim()
                )),
                Some(_) => {}
                None if layer == BINARY => {
                    out.push(format!("{here}: toybattle::{module} is in no layer"))
                }
                // Within the library, `crate::` may also name an item of the crate root.
                None => out.push(format!(
                    "{here}: crate::{module} is not a module of any layer"
                )),
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 20,
        "found only {} files under src/",
        files.len()
    );
    let mut problems = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a readable source file");
        let relative = path.strip_prefix(&src).expect("under src/");
        problems.extend(violations(relative, &text));
    }
    assert!(
        problems.is_empty(),
        "upward imports:\n{}",
        problems.join("\n")
    );
}

#[test]
fn checker_refuses_a_planted_upward_import() {
    let terrain = Path::new("terrain/mod.rs");
    let planted = "use crate::vocabulary::Colour;\nuse crate::rules::tile::Troop;\n";
    let found = violations(terrain, planted);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("src/terrain/mod.rs:2: terrain uses rules"),
        "{found:?}"
    );

    // Grouped paths, paths inside expressions, and a test module deep in a layer.
    let grouped = "use crate::{terrain::bits, tournament::stats::{wilson_interval, Z95}};";
    assert_eq!(
        violations(Path::new("bot/search/tests.rs"), grouped).len(),
        1
    );
    let inline = "let x = crate::bot::greedy::Greedy::default();";
    assert_eq!(
        violations(Path::new("info/observation.rs"), inline).len(),
        1
    );

    // Allowed: the same or a lower layer, a comment, the binary using the library.
    assert!(violations(terrain, "use crate::terrain::Terrain;").is_empty());
    assert!(violations(terrain, "/// see [`crate::rules::Game`]").is_empty());
    assert!(violations(terrain, "let a = 1; // crate::bot is above").is_empty());
    let cli = Path::new("cli/mod.rs");
    assert!(violations(cli, "use toybattle::tournament::run;").is_empty());
    assert_eq!(violations(cli, "use toybattle::nowhere::X;").len(), 1);

    // A module in no layer is reported, so a new module has to be placed.
    assert_eq!(violations(Path::new("extra/mod.rs"), "").len(), 1);
}
