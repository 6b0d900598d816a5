#!/usr/bin/env bash
# Runs scripts/slurm-tournament.sh and scripts/slurm-balance.sh on a real Slurm: installs Slurm
# from Debian's packages as a single-node cluster on this machine, submits a small tournament
# and a small balance study, each as a job array of 4 shards plus the dependent merge or report
# job, waits for them, and checks that the merged summary and the study's report equal those of
# the same tournament and study played on one machine.
#
# Usage (as root on a Debian machine, from anywhere; builds the release binary if needed):
#   scripts/slurm-test.sh
# Optional: TIMEOUT (seconds to wait for the jobs, default 900), WORK (scratch folder, default
# a new folder under /tmp), KEEP=1 leaves the daemons running afterwards.
#
# It changes the machine: packages slurm-wlm and munge, /etc/munge/munge.key (created if
# missing), /etc/slurm/slurm.conf (overwritten), daemons munged, slurmctld and slurmd. Meant
# for a CI machine or a test container, not for a host that already belongs to a cluster.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TIMEOUT=${TIMEOUT:-900}
WORK=${WORK:-$(mktemp -d /tmp/toybattle-slurm.XXXXXX)}
SHARDS=4
# The tournament: fast bots, two terrains, 8 games per pairing and terrain (4 deals).
RUN=(--bots random,greedy --terrains castle_field,battlefield --games 8 --seed 11 --max-turns 300)
# The study: greedy self-play, two terrains, both variants, 8 games per terrain and variant.
STUDY=(--bots greedy --terrains castle_field,battlefield --variants normal,beginner --games 8 --seed 11)
# The report's files, which must not depend on how the study was played.
REPORT=(balance.json report.md report.html seats.csv troops.csv troops_by_terrain.csv
  special_bases.csv comparisons.csv plays.csv)

log() { echo "slurm-test: $*"; }
die() { echo "slurm-test: FAILED: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || die "run as root: it installs and starts Slurm"

install_slurm() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    return
  fi
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # No init system starts them here: the script starts the daemons itself.
  apt-get install -y -qq slurm-wlm munge >/dev/null
}

start_munge() {
  mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
  if [[ ! -s /etc/munge/munge.key ]]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
  chmod 0700 /etc/munge /var/lib/munge /var/log/munge
  chmod 0400 /etc/munge/munge.key
  chmod 0755 /run/munge
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- munged
    STARTED_MUNGE=1
    for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  munge -n | unmunge >/dev/null || die "munged does not answer"
}

write_config() {
  local node cpus memory
  node=$(hostname -s)
  cpus=$(nproc)
  # What slurmd finds on this machine, in its own words (RealMemory in MB).
  memory=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
  cat >/etc/slurm/slurm.conf <<CONF
ClusterName=toybattle-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
# No cgroups in a container: plain process tracking, no task binding, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
}

start_slurm() {
  stop_daemon /run/slurmctld.pid
  stop_daemon /run/slurmd.pid
  slurmctld -i   # -i: ignore state left by an earlier test
  slurmd
  for _ in $(seq 100); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then return; fi
    sleep 0.2
  done
  sinfo || true
  tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
  die "the node did not come up idle"
}

# Ends the daemon whose pid file is given, if it runs (only that process, by its id).
stop_daemon() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
}

stop_slurm() {
  [[ ${KEEP:-0} == 1 ]] && return
  stop_daemon /run/slurmd.pid
  stop_daemon /run/slurmctld.pid
  if [[ ${STARTED_MUNGE:-0} == 1 ]]; then stop_daemon /run/munge/munged.pid; fi
}

# Waits until no job of ours is queued or running; fails after TIMEOUT seconds.
wait_for_jobs() {
  local deadline=$((SECONDS + TIMEOUT))
  while squeue -h -n toybattle-shard,toybattle-merge,toybattle-report -o '%i' | grep -q .; do
    ((SECONDS < deadline)) || { squeue; die "jobs still running after ${TIMEOUT}s"; }
    sleep 2
  done
}

start=$SECONDS
install_slurm
if [[ ! -x $ROOT/target/release/toybattle ]]; then
  log "building the release binary"
  (cd "$ROOT" && cargo build --release -q)
fi
# The jobs run the binary from a copy, so that a rebuild meanwhile cannot change it.
mkdir -p "$WORK/bin"
cp "$ROOT/target/release/toybattle" "$WORK/bin/toybattle"
BIN=$WORK/bin/toybattle

start_munge
write_config
start_slurm
trap stop_slurm EXIT
log "cluster up ($(sinfo -h -o '%N %c CPUs %m MB'))"

log "submitting $SHARDS shards and the merge"
SHARDS=$SHARDS OUT=$WORK/run BIN=$BIN CPUS=1 TIME=00:30:00 \
  bash "$ROOT/scripts/slurm-tournament.sh" "${RUN[@]}"
wait_for_jobs

for k in $(seq "$SHARDS"); do
  [[ -s $WORK/run/shard-$k/summary.json ]] || { cat "$WORK/run/logs/shard-$k.log" >&2 || true; die "shard $k left no summary"; }
done
[[ -s $WORK/run/merged/summary.json ]] || { cat "$WORK/run/logs/merge.log" >&2 || true; die "the merge job left no summary"; }

log "running the same tournament on one machine"
"$BIN" tournament "${RUN[@]}" --quiet --out "$WORK/single" >/dev/null
# summary.json holds no timings: the same games give the same file, byte for byte.
if ! cmp -s "$WORK/run/merged/summary.json" "$WORK/single/summary.json"; then
  diff "$WORK/run/merged/summary.json" "$WORK/single/summary.json" | head -n 40 >&2 || true
  die "the merged summary differs from the single run's"
fi
log "tournament OK: $SHARDS array tasks and the merge ran; merged summary = single run"

log "submitting a balance study as $SHARDS shards and the report"
SHARDS=$SHARDS OUT=$WORK/study BIN=$BIN CPUS=1 TIME=00:30:00 \
  bash "$ROOT/scripts/slurm-balance.sh" "${STUDY[@]}"
wait_for_jobs
[[ -s $WORK/study/report/report.md ]] || { cat "$WORK/study/logs/report.log" >&2 || true; die "the report job left no report"; }
log "playing the same study on one machine"
"$BIN" balance "${STUDY[@]}" --quiet --out "$WORK/single-study" >/dev/null
for file in "${REPORT[@]}"; do
  cmp -s "$WORK/study/report/$file" "$WORK/single-study/$file" || die "the study's $file differs from the single study's"
done
log "OK: tournament and study ran as $SHARDS array tasks each under Slurm; merged summary and report = single runs ($((SECONDS - start))s)"
