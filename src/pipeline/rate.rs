//! Self-play's rate against the machine: positions per core-second of the threads that played,
//! and the forward-pass limit, the positions per core-second self-play would make if its core
//! time went to forward passes alone at the batch sizes it used.

use super::summary::SelfplaySummary;

/// The self-play of a run (or one generation), summed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfplayRate {
    pub positions: u64,
    /// Wall seconds of the self-play.
    pub wall: f64,
    /// Core-seconds of the threads that played, of their forward passes, of the tree work.
    pub cpu: f64,
    pub forward: f64,
    pub tree: f64,
    /// Wall seconds workers waited for a lane, and spent writing shards.
    pub idle: f64,
    pub write: f64,
    /// Seconds the workers were ready but other processes held the cores.
    pub queued: f64,
    pub evaluations: u64,
    pub batches: u64,
}

impl SelfplayRate {
    /// The self-play in `summaries` that counted its core-time (older summaries did not).
    pub fn of<'a>(summaries: impl IntoIterator<Item = &'a SelfplaySummary>) -> SelfplayRate {
        let mut r = SelfplayRate::default();
        for s in summaries.into_iter().filter(|s| s.cpu_seconds > 0.0) {
            r.positions += s.positions;
            r.wall += s.seconds;
            r.cpu += s.cpu_seconds;
            r.forward += s.forward_seconds;
            r.tree += s.tree_seconds;
            r.idle += s.idle_seconds;
            r.write += s.write_seconds;
            r.queued += s.queued_seconds;
            r.evaluations += s.evaluations;
            r.batches += s.batches;
        }
        r
    }

    /// Positions per core-second of the threads that played.
    pub fn per_core_second(&self) -> f64 {
        self.positions as f64 / self.cpu.max(f64::MIN_POSITIVE)
    }

    /// Positions per core-second with nothing but the forward passes.
    pub fn forward_limit(&self) -> f64 {
        self.positions as f64 / self.forward.max(f64::MIN_POSITIVE)
    }

    /// The paragraph of the run summary; empty when no self-play counted its core-time.
    pub fn text(&self) -> String {
        if self.cpu <= 0.0 {
            return String::new();
        }
        let wall = self.wall.max(f64::MIN_POSITIVE);
        let forward = self.forward.max(f64::MIN_POSITIVE);
        format!(
            "Self-play's rate: {} positions in {:.0} s of self-play and {:.0} core-seconds of its workers ({:.2} cores busy), **{:.1} positions per core-second**. Forward passes: {} evaluations in {} batches (mean {:.1}), {:.0} core-seconds, {:.0} positions a core-second through the network at those batch sizes, so the forward-pass limit is **{:.1} positions per core-second** ({:.0} % of it reached). Tree work {:.0} core-seconds; workers waited {:.0} s for a lane and {:.0} s for a core other processes held; shards took {:.1} s to write.\n",
            self.positions,
            self.wall,
            self.cpu,
            self.cpu / wall,
            self.per_core_second(),
            self.evaluations,
            self.batches,
            self.evaluations as f64 / self.batches.max(1) as f64,
            self.forward,
            self.evaluations as f64 / forward,
            self.forward_limit(),
            100.0 * self.per_core_second() / self.forward_limit().max(f64::MIN_POSITIVE),
            self.tree,
            self.idle,
            self.queued,
            self.write,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(positions: u64, wall: f64, cpu: f64, forward: f64) -> SelfplaySummary {
        SelfplaySummary {
            positions,
            seconds: wall,
            cpu_seconds: cpu,
            forward_seconds: forward,
            tree_seconds: cpu - forward,
            queued_seconds: 3.0,
            evaluations: positions * 40,
            batches: positions / 2,
            ..SelfplaySummary::default()
        }
    }

    #[test]
    fn the_rate_is_positions_over_core_time_and_the_limit_over_forward_time() {
        let old = SelfplaySummary {
            positions: 5000,
            seconds: 100.0,
            ..SelfplaySummary::default()
        };
        let gens = [
            generation(6000, 40.0, 78.0, 60.0),
            generation(4000, 30.0, 42.0, 40.0),
            old,
        ];
        let r = SelfplayRate::of(&gens);
        // the summary without core-time is left out
        assert_eq!(
            (r.positions, r.wall, r.cpu, r.forward),
            (10000, 70.0, 120.0, 100.0)
        );
        let text = r.text();
        // 10,000 positions over 120 core-seconds; 100 of them forward passes
        assert!(text.contains("in 70 s of self-play and 120 core-seconds of its workers (1.71 cores busy), **83.3 positions per core-second**"), "{text}");
        assert!(text.contains("400000 evaluations in 5000 batches (mean 80.0), 100 core-seconds, 4000 positions a core-second"), "{text}");
        assert!(
            text.contains("limit is **100.0 positions per core-second** (83 % of it reached)"),
            "{text}"
        );
        assert!(
            text.contains(
                "Tree work 20 core-seconds; workers waited 0 s for a lane and 6 s for a core"
            ),
            "{text}"
        );
        assert_eq!(SelfplayRate::of(&[gens[2].clone()]).text(), "");
    }
}
