//! The check shared by the learned models' weights-file search options (`policy_weights`,
//! `rack_weights`): a preset plays the weights its option names.

use std::path::Path;
use toybattle::bot::preset::resolve;

/// An ISMCTS preset with the `search` lines plays the weights file its `option` names: the
/// `shipped` weights under another name give the same version as no file, `other` weights
/// another version, and a file cut short or missing is refused when the preset is read,
/// naming the option and the file (`refusal`: what the cut file is said not to be).
pub fn check_preset_plays_the_weights_it_names(
    tag: &str,
    search: &str,
    option: &str,
    (shipped, other): (&str, &str),
    refusal: &str,
) {
    let dir = std::env::temp_dir().join(format!("toybattle-{tag}-preset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let files = [
        write("shipped-copy.json", shipped),
        write("flat.json", other),
        write("cut.json", &other[..other.len() / 2]),
    ];
    let preset = |weights: Option<&Path>| {
        let line = weights.map_or(String::new(), |w| {
            format!("{option} = \"{}\"\n", w.display())
        });
        let path = write(
            "p.toml",
            &format!(
                "description = \"x\"\nalgorithm = \"ismcts\"\n[budget]\niterations = 100\n\
                 [search]\n{search}{line}"
            ),
        );
        resolve(path.to_str().unwrap()).map(|p| p.version())
    };
    let default = preset(None).unwrap();
    assert_eq!(
        preset(Some(&files[0])).unwrap(),
        default,
        "the same weights"
    );
    assert_ne!(preset(Some(&files[1])).unwrap(), default, "other weights");
    for (file, reason) in [
        (files[2].clone(), refusal),
        (dir.join("missing.json"), "missing.json"),
    ] {
        let err = preset(Some(&file)).unwrap_err().to_string();
        assert!(err.contains(option) && err.contains(reason), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
