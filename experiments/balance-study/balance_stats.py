#!/usr/bin/env python3
"""The statistics of the balance study's readings (placeholder, being written)."""

# The verdict vocabulary: src/eval/stats/verdict.rs's Verdict::LABELS, in its order (a Rust
# test checks they agree).
LABELS = (
    "measured",
    "equivalent",
    "different",
    "not equivalent",
    "trending",
    "levels differ without a trend",
    "underpowered",
)
