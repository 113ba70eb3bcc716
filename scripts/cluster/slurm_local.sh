#!/bin/bash
# A one-node Slurm cluster on this machine, for the cluster tests
# (tests/cluster.rs) and for trying the recipes of docs/cluster.md:
#   scripts/cluster/slurm_local.sh up     # install if missing, start, wait for idle
#   export SLURM_CONF=$(scripts/cluster/slurm_local.sh conf)
#   sbatch --array=1-4 scripts/cluster/slurm_match.sh
#   scripts/cluster/slurm_local.sh down   # stop what `up` started
# Everything lives in one folder it owns, YOTE_SLURM_DIR (default
# target/slurm-local of this checkout): slurm.conf, the munge key, state,
# spool, logs and the daemons' PIDs. munged, slurmctld and slurmd run in the
# foreground as children of this script's session, so `down` stops exactly
# them by their PIDs and nothing else on the machine. Needs root (apt-get,
# and slurmd starts jobs as their owner); Debian's slurm-wlm and munge.
# The ports can be moved with YOTE_SLURM_PORT (slurmctld; slurmd takes the
# next one) when 6817/6818 are taken.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${YOTE_SLURM_DIR:-$ROOT/target/slurm-local}
PORT=${YOTE_SLURM_PORT:-6817}
CONF=$DIR/slurm.conf
PIDS=$DIR/pids
SOCKET=$DIR/munge/munge.socket.2
# How long `up` waits for the node to be idle (first start is quick; the
# packages' install is not counted).
WAIT_S=${YOTE_SLURM_WAIT_S:-120}

log() { echo "slurm-local: $*" >&2; }

install_packages() {
  if command -v munged >/dev/null && command -v slurmctld >/dev/null &&
    command -v slurmd >/dev/null && command -v sbatch >/dev/null; then
    return
  fi
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
}

# The node as this machine is: its CPUs (those this process may use) and
# its memory in MiB, less a tenth for the system.
write_conf() {
  local host cpus mem_kib mem_mib
  host=$(hostname -s)
  cpus=$(nproc)
  mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  mem_mib=$((mem_kib / 1024 * 9 / 10))
  cat >"$CONF" <<EOF
# Written by scripts/cluster/slurm_local.sh for $host: one controller and
# one node, both on this machine.
ClusterName=yote-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
# No cgroups in containers: processes are tracked by parent PID and tasks
# are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# The node is what this file says, whatever the hardware probe finds.
SlurmdParameters=config_overrides
ReturnToService=2
# A killed or requeued task dies quickly (SIGTERM, then SIGKILL 5 s later).
KillWait=5
# Finished jobs stay visible to scontrol for ten minutes.
MinJobAge=600
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# Starts a daemon in the foreground, in the background of this script, its
# output in the log folder; records "name pid".
start() {
  local name=$1
  shift
  setsid "$@" >>"$DIR/log/$name.out" 2>&1 </dev/null &
  echo "$name $!" >>"$PIDS"
}

node_state() {
  SLURM_CONF=$CONF sinfo -h -N -o %t 2>/dev/null | head -1 || true
}

up() {
  install_packages
  mkdir -p "$DIR"/{state,spool,log,run,munge}
  chmod 711 "$DIR/munge"
  if [ -f "$PIDS" ]; then
    local all=1 name pid
    while read -r name pid; do alive "$pid" || all=0; done <"$PIDS"
    if [ "$all" = 1 ] && [ "$(node_state)" = idle ]; then
      log "already up ($CONF)"
      echo "$CONF"
      return
    fi
    down
    mkdir -p "$DIR"/{state,spool,log,run,munge}
  fi
  write_conf
  if [ ! -s "$DIR/munge/munge.key" ]; then
    mungekey --create --keyfile="$DIR/munge/munge.key"
  fi
  chmod 400 "$DIR/munge/munge.key"
  : >"$PIDS"
  # --force: munged refuses a key or socket folder it deems unsafe (a
  # checkout may sit under a group-writable folder); the folder is ours.
  start munged munged --foreground --force \
    --key-file="$DIR/munge/munge.key" --socket="$SOCKET" \
    --pid-file="$DIR/run/munged.pid" --seed-file="$DIR/munge/munged.seed" \
    --log-file="$DIR/log/munged.log"
  for _ in $(seq 50); do [ -S "$SOCKET" ] && break; sleep 0.1; done
  [ -S "$SOCKET" ] || { log "munged did not start: see $DIR/log"; down; exit 1; }
  export SLURM_CONF=$CONF
  # -i: ignore state a previous cluster in this folder left behind.
  start slurmctld slurmctld -D -i -f "$CONF"
  start slurmd slurmd -D -f "$CONF"
  local waited=0 state=""
  while [ "$waited" -lt "$WAIT_S" ]; do
    state=$(node_state)
    case "$state" in
    idle) break ;;
    down* | drain* | drng*)
      scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true ;;
    esac
    sleep 1
    waited=$((waited + 1))
  done
  if [ "$state" != idle ]; then
    log "the node is '$state', not idle, after ${WAIT_S}s: see $DIR/log"
    tail -5 "$DIR"/log/*.log >&2 || true
    down
    exit 1
  fi
  log "up in ${waited}s: one node, $(nproc) CPUs; export SLURM_CONF=$CONF"
  echo "$CONF"
}

down() {
  [ -f "$PIDS" ] || { log "not up ($DIR)"; return 0; }
  local name pid
  # Reverse order: the node, then the controller, then munge.
  tac "$PIDS" | while read -r name pid; do
    if alive "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
      alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
      log "stopped $name ($pid)"
    fi
  done
  rm -f "$PIDS"
}

case "${1:-}" in
up) up ;;
down) down ;;
conf) echo "$CONF" ;;
*)
  echo "usage: $0 up|down|conf   (folder: YOTE_SLURM_DIR, now $DIR)" >&2
  exit 2
  ;;
esac
