//! Evaluation: the candidate against the best network (optionally gating) and the direct
//! measurements against the fixed anchors.

use std::path::Path;

use crate::eval::matches::{MatchReport, Sprt};
use crate::pipeline::config::{Gating, PipelineConfig};
use crate::pipeline::error::PipelineError;
use crate::pipeline::files::{generation_dir, model_path};
use crate::pipeline::matches::{stored_match, MatchPlan};
use crate::pipeline::progress::PipelineProgress;
use crate::pipeline::timing::{self, Stopwatch};
use crate::rules::Position;

/// The candidate of generation `candidate` against generation 0 (equal simulations) and the
/// classical anchor (equal time), each match stored in the candidate's directory. Every
/// generation uses the same seeds, so the candidates meet the anchors in the same openings.
fn measure_against_anchors(
    cfg: &PipelineConfig,
    run: &Path,
    candidate: u32,
    device: tch::Device,
    start: &Position,
    g: u32,
    progress: &mut dyn PipelineProgress,
) -> Result<[Option<MatchReport>; 2], PipelineError> {
    if cfg.eval.anchor_pairs == 0 {
        return Ok([None, None]);
    }
    let sims = cfg.eval.simulations;
    let net = model_path(run, candidate);
    let plans = [
        (
            "vs-gen0.json",
            "vs gen 0",
            [
                format!("net:{}:{sims}", net.display()),
                format!("net:{}:{sims}", model_path(run, 0).display()),
            ],
            0xA0,
        ),
        (
            "vs-anchor.json",
            "vs anchor",
            [
                format!("net:{}:{}", net.display(), cfg.eval.anchor_budget()),
                cfg.eval.anchor.clone(),
            ],
            0xA1,
        ),
    ];
    let mut out = [None, None];
    for (slot, (file, stage, specs, salt)) in out.iter_mut().zip(plans) {
        let plan = MatchPlan {
            specs,
            pairs: cfg.eval.anchor_pairs,
            sprt: None,
            seed: cfg.seed ^ salt,
        };
        let path = generation_dir(run, candidate).join(file);
        let report = stored_match(cfg, device, start, &path, (g, stage), plan, progress)?;
        *slot = Some(report);
    }
    Ok(out)
}

/// What generation `g`'s evaluation found about its candidate.
pub(crate) struct Evaluation {
    /// The candidate against the best network, when measured or gating.
    pub candidate_match: Option<MatchReport>,
    pub accepted: bool,
    pub against_first: Option<MatchReport>,
    pub against_anchor: Option<MatchReport>,
}

/// Plays (or reads back) generation `g`'s matches: its candidate (generation g + 1) against the
/// best network `best`, which decides acceptance under the config's gating, and the direct
/// measurements against the anchors, in the generations the config measures.
pub(crate) fn evaluate_stage(
    cfg: &PipelineConfig,
    run: &Path,
    (g, best): (u32, u32),
    (start, device): (&Position, tch::Device),
    progress: &mut dyn PipelineProgress,
) -> Result<Evaluation, PipelineError> {
    let candidate = g + 1;
    let out = model_path(run, candidate);
    let match_path = generation_dir(run, candidate).join("match.json");
    let sims = cfg.eval.simulations;
    let plan = MatchPlan {
        specs: [
            format!("net:{}:{sims}", out.display()),
            format!("net:{}:{sims}", model_path(run, best).display()),
        ],
        pairs: cfg.eval.pairs,
        sprt: (cfg.eval.gating == Gating::Sprt)
            .then(|| Sprt::parse(&cfg.eval.sprt).ok())
            .flatten(),
        seed: cfg.seed ^ (candidate as u64).wrapping_mul(0x94D0_49BB_1331_11EB),
    };
    let measured = cfg.eval.measures(g, cfg.generations);
    let report = if measured || cfg.eval.gating != Gating::None {
        let fresh = !match_path.exists();
        let watch = Stopwatch::start();
        let report = stored_match(
            cfg,
            device,
            start,
            &match_path,
            (g, "evaluate"),
            plan,
            progress,
        )?;
        if fresh {
            timing::record(run, Some(g), "evaluate", watch.stop())?;
        }
        Some(report)
    } else {
        None
    };
    let accepted = match (cfg.eval.gating, &report) {
        (Gating::None, _) | (_, None) => true,
        (Gating::Score, Some(r)) => r.score >= cfg.eval.threshold,
        (Gating::Sprt, Some(r)) => r.sprt.as_ref().is_some_and(|s| s.llr >= s.upper),
    };
    // the direct measurements of the candidate against the fixed anchors
    let cand_dir = generation_dir(run, candidate);
    let fresh =
        !(cand_dir.join("vs-gen0.json").exists() && cand_dir.join("vs-anchor.json").exists());
    let watch = Stopwatch::start();
    let [against_first, against_anchor] = if measured {
        measure_against_anchors(cfg, run, candidate, device, start, g, progress)?
    } else {
        [None, None]
    };
    if fresh && measured {
        timing::record(run, Some(g), "anchors", watch.stop())?;
    }
    Ok(Evaluation {
        candidate_match: report,
        accepted,
        against_first,
        against_anchor,
    })
}
