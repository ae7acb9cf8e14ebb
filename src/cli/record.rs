//! `tavlei record export-otg` and `record import-otg`: game records to and from OpenTafl game
//! files (`.otg`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use tavlei::atomic;
use tavlei::interop::otg::{export, import, is_otg};
use tavlei::rules::replay::recorded_games;
use tavlei::rules::Variant;

use super::args::VariantArg;

#[derive(Subcommand)]
pub enum RecordCommand {
    /// Every game of tavlei record files as an OpenTafl game file, `DIR/STEM-N.otg` for game N
    /// of `STEM.txt`; each game is replayed first, and what OpenTafl cannot read is named on
    /// stderr.
    ExportOtg {
        #[command(flatten)]
        variant: VariantArg,
        /// Record files (self-play `games-*.txt`, match `games.txt`, balance-study `games/*.txt`).
        #[arg(required = true)]
        records: Vec<PathBuf>,
        /// The directory to write the `.otg` files into (made if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// OpenTafl game files as one tavlei record file: each game played with tavlei's rules, its
    /// moves, captures and result checked.
    ImportOtg {
        /// `.otg` files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The record file to write.
        #[arg(long)]
        records: PathBuf,
        /// Play the games under this variant (a preset, variant file or rules string) instead
        /// of the one their rules tag names.
        #[arg(long)]
        variant: Option<String>,
    },
}

pub fn run(cmd: RecordCommand) -> Result<()> {
    match cmd {
        RecordCommand::ExportOtg {
            variant,
            records,
            out,
        } => export_otg(&variant, &records, &out),
        RecordCommand::ImportOtg {
            files,
            records,
            variant,
        } => import_otg(&files, &records, variant.as_deref()),
    }
}

fn export_otg(variant: &VariantArg, records: &[PathBuf], out: &Path) -> Result<()> {
    let v = variant.load()?;
    let mut stems = BTreeSet::new();
    let mut notes = BTreeSet::new();
    // every game is exported before any file is written: a game that fails leaves nothing behind
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for path in records {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "games".into());
        if !stems.insert(stem.clone()) {
            bail!("two record files are named {stem}: their .otg files would overwrite each other");
        }
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if is_otg(&text) {
            bail!("{} is an OpenTafl game file already", path.display());
        }
        for (i, game) in recorded_games(&text).iter().enumerate() {
            let otg = export(&v, game).with_context(|| format!("{}, game {i}", path.display()))?;
            notes.extend(otg.notes);
            files.push((out.join(format!("{stem}-{i}.otg")), otg.text));
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (file, text) in &files {
        atomic::write(file, text)?;
    }
    for note in &notes {
        eprintln!("note: {note}");
    }
    println!("wrote {} .otg files to {}", files.len(), out.display());
    Ok(())
}

fn import_otg(files: &[PathBuf], records: &Path, variant: Option<&str>) -> Result<()> {
    let forced = variant.map(Variant::load).transpose()?;
    let mut text = String::new();
    for path in files {
        let otg =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut game = import(&otg, forced.as_ref()).with_context(|| path.display().to_string())?;
        game.comments
            .push(format!("imported from {}", path.display()));
        let name = &game.variant.rules.name;
        let result = game.outcome.map_or("unfinished".to_string(), |o| {
            format!("{} ({})", o.result_name(), o.reason.name())
        });
        println!(
            "{}: {} plies of {name}, {result}",
            path.display(),
            game.moves.len()
        );
        if forced.is_none() && !game.preset {
            println!("  its rules are no preset's: replay it with --variant \"<its rules tag>\" (`tavlei rules import-otn` names what tavlei approximates)");
        }
        if game.variations > 0 {
            eprintln!(
                "{}: {} variation lines skipped (only the main line is read)",
                path.display(),
                game.variations
            );
        }
        text += &game.record();
    }
    atomic::write(records, text)?;
    println!("wrote {} games to {}", files.len(), records.display());
    Ok(())
}
