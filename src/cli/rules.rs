//! `tavlei rules list` and `tavlei rules show --variant V`.

use anyhow::Result;
use clap::Subcommand;
use tavlei::rules::notation::{ascii_board, rules_string};
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::{Position, Variant};

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
}

pub fn run(cmd: RulesCommand) -> Result<()> {
    match cmd {
        RulesCommand::List => {
            println!(
                "{:<20} {:>5}  {:<8} {:<10} title",
                "name", "size", "escape", "first"
            );
            for name in PRESET_NAMES {
                let v = Variant::load(name)?;
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
            println!("\nOTN rules: {}\n", rules_string(&v));
            let mut params = toml::to_string_pretty(&v.rules)?;
            if let Some(i) = params.find("[board]") {
                params = params[i..].to_string();
            }
            println!("{params}");
            println!("symmetries: {} of 8", v.symmetries.len());
        }
    }
    Ok(())
}
