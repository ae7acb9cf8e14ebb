# Sourced by the cluster test and measurement: a Ray head on 127.0.0.1 and a second node joining
# it, both with token authentication, each started in its own process group so that they can be
# stopped (or one killed) by process id alone. Needs VENV (the project's venv) and SCRATCH.

export RAY_AUTH_MODE=token
RAY_AUTH_TOKEN=$("$VENV/bin/python" -c 'import secrets; print(secrets.token_hex(24))')
export RAY_AUTH_TOKEN
export RAY_USAGE_STATS_ENABLED=0
# where the driver's tasks mark each unit they start (the nodes' workers inherit it)
export TAVLEI_CLUSTER_TRACE=$SCRATCH/trace
mkdir -p "$TAVLEI_CLUSTER_TRACE"
# the units' scratch directories too (the nodes' workers inherit it): a unit whose worker is
# killed leaves its directory behind, and this one goes with SCRATCH
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
RAY_PORT=${RAY_PORT:-6390}
RAY_ADDRESS_HERE=127.0.0.1:$RAY_PORT
HEAD_PGID=
NODE2_PGID=

# start_head CPUS: the head node (GCS, its raylet), returns once it accepts connections
start_head() {
    TAVLEI_NODE_NAME=head setsid "$VENV/bin/ray" start --head --node-ip-address=127.0.0.1 --port="$RAY_PORT" \
        --num-cpus="$1" --include-dashboard=false --disable-usage-stats \
        --temp-dir="$SCRATCH/ray" --block >"$SCRATCH/head.log" 2>&1 &
    HEAD_PGID=$!
    disown "$HEAD_PGID"
}

# start_node2 CPUS: a second node joining the head, as another machine would
start_node2() {
    TAVLEI_NODE_NAME=node2 setsid "$VENV/bin/ray" start --address="$RAY_ADDRESS_HERE" --node-ip-address=127.0.0.1 \
        --num-cpus="$1" --block >"$SCRATCH/node2.log" 2>&1 &
    NODE2_PGID=$!
    disown "$NODE2_PGID"
}

# wait_nodes N SECONDS: until N nodes are alive
wait_nodes() {
    "$VENV/bin/python" - "$RAY_ADDRESS_HERE" "$1" "$2" <<'PY'
import sys, time
import ray
address, want, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.time() + limit
while True:
    try:
        ray.init(address=address, log_to_driver=False, logging_level="WARNING")
        break
    except Exception:
        if time.time() > deadline:
            sys.exit(f"no Ray head at {address} after {limit} s")
        time.sleep(0.5)
while sum(n["Alive"] for n in ray.nodes()) < want:
    if time.time() > deadline:
        sys.exit(f"fewer than {want} Ray nodes alive after {limit} s")
    time.sleep(0.5)
PY
}

# kill_group PGID: the processes of the node's group (raylet, the blocking `ray start`)
kill_group() {
    [ -n "$1" ] && kill -KILL -- "-$1" 2>/dev/null
    return 0
}

# node_processes NAME: the process ids of the node named NAME: everything started under it
# inherits its TAVLEI_NODE_NAME, also the Ray workers, which each lead a process group of their own
node_processes() {
    local e
    for e in /proc/[0-9]*/environ; do
        grep -qz "^TAVLEI_NODE_NAME=$1\$" "$e" 2>/dev/null && basename "${e%/environ}"
    done
    return 0
}

# kill_node NAME PGID: the node dies as a machine would, every process of it at once (the group
# first, so that no raylet starts another worker meanwhile)
kill_node() {
    kill_group "$2"
    local pid
    # (a process may end between the listing and its kill: under `set -e` a failed kill here
    # stopped the cluster test without a word, 1 run in 3)
    for pid in $(node_processes "$1"); do kill -KILL "$pid" 2>/dev/null || true; done
    return 0
}

# stop_ray: both nodes, gracefully first
stop_ray() {
    set +e # it runs from an EXIT trap, after whatever failed
    for g in $NODE2_PGID $HEAD_PGID; do kill -TERM -- "-$g" 2>/dev/null; done
    sleep 2
    kill_group "$NODE2_PGID"
    kill_group "$HEAD_PGID"
    NODE2_PGID= HEAD_PGID=
}
