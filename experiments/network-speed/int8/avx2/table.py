"""bench.md from the two criterion runs beside it: the evaluator group with the CPU's own int8
kernel (AVX2 here) and the int8 cases again with TAVLEI_INT8_KERNEL=plain, positions a second
(criterion's median).
  python3 experiments/network-speed/int8/avx2/table.py"""
import re
from pathlib import Path

HERE = Path(__file__).parent


def medians(path):
    """Benchmark id -> median throughput in elements a second (criterion's middle figure)."""
    out, name = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("evaluator/"):
            name = line.strip()
        elif "thrpt" in line and name and "%" not in line:
            value, kilo = re.findall(r"([\d.]+)\s+(K?)elem/s", line)[1]
            out[name] = float(value) * (1000 if kilo else 1)
            name = None
    return out


def main():
    fast = medians(HERE / "bench-avx2-kernel.txt")
    plain = medians(HERE / "bench-plain-kernel.txt")
    rows = ["| variant | batch | f32 | int8, plain Rust | int8, AVX2 | AVX2 / f32 | AVX2 / plain |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for variant in ["brandubh", "tablut", "tavlei", "copenhagen"]:
        for batch in [1, 64]:
            f32 = fast[f"evaluator/f32/batch{batch}/{variant}"]
            avx2 = fast[f"evaluator/int8/batch{batch}/{variant}"]
            slow = plain[f"evaluator/int8/batch{batch}/{variant}"]
            rows.append(f"| {variant} | {batch} | {f32:,.0f} | {slow:,.0f} | {avx2:,.0f} | "
                        f"{avx2 / f32:.1f}x | {avx2 / slow:.0f}x |")
    table = "\n".join(rows) + "\n"
    (HERE / "bench.md").write_text(table)
    print(table, end="")


if __name__ == "__main__":
    main()
