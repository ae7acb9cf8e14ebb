//! The shipped networks load for their variant, refuse another, and beat a random player.

use tavlei::eval::matches::run_match;
use tavlei::eval::{Agent, AgentSpec, PlayOptions};
use tavlei::nn::Network;
use tavlei::rules::{Position, Variant};

#[test]
fn shipped_networks_load_and_know_their_variant() {
    for (name, other) in [
        ("brandubh", "copenhagen"),
        ("tavlei", "copenhagen"),
        ("tablut", "brandubh"),
        ("copenhagen", "brandubh"),
    ] {
        let path = std::path::PathBuf::from(format!("models/{name}.safetensors"));
        let net = Network::load(&path, Some(name), tch::Device::Cpu).expect("loads");
        assert!(
            net.meta.generation > 0 && net.meta.step > 0,
            "{name} is a trained network"
        );
        assert!(Network::load(&path, Some(other), tch::Device::Cpu).is_err());
        assert!(
            std::path::Path::new(&format!("models/{name}.md")).exists(),
            "{name} has a card"
        );
    }
}

#[test]
fn the_brandubh_network_beats_random_play() {
    let v = Variant::load("brandubh").expect("preset");
    let spec = |s: &str| AgentSpec::parse(s).expect("spec");
    let mut agents = vec![
        Agent::load(
            &spec("net:models/brandubh.safetensors:32"),
            "brandubh",
            tch::Device::Cpu,
            1,
        )
        .expect("agent"),
        Agent::load(&spec("random"), "brandubh", tch::Device::Cpu, 1).expect("agent"),
    ];
    let (report, _) = run_match(
        &Position::start(&v),
        &mut agents,
        10,
        None,
        &PlayOptions::default(),
        4,
        &mut |_| {},
    );
    assert!(
        report.score > 0.6 && report.elo_pairs.low > 0.0,
        "score {} against random: {:?}",
        report.score,
        report.elo_pairs
    );
}

/// `models/card_table.py --check` over every card beside its evidence.
fn check_cards(cards: &[std::path::PathBuf]) -> std::process::Output {
    std::process::Command::new("python3")
        .arg("models/card_table.py")
        .arg("--check")
        .args(cards)
        .output()
        .expect("python3 runs")
}

#[test]
fn every_card_table_number_comes_from_its_evidence() {
    let mut cards: Vec<std::path::PathBuf> = ["models", "models/previous"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).expect("models directory"))
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "md")
                && p.with_file_name(format!(
                    "{}-evidence",
                    p.file_stem().expect("stem").to_string_lossy()
                ))
                .is_dir()
        })
        .collect();
    cards.sort();
    assert!(cards.len() >= 5, "{cards:?}");
    let out = check_cards(&cards);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // and it fails, naming the line, on a number its file does not give
    let tmp = tempfile::tempdir().expect("scratch");
    let card = tmp.path().join("brandubh-gen20.md");
    let text = std::fs::read_to_string("models/previous/brandubh-gen20.md").expect("card");
    assert!(text.contains("| 50 | 0.200 |"));
    std::fs::write(&card, text.replace("| 50 | 0.200 |", "| 50 | 0.230 |")).expect("written");
    std::os::unix::fs::symlink(
        std::fs::canonicalize("models/previous/brandubh-gen20-evidence").expect("evidence"),
        tmp.path().join("brandubh-gen20-evidence"),
    )
    .expect("link");
    let out = check_cards(&[card]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("brandubh-gen20.md:") && said.contains("score says `0.230`"),
        "{said}"
    );
}

/// Every document whose claims `card_table.py --check` checks: the cards (current and replaced)
/// and the READMEs of `experiments/learning/`.
fn documents() -> Vec<std::path::PathBuf> {
    let listed = |dir: &str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .expect("directory")
            .map(|e| e.expect("entry").path())
            .collect()
    };
    let mut docs: Vec<std::path::PathBuf> = ["models", "models/previous"]
        .iter()
        .flat_map(|dir| listed(dir))
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("README.md"))
        .collect();
    docs.push("experiments/learning/README.md".into());
    docs.extend(
        listed("experiments/learning")
            .into_iter()
            .map(|p| p.join("README.md"))
            .filter(|p| p.is_file()),
    );
    docs.sort();
    docs
}

/// The sum over the check's summary lines of the count before `label` (`sha256`, `openings
/// claims`), so a check that silently stopped finding claims is noticed.
fn claims_checked(summary: &str, label: &str) -> usize {
    summary
        .lines()
        .filter_map(|line| {
            let (before, _) = line.split_once(&format!(" {label},"))?;
            before.rsplit(' ').next()?.parse::<usize>().ok()
        })
        .sum()
}

#[test]
fn every_stated_hash_and_openings_claim_holds() {
    let docs = documents();
    assert!(docs.len() >= 20, "{docs:?}");
    let out = check_cards(&docs);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(claims_checked(&said, "sha256") >= 10, "{said}");
    assert!(claims_checked(&said, "openings claims") >= 30, "{said}");

    let tmp = tempfile::tempdir().expect("scratch");
    let here = std::fs::canonicalize(".").expect("repository");
    for name in ["copenhagen.safetensors", "copenhagen-evidence"] {
        std::os::unix::fs::symlink(here.join("models").join(name), tmp.path().join(name))
            .expect("link");
    }
    // a hash that differs from its file at the 16th digit (as the card once said) fails
    let card = tmp.path().join("copenhagen.md");
    let text = std::fs::read_to_string("models/copenhagen.md").expect("card");
    assert!(
        text.contains("sha256 `a6c7a27fd591625a…`"),
        "the card's hash"
    );
    let wrong = text.replace("a6c7a27fd591625a…", "a6c7a27fd5916256…");
    std::fs::write(&card, wrong).expect("written");
    let out = check_cards(&[card]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("copenhagen.md:8: sha256 says `a6c7a27fd5916256`")
            && said.contains("has `a6c7a27fd591625a`"),
        "{said}"
    );
    // so does a "same openings" claim that the stored matches do not bear out, naming the count
    let doc = tmp.path().join("claims.md");
    let store = |p: &str| here.join(p).display().to_string();
    std::fs::write(
        &doc,
        format!(
            "Same openings as its own card's match.\n<!-- same openings: {} {} -->\n\n\
             From the same openings as the overlap run.\n<!-- same openings: {} {} -->\n",
            store("models/brandubh-evidence/previous-vs-ab-t100ms-50"),
            store("models/previous/brandubh-overlap25-evidence/vs-ab-t100ms-50"),
            store("experiments/learning/copenhagen-discount/gen10-vs-previous-32"),
            store("experiments/learning/copenhagen-overlap/vs-previous-32"),
        ),
    )
    .expect("written");
    let out = check_cards(&[doc]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("claims.md:2: same openings claimed")
            && said.contains("(50 pairs) share 3 openings")
            && said.contains("claims.md:5: same openings claimed")
            && said.contains("(20 pairs) share 0 openings"),
        "{said}"
    );
}

/// `experiments/learning/core-hours/table.md` and its plot are what `table.py` makes from the
/// committed match files, and the table reads each run's own time books (a network's cost is
/// the CPU of the generations before it).
#[test]
fn the_strength_per_core_hour_table_is_its_script() {
    let table = crate::tables::checked_table(
        "experiments/learning/core-hours/table.py",
        "experiments/learning/core-hours/table.md",
    );
    for figure in [
        // base, seed 1, at 1,500 CPU seconds: its network, what it cost, and both anchors
        "| base | 1 | 1500 | 35 | 1472 (0.41) | 0.550, +35 [-121, +207]; att 4-0-6 (king captured 3, no legal moves 1), def 7-0-3 (king escaped 7) | 0.250, -191 [-421, -57]; att 0-0-10, def 5-0-5 (king escaped 5) |",
        "| wide | 1 | 1500 | 10 | 1387 (0.39) |",
        "| base | 2 | 2250 | 65 | 2248 (0.62) | 0.800, +241 [+93, +596]; att 7-0-3 (king captured 7), def 9-0-1 (king escaped 9) |",
        // the seeds side by side, never pooled
        "| base | 2250 | 0.775 (0.750, 0.800) | 0.375 (0.250, 0.500) |",
    ] {
        assert!(table.contains(figure), "table.md lacks `{figure}`");
    }
    // the same recipe's Tavlei runs, checked by the same `--check`, against Tavlei's anchors
    let tavlei = std::fs::read_to_string("experiments/learning/core-hours/tavlei/table.md")
        .expect("the Tavlei table");
    for figure in [
        "| base | 2 | 3375 | 68 | 3371 (0.94) | 0.950, +512 [+253, inf]; att 9-0-1 (king captured 9), def 10-0-0 (king escaped 10) | 0.075, -436 [-inf, -242]; att 0-0-10, def 0-3-7 |",
        "| base | 1500 | 0.838 (0.875, 0.800) | 0.162 (0.150, 0.175) |",
    ] {
        assert!(tavlei.contains(figure), "tavlei/table.md lacks `{figure}`");
    }
}
