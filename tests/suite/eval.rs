//! Evaluation end to end: a stronger agent wins with significance, swapping the agents flips
//! the result, SPRT stops early, ladders rank, and balance studies resume from saved games.

use tavlei::eval::balance::{run_balance, store_path};
use tavlei::eval::matches::{run_ladder, run_match, Sprt};
use tavlei::eval::{Agent, AgentSpec, EvalError, PlayOptions};
use tavlei::rules::{Position, Variant};

fn agents(specs: &[&str]) -> Vec<Agent> {
    specs
        .iter()
        .map(|s| {
            Agent::load(
                &AgentSpec::parse(s).expect("spec"),
                "brandubh",
                tch::Device::Cpu,
                1,
            )
            .expect("agent")
        })
        .collect()
}

fn start() -> Position {
    Position::start(&Variant::load("brandubh").expect("preset"))
}

#[test]
fn alpha_beta_plays_in_the_arena_and_beats_random_on_both_sides() {
    let opts = PlayOptions::default();
    let (report, games) = run_match(
        &start(),
        &mut agents(&["ab:2", "random"]),
        8,
        None,
        &opts,
        5,
        &mut |_| {},
    );
    assert_eq!(games.len(), 16);
    assert!(report.as_attacker.wins >= 6, "{:?}", report.as_attacker);
    assert!(report.as_defender.wins >= 6, "{:?}", report.as_defender);
    // every game replays legally from its record
    let v = Variant::load("brandubh").expect("preset");
    for g in &games {
        let mut pos = Position::start(&v);
        for mv in &g.moves {
            pos.play(mv).expect("a legal recorded move");
        }
        assert_eq!(pos.outcome(), Some(g.outcome));
    }
}

#[test]
fn stronger_agent_wins_with_significance_and_swapping_flips_it() {
    let opts = PlayOptions::default();
    let (report, games) = run_match(
        &start(),
        &mut agents(&["mcts:100", "random"]),
        16,
        None,
        &opts,
        3,
        &mut |_| {},
    );
    assert_eq!(games.len(), 32);
    assert_eq!(report.pairs, 16);
    assert!(report.score > 0.75, "score {}", report.score);
    assert!(
        report.elo_pairs.low > 0.0,
        "not significant: {:?}",
        report.elo_pairs
    );
    assert_eq!(
        report.as_attacker.wins + report.as_attacker.draws + report.as_attacker.losses,
        16
    );
    let (swapped, _) = run_match(
        &start(),
        &mut agents(&["random", "mcts:100"]),
        16,
        None,
        &opts,
        3,
        &mut |_| {},
    );
    assert!(swapped.score < 0.25, "score {}", swapped.score);
    assert!(
        swapped.elo_pairs.high < 0.0,
        "not significant: {:?}",
        swapped.elo_pairs
    );
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let sprt = Sprt::parse("0,100,0.05,0.05").expect("valid");
    let opts = PlayOptions {
        concurrent: 8,
        ..PlayOptions::default()
    };
    let (report, games) = run_match(
        &start(),
        &mut agents(&["mcts:100", "random"]),
        200,
        Some(sprt),
        &opts,
        5,
        &mut |_| {},
    );
    let s = report.sprt.expect("an SPRT report");
    assert!(s.llr >= s.upper, "LLR {} below {}", s.llr, s.upper);
    assert!(games.len() < 400, "no early stop: {} games", games.len());
    assert!(s.decision.starts_with("H1"));
    // the verdict is the one taken at the bound (its LLR is past it, above): games still in
    // flight then finish and count in the other figures, but the decision rests on fewer pairs
    assert!(
        s.pairs >= 1 && s.pairs <= report.pairs,
        "{} vs {}",
        s.pairs,
        report.pairs
    );
}

/// Classical agents' games are played apart on rayon's threads: one thread or two, the games,
/// their moves and where an SPRT stops are the same.
#[test]
fn classical_games_do_not_depend_on_the_thread_count() {
    let sprt = Sprt::parse("0,100,0.05,0.05").expect("valid");
    let opts = PlayOptions {
        concurrent: 6,
        ..PlayOptions::default()
    };
    let play = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut heard = Vec::new();
            let (report, games) = run_match(
                &start(),
                &mut agents(&["mcts:24", "ab:1"]),
                40,
                Some(sprt),
                &opts,
                9,
                &mut |r| heard.push(r.id),
            );
            (report.sprt.map(|s| s.pairs), games.len(), heard, games)
        })
    };
    let (one_stop, one_len, one_heard, one) = play(1);
    let (two_stop, two_len, two_heard, two) = play(2);
    assert_eq!((one_stop, one_len), (two_stop, two_len));
    assert_eq!(one_heard, two_heard, "results are heard in the same order");
    for (a, b) in one.iter().zip(&two) {
        assert_eq!((a.id, &a.moves, a.outcome), (b.id, &b.moves, b.outcome));
    }
    assert!(
        one_len % 2 == 0,
        "the stop falls after a whole pair: {one_len}"
    );
}

#[test]
fn ladder_ranks_search_above_random() {
    let opts = PlayOptions {
        concurrent: 16,
        ..PlayOptions::default()
    };
    let (report, games) = run_ladder(
        &start(),
        &mut agents(&["random", "mcts:8", "mcts:100"]),
        6,
        &opts,
        2,
        &mut |_| {},
    )
    .expect("a ladder of valid games rates");
    assert_eq!(games.len(), 3 * 12);
    let elo: Vec<f64> = report.ratings.iter().map(|r| r.elo).collect();
    assert!(elo[2] > elo[0], "{elo:?}");
    assert!(report
        .ratings
        .iter()
        .all(|r| r.low <= r.elo && r.elo <= r.high));
}

/// The first `plies` moves of a game, as text.
fn opening_of(game: &tavlei::eval::GameResult, plies: usize) -> String {
    game.moves[..plies].join(" ")
}

/// A match of two random players on Brandubh.
fn random_match(
    pairs: u64,
    opts: &PlayOptions,
    seed: u64,
) -> (
    tavlei::eval::matches::MatchReport,
    Vec<tavlei::eval::GameResult>,
) {
    let mut players = agents(&["random", "random"]);
    run_match(&start(), &mut players, pairs, None, opts, seed, &mut |_| {})
}

#[test]
fn match_pairs_start_from_distinct_openings_each_played_twice() {
    let (report, games) = random_match(12, &PlayOptions::default(), 3);
    let used = report.openings.expect("Brandubh has fixed openings");
    assert_eq!(used.plies, 2);
    assert!(used.available >= 12, "{used:?}");
    let mut openings = std::collections::HashSet::new();
    for pair in games.chunks(2) {
        // both games of a pair from the same opening, sides swapped
        assert_eq!(opening_of(&pair[0], 2), opening_of(&pair[1], 2));
        assert_eq!(pair[0].attacker, pair[1].defender);
        openings.insert(opening_of(&pair[0], 2));
    }
    assert_eq!(openings.len(), 12, "no two pairs share an opening");
    // each one a class representative of the distinct two-ply openings (random plies would not
    // be, nearly always), so no two pairs' openings are mirror images either
    let representatives: std::collections::HashSet<String> =
        tavlei::rules::openings::distinct_openings(&start(), 2)
            .expect("fixed openings")
            .into_iter()
            .map(|line| {
                let mut pos = start();
                let text: Vec<String> = line.into_iter().map(|mv| pos.play_recorded(mv)).collect();
                text.join(" ")
            })
            .collect();
    assert!(openings.is_subset(&representatives), "{openings:?}");
    // another seed draws other openings
    let (_, other) = random_match(12, &PlayOptions::default(), 4);
    let others: std::collections::HashSet<String> =
        other.iter().map(|g| opening_of(g, 2)).collect();
    assert_ne!(openings, others);
    // no openings asked for: the report says none were drawn
    let opts = PlayOptions {
        opening_plies: 0,
        ..PlayOptions::default()
    };
    assert_eq!(random_match(2, &opts, 3).0.openings, None);
}

#[test]
fn every_two_agents_of_a_ladder_meet_on_the_same_openings() {
    let (report, games) = run_ladder(
        &start(),
        &mut agents(&["mcts:4", "mcts:6", "mcts:8"]),
        6,
        &PlayOptions::default(),
        2,
        &mut |_| {},
    )
    .expect("a ladder of valid games rates");
    assert_eq!(report.openings.map(|o| o.plies), Some(2));
    // the intervals are over pairs: the games' covariance scaled by the pairs' dispersion
    let dispersion = report
        .pair_dispersion
        .expect("15 pairs of close agents tell");
    assert!(dispersion.is_finite() && dispersion >= 0.0);
    let per_matchup: Vec<Vec<String>> = games
        .chunks(12)
        .map(|m| m.iter().step_by(2).map(|g| opening_of(g, 2)).collect())
        .collect();
    assert_eq!(per_matchup.len(), 3);
    assert!(per_matchup.iter().all(|m| *m == per_matchup[0]));
    let distinct: std::collections::HashSet<&String> = per_matchup[0].iter().collect();
    assert_eq!(distinct.len(), 6);
}

#[test]
fn a_balance_store_is_not_resumed_once_a_file_its_agent_reads_has_changed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let eval = tmp.path().join("eval.toml");
    std::fs::copy("configs/alphabeta/quiescence.toml", &eval).expect("copies");
    let spec = AgentSpec::parse(&format!("ab:1:eval={}", eval.display())).expect("spec");
    let load = || Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).expect("agent");
    let store = store_path(&tmp.path().join("games"), "brandubh", &spec.text);
    let opts = PlayOptions::default();
    run_balance(&start(), load(), 2, &opts, 9, &store, &mut |_| {}).expect("runs");
    run_balance(&start(), load(), 3, &opts, 9, &store, &mut |_| {}).expect("the same agent");
    let text = std::fs::read_to_string(&eval).expect("settings") + "\n# edited\n";
    std::fs::write(&eval, text).expect("writes");
    let err = run_balance(&start(), load(), 4, &opts, 9, &store, &mut |_| {})
        .expect_err("another agent under the same name")
        .to_string();
    assert!(err.contains(&format!("files {}", eval.display())), "{err}");
    assert_eq!(
        std::fs::read_to_string(&store)
            .expect("store")
            .lines()
            .count(),
        3
    );
}

#[test]
fn balance_reports_shares_and_resumes_from_saved_games() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("balance");
    let spec = AgentSpec::parse("mcts:8").expect("spec");
    let opts = PlayOptions {
        concurrent: 4,
        ..PlayOptions::default()
    };
    let load = || Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).expect("agent");
    let whole_store = store_path(&dir.join("whole"), "brandubh", &spec.text);
    let whole =
        run_balance(&start(), load(), 12, &opts, 9, &whole_store, &mut |_| {}).expect("runs");
    assert_eq!(whole.games, 12);
    assert_eq!(whole.attacker_wins + whole.defender_wins + whole.draws, 12);
    // the games start from 12 distinct two-ply openings (Brandubh has more than 12 up to
    // symmetry), so no game is a copy of another
    assert_eq!(whole.openings.plies, 2);
    assert!(whole.openings.available >= 12, "{:?}", whole.openings);
    assert_eq!(whole.distinct_games, 12);
    let stored = std::fs::read_to_string(&whole_store).expect("store");
    let openings: std::collections::HashSet<String> = stored
        .lines()
        .map(|l| {
            let g: serde_json::Value = serde_json::from_str(l).expect("a game");
            format!("{} {}", g["moves"][0], g["moves"][1])
        })
        .collect();
    assert_eq!(openings.len(), 12, "{openings:?}");
    for s in [&whole.attackers, &whole.defenders, &whole.draw] {
        assert!(s.low <= s.value && s.value <= s.high && s.low >= 0.0 && s.high <= 1.0);
    }
    // a study stopped after 5 games, its store with a torn last line, then run again
    let cut_store = store_path(&dir.join("cut"), "brandubh", &spec.text);
    run_balance(&start(), load(), 5, &opts, 9, &cut_store, &mut |_| {}).expect("runs");
    let mut text = std::fs::read_to_string(&cut_store).expect("store");
    text += "{\"id\": 7, \"attack";
    std::fs::write(&cut_store, text).expect("writes");
    let mut played = 0;
    let resumed = run_balance(&start(), load(), 12, &opts, 9, &cut_store, &mut |_| {
        played += 1
    })
    .expect("resumes");
    assert_eq!(played, 7, "only the missing games are played");
    assert_eq!(
        serde_json::to_string(&resumed.reasons).ok(),
        serde_json::to_string(&whole.reasons).ok()
    );
    assert_eq!(
        (resumed.attacker_wins, resumed.defender_wins, resumed.draws),
        (whole.attacker_wins, whole.defender_wins, whole.draws)
    );
    // every saved game replays legally to its recorded result
    let records = std::fs::read_to_string(cut_store.with_extension("txt")).expect("records");
    let v = Variant::load("brandubh").expect("preset");
    let mut result = String::new();
    let mut replayed = 0;
    for line in records.lines() {
        if let Some(r) = line.strip_prefix("[result \"") {
            result = r.trim_end_matches("\"]").to_string();
        } else if !line.starts_with('[') && !line.starts_with('#') {
            let mut pos = Position::start(&v);
            for mv in line.split_whitespace() {
                pos.play(mv).expect("legal");
            }
            let o = pos.outcome().expect("finished");
            assert_eq!(result, format!("{} {}", o.result_name(), o.reason.name()));
            replayed += 1;
        }
    }
    assert_eq!(replayed, 12);
}

/// A store is never rewritten from a partial read: a damaged whole line is an error (the file
/// left as it was), and a study asked for fewer games than are stored keeps the others.
#[test]
fn balance_stores_are_never_rewritten_from_a_partial_read() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("balance");
    let spec = AgentSpec::parse("mcts:4").expect("spec");
    let opts = PlayOptions {
        concurrent: 4,
        ..PlayOptions::default()
    };
    let load = || Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).expect("agent");
    let store = store_path(&dir, "brandubh", &spec.text);
    run_balance(&start(), load(), 6, &opts, 3, &store, &mut |_| {}).expect("runs");
    let six = std::fs::read_to_string(&store).expect("store");
    assert_eq!(six.lines().count(), 6);
    // fewer games asked: the report uses 3, the store keeps all 6
    let three = run_balance(&start(), load(), 3, &opts, 3, &store, &mut |_| {}).expect("runs");
    assert_eq!(three.games, 3);
    assert_eq!(std::fs::read_to_string(&store).expect("store"), six);
    // a damaged line in the middle: an error naming the line, nothing rewritten
    let mut lines: Vec<&str> = six.lines().collect();
    lines[2] = "{\"id\": 2, \"damaged\": true}";
    let damaged = lines.join("\n") + "\n";
    std::fs::write(&store, &damaged).expect("writes");
    let err = run_balance(&start(), load(), 6, &opts, 3, &store, &mut |_| {}).expect_err("refused");
    assert!(err.to_string().contains("line 3"), "{err}");
    assert_eq!(std::fs::read_to_string(&store).expect("store"), damaged);
}

#[test]
fn sprt_settings_are_checked_by_one_validator_that_names_the_problem() {
    assert!(Sprt::parse("0,50,0.05,0.05").is_ok());
    for (text, needle) in [
        ("0,50,0.05", "not four"),
        ("0,x,0.05,0.05", "not four numbers"),
        ("50,0,0.05,0.05", "elo1"),
        ("0,50,0,0.05", "alpha"),
        ("0,50,0.6,0.5", "beta"),
    ] {
        let err = Sprt::parse(text).expect_err(text);
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
}

/// Alpha-beta alone would play every game of a balance study alike (before, a hundred games
/// were one game a hundred times); the game's seed in its tie-breaks and its opening noise make
/// the games differ, reproducibly.
#[test]
fn alpha_beta_balance_games_differ_and_repeat_with_the_seed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("ab-noise");
    let spec = AgentSpec::parse("ab:3").expect("spec");
    let games = |name: &str| {
        let opts = PlayOptions {
            opening_plies: 0,
            temperature_plies: 6,
            ..PlayOptions::default()
        };
        let agent = Agent::load(&spec, "brandubh", tch::Device::Cpu, 1).expect("agent");
        let store = store_path(&dir.join(name), "brandubh", &spec.text);
        run_balance(&start(), agent, 8, &opts, 3, &store, &mut |_| {}).expect("runs");
        std::fs::read_to_string(&store).expect("store")
    };
    let first = games("first");
    let distinct: std::collections::HashSet<String> = first
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a game");
            v["moves"].to_string()
        })
        .collect();
    assert!(
        distinct.len() >= 6,
        "{} distinct games of 8",
        distinct.len()
    );
    assert_eq!(games("again"), first, "the same seed plays the same games");
}

/// A study's outputs come from the library: a CSV a csv reader takes back (with the convergence
/// verdict on each variant's strongest level), the JSON, and a plot per variant and per level.
#[test]
fn balance_study_writes_its_tables_and_plots() {
    use tavlei::eval::balance::{mark_convergence, EQUIVALENCE_MARGIN};
    use tavlei::eval::study::{balance_table, write_study};
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("study");
    let opts = PlayOptions {
        concurrent: 4,
        ..PlayOptions::default()
    };
    let mut reports = Vec::new();
    for variant in ["brandubh", "tablut"] {
        let v = Variant::load(variant).expect("preset");
        for level in ["mcts:2", "mcts:4"] {
            let spec = AgentSpec::parse(level).expect("spec");
            let agent = Agent::load(&spec, variant, tch::Device::Cpu, 1).expect("agent");
            let store = store_path(&dir.join("games"), variant, &spec.text);
            reports.push(
                run_balance(
                    &Position::start(&v),
                    agent,
                    4,
                    &opts,
                    2,
                    &store,
                    &mut |_| {},
                )
                .expect("runs"),
            );
        }
    }
    mark_convergence(&mut reports, EQUIVALENCE_MARGIN);
    write_study(&dir, &reports).expect("writes");
    let mut csv = csv::Reader::from_path(dir.join("balance.csv")).expect("csv");
    let headers = csv.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = csv.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 4);
    for (row, report) in rows.iter().zip(&reports) {
        assert_eq!(&row[column("variant")], report.variant);
        assert_eq!(&row[column("agent")], report.agent);
        let wins: u64 = row[column("defender_wins")].parse().expect("a count");
        assert_eq!(wins, report.defender_wins);
    }
    let verdicts: Vec<&str> = rows.iter().map(|r| &r[column("verdict")]).collect();
    assert!(verdicts[0].is_empty() && verdicts[2].is_empty());
    // one label of the library's vocabulary each (underpowered with its figures)
    let known = |v: &str| {
        tavlei::eval::stats::Verdict::LABELS
            .iter()
            .any(|l| v == *l || v.starts_with(&format!("{l} (")))
    };
    assert!(known(verdicts[1]) && known(verdicts[3]), "{verdicts:?}");
    assert!(!rows[1][column("attacker_slope")].is_empty());
    for file in [
        "balance.json",
        "levels-brandubh.svg",
        "levels-tablut.svg",
        "variants-mcts_2.svg",
        "variants-mcts_4.svg",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect(file);
        assert!(!text.is_empty(), "{file}");
    }
    for file in ["levels-brandubh.png", "variants-mcts_4.png"] {
        let bytes = std::fs::read(dir.join(file)).expect(file);
        assert!(bytes.starts_with(b"\x89PNG"), "{file} is a PNG image");
    }
    let table = balance_table(&reports);
    assert_eq!(table.lines().count(), 2 + 4, "{table}");
    assert!(
        table.contains("verdict") && table.contains("defenders' edge (Elo)"),
        "{table}"
    );
}

/// In a dice variant "no legal move" is known only after the roll; the arena then ends the game
/// (before, alpha-beta was asked for a move and the study crashed).
#[test]
fn a_side_without_moves_after_its_roll_loses_in_the_arena() {
    use tavlei::rules::notation::parse_otn;
    use tavlei::rules::{Reason, Side};
    let v = Variant::load("reconstruction_dice").expect("preset");
    // the defenders (king and three) are boxed in by attackers
    let start = parse_otn(
        &v,
        "/1t7t1/t9t/3t1tt4/4tKTt3/4tTTt3/6t1t2/t6t3/2t4t3/5t5/1t8t/3t5t1/",
        Side::Defenders,
    )
    .expect("position");
    assert!(start.needs_roll() && start.outcome().is_none());
    for agent in ["ab:2", "mcts:8", "random"] {
        let load = || {
            Agent::load(
                &AgentSpec::parse(agent).expect("spec"),
                "reconstruction_dice",
                tch::Device::Cpu,
                1,
            )
            .expect("agent")
        };
        let opts = PlayOptions {
            opening_plies: 0,
            ..PlayOptions::default()
        };
        let (_, games) = run_match(
            &start,
            &mut [load(), load()],
            1,
            None,
            &opts,
            3,
            &mut |_| {},
        );
        for g in &games {
            if g.moves.is_empty() {
                assert_eq!(g.outcome.reason, Reason::NoLegalMoves, "{agent}");
                assert_eq!(g.outcome.winner, Some(Side::Attackers), "{agent}");
            }
        }
        assert!(games.iter().any(|g| g.moves.is_empty()), "{agent}");
    }
}

/// Evaluations for one agent (value 0, half the prior on the first move): record the leaves of each call in a list shared by both
/// agents, and refuse a position asked for in an earlier call (the agent's cache holds it, so a
/// search must take it from there; a leaf expanded with another's cached evaluation stays
/// pending and would come here).
struct SharedCounting {
    calls: std::sync::Arc<std::sync::Mutex<Vec<usize>>>,
    asked: std::collections::HashSet<u64>,
}

impl tavlei::search::Evaluator for SharedCounting {
    fn evaluate(
        &mut self,
        requests: &[tavlei::search::Request<'_>],
    ) -> Vec<tavlei::search::Evaluation> {
        let keys: Vec<u64> = requests
            .iter()
            .map(|(pos, _)| tavlei::search::mcts::cache::cache_key(pos))
            .collect();
        assert!(
            keys.iter().all(|k| !self.asked.contains(k)),
            "a cached position went to the evaluator"
        );
        self.asked.extend(keys);
        self.calls
            .lock()
            .expect("not poisoned")
            .push(requests.len());
        // half the prior on the first move: deep searches, whose positions the agent's next
        // search meets again among its new leaves
        requests
            .iter()
            .map(|(_, moves)| {
                let n = moves.len().max(1);
                let mut priors = vec![0.5 / n as f32; moves.len()];
                if let Some(p) = priors.first_mut() {
                    *p += 0.5;
                }
                tavlei::search::Evaluation { priors, value: 0.0 }
            })
            .collect()
    }

    fn describe(&self) -> String {
        "shared counting".into()
    }
}

#[test]
fn network_agents_gathering_leaves_play_whole_legal_games_that_repeat_with_the_seed() {
    // network agents (so the games share batches) gathering 4 leaves a search, their network
    // replaced by evaluations that count each call's leaves and check the cache is used
    // (a capacity no game fills, so every position evaluated stays cached)
    let play = || {
        let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut players = agents(&[
            "net:models/brandubh.safetensors:64:leaf=4",
            "gumbel:models/brandubh.safetensors:48:leaf=4",
        ]);
        for p in &mut players {
            assert!(!p.is_classical());
            p.evaluator = Some(Box::new(SharedCounting {
                calls: calls.clone(),
                asked: Default::default(),
            }));
        }
        let setups: Vec<tavlei::eval::GameSetup> = (0..4)
            .map(|id| tavlei::eval::GameSetup {
                id,
                attacker: (id % 2) as usize,
                defender: 1 - (id % 2) as usize,
                opening_seed: id / 2,
                opening: None,
                seed: 100 + id,
            })
            .collect();
        let opts = PlayOptions {
            concurrent: 2,
            cache_size: 1 << 22,
            ..PlayOptions::default()
        };
        let games = tavlei::eval::play_games(&start(), &mut players, &setups, &opts, &mut |_| true);
        let calls = calls.lock().expect("not poisoned").clone();
        (games, calls)
    };
    let (games, calls) = play();
    assert_eq!(games.len(), 4);
    // two games at once: a call of more than 2 leaves holds leaves gathered within a search
    let most = calls.iter().copied().max().unwrap_or(0);
    assert!(most > 2 && most <= 8, "{most} leaves in a call");
    for g in &games {
        let mut pos = start();
        for mv in &g.moves {
            pos.play(mv)
                .unwrap_or_else(|e| panic!("game {}: {mv}: {e}", g.id));
        }
        assert_eq!(pos.outcome(), Some(g.outcome), "game {}", g.id);
        assert_eq!(pos.ply(), g.plies);
    }
    let (again, _) = play();
    for (a, b) in games.iter().zip(&again) {
        assert_eq!((a.id, &a.moves, a.outcome), (b.id, &b.moves, b.outcome));
    }
}

/// A match request of `a` against `b` on Brandubh, its games and report in `out`.
fn match_request(
    a: &str,
    b: &str,
    pairs: u64,
    seed: u64,
    out: &std::path::Path,
) -> tavlei::eval::run::MatchRequest {
    tavlei::eval::run::MatchRequest {
        variant: "brandubh".into(),
        a: AgentSpec::parse(a).expect("spec"),
        b: AgentSpec::parse(b).expect("spec"),
        pairs,
        sprt: None,
        play: tavlei::eval::run::PlaySettings {
            seed,
            device: tavlei::nn::device::DeviceChoice::Cpu,
            ..Default::default()
        },
        out: Some(out.to_path_buf()),
    }
}

/// A match's directory holds one match's games: a run under other settings is refused before
/// it plays a game, naming the difference, and leaves the store and the report as they were.
#[test]
fn a_match_run_refuses_a_store_of_other_settings_before_any_game() {
    use tavlei::eval::run::{MatchRun, RunError};
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("m");
    let run = MatchRun::open(match_request("mcts:4", "random", 1, 1, &dir)).expect("opens");
    run.play(&mut |_| {}).expect("plays");
    let files =
        || ["games.jsonl", "match.json", "games.txt"].map(|f| std::fs::read(dir.join(f)).expect(f));
    let before = files();
    let other = MatchRun::open(match_request("mcts:4", "random", 1, 2, &dir)).expect("opens");
    let mut heard = 0;
    let err = other
        .play(&mut |_| heard += 1)
        .expect_err("another match's store");
    let RunError::Eval(EvalError::OtherGames { differences, .. }) = &err else {
        panic!("not a refused store: {err}");
    };
    assert!(differences.contains("seed 1, now 2"), "{differences}");
    assert_eq!(heard, 0, "no game played");
    assert!(
        files() == before,
        "the store and the report are as they were"
    );
}

/// A match stopped part way resumes from its store: the stored games count as they are (one is
/// altered here, so a replayed game would show) and only the missing pairs are played.
#[test]
fn a_resumed_match_run_plays_only_the_missing_games() {
    use tavlei::eval::run::{MatchPlan, MatchRun};
    use tavlei::eval::GameResult;
    use tavlei::rules::{Outcome, Reason, Side};
    let tmp = tempfile::tempdir().expect("temp dir");
    let (whole_dir, part_dir) = (tmp.path().join("whole"), tmp.path().join("part"));
    let whole = MatchRun::open(match_request("mcts:8", "random", 3, 4, &whole_dir))
        .expect("opens")
        .play(&mut |_| {})
        .expect("plays");
    let store = std::fs::read_to_string(whole_dir.join("games.jsonl")).expect("store");
    let mut games: Vec<GameResult> = store
        .lines()
        .map(|l| serde_json::from_str(l).expect("a game"))
        .collect();
    games.sort_by_key(|g| g.id);
    // the stopped match kept games 0 and 1, game 0 with another result than it had
    let mut first = games[0].clone();
    first.outcome = match first.outcome.winner {
        Some(Side::Attackers) => Outcome::win(Side::Defenders, Reason::KingEscaped),
        _ => Outcome::win(Side::Attackers, Reason::KingCaptured),
    };
    let delta = first.score_of(0) - games[0].score_of(0);
    assert!(delta != 0.0);
    let kept = format!(
        "{}\n{}\n",
        serde_json::to_string(&first).expect("json"),
        serde_json::to_string(&games[1]).expect("json")
    );
    std::fs::create_dir_all(&part_dir).expect("dir");
    std::fs::write(part_dir.join("games.jsonl"), &kept).expect("writes");
    std::fs::copy(
        whole_dir.join("settings.json"),
        part_dir.join("settings.json"),
    )
    .expect("copies");
    let run = MatchRun::open(match_request("mcts:8", "random", 3, 4, &part_dir)).expect("opens");
    assert_eq!(
        run.plan(),
        MatchPlan {
            missing: vec![1, 2],
            pairs: 3
        }
    );
    let mut heard = Vec::new();
    let part = run.play(&mut |g| heard.push(g.id)).expect("resumes");
    assert_eq!(
        heard,
        vec![0, 1, 2, 3, 4, 5],
        "the stored games heard first"
    );
    assert!(
        (part.score - (whole.score + delta / 6.0)).abs() < 1e-12,
        "the stored game counts as stored: {} vs {}",
        part.score,
        whole.score
    );
    let resumed = std::fs::read_to_string(part_dir.join("games.jsonl")).expect("store");
    assert!(resumed.starts_with(&kept));
    let played: Vec<GameResult> = resumed
        .lines()
        .skip(2)
        .map(|l| serde_json::from_str(l).expect("a game"))
        .collect();
    assert_eq!(
        played.iter().map(|g| g.id).collect::<Vec<_>>(),
        vec![2, 3, 4, 5]
    );
    for g in &played {
        assert_eq!(g.moves, games[g.id as usize].moves, "game {}", g.id);
    }
}

/// A ladder run writes its standings (highest rating first) as CSV, its report, every game's
/// record and the plot.
#[test]
fn a_ladder_run_writes_its_standings_report_records_and_plot() {
    use tavlei::eval::run::{standings, LadderRequest, LadderRun};
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("ladder");
    let run = LadderRun::open(LadderRequest {
        variant: "brandubh".into(),
        // weakest first, so a table left in this order is out of order
        agents: ["random", "mcts:2", "mcts:32"]
            .iter()
            .map(|s| AgentSpec::parse(s).expect("spec"))
            .collect(),
        pairs: 2,
        play: tavlei::eval::run::PlaySettings {
            seed: 5,
            device: tavlei::nn::device::DeviceChoice::Cpu,
            ..Default::default()
        },
        out: Some(dir.clone()),
    })
    .expect("opens");
    assert_eq!(run.games(), 12);
    let mut heard = 0;
    let report = run.play(&mut |_| heard += 1).expect("plays");
    assert_eq!(heard, 12);
    let rows = standings(&report);
    let elo: Vec<f64> = rows.iter().map(|r| r[1].parse().expect("Elo")).collect();
    assert!(elo.windows(2).all(|w| w[0] >= w[1]), "{rows:?}");
    let mut csv = csv::Reader::from_path(dir.join("ladder.csv")).expect("csv");
    let written: Vec<Vec<String>> = csv
        .records()
        .map(|r| r.expect("row").iter().map(String::from).collect())
        .collect();
    assert_eq!(written, rows);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ladder.json")).expect("json"))
            .expect("json");
    assert_eq!(json["games"], 12);
    let records = std::fs::read_to_string(dir.join("games.txt")).expect("records");
    assert_eq!(records.matches("# game ").count(), 12);
    assert!(records.contains("# game 11: mcts:32 (attackers) vs mcts:2 (defenders)"));
    assert!(std::fs::read(dir.join("ladder.png"))
        .expect("plot")
        .starts_with(b"\x89PNG"));
    // one agent is no ladder
    let one = LadderRun::open(LadderRequest {
        variant: "brandubh".into(),
        agents: vec![AgentSpec::parse("random").expect("spec")],
        pairs: 1,
        play: Default::default(),
        out: None,
    });
    assert!(matches!(
        one,
        Err(tavlei::eval::run::RunError::TooFewAgents(1))
    ));
}

/// A balance study lays out a study per variant and level: boards larger than 9x9 with their
/// own game count, the strongest level with its own; the plan lists every study's missing ids.
#[test]
fn a_balance_run_lays_out_its_studies_by_board_and_level() {
    use tavlei::eval::run::{BalanceLevel, BalanceRequest, BalanceRun};
    use tavlei::search::Budget;
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = BalanceRun::open(BalanceRequest {
        variants: vec!["brandubh".into(), "copenhagen".into()],
        agent: AgentSpec::parse("mcts:8").expect("spec"),
        levels: [2, 4, 8]
            .map(|n| BalanceLevel {
                name: n.to_string(),
                budget: Budget::Nodes(n),
            })
            .to_vec(),
        games: 10,
        large_games: Some(4),
        strongest_games: Some(3),
        margin: 0.075,
        sequential: None,
        out: tmp.path().join("study"),
        play: Default::default(),
    })
    .expect("opens");
    let layout: Vec<(&str, String, u64)> = run
        .studies()
        .iter()
        .map(|s| (s.variant.name(), s.spec.text.clone(), s.games))
        .collect();
    let expected = [
        ("brandubh", "mcts:2", 10),
        ("brandubh", "mcts:4", 10),
        ("brandubh", "mcts:8", 3),
        ("copenhagen", "mcts:2", 4),
        ("copenhagen", "mcts:4", 4),
        ("copenhagen", "mcts:8", 3),
    ]
    .map(|(v, a, g)| (v, a.to_string(), g));
    assert_eq!(layout, expected);
    let plan = run.plan().expect("plans");
    assert_eq!(
        plan[3].store,
        std::path::Path::new("games/copenhagen__mcts_2.jsonl")
    );
    assert_eq!(plan[3].missing, vec![0, 1, 2, 3]);
    assert_eq!(plan[3].level.as_deref(), Some("2"));
}
