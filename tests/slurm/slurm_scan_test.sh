#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Slurm fleet scan end to end (scripts/slurm): starts a private one-node Slurm cluster
# (munged, slurmctld, slurmd, all in a temporary folder, on free high ports), runs
# submit-scan.sh with 4 shards over the traces and waits for the merge job, then checks that the
# merged database holds what one `tracesweep scan` of the same traces writes. Two broken traces
# in a second folder make some shard exit 2, which must still let the merge run; shard 2 fails
# once on purpose, which must cancel the merge until `submit-scan.sh -r` resumes the scan.
#   slurm_scan_test.sh TRACESWEEP_BINARY SOURCE_DIR TRACES_DIR
# TRACES_DIR: $TRACESWEEP_TRACES overrides it. Skips (exit 77) without the traces, without
# slurmctld/slurmd/munged/sbatch (Debian: slurm-wlm, munge) or when not root (slurmd launches
# jobs as root here); with TRACESWEEP_REQUIRE_TRACES=1 missing traces fail instead. Stops
# everything it started and removes its folder on exit (keeps it with TRACESWEEP_SLURM_KEEP=1).
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: slurm_scan_test.sh TRACESWEEP_BINARY SOURCE_DIR TRACES_DIR" >&2
  exit 1
fi
bin="$(realpath "$1")"
src="$(realpath "$2")"
traces="${TRACESWEEP_TRACES:-$3}"
shards=4
label="slurm-test"

skip() { echo "slurm_scan_test: $*: skipped"; exit 77; }
if [[ ! -d "$traces" ]]; then
  if [[ "${TRACESWEEP_REQUIRE_TRACES:-}" == 1 ]]; then
    echo "slurm_scan_test: traces folder $traces is missing and TRACESWEEP_REQUIRE_TRACES=1" >&2
    exit 1
  fi
  skip "traces folder $traces not found (set TRACESWEEP_TRACES)"
fi
traces="$(realpath "$traces")"
PATH="$PATH:/usr/sbin:/sbin"  # the daemons, for a shell without them on PATH
for cmd in munged slurmctld slurmd sbatch sinfo scontrol scancel squeue sqlite3; do
  command -v "$cmd" >/dev/null 2>&1 || skip "$cmd not found (Debian packages slurm-wlm, munge)"
done
[[ "$(id -u)" == 0 ]] || skip "slurmd needs root"

# Nothing of a surrounding Slurm job or cluster may leak into ours.
while IFS= read -r var; do
  unset "$var"
done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tracesweep-slurm.XXXXXX")"
chmod 0711 "$tmp"  # munged wants its socket folder searchable
started=$SECONDS

stop_pid_file() {  # kills the daemon whose pid file (in $tmp) is $1 and waits for it
  local pid
  [[ -s "$1" ]] || return 0
  pid="$(cat "$1")"
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  set +e
  if [[ -s "$tmp/slurmctld.pid" ]]; then
    scancel --quiet --partition=test >/dev/null 2>&1  # our cluster's jobs, all of them
    for _ in $(seq 50); do [[ -z "$(squeue -h -t R,CG 2>/dev/null)" ]] && break; sleep 0.2; done
  fi
  stop_pid_file "$tmp/slurmd.pid"
  stop_pid_file "$tmp/slurmctld.pid"
  stop_pid_file "$tmp/munged.pid"
  if [[ $rc != 0 && $rc != 77 ]]; then
    for log in slurmctld.log slurmd.log munged.log out/scan-*.out out/merge-*.out; do
      for f in "$tmp"/$log; do
        [[ -f "$f" ]] || continue
        echo "---- last lines of ${f#"$tmp"/}"
        tail -n 25 "$f"
      done
    done
    echo "slurm_scan_test: FAILED after $((SECONDS - started)) s"
  fi
  if [[ "${TRACESWEEP_SLURM_KEEP:-}" == 1 ]]; then
    echo "slurm_scan_test: kept $tmp (TRACESWEEP_SLURM_KEEP=1)"
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
# Long commands run in the background with `wait`, so that a signal (ctest's timeout, ^C)
# reaches the trap at once rather than after them.
child=""
on_signal() {
  [[ -z "$child" ]] || kill "$child" 2>/dev/null
  exit 130
}
trap cleanup EXIT
trap on_signal INT TERM
run_child() {  # run_child COMMAND...: runs it in the background, waits, returns its status
  local rc=0
  "$@" &
  child=$!
  wait "$child" || rc=$?
  child=""
  return "$rc"
}

fail() { echo "slurm_scan_test: $*" >&2; exit 1; }

# --- munge: own key, socket and daemon
key="$tmp/munge.key"
mungekey --create --keyfile="$key" >/dev/null 2>&1 \
  || dd if=/dev/urandom of="$key" bs=1024 count=1 status=none  # munge < 0.5.14 has no mungekey
chmod 0400 "$key"
# --force: munged's permission checks on the folders around key and socket refuse some container
# set-ups (a group-writable TMPDIR); everything here is private to this test anyway.
munged --force --socket="$tmp/munge.socket" --key-file="$key" --pid-file="$tmp/munged.pid" \
       --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" \
  || fail "munged did not start"

# --- slurm.conf: one node (this machine), free high ports, everything under $tmp
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 40000))
    if port_free "$p" && [[ "$p" != "${1:-}" ]]; then echo "$p"; return; fi
  done
  fail "no free port found"
}
ctld_port="$(pick_port)"
slurmd_port="$(pick_port "$ctld_port")"
node="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=tracesweep-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"

for _ in $(seq 60); do
  state="$(sinfo -h -n "$node" -o %t 2>/dev/null || true)"
  [[ "$state" == idle ]] && break
  sleep 0.5
done
if [[ "$state" != idle ]]; then
  scontrol show node "$node" || true
  fail "node $node not idle (state '$state')"
fi
echo "slurm_scan_test: cluster up after $((SECONDS - started)) s" \
     "(node $node, $cpus CPUs, ports $ctld_port/$slurmd_port)"

# Two broken traces beside the real ones: the shards that get them exit 2 (inputs recorded as
# failed, database complete), which must not stop the merge.
mkdir -p "$tmp/bad/job-broken"
echo '{"traceEvents": [ {"ph": "X", broken' > "$tmp/bad/job-broken/rank0.json"
printf 'not a trace at all\n' | gzip > "$tmp/bad/job-broken/rank1.json.gz"

# --- the fleet scan through the scripts users run. Shard 2 fails once (a wrapper around the
# binary), which must cancel the merge; submit-scan.sh -r then reruns the scan in place.
flaky="$tmp/tracesweep-fails-once"
cat > "$flaky" <<WRAP
#!/usr/bin/env bash
if [[ " \$* " == *" --shard 2/$shards "* && ! -e "$tmp/failed-once" ]]; then
  touch "$tmp/failed-once"
  echo "shard 2 fails on purpose (slurm_scan_test)" >&2
  exit 1
fi
exec "$bin" "\$@"
WRAP
chmod +x "$flaky"
submit() {
  run_child timeout 120 "$src/scripts/slurm/submit-scan.sh" -w -b "$flaky" -o "$tmp/out" \
    -l "$label" -s --cpus-per-task=1 -s --mem=1000 "$@" "$traces" "$tmp/bad"
}
cd "$tmp"
rc=0
submit -n "$shards" || rc=$?
[[ $rc != 0 ]] || fail "submit-scan.sh -w succeeded although shard 2 failed"
[[ ! -e "$tmp/out/results.sqlite" ]] || fail "the merge ran although shard 2 failed"
echo "slurm_scan_test: a failed shard stopped the merge, after $((SECONDS - started)) s"
submit -r || fail "submit-scan.sh -r failed (exit $?)"
echo "slurm_scan_test: fleet scan resumed and merged after $((SECONDS - started)) s"

merged="$tmp/out/results.sqlite"
[[ -s "$merged" ]] || fail "merged database $merged missing"
for ((k = 0; k < shards; k++)); do
  [[ -s "$tmp/out/shard-$k.sqlite" ]] || fail "shard database shard-$k.sqlite missing"
done

# --- the same traces scanned by one process
rc=0
run_child timeout 120 "$bin" scan "$traces" "$tmp/bad" --db "$tmp/single.sqlite" --label "$label" \
  --jobs "$cpus" >"$tmp/single.log" 2>&1 || rc=$?
[[ $rc == 2 ]] || { cat "$tmp/single.log"; fail "single scan exited $rc, not 2 (bad inputs)"; }
grep -q -- "--jobs 1 --memory-limit 750M" "$tmp/out/scan-"*_0.out \
  || fail "scan.sbatch did not pass the allocation (1 CPU, 1000 MB) as --jobs/--memory-limit"
grep -q "exit 2 reported as success" "$tmp"/out/scan-*.out \
  || fail "no shard reported scan's exit 2 (the broken traces)"

query() { sqlite3 -batch -noheader "$1" "$2"; }
compare() {  # compare DESCRIPTION SQL
  local a b
  a="$(query "$merged" "$2")" || fail "query on merged db failed: $2"
  b="$(query "$tmp/single.sqlite" "$2")" || fail "query on single-scan db failed: $2"
  if [[ "$a" != "$b" ]]; then
    echo "slurm_scan_test: $1 differ (< merged, > single scan):"
    diff <(echo "$a") <(echo "$b") | head -n 40
    fail "$1 of the merged shards and of one scan differ"
  fi
  echo "slurm_scan_test: $1 agree ($(echo "$a" | wc -l) lines)"
}
compare "traces rows" "SELECT path, content_hash, status FROM traces ORDER BY path"
compare "kernel count" "SELECT COUNT(*) FROM kernels"
compare "device count" "SELECT COUNT(*) FROM devices"
compare "gap count" "SELECT COUNT(*) FROM gaps"
query "$merged" "SELECT COUNT(*) FROM jobs" >/dev/null || fail "merged db has no jobs table"
errors="$(query "$merged" "SELECT COUNT(*) FROM traces WHERE status = 'error'")"
[[ "$errors" == 2 ]] || fail "the merged db records $errors failed traces, not the 2 broken ones"

# every trace in exactly one shard: no path in two shards, together as many as one scan's (a
# shard's database may hold a failed trace once per run: the resumed scan tried it again)
for ((k = 0; k < shards; k++)); do
  query "$tmp/out/shard-$k.sqlite" "SELECT DISTINCT path FROM traces"
done | sort > "$tmp/shard-paths"
dups="$(uniq -d "$tmp/shard-paths" | head -n 5)"
[[ -z "$dups" ]] || fail "traces in more than one shard: $dups"
total="$(wc -l < "$tmp/shard-paths")"
want="$(query "$tmp/single.sqlite" "SELECT COUNT(*) FROM traces")"
[[ "$total" == "$want" && "$want" -gt 0 ]] \
  || fail "the shards hold $total traces rows, one scan $want"

echo "slurm_scan_test: passed in $((SECONDS - started)) s"
