//! `tavlei engine --protocol otep` as OpenTafl drives it: a host written here starts two engine
//! processes, sends each the rules, the clock, the opponent's moves and `play`, checks every
//! answer against tavlei's own rules (as OpenTafl checks an engine's moves), confirms it with the
//! board, and plays whole games to their end; and a scripted host session refuses a legal move
//! with `error`, as OpenTafl does with an illegal one, to check the engine takes it back and plays
//! again from the host's board.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use tavlei::interop::otn_rules::export;
use tavlei::rules::notation::position_to_otn;
use tavlei::rules::{Position, Side, Variant};

struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    fn start(agent: &str, seed: u64) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tavlei"))
            .args(["engine", "--protocol", "otep", "--agent", agent])
            .args(["--seed", &seed.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts tavlei engine");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Engine {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, message: &str) {
        writeln!(self.input, "{message}").expect("the engine reads");
        self.input.flush().expect("flush");
    }

    /// The next line that starts with `prefix` (status lines in between are skipped); an
    /// `error` line fails the test.
    fn expect(&mut self, prefix: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.output.read_line(&mut line).expect("the engine writes");
            assert!(n > 0, "the engine ended while we waited for `{prefix}`");
            let text = line.trim();
            assert!(!text.starts_with("error"), "the engine answered `{text}`");
            if let Some(rest) = text.strip_prefix(prefix) {
                return rest.trim().to_string();
            }
        }
    }

    /// Says goodbye and checks the engine exits cleanly.
    fn close(mut self) {
        self.send("goodbye");
        drop(self.input);
        let status = self.child.wait().expect("the engine exits");
        assert!(status.success(), "{status}");
    }
}

/// OpenTafl's result code for `finish`.
fn finish_code(pos: &Position) -> u8 {
    match pos.outcome().map(|o| o.winner) {
        Some(Some(Side::Attackers)) => 2,
        Some(Some(Side::Defenders)) => 3,
        Some(None) => 1,
        None => 0,
    }
}

/// One whole game between two engine processes; returns the final position.
fn host_game(variant: &str, attackers: &str, defenders: &str, seed: u64) -> Position {
    // the host plays the rules string it sends, as OpenTafl does (for presets OpenTafl cannot
    // express exactly, such as Tablut's camps, that is the imported approximation)
    let rules = export(&Variant::load(variant).expect("preset")).text;
    let v = tavlei::interop::otn_rules::variant(&rules).expect("imports");
    let mut engines = [
        Engine::start(attackers, seed),
        Engine::start(defenders, seed + 1),
    ];
    for e in &mut engines {
        e.send("hello");
        assert_eq!(e.expect("hello"), "");
        e.send(&format!("rules {rules}"));
    }
    let mut pos = Position::start(&v);
    let mut last: Option<String> = None;
    let (mut left_a, mut left_d) = (3_000u64, 3_000u64);
    while pos.outcome().is_none() {
        let side = pos.side_to_move();
        let k = usize::from(side == Side::Defenders);
        let e = &mut engines[k];
        if let Some(moves) = &last {
            e.send(&format!("opponent-move {moves} {}", position_to_otn(&pos)));
        }
        e.send(&format!("clock {left_a} {left_d} 0 0 0"));
        e.send(&format!("play {}", side.name()));
        let started = std::time::Instant::now();
        let answer = e.expect("move ");
        let spent = started.elapsed().as_millis() as u64;
        match side {
            Side::Attackers => left_a = left_a.saturating_sub(spent).max(1),
            Side::Defenders => left_d = left_d.saturating_sub(spent).max(1),
        }
        for step in answer.split('|') {
            pos.play(step).unwrap_or_else(|err| {
                panic!("ply {}: the engine's `{step}` is illegal: {err}", pos.ply())
            });
        }
        e.send(&format!("move {}", position_to_otn(&pos)));
        last = Some(answer);
        assert!(
            pos.ply() < 2_000,
            "the game must end under the variant's caps"
        );
    }
    for mut e in engines {
        e.send(&format!("finish {}", finish_code(&pos)));
        e.close();
    }
    pos
}

#[test]
fn two_engines_play_whole_games_through_the_protocol() {
    // the games side by side: each mostly waits on its two engine processes
    std::thread::scope(|scope| {
        for (variant, attackers, defenders) in [
            ("brandubh", "ab:2", "mcts:32"),
            ("brandubh", "random", "ab:1"),
            ("tablut", "ab:1", "ab:1"),
        ] {
            scope.spawn(move || {
                let end = host_game(variant, attackers, defenders, 7);
                let outcome = end.outcome().expect("the game ended");
                eprintln!(
                    "{variant}: {attackers} v {defenders}: {} after {} plies ({})",
                    outcome.result_name(),
                    end.ply(),
                    outcome.reason.name()
                );
            });
        }
    });
}

#[test]
fn a_refused_move_is_taken_back_and_the_engine_plays_again_from_the_hosts_board() {
    let v = Variant::load("brandubh").expect("preset");
    let mut e = Engine::start("ab:2", 1);
    e.send("hello");
    e.expect("hello");
    e.send(&format!("rules {}", export(&v).text));
    let mut pos = Position::start(&v);
    pos.play("d2-b2").expect("legal");
    let board = position_to_otn(&pos);
    e.send(&format!("opponent-move d2-b2 {board}"));
    e.send("play defenders");
    let refused = e.expect("move ");
    // OpenTafl's recovery: error, the previous move with the board before ours, play again
    e.send("error 2 illegal move");
    e.send(&format!("opponent-move d2-b2 {board}"));
    e.send("play defenders");
    let again = e.expect("move ");
    assert_ne!(again, refused, "the refused move is not sent again");
    let mut after = pos.clone();
    after.play(&again).unwrap_or_else(|err| {
        panic!("`{again}` (after `{refused}` was refused) is not legal on the host's board: {err}")
    });
    // the engine's own game went on from the host's board: its next move is legal there
    e.send(&format!("move {}", position_to_otn(&after)));
    let mut attackers = after.clone();
    let reply = {
        let mut legal = Vec::new();
        attackers.legal_moves(&mut legal);
        attackers.play_recorded(legal[0])
    };
    e.send(&format!(
        "opponent-move {reply} {}",
        position_to_otn(&attackers)
    ));
    e.send("play defenders");
    let next = e.expect("move ");
    attackers
        .play(&next)
        .unwrap_or_else(|err| panic!("`{next}` is not legal after the recovery: {err}"));
    e.send("finish 0");
    e.close();
}
