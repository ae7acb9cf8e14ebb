//! Plain-text tables with aligned columns.

/// Renders rows under a header; a column whose cells all look numeric is right-aligned,
/// its header too.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let numeric = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+')
            && !s.contains(char::is_alphabetic)
    };
    let right: Vec<bool> = (0..columns)
        .map(|i| !rows.is_empty() && rows.iter().all(|r| r.get(i).is_none_or(|c| numeric(c))))
        .collect();
    let line = |cells: Vec<&str>| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .take(columns)
            .map(|(i, c)| {
                if right[i] {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = line(header.to_vec());
    out.push('\n');
    out += &widths
        .iter()
        .map(|&w| "-".repeat(w))
        .collect::<Vec<_>>()
        .join("  ");
    out.push('\n');
    for row in rows {
        out += &line(row.iter().map(String::as_str).collect());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns_columns() {
        let t = super::render(
            &["name", "n"],
            &[
                vec!["a".into(), "10".into()],
                vec!["bbb".into(), "2".into()],
            ],
        );
        assert_eq!(t, "name   n\n----  --\na     10\nbbb    2\n");
    }
}
