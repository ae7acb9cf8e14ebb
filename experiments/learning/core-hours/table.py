#!/usr/bin/env python3
"""The strength-per-core-hour table and plot from the files run.sh and score.sh leave here.

For every arm, seed and budget mark: the network scored (its generation and the CPU seconds of
self-play, teacher games and training behind it) and its matches against the two anchors, with
Elo over pairs and the 95 % interval the match command computed, and each side's W-D-L with how
the wins ended. Then per arm and mark the two seeds side by side: seeds are the replicates, so
the arm's figure is their mean and their spread, never an interval over pooled games.
Writes table.md and strength.svg next to this script (for another variant's runs, in its
directory here, e.g. tavlei/; without a VARIANT, for every variant with runs here); with
--check, fails where they are not what the files give.
    python3 experiments/learning/core-hours/table.py [--check] [VARIANT]
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import checkpoint  # noqa: E402

# the network anchor of each variant's runs (score.sh plays them)
NETWORK_ANCHOR = {"tablut": "the first Tablut network at 100 ms",
                  "tavlei": "the Tavlei network of 2026-12-02 at 100 ms"}
COLOURS = {"base": "#1f77b4", "wide": "#d62728", "bf16": "#2ca02c", "nnueteacher": "#9467bd",
           "noreps": "#ff7f0e", "abstarts": "#8c564b", "sidebalance": "#e377c2"}


def record(side, ends):
    wins = ", ".join(f"{reason.replace('_', ' ')} {n}" for reason, n in sorted(ends.get("wins", {}).items()))
    text = f"{side['wins']}-{side['draws']}-{side['losses']}"
    return f"{text} ({wins})" if wins else text


def elo(x):
    """An Elo figure; an interval's end at a score of 0 or 1 is the string "-inf" or "inf"."""
    return x if isinstance(x, str) else f"{x:+.0f}"


def cell(m):
    if m is None:
        return "—"
    e = m["elo_pairs"]
    return (f"{m['score']:.3f}, {elo(e['elo'])} [{elo(e['low'])}, {elo(e['high'])}]; "
            f"att {record(m['as_attacker'], m['ends']['attacking'])}, "
            f"def {record(m['as_defender'], m['ends']['defending'])}")


def results(where, anchors):
    """(arm, seed, mark, generation, cpu seconds, {anchor: match or None}) for every scored mark
    of the runs in `where`."""
    out = []
    for run in sorted(p for p in where.iterdir() if p.is_dir() and "-seed" in p.name):
        arm, seed = run.name.split("-seed")
        made = checkpoint.costs(str(run))  # what each generation's network cost
        for mark_dir in sorted(run.glob("mark-*"), key=lambda p: int(p.name[5:])):
            matches = {}
            for a, _ in anchors:
                f = mark_dir / f"vs-{a}" / "match.json"
                matches[a] = json.loads(f.read_text()) if f.is_file() else None
            if not any(matches.values()):
                continue  # being played
            net = next(m["a"] for m in matches.values() if m is not None)
            generation = int(net.split("/gen-")[1].split("/")[0])
            out.append((arm, int(seed), int(mark_dir.name[5:]), generation, made[generation], matches))
    return out


def table(rows, anchors):
    lines = ["| arm | seed | mark (CPU s) | generation | its CPU s (core-hours) | "
             + " | ".join(f"vs {label}" for _, label in anchors) + " |",
             "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in anchors) + " |"]
    for arm, seed, mark, g, cost, matches in rows:
        lines.append(f"| {arm} | {seed} | {mark} | {g} | {cost:.0f} ({cost / 3600:.2f}) | "
                     + " | ".join(cell(matches[a]) for a, _ in anchors) + " |")
    lines += ["", "| arm | mark (CPU s) | " + " | ".join(f"vs {label}: mean of the seeds (each seed)" for _, label in anchors) + " |",
              "| --- | --- | " + " | ".join("---" for _ in anchors) + " |"]
    for arm, mark in sorted({(r[0], r[2]) for r in rows}):
        cells = []
        for a, _ in anchors:
            scores = [r[5][a]["score"] for r in rows if r[0] == arm and r[2] == mark and r[5][a]]
            cells.append(f"{sum(scores) / len(scores):.3f} ({', '.join(f'{s:.3f}' for s in scores)})" if scores else "—")
        lines.append(f"| {arm} | {mark} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(rows, anchors):
    """Score against core-hours, one panel an anchor: a dot per seed, a line through the means."""
    w, h, pad = 330, 260, 48
    hours = [r[4] / 3600 for r in rows] or [1.0]
    x_max = max(hours) * 1.1 or 1.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(anchors) * w}" height="{h + 30}" font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    for i, (a, label) in enumerate(anchors):
        ox = i * w

        def x(v):
            return ox + pad + (w - 1.5 * pad) * v / x_max

        def y(v):
            return h - pad + 10 - (h - 1.5 * pad) * v

        parts.append(f'<text x="{ox + w / 2}" y="16" text-anchor="middle">score vs {label}</text>')
        parts.append(f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(x_max)}" y2="{y(0)}" stroke="black"/>')
        parts.append(f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(0)}" y2="{y(1)}" stroke="black"/>')
        for v in (0, 0.5, 1):
            parts.append(f'<text x="{x(0) - 4}" y="{y(v) + 4}" text-anchor="end">{v}</text>')
            parts.append(f'<line x1="{x(0)}" y1="{y(v)}" x2="{x(x_max)}" y2="{y(v)}" stroke="#ddd"/>')
        for t in range(0, int(x_max * 10) + 1):
            parts.append(f'<text x="{x(t / 10)}" y="{y(0) + 14}" text-anchor="middle">{t / 10:.1f}</text>')
        parts.append(f'<text x="{ox + w / 2}" y="{h + 22}" text-anchor="middle">core-hours (self-play, teacher games, training)</text>')
        for arm in sorted({r[0] for r in rows}):
            colour = COLOURS.get(arm, "black")
            means = []
            for mark in sorted({r[2] for r in rows if r[0] == arm}):
                pts = [(r[4] / 3600, r[5][a]["score"]) for r in rows if r[0] == arm and r[2] == mark and r[5][a]]
                for px, py in pts:
                    parts.append(f'<circle cx="{x(px):.1f}" cy="{y(py):.1f}" r="3" fill="{colour}" fill-opacity="0.5"/>')
                if pts:
                    means.append((sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)))
            if means:
                path = " ".join(f"{x(px):.1f},{y(py):.1f}" for px, py in means)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
                parts.append(f'<text x="{x(means[-1][0]) + 4:.1f}" y="{y(means[-1][1]) - 4:.1f}" fill="{colour}">{arm}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def made(variant):
    """The directory of a variant's runs here, and the table and plot their files give."""
    where = HERE if variant == "tablut" else HERE / variant
    anchors = [("net", NETWORK_ANCHOR[variant]), ("ab", "ab:t=100ms")]
    rows = results(where, anchors)
    return where, {"table.md": table(rows, anchors), "strength.svg": plot(rows, anchors)}


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    for variant in args:
        if variant not in NETWORK_ANCHOR:
            sys.exit(f"no runs of {variant} are scored here ({', '.join(NETWORK_ANCHOR)})")
    # without a variant: every variant that has runs here
    variants = args or [v for v in NETWORK_ANCHOR if v == "tablut" or (HERE / v).is_dir()]
    stale = []
    for variant in variants:
        where, files = made(variant)
        if "--check" in sys.argv[1:]:
            stale += [where / name for name, text in files.items()
                      if not (where / name).is_file() or (where / name).read_text() != text]
            continue
        for name, text in files.items():
            (where / name).write_text(text)
        print(files["table.md"], end="")
    for path in stale:
        print(f"{path} is not what table.py makes from the match files", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
