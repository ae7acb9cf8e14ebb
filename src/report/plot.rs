//! Minimal SVG charts: lines (a series per curve, with optional error bars) and grouped bars
//! with intervals. Enough for loss curves, Elo by generation and balance comparisons.

use std::fmt::Write as _;

const W: f64 = 720.0;
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 160.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 90.0;
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

/// A named series of (x, y, optional ± error) points.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, Option<f64>)>,
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if (hi - lo).abs() < 1e-12 {
        return (lo - 0.5, hi + 0.5);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

fn frame(
    svg: &mut String,
    title: &str,
    x_label: &str,
    y_label: &str,
    x: (f64, f64),
    y: (f64, f64),
) {
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>"#
    );
    let _ = write!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        escape(title)
    );
    let (x0, y0, x1, y1) = (LEFT, H - BOTTOM, W - RIGHT, TOP);
    let _ = write!(
        svg,
        r#"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="black"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="black"/>"#
    );
    for i in 0..=4 {
        let f = i as f64 / 4.0;
        let (xv, yv) = (x.0 + f * (x.1 - x.0), y.0 + f * (y.1 - y.0));
        let (px, py) = (x0 + f * (x1 - x0), y0 - f * (y0 - y1));
        let _ = write!(
            svg,
            r#"<text x="{px}" y="{}" text-anchor="middle">{}</text>"#,
            y0 + 18.0,
            tick(xv)
        );
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text><line x1="{x0}" y1="{py}" x2="{x1}" y2="{py}" stroke="#ddd"/>"##,
            x0 - 6.0,
            py + 4.0,
            tick(yv)
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (x0 + x1) / 2.0,
        H - 15.0,
        escape(x_label)
    );
    let _ = write!(
        svg,
        r#"<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">{}</text>"#,
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0,
        escape(y_label)
    );
}

/// The `i`-th entry of the legend at the right: a swatch in the series' colour and its name.
fn legend_entry(svg: &mut String, i: usize, name: &str) {
    let colour = COLOURS[i % COLOURS.len()];
    let y = TOP + 20.0 * i as f64;
    let _ = write!(
        svg,
        r#"<rect x="{}" y="{y}" width="12" height="12" fill="{colour}"/><text x="{}" y="{}">{}</text>"#,
        W - RIGHT + 12.0,
        W - RIGHT + 30.0,
        y + 10.0,
        escape(name)
    );
}

fn tick(v: f64) -> String {
    if v.abs() >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// A line chart as SVG text.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let x = range(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let y = range(series.iter().flat_map(|s| {
        s.points
            .iter()
            .flat_map(|p| [p.1 - p.2.unwrap_or(0.0), p.1 + p.2.unwrap_or(0.0)])
    }));
    let mut svg = String::new();
    frame(&mut svg, title, x_label, y_label, x, y);
    let px = |v: f64| LEFT + (v - x.0) / (x.1 - x.0) * (W - RIGHT - LEFT);
    let py = |v: f64| H - BOTTOM - (v - y.0) / (y.1 - y.0) * (H - BOTTOM - TOP);
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let path: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for p in &s.points {
            if let Some(e) = p.2 {
                let _ = write!(
                    svg,
                    r#"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="{colour}"/>"#,
                    px(p.0),
                    py(p.1 - e),
                    py(p.1 + e)
                );
            }
            if s.points.len() <= 40 {
                let _ = write!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                    px(p.0),
                    py(p.1)
                );
            }
        }
        legend_entry(&mut svg, i, &s.name);
    }
    svg += "</svg>\n";
    svg
}

/// One group of bars (e.g. a variant) with a value and a (low, high) interval per category.
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<(f64, f64, f64)>,
}

/// A grouped bar chart as SVG text; `categories` name the bars of each group.
pub fn bar_chart(title: &str, y_label: &str, categories: &[&str], groups: &[BarGroup]) -> String {
    let y = (
        0.0,
        groups
            .iter()
            .flat_map(|g| g.bars.iter().map(|b| b.2.max(b.0)))
            .fold(0.0f64, f64::max)
            .max(1e-9)
            * 1.05,
    );
    let mut svg = String::new();
    frame(&mut svg, title, "", y_label, (0.0, 1.0), y);
    let plot_w = W - RIGHT - LEFT;
    let group_w = plot_w / groups.len().max(1) as f64;
    let bar_w = group_w * 0.8 / categories.len().max(1) as f64;
    let py = |v: f64| H - BOTTOM - (v - y.0) / (y.1 - y.0) * (H - BOTTOM - TOP);
    // hide the numeric x ticks of the frame under the group labels
    let _ = write!(
        svg,
        r#"<rect x="{}" y="{}" width="{}" height="22" fill="white"/>"#,
        LEFT - 30.0,
        H - BOTTOM + 2.0,
        plot_w + 60.0
    );
    for (gi, g) in groups.iter().enumerate() {
        let gx = LEFT + gi as f64 * group_w + group_w * 0.1;
        for (bi, &(v, lo, hi)) in g.bars.iter().enumerate() {
            let colour = COLOURS[bi % COLOURS.len()];
            let x = gx + bi as f64 * bar_w;
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/>"#,
                py(v),
                bar_w * 0.9,
                (py(0.0) - py(v)).max(0.0)
            );
            let cx = x + bar_w * 0.45;
            let _ = write!(
                svg,
                r#"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="black"/>"#,
                py(lo),
                py(hi)
            );
        }
        let label_x = gx + group_w * 0.4;
        let _ = write!(
            svg,
            r#"<text x="{label_x:.1}" y="{}" text-anchor="end" transform="rotate(-35 {label_x:.1} {})">{}</text>"#,
            H - BOTTOM + 14.0,
            H - BOTTOM + 14.0,
            escape(&g.label)
        );
    }
    for (i, c) in categories.iter().enumerate() {
        legend_entry(&mut svg, i, c);
    }
    svg += "</svg>\n";
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_well_formed_svg() {
        let s = line_chart(
            "loss",
            "step",
            "loss",
            &[Series {
                name: "policy".into(),
                points: vec![(0.0, 2.0, None), (10.0, 1.0, Some(0.1))],
            }],
        );
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains("<polyline") && s.contains("policy"));
        let b = bar_chart(
            "balance",
            "share",
            &["att", "def"],
            &[BarGroup {
                label: "a<b".into(),
                bars: vec![(0.4, 0.3, 0.5), (0.6, 0.5, 0.7)],
            }],
        );
        assert!(b.contains("a&lt;b") && b.matches("<rect").count() >= 4);
    }
}
