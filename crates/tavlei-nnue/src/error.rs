//! Everything that can go wrong reading, writing or building an evaluation network.

use std::path::PathBuf;

/// An error of this crate; file errors name the file and what in it is wrong.
#[derive(Debug, thiserror::Error)]
pub enum NnueError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a safetensors file: {reason}")]
    Format { path: PathBuf, reason: String },
    #[error("{path}: metadata key `{key}`: {reason}")]
    Metadata {
        path: PathBuf,
        key: String,
        reason: String,
    },
    #[error("{path}: tensor `{tensor}` is missing")]
    MissingTensor { path: PathBuf, tensor: String },
    #[error("{path}: tensor `{tensor}` has dtype {found}, expected {expected}")]
    Dtype {
        path: PathBuf,
        tensor: String,
        found: String,
        expected: String,
    },
    #[error("{path}: tensor `{tensor}` has shape {found:?}, expected {expected:?}")]
    Shape {
        path: PathBuf,
        tensor: String,
        found: Vec<usize>,
        expected: Vec<usize>,
    },
    #[error("the network is for variant `{network}`, not `{requested}`")]
    Variant { network: String, requested: String },
    #[error("the network is for a {network}x{network} board, not {requested}x{requested}")]
    BoardSize { network: usize, requested: usize },
    #[error("float network: `{tensor}` has {found} values, expected {expected}")]
    Length {
        tensor: String,
        found: usize,
        expected: usize,
    },
    #[error(
        "quantisation: `{tensor}`[{index}] = {value} is outside the range of its integer type"
    )]
    OutOfRange {
        tensor: String,
        index: usize,
        value: f32,
    },
    #[error(
        "quantisation: accumulator column {column} can reach {bound}, beyond i16 (keep `ft.weight` \
         and `ft.bias` smaller)"
    )]
    AccumulatorRange { column: usize, bound: i64 },
    #[error("bad network shape: {0}")]
    Dimensions(String),
}
