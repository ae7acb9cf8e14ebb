//! `tavlei match`, `tavlei ladder` and `tavlei balance`.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::eval::agent::parse_budget;
use tavlei::eval::balance::{DEFAULT_AGENT, DEFAULT_LEVELS};
use tavlei::eval::matches::{Ends, Sprt};
use tavlei::eval::run::{
    standings, BalanceLevel, BalanceProgress, BalanceRequest, BalanceRun, LadderRequest, LadderRun,
    MatchRequest, MatchRun, PlaySettings, SequentialSettings,
};
use tavlei::eval::study::{balance_csv, balance_table};
use tavlei::eval::AgentSpec;
use tavlei::nn::device::DeviceChoice;
use tavlei::report::table::render;
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::search::SearchConfig;
use tavlei::units::{StudyUnits, Units};

/// Options every evaluation command shares.
#[derive(Args, Clone)]
pub struct PlayArgs {
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games in flight at once (their network evaluations are batched).
    #[arg(long, default_value_t = 32)]
    concurrent: usize,
    /// Plies of each game's opening: drawn without replacement from the variant's distinct
    /// openings of at least this many plies (up to symmetry; longer ones only when too few), one
    /// a pair in matches and ladders. Dice variants play this many random plies instead; 0 starts
    /// every game from the start position. Default 2.
    #[arg(long)]
    opening_plies: Option<u32>,
    /// Draw the openings in proportion to this network's raw policy, move by move (walks from
    /// the start), instead of uniformly from all distinct openings: openings as often as a
    /// player makes them. A checkpoint of the variant played.
    #[arg(long, value_name = "CKPT")]
    opening_policy: Option<PathBuf>,
    /// Moves are sampled from the search with this temperature for the first --temperature-plies.
    #[arg(long, default_value_t = 1.0)]
    temperature: f32,
    #[arg(long)]
    temperature_plies: Option<u32>,
    /// PUCT exploration constant of the agents' searches.
    #[arg(long, default_value_t = SearchConfig::default().c_puct)]
    c_puct: f32,
    /// First-play urgency reduction of the agents' searches.
    #[arg(long, default_value_t = SearchConfig::default().fpu_reduction)]
    fpu_reduction: f32,
    /// UCT exploration constant of pure MCTS (mcts:B) on rollout values in [-1, 1].
    #[arg(long, default_value_t = SearchConfig::default().c_uct)]
    c_uct: f32,
    /// Value of a drawn end for the side to move at the root of each tree search, its negation
    /// for the other side (contempt; below 0 the mover avoids draws). In (-1, 1); 0: the rules'.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    draw_value: f32,
    /// Leaves a network agent's search gathers per network call (virtual loss between them);
    /// 1 evaluates each leaf alone. Default: 8 on a time budget, 1 on simulations.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    leaf_batch: Option<u16>,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

impl PlayArgs {
    fn settings(&self) -> PlaySettings {
        PlaySettings {
            seed: self.seed,
            concurrent: self.concurrent,
            opening_plies: self.opening_plies,
            opening_policy: self.opening_policy.clone(),
            temperature: self.temperature,
            temperature_plies: self.temperature_plies,
            c_puct: self.c_puct,
            fpu_reduction: self.fpu_reduction,
            c_uct: self.c_uct,
            draw_value: self.draw_value,
            leaf_batch: self.leaf_batch.map(usize::from),
            device: self.device,
        }
    }
}

/// A progress bar of `len` games headed by `what` (a prefix, not part of the template, so that
/// no name can break the template).
fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} games  {msg}  eta {eta}")
            .expect("a template without names in it parses")
            .progress_chars("=> "),
    );
    bar.set_prefix(what.to_string());
    bar
}

#[derive(Args)]
pub struct MatchArgs {
    /// Agent A: random, mcts:B, mcts-uct:B, net:CKPT, net:CKPT:B, gumbel:CKPT:B or ab:B, where
    /// the budget B is simulations (200; for ab a depth) or time per move (t=100ms).
    /// With a time budget games are played one at a time, so each clock is the game's own.
    a: AgentSpec,
    /// Agent B.
    b: AgentSpec,
    #[arg(long)]
    variant: String,
    /// Pairs of games (each opening played twice, sides swapped).
    #[arg(long, default_value_t = 50)]
    pairs: u64,
    /// Stop early at a bound: `elo0,elo1,alpha,beta`, e.g. `0,50,0.05,0.05`.
    #[arg(long)]
    sprt: Option<Sprt>,
    /// Write the report (JSON) and every game (records `replay` reads) here. Each game is
    /// stored (`games.jsonl`) as it ends, so the same command resumes a stopped match; the
    /// settings that decide the games (with a hash of each network and settings file the agents
    /// read) are kept beside them (`settings.json`), and a match with others is refused there.
    #[arg(long)]
    out: Option<PathBuf>,
    #[arg(long)]
    json: bool,
    /// Print the match's units of work as JSON (for `cluster/tavlei_cluster.py`): its pairs and
    /// those whose games `--out`'s `games.jsonl` lacks. Plays nothing.
    #[arg(long, conflicts_with_all = ["units", "sprt"], requires = "out")]
    plan: bool,
    /// Play only pairs K..L into `--out`'s `games.jsonl` and write no report: a cluster unit. A
    /// match whose `--out` holds `games.jsonl` uses the games stored there and plays the others.
    #[arg(long, value_name = "K..L", conflicts_with = "sprt", requires = "out")]
    units: Option<Units>,
    #[command(flatten)]
    play: PlayArgs,
}

pub fn run_match_cmd(args: MatchArgs) -> Result<()> {
    let run = MatchRun::open(MatchRequest {
        variant: args.variant,
        a: args.a,
        b: args.b,
        pairs: args.pairs,
        sprt: args.sprt,
        play: args.play.settings(),
        out: args.out,
    })?;
    if args.plan {
        println!("{}", serde_json::to_string(&run.plan())?);
        return Ok(());
    }
    if let Some(units) = args.units {
        let games = run.play_units(units)?;
        println!(
            "{} games of pairs {}..{}",
            games.len(),
            units.start,
            units.end
        );
        return Ok(());
    }
    let progress = bar(run.games(), "match");
    let report = run.play(&mut |_| progress.inc(1))?;
    progress.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let v = run.variant();
    let r = &report;
    println!(
        "{} vs {} on {}: {} pairs, {} games",
        r.a,
        r.b,
        v.name(),
        r.pairs,
        r.games
    );
    let rows = vec![
        vec![
            "total".to_string(),
            r.total.wins.to_string(),
            r.total.draws.to_string(),
            r.total.losses.to_string(),
        ],
        vec![
            "A attacking".to_string(),
            r.as_attacker.wins.to_string(),
            r.as_attacker.draws.to_string(),
            r.as_attacker.losses.to_string(),
        ],
        vec![
            "A defending".to_string(),
            r.as_defender.wins.to_string(),
            r.as_defender.draws.to_string(),
            r.as_defender.losses.to_string(),
        ],
    ];
    print!(
        "{}",
        render(&["A's games", "wins", "draws", "losses"], &rows)
    );
    for (side, ends) in [
        ("attacking", &r.ends.attacking),
        ("defending", &r.ends.defending),
    ] {
        println!(
            "A {side}: wins by {}; losses by {}",
            Ends::describe(&ends.wins),
            Ends::describe(&ends.losses)
        );
    }
    println!("score of A: {:.3}", r.score);
    println!("Elo of A over B: {:+.0} (95% {:+.0} .. {:+.0}) from pairs; {:+.0} ({:+.0} .. {:+.0}) from games", r.elo_pairs.elo, r.elo_pairs.low, r.elo_pairs.high, r.elo_games.elo, r.elo_games.low, r.elo_games.high);
    println!("pair scores 0 / 0.5 / 1 / 1.5 / 2: {:?}", r.pentanomial);
    match &r.openings {
        Some(o) => match &o.sampled_by {
            None => println!(
                "openings: a distinct {}-ply opening a pair, drawn from the {} there are up to symmetry",
                o.plies, o.available
            ),
            Some(by) => println!(
                "openings: a distinct {}-ply opening a pair, sampled by {by}",
                o.plies
            ),
        },
        None => println!("openings: random plies (no fixed openings drawn)"),
    }
    print!("{}", tavlei::eval::clock::describe(&r.clock));
    if let Some(s) = &r.sprt {
        println!(
            "SPRT [{}, {}] alpha {} beta {}: LLR {:.2} (bounds {:.2}, {:.2}): {}",
            s.test.elo0,
            s.test.elo1,
            s.test.alpha,
            s.test.beta,
            s.llr,
            s.lower,
            s.upper,
            s.decision
        );
    }
    Ok(())
}

#[derive(Args)]
pub struct LadderArgs {
    /// Agents, comma separated (at least two).
    #[arg(long, value_delimiter = ',', required = true)]
    agents: Vec<AgentSpec>,
    #[arg(long)]
    variant: String,
    /// Pairs of games between every two agents.
    #[arg(long, default_value_t = 10)]
    pairs: u64,
    /// Where the table (CSV, JSON), the plot and the games go.
    #[arg(long)]
    out: Option<PathBuf>,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    play: PlayArgs,
}

pub fn run_ladder_cmd(args: LadderArgs) -> Result<()> {
    let run = LadderRun::open(LadderRequest {
        variant: args.variant,
        agents: args.agents,
        pairs: args.pairs,
        play: args.play.settings(),
        out: args.out,
    })?;
    let progress = bar(run.games(), "ladder");
    let report = run.play(&mut |_| progress.inc(1))?;
    progress.finish_and_clear();
    let v = run.variant();
    let rows = standings(&report);
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "ladder on {}: {} games, Bradley-Terry ratings with 95% intervals {}",
        v.name(),
        report.games,
        match report.pair_dispersion {
            Some(d) => format!(
                "over pairs (their scores varied {d:.2} times as much as independent games)"
            ),
            None => "over games".into(),
        }
    );
    print!("{}", render(&["agent", "Elo", "low", "high"], &rows));
    print!("{}", tavlei::eval::clock::describe(&report.clock));
    Ok(())
}

#[derive(Args)]
pub struct BalanceArgs {
    /// A variant (or use --variants).
    #[arg(long, conflicts_with = "variants")]
    variant: Option<String>,
    /// Several variants side by side: `a,b,c` or `all`.
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// The agent playing both sides, e.g. mcts:64 or net:models/tavlei.safetensors:64. Default:
    /// alpha-beta with quiescence at depths 2 and 4 (levels of one parity), read from the
    /// repository's configs/alphabeta/quiescence.toml.
    #[arg(long)]
    agent: Option<AgentSpec>,
    /// Strength levels: the agent's budget for each study, simulation counts (e.g. 1,16,64) or
    /// times per move (e.g. t=50ms,t=200ms; a bare 50ms works too). Default with the default
    /// agent: 2,4.
    #[arg(long, value_delimiter = ',')]
    levels: Vec<String>,
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Games per level on boards larger than 9x9 (default: --games), whose games are longer.
    #[arg(long)]
    large_games: Option<u64>,
    /// Games at the strongest level (the last of --levels), the costliest (default: as the
    /// others'); a ladder's design may give it fewer, at least 50.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    strongest_games: Option<u64>,
    /// The equivalence margin of the two strongest levels, in points of share (TOST).
    #[arg(long, default_value_t = 100.0 * tavlei::eval::balance::EQUIVALENCE_MARGIN)]
    margin: f64,
    /// Play the two strongest levels in rounds of --round games until their shares are shown
    /// equivalent within --margin or different, or --games (the cap) is reached; α 5% for
    /// both errors, spent by O'Brien-Fleming. Resumes from the stored games. With --plan, the
    /// two strongest levels list the games of their current look (a cluster plans again after
    /// playing them, until nothing is missing).
    #[arg(long, conflicts_with = "strongest_games")]
    sequential: bool,
    /// Games a level each round of --sequential adds.
    #[arg(long, default_value_t = 50, requires = "sequential", value_parser = clap::value_parser!(u64).range(1..))]
    round: u64,
    /// Where games (resumable), tables (CSV, JSON) and plots go.
    #[arg(long, default_value = "balance")]
    out: PathBuf,
    #[arg(long)]
    json: bool,
    #[arg(long)]
    csv: bool,
    /// Print the study's units of work as JSON (for `cluster/tavlei_cluster.py`): each variant
    /// at each level, its game count, its store and the game ids the store lacks. Plays nothing.
    #[arg(long, conflicts_with = "units")]
    plan: bool,
    /// Play only games K..L of study S (in --plan's order) into --out's store, and write no
    /// report: a cluster unit, whose store lines are those the whole study appends for them.
    #[arg(long, value_name = "S:K..L")]
    units: Option<StudyUnits>,
    #[command(flatten)]
    play: PlayArgs,
}

/// The variants a balance command names.
fn balance_variants(args: &BalanceArgs) -> Result<Vec<String>> {
    Ok(match (&args.variant, args.variants.as_slice()) {
        (Some(v), _) => vec![v.clone()],
        (None, [all]) if all == "all" => PRESET_NAMES.iter().map(|s| s.to_string()).collect(),
        (None, []) => bail!("give --variant V or --variants a,b,c|all"),
        (None, list) => list.to_vec(),
    })
}

/// `--levels`: simulation counts, or times per move with or without their `t=`.
fn balance_levels(args: &BalanceArgs) -> Result<Vec<BalanceLevel>> {
    let default: Vec<String> = DEFAULT_LEVELS.iter().map(|l| l.to_string()).collect();
    let levels = if args.agent.is_none() && args.levels.is_empty() {
        &default
    } else {
        &args.levels
    };
    levels
        .iter()
        .map(|text| {
            let budget = parse_budget(text)
                .or_else(|| parse_budget(&format!("t={text}")))
                .with_context(|| {
                    format!("--levels: `{text}` is neither a positive simulation count nor a time like t=50ms")
                })?;
            Ok(BalanceLevel {
                name: text.clone(),
                budget,
            })
        })
        .collect()
}

pub fn run_balance_cmd(args: BalanceArgs) -> Result<()> {
    let run = BalanceRun::open(BalanceRequest {
        variants: balance_variants(&args)?,
        agent: match &args.agent {
            Some(agent) => agent.clone(),
            None => AgentSpec::parse(DEFAULT_AGENT).context("the default agent")?,
        },
        levels: balance_levels(&args)?,
        games: args.games,
        large_games: args.large_games,
        strongest_games: args.strongest_games,
        margin: args.margin / 100.0,
        sequential: args.sequential.then_some(SequentialSettings {
            round: args.round,
            alpha: 0.05,
        }),
        out: args.out.clone(),
        play: args.play.settings(),
    })?;
    if args.plan {
        println!("{}", serde_json::to_string(&run.plan()?)?);
        return Ok(());
    }
    if let Some(unit) = args.units {
        let played = run.play_unit(unit)?;
        println!(
            "{} games of {} {} in {}",
            played.games.len(),
            played.study.variant.name(),
            played.study.spec.text,
            played.store.display()
        );
        return Ok(());
    }
    let mut progress: Option<ProgressBar> = None;
    let reports = run.play(&mut |event| match event {
        BalanceProgress::Started(s) => {
            progress = Some(bar(
                s.games,
                &format!("{} {}", s.variant.name(), s.spec.text),
            ));
        }
        BalanceProgress::Game(_) => {
            if let Some(b) = &progress {
                b.inc(1);
            }
        }
        BalanceProgress::Finished(_) => {
            if let Some(b) = progress.take() {
                b.finish_and_clear();
            }
        }
    })?;
    if args.json {
        println!("{}", serde_json::to_string(&reports)?);
    } else if args.csv {
        print!("{}", balance_csv(&reports)?);
    } else {
        print!("{}", balance_table(&reports));
        for r in &reports {
            if let Some(s) = &r.sequential {
                println!(
                    "{} {} against the level below: {}",
                    r.variant,
                    r.agent,
                    s.describe()
                );
            }
        }
        let clocks: Vec<_> = reports.iter().filter_map(|r| r.clock.clone()).collect();
        print!("{}", tavlei::eval::clock::describe(&clocks));
        println!(
            "95% Wilson intervals in brackets. Defenders' edge: their advantage in Elo (a Bradley-Terry side parameter, 95%). Verdict (strongest level of each variant): trending (a share's logistic slope per doubling excludes 0, its interval widened by the levels' scatter about the line), levels differ without a trend (no slope, but the levels' shares are not one), measured (neither, and the two strongest levels equivalent within ±{} points, TOST at 5%), underpowered (TOST fails with fewer games a level than 80% power needs) or not equivalent. Tables, plots and every game (replayable) in {}",
            args.margin,
            args.out.display()
        );
    }
    Ok(())
}
