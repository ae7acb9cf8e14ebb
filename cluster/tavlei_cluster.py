#!/usr/bin/env python3
"""Runs a tavlei self-play generation, balance study or match on a Ray cluster.

The tavlei binary is the worker: the driver asks it for the job's units of work (`--plan`), hands
each unit to a Ray task that runs `tavlei ... --units` on whichever node takes it, and brings the
unit's files back through Ray's object store into the output directory a local run uses. Then it
runs the ordinary tavlei command over that directory, which finds every game written and only
writes the report. A unit's files are the bytes a single-machine run writes for it, so the
results are those of a local run with the same seed.

Every node reads the binary and the job's input files (configs, variants, models) at the same
path as the driver: a shared or identically copied checkout (the venv holding libtorch is 4.7 GB,
too big to ship through Ray's runtime environment). Outputs travel through the object store; only
the driver's node writes the output directory.

    python cluster/tavlei_cluster.py --address 127.0.0.1:6379 balance -- \\
        --variant brandubh --agent mcts:16 --games 24 --seed 2 --out runs/balance
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import ray
except ImportError:
    sys.exit("tavlei_cluster: Ray is missing; `make setup-ray` installs it into the project's venv")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class UnitFailed(Exception):
    """A unit whose tavlei run failed for a real reason (bad input): the job stops with it."""


def option(args, name, default=None):
    """The value of `name` in a tavlei argument list (`--out DIR` or `--out=DIR`)."""
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1 :]
    return default


def without(args, name):
    """`args` without `name` and its value."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == name:
            skip = True
        elif not a.startswith(name + "="):
            out.append(a)
    return out


def die_with_parent():
    """A unit's tavlei ends with the Ray worker running it (a killed driver or node)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def tavlei(binary, command, args, cwd, threads=None):
    """Runs tavlei on this node; its stdout, or UnitFailed with its stderr."""
    full = [binary] + (["--threads", str(threads)] if threads else []) + [command] + args
    done = subprocess.run(full, cwd=cwd, capture_output=True, text=True, preexec_fn=die_with_parent)
    if done.returncode != 0:
        raise UnitFailed(f"{' '.join(full)} failed ({done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


@ray.remote
def run_unit(binary, command, args, cwd, threads, unit):
    """One unit on whichever node runs this task: its files, by path relative to its --out."""
    scratch = tempfile.mkdtemp(prefix="tavlei-unit-")
    trace = os.environ.get("TAVLEI_CLUSTER_TRACE")
    if trace:
        # the cluster test's probe: which node started which unit (every attempt)
        node = os.environ.get("TAVLEI_NODE_NAME", "node")
        open(os.path.join(trace, f"{unit}@{node}@{os.getpid()}"), "w").close()
    try:
        tavlei(binary, command, args + ["--out", scratch, "--units", unit], cwd, threads)
        files = {}
        for root, _, names in os.walk(scratch):
            for name in names:
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, scratch)] = f.read()
        return {"unit": unit, "node": ray.get_runtime_context().get_node_id(), "files": files}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def write_atomically(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def append_lines(path, lines):
    """Appends whole lines to a game store in one write, cutting off a torn last line first."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "ab+") as f:
        f.seek(0)
        data = f.read()
        whole = data.rfind(b"\n") + 1
        if whole < len(data):
            f.truncate(whole)
        f.seek(0, os.SEEK_END)
        f.write(b"".join(lines))
        f.flush()
        os.fsync(f.fileno())


class Bar:
    """One progress line over all units, on stderr."""

    def __init__(self, total, what):
        self.total, self.done, self.what, self.clock = total, 0, what, time.time()
        self.draw()

    def step(self):
        self.done += 1
        self.draw()

    def draw(self):
        width = 30
        filled = width * self.done // max(self.total, 1)
        bar = "=" * filled + (">" if filled < width else "") + " " * (width - filled - 1)
        elapsed = time.time() - self.clock
        sys.stderr.write(f"\r{self.what} [{bar[:width]}] {self.done}/{self.total} units  {elapsed:.0f} s")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def blocks(ids, size, end):
    """Units `K..L` of `size` ids (the last one shorter) holding any of `ids`."""
    wanted = set(ids)
    return [
        (k, min(k + size, end))
        for k in range(0, end, size)
        if any(i in wanted for i in range(k, min(k + size, end)))
    ]


def fan_out(opts, command, args, units, arrived):
    """Runs `units` as Ray tasks; `arrived(unit, files)` takes each result as it comes back."""
    cwd = os.getcwd()
    pending = {
        run_unit.options(num_cpus=opts.threads, max_retries=opts.retries).remote(
            opts.tavlei, command, args, cwd, opts.threads, unit
        ): unit
        for unit in units
    }
    bar = Bar(len(units), command)
    log = open(opts.log, "a") if opts.log else None
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                unit = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    for other in pending:
                        ray.cancel(other, force=True)
                    cause = e.cause if isinstance(e.cause, UnitFailed) else e
                    raise SystemExit(f"\nunit {unit} failed: {cause}")
                arrived(unit, result["files"])
                if log:
                    log.write(f"unit {unit} done on node {result['node']}\n")
                    log.flush()
                bar.step()
    finally:
        if log:
            log.close()


def balance(opts, args):
    out = option(args, "--out", "balance")
    unit_args = without(args, "--out")
    # a sequential study's plan lists its current look only: plan again after each round of
    # units until nothing is missing (a plain study needs one round)
    while True:
        plan = json.loads(tavlei(opts.tavlei, "balance", args + ["--plan"], None))
        units, stores, waiting = [], {}, {}
        for study in plan:
            mine = blocks(study["missing"], opts.block, study["games"])
            units += [f"{study['study']}:{k}..{l}" for k, l in mine]
            stores[study["study"]] = study
            waiting[study["study"]] = [f"{study['study']}:{k}..{l}" for k, l in mine]
        if not units:
            break
        held = {}

        # a study's store grows in id order, as a local run's does: units that arrive early wait
        def arrived(unit, files, stores=stores, waiting=waiting, held=held):
            study = int(unit.split(":")[0])
            s = stores[study]
            held[unit] = files.get(s["store"], b"")
            queue = waiting[study]
            while queue and queue[0] in held:
                lines = held.pop(queue.pop(0)).splitlines(keepends=True)
                missing = set(s["missing"])
                keep = [l for l in lines if json.loads(l)["id"] in missing]
                append_lines(os.path.join(out, s["store"]), keep)

        fan_out(opts, "balance", unit_args, units, arrived)
    # every game is stored: the ordinary command writes the records and the report
    print(tavlei(opts.tavlei, "balance", args, None), end="")


def match(opts, args):
    out = option(args, "--out")
    if out is None:
        raise SystemExit("match needs --out DIR among tavlei's arguments")
    plan = json.loads(tavlei(opts.tavlei, "match", args + ["--plan"], None))
    mine = blocks(plan["missing"], opts.block, plan["pairs"])
    units = [f"{k}..{l}" for k, l in mine]
    queue, held = list(units), {}
    missing = set(plan["missing"])

    # the store grows in pair order, as the games of a single run are heard
    def arrived(unit, files):
        held[unit] = files.get("games.jsonl", b"")
        while queue and queue[0] in held:
            lines = held.pop(queue.pop(0)).splitlines(keepends=True)
            keep = [l for l in lines if json.loads(l)["id"] // 2 in missing]
            append_lines(os.path.join(out, "games.jsonl"), keep)

    if units:
        fan_out(opts, "match", without(args, "--out"), units, arrived)
    print(tavlei(opts.tavlei, "match", args, None), end="")


def selfplay(opts, args):
    out = option(args, "--out")
    if out is None:
        raise SystemExit("selfplay needs --out DIR among tavlei's arguments")
    plan = json.loads(tavlei(opts.tavlei, "selfplay", args + ["--plan"], None))
    units = [f"{k}..{l}" for k, l in blocks(plan["missing"], opts.block, plan["shards"])]

    def arrived(unit, files):
        # records before shards: a shard's presence means its games are complete
        for name in sorted(files, key=lambda n: (n.startswith("shard-"), n)):
            if name != "manifest.json":
                write_atomically(os.path.join(out, name), files[name])

    if units:
        fan_out(opts, "selfplay", without(args, "--out"), units, arrived)
    print(tavlei(opts.tavlei, "selfplay", args, None), end="")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--address", default="auto", help="Ray cluster to join (head's HOST:PORT)")
    p.add_argument(
        "--tavlei",
        default=os.path.join(REPO, "target", "release", "tavlei"),
        help="the tavlei binary, at the same path on every node",
    )
    p.add_argument(
        "--block", type=int, default=1, help="games (balance), shards (selfplay) or pairs (match) per unit"
    )
    p.add_argument("--threads", type=int, default=1, help="CPUs per unit (tavlei --threads)")
    p.add_argument("--retries", type=int, default=3, help="retries of a unit whose node died")
    p.add_argument("--log", help="append a line per finished unit (which node ran it) here")
    p.add_argument("command", choices=["balance", "selfplay", "match"])
    p.add_argument("args", nargs=argparse.REMAINDER, help="-- then tavlei's arguments")
    opts = p.parse_args()
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    opts.tavlei = os.path.abspath(opts.tavlei)
    if opts.block < 1:
        raise SystemExit("--block must be at least 1")
    try:
        ray.init(address=opts.address, log_to_driver=False, logging_level="WARNING")
        {"balance": balance, "selfplay": selfplay, "match": match}[opts.command](opts, args)
    except UnitFailed as e:
        raise SystemExit(str(e))
    finally:
        if ray.is_initialized():
            ray.shutdown()


if __name__ == "__main__":
    main()
