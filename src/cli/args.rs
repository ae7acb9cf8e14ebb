//! Arguments several subcommands share, declared once so that they read the same everywhere:
//! the variant is always `--variant`, a start position always `--position` with `--to-move`, and
//! the seed always `--seed` (default 0).

use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use tavlei::rules::notation::parse_otn;
use tavlei::rules::{Position, Side, Variant};

#[derive(Args, Clone, Debug)]
pub struct VariantArg {
    /// A preset name, a variant file, or an OpenTafl rules string (`dim:7 ... start:/.../`) or a
    /// file holding one.
    #[arg(long)]
    pub variant: String,
}

impl VariantArg {
    pub fn load(&self) -> Result<Arc<Variant>> {
        Ok(tavlei::interop::load_variant(&self.variant)?)
    }
}

#[derive(Args, Clone, Debug)]
pub struct StartArgs {
    /// Start from this OTN position instead of the variant's start.
    #[arg(long)]
    pub position: Option<String>,
    /// Side to move in `--position` (default: the variant's first mover).
    #[arg(long, requires = "position")]
    pub to_move: Option<Side>,
}

impl StartArgs {
    /// The position given, or the variant's start.
    pub fn position(&self, v: &Arc<Variant>) -> Result<Position> {
        let side = self.to_move.unwrap_or(v.rules.movement.first);
        Ok(match &self.position {
            Some(otn) => parse_otn(v, otn, side)?,
            None => Position::start(v),
        })
    }
}

#[derive(Args, Clone, Debug)]
pub struct SeedArg {
    /// Every random choice of the command flows from this seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}
