//! The game viewer in a real browser: headless Chromium loads the page `tavlei viewer` wrote for a
//! recorded match, steps forward with the arrow key, and the board it shows changes with no
//! script error. Run by `make test-browser` (part of `make test`), which installs Debian's
//! Chromium and names it in TAVLEI_CHROMIUM.

use std::path::Path;
use std::process::{Command, Output};

fn tavlei(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(args)
        .output()
        .expect("runs tavlei");
    assert!(
        out.status.success(),
        "tavlei {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn chromium(page: &Path, hash: &str, action: &[&str]) -> Output {
    let browser = std::env::var("TAVLEI_CHROMIUM")
        .expect("TAVLEI_CHROMIUM names the browser; run this test through `make test-browser`");
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=900,700",
            "--virtual-time-budget=3000",
        ])
        .args(action)
        .arg(format!("file://{}#{hash}", page.display()))
        .output()
        .expect("runs chromium")
}

/// The `data-` attributes of the page's body after its script ran.
fn body_attribute(dom: &str, name: &str) -> String {
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').expect("the tag ends")];
    let key = format!("{name}=\"");
    let start = body.find(&key).map(|i| i + key.len()).expect(name);
    body[start..start + body[start..].find('"').expect("quoted")].to_string()
}

#[test]
#[ignore = "needs Chromium: make test-browser"]
fn the_viewer_steps_through_a_game_in_a_browser() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let games = dir.path().join("match");
    let games_arg = games.to_str().expect("utf-8");
    tavlei(&[
        "match",
        "random",
        "random",
        "--variant",
        "brandubh",
        "--pairs",
        "1",
        "--seed",
        "3",
        "--out",
        games_arg,
    ]);
    let page = dir.path().join("game.html");
    tavlei(&[
        "viewer",
        "--variant",
        "brandubh",
        games.join("games.txt").to_str().expect("utf-8"),
        "--html",
        page.to_str().expect("utf-8"),
    ]);

    let stepped = chromium(
        &page,
        "keys=ArrowRight,ArrowRight,ArrowRight",
        &["--dump-dom"],
    );
    let dom = String::from_utf8_lossy(&stepped.stdout);
    assert_eq!(
        body_attribute(&dom, "data-ply"),
        "3",
        "three key presses, three plies"
    );
    assert_eq!(body_attribute(&dom, "data-errors"), "", "no script error");
    let log = String::from_utf8_lossy(&stepped.stderr);
    assert!(
        !log.lines()
            .any(|l| l.contains("CONSOLE") || l.contains("Uncaught")),
        "console messages: {log}"
    );
    // the second game of the pair through the game list
    let second = chromium(&page, "game=1&keys=End", &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&second.stdout);
    assert_eq!(body_attribute(&dom, "data-game"), "1");
    assert_ne!(
        body_attribute(&dom, "data-ply"),
        "0",
        "End goes to the last ply"
    );

    let shot = |name: &str, hash: &str| {
        let path = dir.path().join(name);
        let arg = format!("--screenshot={}", path.display());
        chromium(&page, hash, &[arg.as_str()]);
        std::fs::read(&path).expect("a screenshot")
    };
    let start = shot("start.png", "ply=0");
    let after = shot("after.png", "keys=ArrowRight,ArrowRight,ArrowRight");
    assert!(
        start.starts_with(b"\x89PNG") && start.len() > 10_000,
        "a drawn page"
    );
    assert_ne!(start, after, "the board changed after stepping forward");
}
