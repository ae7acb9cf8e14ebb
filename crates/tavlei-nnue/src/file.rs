//! The `.nnue` file: safetensors with the integer tensors and a `__metadata__` that names the
//! format, its version, the feature set, the variant and the sizes.
//!
//! The writer lays the header out itself (metadata keys sorted, tensors in a fixed order) so that
//! one network always gives the same bytes; the safetensors crate's writer orders metadata by a
//! `HashMap`. Reading goes through the safetensors crate, which validates the layout.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use safetensors::tensor::{Dtype, SafeTensorError, SafeTensors};

use crate::error::NnueError;
use crate::features::{self, FeatureSet};
use crate::meta::Meta;
use crate::network::{check_dimensions, pad, stride_of, unpad, Network};
use crate::{EVAL_PER_LOGIT, QA, QB};

pub const FORMAT: &str = "tavlei-nnue";
pub const VERSION: &str = "1";

/// Metadata keys this crate writes and checks; every other key is provenance.
const RESERVED: [&str; 10] = [
    "format",
    "version",
    "features",
    "variant",
    "board_size",
    "width",
    "hidden",
    "qa",
    "qb",
    "eval_per_logit",
];

/// One tensor as stored: name, dtype, shape, little-endian bytes.
struct Stored {
    name: &'static str,
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

fn dtype_name(dtype: Dtype) -> String {
    format!("{dtype:?}")
}

fn le_bytes<T: Copy, const K: usize>(values: &[T], to: impl Fn(T) -> [u8; K]) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}

/// The tensors in file order: widest dtype first (safetensors' own order, which keeps each
/// tensor aligned to its element size), then by name.
fn tensors(net: &Network) -> Vec<Stored> {
    let (f, n, h) = (net.features.count(), net.meta.width, net.meta.hidden);
    let stride = net.stride;
    let l1_weight: Vec<i8> = unpad(&net.l1_weight, n, stride)
        .iter()
        .map(|&w| w as i8)
        .collect();
    vec![
        Stored {
            name: "l1.bias",
            dtype: Dtype::I32,
            shape: vec![2, h],
            bytes: le_bytes(&net.l1_bias, i32::to_le_bytes),
        },
        Stored {
            name: "out.bias",
            dtype: Dtype::I32,
            shape: vec![2],
            bytes: le_bytes(&net.out_bias, i32::to_le_bytes),
        },
        Stored {
            name: "out.weight",
            dtype: Dtype::I32,
            shape: vec![2, h],
            bytes: le_bytes(&net.out_weight, i32::to_le_bytes),
        },
        Stored {
            name: "ft.bias",
            dtype: Dtype::I16,
            shape: vec![n],
            bytes: le_bytes(&unpad(&net.ft_bias, n, stride), i16::to_le_bytes),
        },
        Stored {
            name: "ft.weight",
            dtype: Dtype::I16,
            shape: vec![f, n],
            bytes: le_bytes(&unpad(&net.ft_weight, n, stride), i16::to_le_bytes),
        },
        Stored {
            name: "l1.weight",
            dtype: Dtype::I8,
            shape: vec![2, h, n],
            bytes: le_bytes(&l1_weight, i8::to_le_bytes),
        },
    ]
}

fn metadata(meta: &Meta) -> BTreeMap<String, String> {
    let mut map = meta.provenance.clone();
    let fixed = [
        ("format", FORMAT.to_string()),
        ("version", VERSION.to_string()),
        ("features", features::NAME.to_string()),
        ("variant", meta.variant.clone()),
        ("board_size", meta.board_size.to_string()),
        ("width", meta.width.to_string()),
        ("hidden", meta.hidden.to_string()),
        ("qa", QA.to_string()),
        ("qb", QB.to_string()),
        ("eval_per_logit", EVAL_PER_LOGIT.to_string()),
    ];
    for (key, value) in fixed {
        map.insert(key.to_string(), value);
    }
    map
}

/// The whole file's bytes.
pub(crate) fn to_bytes(net: &Network) -> Vec<u8> {
    let tensors = tensors(net);
    let json = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut header = String::from("{\"__metadata__\":{");
    let entries: Vec<String> = metadata(&net.meta)
        .iter()
        .map(|(k, v)| format!("{}:{}", json(k), json(v)))
        .collect();
    header.push_str(&entries.join(","));
    header.push('}');
    let mut offset = 0;
    for t in &tensors {
        let shape: Vec<String> = t.shape.iter().map(usize::to_string).collect();
        header.push_str(&format!(
            ",{}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
            json(t.name),
            dtype_name(t.dtype),
            shape.join(","),
            offset,
            offset + t.bytes.len()
        ));
        offset += t.bytes.len();
    }
    header.push('}');
    // safetensors pads the header with spaces to a multiple of 8 so the data starts aligned
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut out = Vec::with_capacity(8 + header.len() + offset);
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for t in &tensors {
        out.extend_from_slice(&t.bytes);
    }
    out
}

pub(crate) fn save(net: &Network, path: &Path) -> Result<(), NnueError> {
    let io = |source| NnueError::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp: PathBuf = path.with_file_name(format!(
        ".{}.tmp.{}",
        name.unwrap_or_else(|| "network".into()),
        std::process::id()
    ));
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(&to_bytes(net))?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io(e)
    })
}

fn format_error(path: &Path, e: SafeTensorError) -> NnueError {
    let reason = match e {
        SafeTensorError::HeaderTooSmall
        | SafeTensorError::InvalidHeaderLength
        | SafeTensorError::MetadataIncompleteBuffer => {
            "truncated, or its header and tensors do not add up to its length".to_string()
        }
        other => format!("{other:?}"),
    };
    NnueError::Format {
        path: path.to_path_buf(),
        reason,
    }
}

struct Reader<'a> {
    path: &'a Path,
    meta: HashMap<String, String>,
}

impl Reader<'_> {
    fn key(&self, key: &str) -> Result<&str, NnueError> {
        self.meta
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| NnueError::Metadata {
                path: self.path.to_path_buf(),
                key: key.to_string(),
                reason: "missing".to_string(),
            })
    }

    fn expect(&self, key: &str, expected: &str) -> Result<(), NnueError> {
        let found = self.key(key)?;
        if found == expected {
            return Ok(());
        }
        Err(NnueError::Metadata {
            path: self.path.to_path_buf(),
            key: key.to_string(),
            reason: format!("`{found}`, expected `{expected}`"),
        })
    }

    fn number(&self, key: &str) -> Result<usize, NnueError> {
        let text = self.key(key)?;
        text.parse().map_err(|_| NnueError::Metadata {
            path: self.path.to_path_buf(),
            key: key.to_string(),
            reason: format!("`{text}` is not a number"),
        })
    }
}

/// The tensor `name`'s bytes after checking its dtype and shape.
fn tensor_bytes<'a>(
    path: &Path,
    file: &'a SafeTensors<'a>,
    name: &str,
    dtype: Dtype,
    shape: &[usize],
) -> Result<&'a [u8], NnueError> {
    let view = file.tensor(name).map_err(|_| NnueError::MissingTensor {
        path: path.to_path_buf(),
        tensor: name.to_string(),
    })?;
    if view.dtype() != dtype {
        return Err(NnueError::Dtype {
            path: path.to_path_buf(),
            tensor: name.to_string(),
            found: dtype_name(view.dtype()),
            expected: dtype_name(dtype),
        });
    }
    if view.shape() != shape {
        return Err(NnueError::Shape {
            path: path.to_path_buf(),
            tensor: name.to_string(),
            found: view.shape().to_vec(),
            expected: shape.to_vec(),
        });
    }
    Ok(view.data())
}

pub(crate) fn load(path: &Path) -> Result<Network, NnueError> {
    let bytes = fs::read(path).map_err(|source| NnueError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    from_bytes(path, &bytes)
}

/// Parses a file's bytes; `path` only names it in errors.
pub(crate) fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Network, NnueError> {
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| format_error(path, e))?;
    let reader = Reader {
        path,
        meta: header.metadata().clone().unwrap_or_default(),
    };
    reader.expect("format", FORMAT)?;
    reader.expect("version", VERSION)?;
    reader.expect("features", features::NAME)?;
    reader.expect("qa", &QA.to_string())?;
    reader.expect("qb", &QB.to_string())?;
    reader.expect("eval_per_logit", &EVAL_PER_LOGIT.to_string())?;
    let meta = Meta {
        variant: reader.key("variant")?.to_string(),
        board_size: reader.number("board_size")?,
        width: reader.number("width")?,
        hidden: reader.number("hidden")?,
        provenance: reader
            .meta
            .iter()
            .filter(|(k, _)| !RESERVED.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    check_dimensions(&meta).map_err(|e| NnueError::Metadata {
        path: path.to_path_buf(),
        key: "board_size/width/hidden".to_string(),
        reason: e.to_string(),
    })?;
    let features = FeatureSet::new(meta.board_size);
    let (f, n, h) = (features.count(), meta.width, meta.hidden);
    let file = SafeTensors::deserialize(bytes).map_err(|e| format_error(path, e))?;
    let read = |name, dtype, shape: &[usize]| tensor_bytes(path, &file, name, dtype, shape);
    let i16s = |b: &[u8]| -> Vec<i16> {
        b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    };
    let i32s = |b: &[u8]| -> Vec<i32> {
        b.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let stride = stride_of(n);
    let l1_weight: Vec<i16> = read("l1.weight", Dtype::I8, &[2, h, n])?
        .iter()
        .map(|&b| b as i8 as i16)
        .collect();
    let net = Network {
        features,
        stride,
        ft_weight: pad(&i16s(read("ft.weight", Dtype::I16, &[f, n])?), n, stride),
        ft_bias: pad(&i16s(read("ft.bias", Dtype::I16, &[n])?), n, stride),
        l1_weight: pad(&l1_weight, n, stride),
        l1_bias: i32s(read("l1.bias", Dtype::I32, &[2, h])?),
        out_weight: i32s(read("out.weight", Dtype::I32, &[2, h])?),
        out_bias: i32s(read("out.bias", Dtype::I32, &[2])?),
        meta,
    };
    // a file not written by `quantise` could wrap the i16 sums silently
    net.check_accumulator_range()?;
    Ok(net)
}
