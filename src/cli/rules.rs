//! `tavlei rules list`, `rules show`, and OpenTafl rules strings: `rules export-otn`,
//! `rules import-otn`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Subcommand;
use tavlei::atomic;
use tavlei::interop::otn_rules::{export, import, nearest_preset, variant_file};
use tavlei::rules::notation::ascii_board;
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::Position;

use super::args::VariantArg;

#[derive(Subcommand)]
pub enum RulesCommand {
    /// One line per preset: name, size, escape, who moves first.
    List,
    /// The start board and every parameter of a preset or variant file.
    Show {
        #[command(flatten)]
        variant: VariantArg,
    },
    /// The OpenTafl rules string of a variant (stdout); each rule OpenTafl cannot express is
    /// named on stderr.
    ExportOtn {
        #[command(flatten)]
        variant: VariantArg,
    },
    /// A commented variant file from an OpenTafl rules string (stdout, or `--toml FILE`), with
    /// what was approximated and how the rules differ from the nearest preset.
    ImportOtn {
        /// The rules string (`dim:7 name:Brandub ... start:/.../`), or a file holding it.
        rules: String,
        /// Write the variant file here instead of printing it.
        #[arg(long)]
        toml: Option<PathBuf>,
    },
}

pub fn run(cmd: RulesCommand) -> Result<()> {
    match cmd {
        RulesCommand::List => {
            println!(
                "{:<20} {:>5}  {:<8} {:<10} title",
                "name", "size", "escape", "first"
            );
            for name in PRESET_NAMES {
                let v = tavlei::interop::load_variant(name)?;
                let r = &v.rules;
                println!(
                    "{:<20} {:>5}  {:<8} {:<10} {}",
                    name,
                    format!("{0}x{0}", v.size),
                    format!("{:?}", r.end.escape).to_lowercase(),
                    r.movement.first.name(),
                    r.title
                );
            }
        }
        RulesCommand::Show { variant } => {
            let v = variant.load()?;
            println!(
                "{} ({})\nsource: {}\n",
                v.rules.title, v.rules.name, v.rules.source
            );
            print!("{}", ascii_board(&Position::start(&v)));
            let otn = export(&v);
            println!("\nOTN rules: {}", otn.text);
            for rule in &otn.inexpressible {
                println!("  not in OTN: {rule}");
            }
            println!();
            let mut params = toml::to_string_pretty(&v.rules)?;
            if let Some(i) = params.find("[board]") {
                params = params[i..].to_string();
            }
            println!("{params}");
            println!("symmetries: {} of 8", v.symmetries.len());
        }
        RulesCommand::ExportOtn { variant } => {
            let otn = export(&*variant.load()?);
            println!("{}", otn.text);
            for rule in &otn.inexpressible {
                eprintln!("not expressible in OpenTafl rules: {rule}");
            }
        }
        RulesCommand::ImportOtn { rules, toml } => {
            let text = if rules.trim_start().starts_with("dim:") {
                rules
            } else {
                std::fs::read_to_string(&rules)
                    .with_context(|| format!("reading OpenTafl rules from {rules}"))?
            };
            let imported = import(&text)?;
            let file = variant_file(&imported, &text);
            for note in &imported.approximations {
                eprintln!("approximated: {note}");
            }
            if let Some((preset, diffs)) = nearest_preset(&imported.rules) {
                eprintln!(
                    "nearest preset: {preset} ({} differences{})",
                    diffs.len(),
                    if diffs.is_empty() { "" } else { ":" }
                );
                for d in &diffs {
                    eprintln!("  {}: {} here, {} in {preset}", d.field, d.here, d.there);
                }
            }
            match toml {
                Some(path) => {
                    atomic::write(&path, &file)?;
                    eprintln!("wrote {}", path.display());
                }
                None => print!("{file}"),
            }
        }
    }
    Ok(())
}
