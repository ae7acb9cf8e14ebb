//! Pictures as files: anything that draws itself on a plotters drawing area becomes SVG text, a
//! PNG image, or both written atomically. Text needs a TrueType font from this machine, found
//! once per process; plotters' `ab_glyph` backend needs no fontconfig.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::atomic;

/// The font family every picture draws its text in.
pub const FONT: &str = "sans-serif";

/// Where the text of pictures comes from: `TAVLEI_FONT`, else the first of these that exists.
const FONT_FILES: [&str; 6] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Why a picture could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error(
        "no font for the pictures' text: tried {} (install fonts-dejavu-core, or set TAVLEI_FONT to a .ttf file)",
        tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NoFont { tried: Vec<PathBuf> },
    #[error("font {}: {reason}", path.display())]
    BadFont { path: PathBuf, reason: String },
    #[error("drawing \"{title}\": {reason}")]
    Draw { title: String, reason: String },
    #[error(transparent)]
    Write(#[from] atomic::WriteError),
}

impl From<PlotError> for std::io::Error {
    fn from(e: PlotError) -> std::io::Error {
        match e {
            PlotError::Write(w) => w.into(),
            other => std::io::Error::other(other.to_string()),
        }
    }
}

/// Something drawn on a plotters drawing area: a chart, a board.
pub trait Picture {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);
    /// What it shows, for error messages.
    fn title(&self) -> String;
    /// Draws the whole picture on `area` (its top-left corner is (0, 0)).
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String>;

    /// The picture as SVG text.
    fn svg(&self) -> Result<String, PlotError> {
        load_font()?;
        let mut text = String::new();
        {
            let area = SVGBackend::with_string(&mut text, self.size()).into_drawing_area();
            self.draw(&area).map_err(|e| failed(self, e))?;
            area.present().map_err(|e| failed(self, e))?;
        }
        Ok(text)
    }

    /// The picture as a PNG image.
    fn png(&self) -> Result<Vec<u8>, PlotError> {
        load_font()?;
        let (width, height) = self.size();
        let mut pixels = vec![0u8; (width * height * 3) as usize];
        {
            let area = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
            self.draw(&area).map_err(|e| failed(self, e))?;
            area.present().map_err(|e| failed(self, e))?;
        }
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut w| w.write_image_data(&pixels))
            .map_err(|e| failed(self, e))?;
        Ok(bytes)
    }

    /// Writes the picture to `path` (`NAME.svg`) and beside it as `NAME.png`, each atomically.
    fn save(&self, path: &Path) -> Result<(), PlotError> {
        let (svg, png) = (self.svg()?, self.png()?);
        atomic::write(&path.with_extension("svg"), svg)?;
        atomic::write(&path.with_extension("png"), png)?;
        Ok(())
    }
}

fn failed<P: Picture + ?Sized>(picture: &P, reason: impl std::fmt::Display) -> PlotError {
    PlotError::Draw {
        title: picture.title(),
        reason: reason.to_string(),
    }
}

/// Registers a TrueType font for the pictures' text, once per process: `TAVLEI_FONT` if set,
/// else the first of FONT_FILES that exists.
fn load_font() -> Result<(), PlotError> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    let candidates: Vec<PathBuf> = match std::env::var_os("TAVLEI_FONT") {
        Some(path) => vec![PathBuf::from(path)],
        None => FONT_FILES.iter().map(PathBuf::from).collect(),
    };
    let outcome = LOADED.get_or_init(|| {
        let Some(path) = candidates.iter().find(|p| p.is_file()) else {
            return Err(String::new());
        };
        let bytes = std::fs::read(path).map_err(|e| format!("{}\0{e}", path.display()))?;
        // the font table wants bytes that live as long as the process: one font, read once
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font(FONT, FontStyle::Normal, bytes)
            .map_err(|_| format!("{}\0not a TrueType or OpenType font", path.display()))
    });
    match outcome {
        Ok(()) => Ok(()),
        Err(e) if e.is_empty() => Err(PlotError::NoFont { tried: candidates }),
        Err(e) => {
            let (path, reason) = e.split_once('\0').unwrap_or((e.as_str(), ""));
            Err(PlotError::BadFont {
                path: path.into(),
                reason: reason.into(),
            })
        }
    }
}
