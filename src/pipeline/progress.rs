//! What the display is told while a run goes on.

use crate::selfplay::{GenerateSummary, Progress};

/// What the display is told.
pub trait PipelineProgress {
    /// A stage begins: generation, stage name, units of work.
    fn stage(&mut self, generation: u32, stage: &str, len: u64);
    fn advance(&mut self, done: u64, message: &str);
}

/// Progress that goes nowhere: the work on the cores beside self-play is shown by its steps.
pub(crate) struct Unseen;

impl PipelineProgress for Unseen {
    fn stage(&mut self, _: u32, _: &str, _: u64) {}
    fn advance(&mut self, _: u64, _: &str) {}
}

/// Self-play's games as the display's progress.
pub(crate) struct SelfplayBar<'a>(pub &'a mut dyn PipelineProgress, pub u64);

impl Progress for SelfplayBar<'_> {
    fn game_finished(&mut self, s: &GenerateSummary) {
        self.1 += 1;
        let n = s.games.max(1) as f64;
        let msg = format!(
            "att {:.0}% def {:.0}% draw {:.0}%, {:.0} pos/s",
            100.0 * s.attacker_wins as f64 / n,
            100.0 * s.defender_wins as f64 / n,
            100.0 * s.draws as f64 / n,
            s.positions as f64 / s.seconds.max(1e-9)
        );
        self.0.advance(self.1, &msg);
    }
}
