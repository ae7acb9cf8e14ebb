"""The newest network of a pipeline run whose making cost at most a budget of CPU seconds.

Generation k's network (gen-k/model.safetensors) is made by the self-play, teacher games and
training of generations 0..k-1, so its cost is the sum of those stages' CPU seconds in their
time.json files (evaluation is not counted). Prints k (0: none within the budget); with
--spent, the CPU seconds of the run's finished generations (what run.sh holds to its budget).

    python3 checkpoint.py RUN_DIR BUDGET
    python3 checkpoint.py --spent RUN_DIR
"""
import json
import os
import sys

COUNTED = ("selfplay", "teacher", "train")


def stage_cost(book):
    """CPU seconds of the counted stages in one generation's time book (`train_beside` too)."""
    return sum(v["cpu"] for k, v in book.items() if k.split("_")[0] in COUNTED)


def costs(run):
    """Cumulative cost behind each network: costs(run)[k] made gen-k (gen-0 costs nothing).
    A generation counts once its training is in its time book (so a run stopped in the middle of
    one, or the copy of a run without its networks, reads the same)."""
    out = [0.0]
    k = 0
    while True:
        path = os.path.join(run, "gen-%03d" % k, "time.json")
        if not os.path.exists(path):
            return out
        with open(path) as f:
            book = json.load(f)
        if not any(stage.startswith("train") for stage in book):
            return out
        out.append(out[-1] + stage_cost(book))
        k += 1


def newest_within(run, budget):
    made = costs(run)
    return max(k for k, c in enumerate(made) if c <= budget)


if __name__ == "__main__":
    if sys.argv[1] == "--spent":
        print(int(costs(sys.argv[2])[-1]))
    else:
        print(newest_within(sys.argv[1], float(sys.argv[2])))
