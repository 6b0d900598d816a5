//! The scripts of scripts/: the cluster scripts with a stand-in for the scheduler, and the soak.
//!
//! `sbatch` is replaced by a small shell script that runs each `--wrap` command the way Slurm
//! would: once per array task with `SLURM_ARRAY_TASK_ID` set, then the dependent merge job. The
//! merged summary must equal the summary of the same tournament run on one machine.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_toybattle");

/// Arguments shared by the sharded and the single run: fast bots, two terrains, few games.
const RUN: [&str; 10] = [
    "--bots",
    "random,greedy",
    "--terrains",
    "castle_field,battlefield",
    "--games",
    "4",
    "--seed",
    "5",
    "--max-turns",
    "300",
];

const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
# Stand-in for Slurm's sbatch: runs the wrapped command now (every array task in turn).
set -euo pipefail
array=""; wrap=""
for a in "$@"; do
  case "$a" in
    --array=*) array="${a#--array=}" ;;
    --wrap=*) wrap="${a#--wrap=}" ;;
  esac
done
if [[ -n "$array" ]]; then
  for k in $(seq "${array%-*}" "${array#*-}"); do SLURM_ARRAY_TASK_ID=$k bash -c "$wrap" >/dev/null; done
  echo 101
else
  bash -c "$wrap" >/dev/null
  echo 102
fi
"#;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("toybattle-scripts-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn fake_scheduler(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    fs::write(&sbatch, FAKE_SBATCH).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&sbatch)
        .status()
        .unwrap();
    bin
}

#[test]
fn slurm_script_shards_and_merges_into_the_single_run_summary() {
    let dir = temp_dir("slurm");
    let path = format!(
        "{}:{}",
        fake_scheduler(&dir).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = dir.join("run");
    let status = Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/slurm-tournament.sh"
        ))
        .args(RUN)
        .env("PATH", path)
        .env("SHARDS", "3")
        .env("OUT", &out)
        .env("BIN", BIN)
        .env("CPUS", "1")
        .status()
        .unwrap();
    assert!(status.success(), "slurm-tournament.sh failed");

    let single = dir.join("single");
    let status = Command::new(BIN)
        .arg("tournament")
        .args(RUN)
        .args(["--quiet", "--concurrency", "1", "--out"])
        .arg(&single)
        .status()
        .unwrap();
    assert!(status.success());
    let merged = fs::read_to_string(out.join("merged/summary.json")).unwrap();
    assert_eq!(
        merged,
        fs::read_to_string(single.join("summary.json")).unwrap()
    );
    for k in 1..=3 {
        assert!(
            out.join(format!("shard-{k}/games.jsonl")).exists(),
            "shard {k} ran"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// The shell commands of the shard and merge containers of the Kubernetes manifest, read with
/// Python's YAML parser; `None` (test skipped) where python3 or PyYAML is missing.
fn k8s_commands() -> Option<(String, String)> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/k8s-tournament.yaml");
    let program = "import sys, yaml\n\
        docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d['kind'] == 'Job']\n\
        for d in docs:\n    print(d['spec']['template']['spec']['containers'][0]['args'][0].replace('\\n', ' '))\n";
    let out = Command::new("python3")
        .args(["-c", program, manifest])
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("skipped: python3 with PyYAML is needed to read the manifest");
        return None;
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines().map(str::to_string);
    Some((lines.next().unwrap(), lines.next().unwrap()))
}

#[test]
fn kubernetes_indexed_job_commands_shard_and_merge_into_the_single_run_summary() {
    let Some((shard, merge)) = k8s_commands() else {
        return;
    };
    let dir = temp_dir("k8s");
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("toybattle")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let runs = dir.join("runs");
    let local = |cmd: &str| cmd.replace("/runs/", &format!("{}/", runs.display()));
    // A run on a terrain file, which the merge must be given too (it replays every record).
    let terrains = concat!(env!("CARGO_MANIFEST_DIR"), "/src/terrain/terrains.json");
    let terrain_args = format!("--terrain-file {terrains}");
    // The manifest's merge waits for 8 shard summaries: 8 completion indices.
    for index in 0..8 {
        let status = Command::new("sh")
            .args(["-c", &local(&shard)])
            .env("PATH", &path)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("SHARDS", "8")
            .env("TOURNAMENT_ARGS", RUN.join(" "))
            .env("TERRAIN_ARGS", &terrain_args)
            .status()
            .unwrap();
        assert!(status.success(), "shard index {index} failed");
    }
    let status = Command::new("sh")
        .args(["-c", &local(&merge)])
        .env("PATH", &path)
        .env("TERRAIN_ARGS", &terrain_args)
        .status()
        .unwrap();
    assert!(status.success(), "merge job failed");

    let single = dir.join("single");
    let status = Command::new(BIN)
        .arg("tournament")
        .args(RUN)
        .args(["--terrain-file", terrains])
        .args(["--quiet", "--out"])
        .arg(&single)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        fs::read_to_string(runs.join("run/merged/summary.json")).unwrap(),
        fs::read_to_string(single.join("summary.json")).unwrap()
    );
    let _ = fs::remove_dir_all(&dir);
}

/// Runs scripts/soak.sh with the test's binary on small chunks.
fn soak(out: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/soak.sh");
    let run = Command::new("bash")
        .arg(&script)
        .args(["--chunks", "2", "--games", "10", "--seed", "7"])
        .args(["--terrains", "castle_field"])
        .arg("--out")
        .arg(out)
        .env("TOYBATTLE", BIN)
        .output()
        .expect("bash runs");
    assert!(
        run.status.success(),
        "soak.sh failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn the_soak_runs_checked_chunks_with_successive_seeds_and_resumes_past_done_ones() {
    let out = temp_dir("soak");
    soak(&out);
    for variant in ["normal", "beginner"] {
        for (k, seed) in [(0, 7), (1, 8)] {
            let unit = out.join(format!("castle_field-{variant}-{k}"));
            assert!(unit.with_extension("done").exists(), "{unit:?} not done");
            let text = fs::read_to_string(unit.with_extension("out")).unwrap();
            assert!(
                text.starts_with(&format!(
                    "10 random games per terrain, {variant} variant, seed {seed},"
                )),
                "{text}"
            );
        }
    }
    // A done chunk is kept as it is; a chunk without its mark is played again.
    let kept = out.join("castle_field-normal-0.out");
    fs::write(&kept, "kept").unwrap();
    fs::remove_file(out.join("castle_field-beginner-1.done")).unwrap();
    fs::write(out.join("castle_field-beginner-1.out"), "stopped midway").unwrap();
    soak(&out);
    assert_eq!(fs::read_to_string(&kept).unwrap(), "kept");
    let redone = fs::read_to_string(out.join("castle_field-beginner-1.out")).unwrap();
    assert!(redone.starts_with("10 random games per terrain, beginner variant, seed 8,"));
    let _ = fs::remove_dir_all(&out);
}
