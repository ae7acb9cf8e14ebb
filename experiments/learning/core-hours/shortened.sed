# The recipe's config shortened for experiments of many short generations (run.sh here and
# ../two-cores/run.sh): 120 self-play and 40 teacher games a generation, and the pipeline's own
# evaluation cut to a token (one pair, never the ladder; the experiments score their networks
# themselves).
s/^games_per_generation = .*/games_per_generation = 120/
/^\[teacher\]/,$ s/^games = .*/games = 40/
/^\[eval\]/,/^\[/ { s/^pairs = .*/pairs = 1/; s/^anchor_pairs = .*/anchor_pairs = 1/; s/^every = .*/every = 1000/; s/^ladder_pairs = .*/ladder_pairs = 0/; s/^concurrent = .*/concurrent = 2/; }
