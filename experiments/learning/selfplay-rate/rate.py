"""The table of measure.sh: positions per core-second of each self-play process, and each
against the old generator's, or today's f32 where the old one was not run (rate.md beside the
raw outputs).
  python3 experiments/learning/selfplay-rate/rate.py OUT_DIR"""
import re
import sys
from pathlib import Path

NAMES = [("old", "commit 4a63564 (the shipped Copenhagen network's run), f32"),
         ("new-f32", "today's, f32"),
         ("new-bf16", "today's, bf16"),
         ("new-f32-again", "today's, f32 (again, beside int8)"),
         ("new-int8", "today's, int8")]


def measure(out, name):
    text = (out / f"{name}.txt").read_text()
    m = re.search(r"(\d+) games of \S+ with .* in ([\d.]+) s: (\d+) positions", text)
    if not m:
        sys.exit(f"{out / (name + '.txt')}: no summary line")
    user, system, wall = map(float, (out / f"{name}.time").read_text().split()[-3:])
    return int(m.group(1)), int(m.group(3)), user + system, wall


def main():
    out = Path(sys.argv[1])
    # measurements made before a generator existed have no file of it
    rows = {n: measure(out, n) for n, _ in NAMES if (out / f"{n}.txt").exists()}
    against = "old" if "old" in rows else "new-f32-again"
    base = rows[against][1] / rows[against][2]
    column = "against the old" if against == "old" else "against today's f32"
    lines = [f"| generator | games | positions | core-seconds | wall seconds | positions per core-second | {column} |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, label in NAMES:
        if name not in rows:
            continue
        games, positions, cpu, wall = rows[name]
        rate = positions / cpu
        lines.append(f"| {label} | {games} | {positions} | {cpu:.0f} | {wall:.0f} | {rate:.1f} | {rate / base:.2f}x |")
    table = "\n".join(lines) + "\n"
    (out / "rate.md").write_text(table)
    print(table, end="")


if __name__ == "__main__":
    main()
