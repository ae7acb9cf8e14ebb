//! `tavlei serve` over HTTP: every endpoint of the JSON API, bad input included, against the real
//! binary on a free loopback port.

use std::process::Command;

use serde_json::{json, Value};

use crate::server::{self, Server};

fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {v}"))
}

fn plies(v: &Value) -> Vec<String> {
    v["plies"]
        .as_array()
        .expect("plies")
        .iter()
        .map(|p| p["text"].as_str().expect("text").to_string())
        .collect()
}

#[test]
fn a_game_is_played_undone_resigned_and_saved_over_the_api() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start(dir.path());
    let (status, variants) = s.get("/api/variants");
    assert_eq!(status, 200);
    let brandubh = variants
        .as_array()
        .expect("a list")
        .iter()
        .find(|v| v["variant"] == "brandubh")
        .expect("brandubh");
    assert_eq!(brandubh["size"], 7);
    assert_eq!(brandubh["flags"][24], 1, "d4 is the throne");
    assert_eq!(brandubh["flags"][0], 2, "a1 is a corner");

    let (status, g) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "agent": "ab:2", "side": "attackers", "seed": 3})),
    );
    assert_eq!(status, 200, "{g}");
    let id = g["id"].as_u64().expect("an id");
    assert_eq!(g["person"], "attackers");
    assert_eq!(g["agent_to_move"], false);
    let legal = g["legal"].as_array().expect("legal moves");
    assert!(legal.iter().any(|m| m["name"] == "d6-c6"), "{legal:?}");

    // an illegal move: the rule it breaks, and nothing played
    let (status, e) = s.post(
        &format!("/api/games/{id}/move"),
        Some(json!({"move": "a4-a7"})),
    );
    assert_eq!(status, 400);
    assert_eq!(
        error_of(&e),
        "illegal move `a4-a7`: this piece may not stop on a corner (a7)"
    );
    let (status, e) = s.post(
        &format!("/api/games/{id}/move"),
        Some(json!({"move": "hello"})),
    );
    assert_eq!(status, 400);
    assert!(error_of(&e).contains("hello"), "{e}");
    assert_eq!(plies(&s.get(&format!("/api/games/{id}")).1).len(), 0);

    // a legal one; the agent's reply comes on its own request, with its analysis
    let (status, g) = s.post(
        &format!("/api/games/{id}/move"),
        Some(json!({"move": "d6c6"})),
    );
    assert_eq!(status, 200, "{g}");
    assert_eq!(plies(&g), ["d6-c6"]);
    assert_eq!(g["agent_to_move"], true);
    assert!(g["legal"].as_array().expect("legal").is_empty());
    let (status, e) = s.post(
        &format!("/api/games/{id}/move"),
        Some(json!({"move": "d2-c2"})),
    );
    assert_eq!(
        (status, error_of(&e)),
        (409, "it is the agent's turn, not yours")
    );
    let (status, g) = s.post(&format!("/api/games/{id}/reply"), None);
    assert_eq!(status, 200, "{g}");
    let moves = plies(&g);
    assert_eq!(moves.len(), 2);
    let analysis = &g["analysis"];
    assert_eq!(analysis["depth"], 2);
    assert_eq!(analysis["side"], "defenders");
    assert_eq!(analysis["best"]["name"].as_str(), Some(&moves[1][..5]));
    assert!(!analysis["candidates"][0]["line"]
        .as_array()
        .expect("a line")
        .is_empty());
    // a reload finds the same game
    assert_eq!(s.get(&format!("/api/games/{id}")).1, g);

    // the record replays to the same moves; the .otg names the rules
    let (status, record) = s.get(&format!("/api/games/{id}/record"));
    assert_eq!(status, 200);
    let record = record.as_str().expect("text").to_string();
    assert!(
        record.contains("tavlei replay --variant brandubh"),
        "{record}"
    );
    let dir2 = tempfile::tempdir().expect("temp dir");
    let file = dir2.path().join("game.txt");
    std::fs::write(&file, &record).expect("written");
    let replay = Command::new(env!("CARGO_BIN_EXE_tavlei"))
        .args(["replay", "--variant", "brandubh"])
        .arg(&file)
        .output()
        .expect("replay runs");
    assert!(replay.status.success(), "{replay:?}");
    let (_, otg) = s.get(&format!("/api/games/{id}/otg"));
    let otg = otg.as_str().expect("text");
    assert!(
        otg.contains("[rules:dim:7") && otg.contains("1. d6-c6"),
        "{otg}"
    );

    // a hint analyses the person's position without playing
    let (status, g) = s.post(&format!("/api/games/{id}/analyse"), None);
    assert_eq!(status, 200, "{g}");
    assert_eq!(g["analysis"]["side"], "attackers");
    assert_eq!(plies(&g).len(), 2);

    // undo takes back the person's move and the reply; then nothing is left to undo
    let (status, g) = s.post(&format!("/api/games/{id}/undo"), None);
    assert_eq!(status, 200);
    assert!(plies(&g).is_empty());
    let (status, e) = s.post(&format!("/api/games/{id}/undo"), None);
    assert_eq!(status, 409);
    assert!(error_of(&e).contains("nothing to undo"), "{e}");

    // resigning ends the game for the other side; moves are then refused
    let (_, g) = s.post(&format!("/api/games/{id}/resign"), None);
    assert_eq!(g["end"]["winner"], "defenders");
    assert!(g["end"]["text"]
        .as_str()
        .expect("text")
        .contains("resigned"));
    let (status, e) = s.post(
        &format!("/api/games/{id}/move"),
        Some(json!({"move": "d6-c6"})),
    );
    assert_eq!(status, 409);
    assert!(error_of(&e).starts_with("the game is over"), "{e}");
    let (_, g) = s.post(&format!("/api/games/{id}/undo"), None);
    assert!(g["end"].is_null(), "the resignation is taken back");
}

#[test]
fn the_agent_opens_when_the_person_defends_and_a_record_can_be_continued() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start(dir.path());
    let (_, g) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "agent": "random", "side": "defenders"})),
    );
    assert_eq!(g["agent_to_move"], true);
    let id = g["id"].as_u64().expect("id");
    let (_, g) = s.post(&format!("/api/games/{id}/reply"), None);
    assert_eq!(plies(&g).len(), 1);
    assert_eq!(g["to_move"], "defenders");
    // a second reply request when it is the person's turn changes nothing
    let (_, again) = s.post(&format!("/api/games/{id}/reply"), None);
    assert_eq!(plies(&again), plies(&g));

    // a tavlei record continued: its moves are played, and the side to move is the person's
    let record = "[variant \"brandubh\"]\nd6-c6 d5-f5\n";
    let (status, g) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "agent": "random", "record": record})),
    );
    assert_eq!(status, 200, "{g}");
    assert_eq!(plies(&g), ["d6-c6", "d5-f5"]);
    assert_eq!(g["agent_to_move"], false);
    // an illegal record is refused with the ply that breaks it
    let (status, e) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "record": "d6-c6 a4-a7"})),
    );
    assert_eq!(status, 400);
    assert!(error_of(&e).contains("a4-a7"), "{e}");
    let (status, e) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "record": "[variant \"tablut\"]\ne1-e2"})),
    );
    assert_eq!(status, 400);
    assert!(error_of(&e).contains("tablut"), "{e}");
}

#[test]
fn bad_requests_get_a_json_error_and_the_server_stays_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::start(dir.path());
    let cases: Vec<(u16, &str, (u16, Value))> = vec![
        (404, "no game 77", s.get("/api/games/77")),
        (400, "the address", s.get("/api/games/seven")),
        (404, "no such address", s.get("/api/nothing")),
        (404, "not a preset", s.get("/api/variants/chess")),
        (
            400,
            "not a preset",
            s.post("/api/games", Some(json!({"variant": "chess"}))),
        ),
        (
            400,
            "unknown field",
            s.post(
                "/api/games",
                Some(json!({"variant": "brandubh", "colour": 1})),
            ),
        ),
        (
            400,
            "the request's JSON",
            s.post_text("/api/games", "application/json", "{\"variant\": "),
        ),
        (
            400,
            "Content-Type",
            s.post_text("/api/games", "text/plain", "{}"),
        ),
        (
            400,
            "zz:9",
            s.post(
                "/api/games",
                Some(json!({"variant": "brandubh", "agent": "zz:9"})),
            ),
        ),
        (
            403,
            "models directory",
            s.post(
                "/api/games",
                Some(json!({"variant": "brandubh", "agent": "net:/etc/passwd:8"})),
            ),
        ),
        (
            403,
            "at most 30 s",
            s.post(
                "/api/games",
                Some(json!({"variant": "brandubh", "agent": "ab:t=60s"})),
            ),
        ),
        (
            400,
            "the request's JSON",
            s.post("/api/games/1/move", Some(json!({"mv": "d6-c6"}))),
        ),
        (404, "no game", s.post("/api/games/12345/reply", None)),
        (404, "no study", s.get("/api/studies/table?dir=/etc")),
        (400, "the query", s.get("/api/studies/table")),
    ];
    for (status, words, (got, body)) in cases {
        assert_eq!(got, status, "{words}: {body}");
        assert!(error_of(&body).contains(words), "{words}: {body}");
    }
    // still serving: the page and what it loads, a variant, the agents on offer
    let (status, page) = s.get("/");
    assert_eq!(status, 200);
    let page = page.as_str().expect("html").to_string();
    for asset in ["/app.js", "/style.css", "/favicon.svg"] {
        assert!(page.contains(asset), "{asset}");
        assert_eq!(s.get(asset).0, 200, "{asset}");
    }
    let (status, tablut) = s.get("/api/variants/tablut");
    assert_eq!(status, 200);
    assert_eq!(tablut["size"], 9);
    assert_eq!(tablut["flags"][4], 4, "e1 is a camp of tablut");
    let (status, agents) = s.get("/api/agents?variant=brandubh");
    assert_eq!(status, 200);
    let agents: Vec<&str> = agents
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        agents.contains(&"ab:t=1s") && agents.contains(&"random"),
        "{agents:?}"
    );
    // the server's models directory is the shipped one (the test runs in the repository)
    assert!(
        agents.contains(&"net:models/brandubh.safetensors:t=1s"),
        "{agents:?}"
    );
    assert!(
        !agents.iter().any(|a| a.contains("tavlei.safetensors")),
        "{agents:?}"
    );
    // and alpha-beta with the variant's shipped learned evaluation, which the server then loads
    let learned = "ab:t=1s:nnue=models/brandubh.nnue";
    assert!(agents.contains(&learned), "{agents:?}");
    let (_, others) = s.get("/api/agents?variant=copenhagen");
    assert!(!others.to_string().contains("brandubh.nnue"), "{others}");
    let (status, game) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "agent": "ab:t=50ms:nnue=models/brandubh.nnue", "side": "defenders"})),
    );
    assert_eq!(status, 200, "{game}");
    let id = game["id"].as_u64().expect("id");
    let (_, game) = s.post(&format!("/api/games/{id}/reply"), None);
    assert_eq!(plies(&game).len(), 1, "{game}");
    // a shipped network plays its reply with a tree search's statistics
    let (status, g) = s.post(
        "/api/games",
        Some(json!({"variant": "brandubh", "agent": "net:models/brandubh.safetensors:16", "side": "defenders"})),
    );
    assert_eq!(status, 200, "{g}");
    let id = g["id"].as_u64().expect("id");
    let (_, g) = s.post(&format!("/api/games/{id}/reply"), None);
    assert_eq!(g["analysis"]["work"], 16, "{g}");
    let visits: u64 = g["analysis"]["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["visits"].as_u64().expect("visits"))
        .sum();
    assert!(visits >= 15, "{g}");
}

#[test]
fn a_balance_study_its_plots_and_its_games_are_served() {
    let dir = tempfile::tempdir().expect("temp dir");
    server::tiny_study(dir.path());
    let s = Server::start(dir.path());
    let (_, studies) = s.get("/api/studies");
    let list = studies.as_array().expect("a list");
    assert_eq!(list.len(), 1, "{studies}");
    let name = list[0]["dir"].as_str().expect("dir").to_string();
    assert_eq!(list[0]["cells"], 1);
    let q = |s: &str| s.replace('/', "%2F");
    let (status, table) = s.get(&format!("/api/studies/table?dir={}", q(&name)));
    assert_eq!(status, 200, "{table}");
    assert_eq!(table[0]["variant"], "brandubh");
    assert_eq!(table[0]["games"], 4);
    for plot in list[0]["plots"].as_array().expect("plots") {
        let file = plot.as_str().expect("name");
        let (status, _) = s.get(&format!("/api/studies/plot?dir={}&file={file}", q(&name)));
        assert_eq!(status, 200, "{file}");
    }
    let (status, e) = s.get(&format!(
        "/api/studies/plot?dir={}&file=..%2F..%2Fetc%2Fpasswd",
        q(&name)
    ));
    assert_eq!(status, 404);
    assert!(error_of(&e).contains("not a plot"), "{e}");

    let (status, game) = s.get(&format!(
        "/api/studies/game?dir={}&variant=brandubh&agent=random&game=3",
        q(&name)
    ));
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["games"], 4);
    let moves = game["moves"].as_array().expect("moves").len();
    let frames = game["plies"].as_array().expect("frames");
    assert_eq!(frames.len(), moves + 1);
    assert_ne!(frames[0]["cells"], frames[moves]["cells"]);
    let (status, e) = s.get(&format!(
        "/api/studies/game?dir={}&variant=brandubh&agent=random&game=4",
        q(&name)
    ));
    assert_eq!(status, 404);
    assert!(error_of(&e).contains("has 4 games"), "{e}");
}
