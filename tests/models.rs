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
