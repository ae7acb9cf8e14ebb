//! `tavlei play` as a person plays it: the binary runs in a detached tmux session of a fixed size
//! (its own server, on a socket in the test's temporary directory, so no other session is
//! touched and nothing is left behind), keys are sent as typed, and the pane
//! is read back after each step. A short Brandubh game from a position near the end, the person
//! on the defenders against `ab:1`: an illegal move and its reason, a capture answered by a
//! capture (the marks on the board), `undo`, the winning move and the result, `save`, Ctrl-D, and
//! the saved record checked by `tavlei replay`. Run by `make test-play` (part of `make test`),
//! which installs tmux where it is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The king on a3 escapes with a3-a1; c5-e5 takes e4 between e5 and e3; the attackers' g3-f3
/// then takes f2 between f3 and f1.
const START: &str = "/5t1/5T1/K3T1t/4t2/2T4/7/7/";

/// A tmux server of our own, killed when the test ends, passing or not.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn start(socket: PathBuf, command: &str) -> Tmux {
        let tmux = Tmux { socket };
        tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "play",
            "-x",
            "100",
            "-y",
            "50",
            command,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs (make test-play installs it)");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Types `text` and presses Enter.
    fn type_line(&self, text: &str) {
        self.run(&["send-keys", "-t", "play", "-l", text]);
        self.run(&["send-keys", "-t", "play", "Enter"]);
    }

    /// Everything the pane showed since it started, wrapped lines joined; with `-e`, the
    /// colours as escape codes too.
    fn capture(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-J", "-S", "-", "-t", "play"];
        if escapes {
            args.push("-e");
        }
        String::from_utf8_lossy(&self.run(&args).stdout).into_owned()
    }

    /// Waits until the pane has shown `text` `times` times, and returns what it shows.
    fn wait_for(&self, text: &str, times: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.capture(false);
            if screen.matches(text).count() >= times {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "waited 20 s for {times}× `{text}`; the pane shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

/// The pane's text after the last occurrence of `marker`.
fn after<'a>(screen: &'a str, marker: &str) -> &'a str {
    let at = screen
        .rfind(marker)
        .unwrap_or_else(|| panic!("`{marker}` in\n{screen}"));
    &screen[at..]
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[test]
#[ignore = "needs tmux: make test-play"]
fn a_short_game_in_a_terminal() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let record = dir.path().join("game.txt");
    let bin = env!("CARGO_BIN_EXE_tavlei");
    let command = format!(
        "env -u NO_COLOR {} play --variant brandubh --agent ab:1 --side defenders --position {START} --to-move defenders --seed 1; echo \"[tavlei exited $?]\"; sleep 60",
        shell_quote(bin)
    );
    let tmux = Tmux::start(dir.path().join("tmux.sock"), &command);
    let your_turn = "Move 1: the defenders (you) to move.";

    let screen = tmux.wait_for(your_turn, 1);
    assert!(
        screen.contains("you are the defenders against ab:1"),
        "{screen}"
    );
    for row in [
        "    a  b  c  d  e  f  g",
        " 7  #  .  .  .  .  .  #  7",
        " 4  .  .  .  +  A  .  .  4",
        " 3  K  .  .  .  D  .  A  3",
        " 1  #  .  .  .  .  A  #  1",
    ] {
        assert!(screen.contains(&format!("{row}\n")), "`{row}` in\n{screen}");
    }
    // a terminal gets colours (the plain capture above has none)
    assert!(
        tmux.capture(true).contains("\x1b["),
        "no colour in the pane"
    );
    assert!(!screen.contains("\x1b["), "{screen}");

    tmux.type_line("a3-b4");
    let screen = tmux.wait_for("not on one rank or file", 1);
    assert!(
        screen.contains("illegal move `a3-b4`: a3 and b4 are not on one rank or file"),
        "{screen}"
    );

    // the dash may be left out; the agent's capture is marked on the board it draws
    tmux.type_line("c5e5");
    let screen = tmux.wait_for("Move 2: the defenders (you) to move.", 1);
    let turn = after(&screen, "You play c5-e5xe4.");
    assert!(
        turn.contains("ab:1 thinks... g3-f3xf2 (depth 1, "),
        "{turn}"
    );
    assert!(turn.contains(" 4  .  .  .  +  .  .  .  4\n"), "{turn}");
    assert!(turn.contains(" 3  K  .  .  .  D [A](.) 3\n"), "{turn}");
    assert!(turn.contains(" 2  .  .  .  .  .  x  .  2\n"), "{turn}");

    tmux.type_line("undo");
    let screen = tmux.wait_for(your_turn, 2);
    let turn = after(&screen, "Took back c5-e5xe4 g3-f3xf2.");
    assert!(turn.contains(" 5  .  .  D  .  .  .  .  5\n"), "{turn}");
    assert!(turn.contains(" 2  .  .  .  .  .  D  .  2\n"), "{turn}");

    tmux.type_line("a3a1");
    let screen = tmux.wait_for("You win!", 1);
    let end = after(&screen, "You play a3-a1.");
    assert!(end.contains(" 3 (.) .  .  .  D  .  A  3\n"), "{end}");
    assert!(end.contains(" 1 [K] .  .  .  .  A  #  1\n"), "{end}");
    assert!(
        end.contains("Game over: the defenders win: the king escaped. You win!"),
        "{end}"
    );

    tmux.type_line(&format!("save {}", record.display()));
    tmux.wait_for("Saved 1 ply to ", 1);
    tmux.run(&["send-keys", "-t", "play", "C-d"]);
    let screen = tmux.wait_for("[tavlei exited 0]", 1);
    assert!(
        screen.contains("End of input: leaving the game."),
        "{screen}"
    );
    drop(tmux);

    let replay = Command::new(bin)
        .args(["replay", "--variant", "brandubh", "--position", START])
        .args(["--to-move", "defenders"])
        .arg(Path::new(&record))
        .output()
        .expect("runs tavlei replay");
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}");
    assert!(text.contains("game 0: all moves legal (1 plies)"), "{text}");
    assert!(
        text.contains("outcome: defenders (king_escaped) at ply 0"),
        "{text}"
    );
}
