//! A training run's settings (`run.json`): written when the folder is new and compared when a
//! run goes on, so that one folder never mixes the generations of two runs.

use super::TrainError;
use crate::tournament::store::write_json_atomic;
use serde::{de::DeserializeOwned, Serialize};
use std::path::Path;

/// The settings file of a training run folder.
pub(crate) const SETTINGS_FILE: &str = "run.json";

/// Writes `config` to `dir/run.json` in a new folder; in a folder that has one, refuses it if
/// any setting differs from `config`'s, except those named in `free` (which a rerun may change,
/// e.g. the number of generations to reach). `what` names the kind of run for a file that does
/// not parse.
pub(crate) fn open_settings<T: Serialize + DeserializeOwned>(
    dir: &Path,
    config: &T,
    free: &[&str],
    what: &str,
) -> Result<(), TrainError> {
    let path = dir.join(SETTINGS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(write_json_atomic(&path, config)?)
        }
        Err(e) => {
            return Err(TrainError::File {
                path: path.display().to_string(),
                reason: e.to_string(),
            })
        }
    };
    let stored: T = serde_json::from_slice(&bytes).map_err(|e| TrainError::File {
        path: path.display().to_string(),
        reason: format!("not the settings of {what}: {e}"),
    })?;
    let differences = differences(&fields(config), &fields(&stored), free);
    if differences.is_empty() {
        return Ok(());
    }
    Err(TrainError::Settings {
        dir: dir.display().to_string(),
        differences,
    })
}

fn fields<T: Serialize>(config: &T) -> serde_json::Value {
    serde_json::to_value(config).unwrap_or_default()
}

/// Each setting of `now` that `stored` holds otherwise, in the tournament's words:
/// "name: value now, value in run.json".
fn differences(now: &serde_json::Value, stored: &serde_json::Value, free: &[&str]) -> Vec<String> {
    let empty = serde_json::Map::new();
    let (now, stored) = (
        now.as_object().unwrap_or(&empty),
        stored.as_object().unwrap_or(&empty),
    );
    let shown = |v: Option<&serde_json::Value>| v.map_or("nothing".into(), ToString::to_string);
    // A setting left out when unset (an `Option` skipped when `None`) is in only one of them.
    let only_stored = stored.keys().filter(|k| !now.contains_key(*k));
    now.keys()
        .chain(only_stored)
        .filter(|k| !free.contains(&k.as_str()) && stored.get(*k) != now.get(*k))
        .map(|k| {
            let (v, held) = (shown(now.get(k)), shown(stored.get(k)));
            format!("{k}: {v} now, {held} in {SETTINGS_FILE}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_each_setting_but_the_free_ones() {
        let now = json!({"seed": 12, "generations": 4, "steps": 50});
        let stored = json!({"seed": 11, "generations": 2, "steps": 50});
        assert_eq!(
            differences(&now, &stored, &["generations"]),
            ["seed: 12 now, 11 in run.json"]
        );
        assert_eq!(differences(&now, &now, &[]), Vec::<String>::new());
        let with_cuts = json!({"seed": 12, "generations": 4, "steps": 50, "cuts": 1});
        assert_eq!(
            differences(&now, &with_cuts, &[]),
            ["cuts: nothing now, 1 in run.json"]
        );
    }
}
