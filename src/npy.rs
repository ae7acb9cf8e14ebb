//! The `.npy` format's header (version 1.0, C order), shared by the NumPy export
//! (`data::npz`) and the ONNX check (`nn::onnx`), which exchanges arrays with Python.

/// The header of an `.npy` file (format 1.0, C order), padded so the data starts on a multiple
/// of 64 bytes.
pub fn npy_header(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // magic (6) + version (2) + header length (2) + dict + '\n'
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// A parsed `.npy` header (only what [`npy_header`] writes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyHeader {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
    /// Where the data starts.
    pub data_offset: usize,
}

/// Parses the header of a version 1.0 `.npy` file; `None` if it is not one.
pub fn parse_npy_header(bytes: &[u8]) -> Option<NpyHeader> {
    if bytes.len() < 10 || &bytes[..8] != b"\x93NUMPY\x01\x00" {
        return None;
    }
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let dict = std::str::from_utf8(bytes.get(10..10 + len)?).ok()?;
    let field = |key: &str| {
        let start = dict.find(&format!("'{key}': "))? + key.len() + 4;
        Some(&dict[start..])
    };
    let descr = field("descr")?
        .strip_prefix('\'')?
        .split('\'')
        .next()?
        .to_string();
    let fortran_order = field("fortran_order")?.starts_with("True");
    let dims = field("shape")?.strip_prefix('(')?.split(')').next()?;
    let shape = dims
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().ok())
        .collect::<Option<Vec<usize>>>()?;
    Some(NpyHeader {
        descr,
        fortran_order,
        shape,
        data_offset: 10 + len,
    })
}
