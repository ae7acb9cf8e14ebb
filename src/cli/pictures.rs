//! `tavlei render` (a position or a recorded game at a ply, as SVG and PNG) and `tavlei viewer`
//! (recorded games as one HTML page).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use tavlei::atomic;
use tavlei::interop::otg::read_games;
use tavlei::report::board::BoardPicture;
use tavlei::report::canvas::Picture;
use tavlei::report::viewer::{game_frames, viewer_html};
use tavlei::rules::notation::move_with_captures;

use super::args::{StartArgs, VariantArg};

#[derive(Args)]
pub struct RenderArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// The position to draw (default: the start), or the start of the recorded game.
    #[command(flatten)]
    start: StartArgs,
    /// Draw a game of this record file (self-play, match or balance-study records, or an
    /// OpenTafl game file).
    #[arg(long)]
    record: Option<PathBuf>,
    /// Which game of the record (0 = the first).
    #[arg(long, default_value_t = 0, requires = "record")]
    game: usize,
    /// The position after this many plies (default: the game's last).
    #[arg(long, requires = "record")]
    ply: Option<usize>,
    /// Write the picture as SVG here.
    #[arg(long, required_unless_present = "png")]
    svg: Option<PathBuf>,
    /// Write the picture as PNG here.
    #[arg(long)]
    png: Option<PathBuf>,
}

pub fn render(args: RenderArgs) -> Result<()> {
    let v = args.variant.load()?;
    let start = args.start.position(&v)?;
    let picture = match &args.record {
        None => BoardPicture::new(&start),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let games = read_games(&text, args.start.position.is_some())
                .with_context(|| path.display().to_string())?;
            let Some(game) = games.get(args.game) else {
                bail!(
                    "{} holds {} games; there is no game {}",
                    path.display(),
                    games.len(),
                    args.game
                );
            };
            let (frames, illegal) = game_frames(&start, &game.moves);
            let last = frames.len() - 1;
            let ply = args.ply.unwrap_or(last);
            if ply > last {
                match illegal {
                    Some(i) => bail!(
                        "game {} stops at ply {}: {} is illegal ({})",
                        args.game,
                        i.ply,
                        i.mv,
                        i.reason
                    ),
                    None => bail!("game {} has {last} plies; there is no ply {ply}", args.game),
                }
            }
            let frame = &frames[ply];
            let caption = match &frame.last {
                None => format!("game {}, start", args.game),
                Some((mv, captures)) => format!(
                    "game {}, ply {ply}: {}",
                    args.game,
                    move_with_captures(*mv, captures, v.size)
                ),
            };
            let picture = BoardPicture::new(&frame.position).with_caption(caption);
            match &frame.last {
                Some((mv, captures)) => picture.with_move(*mv, captures),
                None => picture,
            }
        }
    };
    if let Some(path) = &args.svg {
        atomic::write(path, picture.svg()?)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.png {
        atomic::write(path, picture.png()?)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

#[derive(Args)]
pub struct ViewerArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Every game starts from `--position` when given.
    #[command(flatten)]
    start: StartArgs,
    /// Record files (self-play `games-*.txt`, match `games.txt`, balance-study `games/*.txt`)
    /// or OpenTafl game files (`.otg`).
    #[arg(required = true)]
    records: Vec<PathBuf>,
    /// The HTML page to write.
    #[arg(long)]
    html: PathBuf,
}

pub fn viewer(args: ViewerArgs) -> Result<()> {
    let v = args.variant.load()?;
    let start = args.start.position(&v)?;
    let mut games = Vec::new();
    for path in &args.records {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        games.extend(
            read_games(&text, args.start.position.is_some())
                .with_context(|| path.display().to_string())?,
        );
    }
    if games.is_empty() {
        bail!("no games in {:?}", args.records);
    }
    atomic::write(&args.html, viewer_html(&v, &start, &games))?;
    println!("wrote {} ({} games)", args.html.display(), games.len());
    Ok(())
}
