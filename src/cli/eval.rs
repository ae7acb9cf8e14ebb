//! `tavlei match`, `tavlei ladder` and `tavlei balance`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::atomic;
use tavlei::eval::agent::parse_budget;
use tavlei::eval::balance::{
    balance_openings, mark_convergence, play_balance_games, run_balance, store_path,
};
use tavlei::eval::game_store::{file_hashes, load_stored, stored_ids, GameAppender, MatchSettings};
use tavlei::eval::matches::{play_pairs, run_ladder, run_match_stored, Sprt};
use tavlei::eval::openings::OpeningPolicy;
use tavlei::eval::study::{balance_csv, balance_table, write_study};
use tavlei::eval::{Agent, AgentSpec, PlayOptions};
use tavlei::nn::device::DeviceChoice;
use tavlei::nn::evaluator::NetworkEvaluator;
use tavlei::nn::Network;
use tavlei::report::plot::{line_chart, Picture, Series};
use tavlei::report::table::render;
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::{Position, Variant};
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
    /// The options of games of `variants` (the opening policy must be theirs).
    fn options(
        &self,
        opening: u32,
        temperature_plies: u32,
        variants: &[&str],
    ) -> Result<PlayOptions> {
        let opening_policy = match &self.opening_policy {
            None => None,
            Some(path) => {
                let mut net = None;
                for v in variants {
                    net = Some(Network::load(path, Some(v), tch::Device::Cpu)?);
                }
                let net = net.context("--opening-policy: no variant to draw openings for")?;
                Some(OpeningPolicy::new(
                    &path.display().to_string(),
                    Box::new(NetworkEvaluator::new(net)),
                ))
            }
        };
        let options = PlayOptions {
            concurrent: self.concurrent,
            opening_plies: self.opening_plies.unwrap_or(opening),
            opening_policy,
            temperature: self.temperature,
            temperature_plies: self.temperature_plies.unwrap_or(temperature_plies),
            search: SearchConfig {
                c_puct: self.c_puct,
                fpu_reduction: self.fpu_reduction,
                c_uct: self.c_uct,
                draw_value: self.draw_value,
                leaf_batch: self.leaf_batch.map(usize::from),
                dirichlet_epsilon: 0.0,
                ..SearchConfig::default()
            },
            ..PlayOptions::default()
        };
        options.search.check().map_err(anyhow::Error::msg)?;
        Ok(options)
    }
}

fn bar(len: u64, what: &str) -> Result<ProgressBar> {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{what} [{{bar:30}}] {{pos}}/{{len}} games  {{msg}}  eta {{eta}}"
        ))?
        .progress_chars("=> "),
    );
    Ok(bar)
}

fn write_out(dir: &Path, name: &str, text: &str) -> Result<()> {
    atomic::write(&dir.join(name), text)
        .with_context(|| format!("writing {}", dir.join(name).display()))
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

/// Where a match keeps its games as they end (and gathers those of cluster units).
fn match_store(out: &Path) -> PathBuf {
    out.join("games.jsonl")
}

/// The settings that decide a match's games, kept beside its store.
fn settings(args: &MatchArgs, variant: &Variant, opts: &PlayOptions) -> Result<MatchSettings> {
    let files = args
        .a
        .files()
        .into_iter()
        .chain(args.b.files())
        .chain(args.play.opening_policy.as_deref());
    Ok(MatchSettings {
        variant: variant.name().to_string(),
        a: args.a.text.clone(),
        b: args.b.text.clone(),
        seed: args.play.seed,
        opening_plies: opts.opening_plies,
        opening_policy: args
            .play
            .opening_policy
            .as_ref()
            .map(|p| p.display().to_string()),
        temperature: opts.temperature,
        temperature_plies: opts.temperature_plies,
        c_puct: opts.search.c_puct,
        fpu_reduction: opts.search.fpu_reduction,
        c_uct: opts.search.c_uct,
        draw_value: opts.search.draw_value,
        leaf_batch: opts.search.leaf_batch,
        files: file_hashes(files)?,
    })
}

fn load_agents(specs: &[AgentSpec], variant: &Variant, play: &PlayArgs) -> Result<Vec<Agent>> {
    let device = play.device.resolve()?;
    Ok(Agent::load_all(specs, variant.name(), device, play.seed)?)
}

fn records(
    variant: &Variant,
    results: &[tavlei::eval::GameResult],
    agents: &[AgentSpec],
) -> String {
    let mut text = String::new();
    for r in results {
        text += &format!(
            "# game {}: {} (attackers) vs {} (defenders)\n",
            r.id, agents[r.attacker].text, agents[r.defender].text
        );
        text += &tavlei::interop::record::game_record(variant, &r.moves, Some(r.outcome));
    }
    text
}

pub fn run_match_cmd(args: MatchArgs) -> Result<()> {
    let v = tavlei::interop::load_variant(&args.variant)?;
    let sprt = args.sprt;
    let specs = [args.a.clone(), args.b.clone()];
    let stored = match &args.out {
        Some(dir) => load_stored(&match_store(dir))?,
        None => Vec::new(),
    };
    if args.plan {
        let have: std::collections::HashSet<u64> = stored.iter().map(|r| r.id).collect();
        let missing: Vec<u64> = (0..args.pairs)
            .filter(|p| !(have.contains(&(2 * p)) && have.contains(&(2 * p + 1))))
            .collect();
        println!(
            "{}",
            serde_json::json!({ "pairs": args.pairs, "missing": missing })
        );
        return Ok(());
    }
    let mut agents = load_agents(&specs, &v, &args.play)?;
    let opts = args.play.options(2, 8, &[v.name()])?;
    if let (Some(units), Some(dir)) = (args.units, &args.out) {
        let games = play_pairs(
            &Position::start(&v),
            &mut agents,
            args.pairs,
            units.range(),
            &opts,
            args.play.seed,
        );
        let mut lines = String::new();
        for g in &games {
            lines += &serde_json::to_string(g)?;
            lines.push('\n');
        }
        write_out(dir, "games.jsonl", &lines)?;
        println!(
            "{} games of pairs {}..{}",
            games.len(),
            units.start,
            units.end
        );
        return Ok(());
    }
    // every game is appended to the store as it ends, so a stopped match resumes where it was
    let mut appender = match &args.out {
        Some(dir) => {
            settings(&args, &v, &opts)?.claim(dir)?;
            Some(GameAppender::open(&match_store(dir))?)
        }
        None => None,
    };
    let have: std::collections::HashSet<u64> = stored.iter().map(|r| r.id).collect();
    let progress = bar(args.pairs * 2, "match")?;
    let (report, results) = run_match_stored(
        &Position::start(&v),
        &mut agents,
        args.pairs,
        sprt,
        &opts,
        args.play.seed,
        &stored,
        &mut |r| {
            progress.inc(1);
            match &mut appender {
                Some(store) if !have.contains(&r.id) => store.append(r),
                _ => true,
            }
        },
    );
    progress.finish_and_clear();
    if let Some(store) = appender {
        store.finish()?;
    }
    if let Some(dir) = &args.out {
        write_out(dir, "match.json", &serde_json::to_string_pretty(&report)?)?;
        write_out(dir, "games.txt", &records(&v, &results, &specs))?;
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
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
    let v = tavlei::interop::load_variant(&args.variant)?;
    if args.agents.len() < 2 {
        anyhow::bail!(
            "a ladder needs at least two agents, got {}",
            args.agents.len()
        );
    }
    let mut agents = load_agents(&args.agents, &v, &args.play)?;
    let n = agents.len() as u64;
    let progress = bar(n * (n - 1) / 2 * args.pairs * 2, "ladder")?;
    let (report, results) = run_ladder(
        &Position::start(&v),
        &mut agents,
        args.pairs,
        &args.play.options(2, 8, &[v.name()])?,
        args.play.seed,
        &mut |_| progress.inc(1),
    )?;
    progress.finish_and_clear();
    let mut order: Vec<usize> = (0..report.agents.len()).collect();
    order.sort_by(|&a, &b| report.ratings[b].elo.total_cmp(&report.ratings[a].elo));
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|&i| {
            let r = &report.ratings[i];
            vec![
                report.agents[i].clone(),
                format!("{:+.0}", r.elo),
                format!("{:+.0}", r.low),
                format!("{:+.0}", r.high),
            ]
        })
        .collect();
    if let Some(dir) = &args.out {
        // agents are paths too: the csv writer quotes what needs it
        let mut csv = csv::Writer::from_writer(Vec::new());
        csv.write_record(["agent", "elo", "low", "high"])?;
        for row in &rows {
            csv.write_record(row)?;
        }
        write_out(dir, "ladder.csv", &String::from_utf8(csv.into_inner()?)?)?;
        write_out(dir, "ladder.json", &serde_json::to_string_pretty(&report)?)?;
        write_out(dir, "games.txt", &records(&v, &results, &args.agents))?;
        let series: Vec<Series> = order
            .iter()
            .enumerate()
            .map(|(rank, &i)| {
                let r = &report.ratings[i];
                Series {
                    name: report.agents[i].clone(),
                    points: vec![(rank as f64, r.elo, Some((r.low, r.high)))],
                }
            })
            .collect();
        let plot = dir.join("ladder.svg");
        line_chart(
            &format!("ratings on {}", v.name()),
            "rank",
            "Elo (Bradley-Terry)",
            &series,
        )
        .save(&plot)
        .with_context(|| format!("writing {}", plot.display()))?;
    }
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
    /// The agent playing both sides, e.g. mcts:64 or net:models/tavlei.safetensors:64.
    #[arg(long)]
    agent: AgentSpec,
    /// Strength levels: the agent's budget for each study, simulation counts (e.g. 1,16,64) or
    /// times per move (e.g. t=50ms,t=200ms; a bare 50ms works too).
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

/// One variant at one level of a balance study.
struct Study {
    variant: std::sync::Arc<Variant>,
    /// The --levels entry it comes from (none when the agent plays at its own budget).
    level: Option<String>,
    spec: AgentSpec,
    games: u64,
}

fn balance_studies(args: &BalanceArgs) -> Result<Vec<Study>> {
    let variants: Vec<String> = match (&args.variant, args.variants.as_slice()) {
        (Some(v), _) => vec![v.clone()],
        (None, [all]) if all == "all" => PRESET_NAMES.iter().map(|s| s.to_string()).collect(),
        (None, []) => bail!("give --variant V or --variants a,b,c|all"),
        (None, list) => list.to_vec(),
    };
    let base = args.agent.clone();
    let levels: Vec<(Option<String>, AgentSpec)> = if args.levels.is_empty() {
        vec![(None, base.clone())]
    } else {
        args.levels
            .iter()
            .map(|text| {
                let budget = parse_budget(text)
                    .or_else(|| parse_budget(&format!("t={text}")))
                    .with_context(|| {
                        format!("--levels: `{text}` is neither a positive simulation count nor a time like t=50ms")
                    })?;
                Ok((Some(text.clone()), base.with_budget(budget)))
            })
            .collect::<Result<_>>()?
    };
    let mut studies = Vec::new();
    for name in &variants {
        let variant = tavlei::interop::load_variant(name)?;
        let games = match args.large_games {
            Some(n) if variant.size > 9 => n,
            _ => args.games,
        };
        for (k, (level, spec)) in levels.iter().enumerate() {
            let strongest = k + 1 == levels.len() && levels.len() > 1;
            studies.push(Study {
                variant: variant.clone(),
                level: level.clone(),
                spec: spec.clone(),
                games: args.strongest_games.filter(|_| strongest).unwrap_or(games),
            });
        }
    }
    Ok(studies)
}

/// `balance --plan`: the studies with the ids their stores still lack.
fn print_balance_plan(studies: &[Study], games_dir: &Path) -> Result<()> {
    let mut plan = Vec::new();
    for (index, s) in studies.iter().enumerate() {
        let store = store_path(games_dir, s.variant.name(), &s.spec.text);
        let have = stored_ids(&store)?;
        let missing: Vec<u64> = (0..s.games).filter(|id| !have.contains(id)).collect();
        plan.push(serde_json::json!({
            "study": index,
            "variant": s.variant.name(),
            "level": s.level,
            "agent": s.spec.text,
            "games": s.games,
            "store": store.strip_prefix(games_dir.parent().unwrap_or(games_dir)).unwrap_or(&store),
            "missing": missing,
        }));
    }
    println!("{}", serde_json::to_string(&plan)?);
    Ok(())
}

pub fn run_balance_cmd(args: BalanceArgs) -> Result<()> {
    let studies = balance_studies(&args)?;
    let games_dir = args.out.join("games");
    if args.plan {
        return print_balance_plan(&studies, &games_dir);
    }
    let device = args.play.device.resolve()?;
    let names: Vec<&str> = studies.iter().map(|s| s.variant.name()).collect();
    let opts = args.play.options(2, 6, &names)?;
    if let Some(unit) = args.units {
        let s = studies.get(unit.study).with_context(|| {
            format!(
                "--units {}: the study has {} parts (0..{})",
                unit.study,
                studies.len(),
                studies.len()
            )
        })?;
        let agent = Agent::load(&s.spec, s.variant.name(), device, args.play.seed)?;
        let store = store_path(&games_dir, s.variant.name(), &s.spec.text);
        let start = Position::start(&s.variant);
        let openings = balance_openings(&start, s.games, &opts, args.play.seed);
        let played = play_balance_games(
            &start,
            &mut [agent],
            s.games,
            unit.games.range(),
            &opts,
            openings.as_ref(),
            args.play.seed,
            &store,
            &mut |_| {},
        )?;
        println!(
            "{} games of {} {} in {}",
            played.len(),
            s.variant.name(),
            s.spec.text,
            store.display()
        );
        return Ok(());
    }
    let mut reports = Vec::new();
    for s in &studies {
        let start = Position::start(&s.variant);
        let agent = Agent::load(&s.spec, s.variant.name(), device, args.play.seed)?;
        let store = store_path(&games_dir, s.variant.name(), &s.spec.text);
        let progress = bar(s.games, &format!("{} {}", s.variant.name(), s.spec.text))?;
        let report = run_balance(
            &start,
            agent,
            s.games,
            &opts,
            args.play.seed,
            &store,
            &mut |_| progress.inc(1),
        )?;
        progress.finish_and_clear();
        reports.push(report);
    }
    mark_convergence(&mut reports, args.margin / 100.0);
    write_study(&args.out, &reports)?;
    if args.json {
        println!("{}", serde_json::to_string(&reports)?);
    } else if args.csv {
        print!("{}", balance_csv(&reports)?);
    } else {
        print!("{}", balance_table(&reports));
        let clocks: Vec<_> = reports.iter().filter_map(|r| r.clock.clone()).collect();
        print!("{}", tavlei::eval::clock::describe(&clocks));
        println!(
            "95% Wilson intervals in brackets; converged (strongest level of each variant): measured when neither share trends with the budget (logistic slope per doubling, 95%) and the two strongest levels are equivalent within ±{} points (TOST, 5%). Tables, plots and every game (replayable) in {}",
            args.margin,
            args.out.display()
        );
    }
    Ok(())
}
