//! The preset variant files of RULES.md, compiled into the binary so a preset name works from
//! anywhere; the same files live in `configs/variants/` for users to read and copy.

macro_rules! presets {
    ($($name:literal),* $(,)?) => {
        /// Preset names in the order `tavlei rules list` shows them.
        pub const PRESET_NAMES: &[&str] = &[$($name),*];
        const PRESET_TEXTS: &[&str] = &[$(include_str!(concat!("../../../configs/variants/", $name, ".toml"))),*];
    };
}

presets!(
    "tavlei",
    "hnefatafl",
    "copenhagen",
    "fetlar",
    "skalk",
    "skalk_9",
    "sea_tafl",
    "sea_tafl_king4",
    "sea_tafl_11",
    "berserk",
    "tablut",
    "saami_tablut",
    "saami_tablut_11",
    "tawlbwrdd",
    "brown",
    "old_tablut",
    "reconstruction",
    "reconstruction_13",
    "reconstruction_dice",
    "brandubh",
    "alea_evangelii",
);

/// The text of a preset's variant file.
pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESET_NAMES
        .iter()
        .position(|&n| n == name)
        .map(|i| PRESET_TEXTS[i])
}
