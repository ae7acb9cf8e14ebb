//! Charts as SVG and PNG through `plotters`: lines (a series per curve, with optional error bars)
//! and grouped bars with intervals. Enough for loss curves, Elo by generation and balance
//! comparisons. Tick labels are round numbers printed with the decimals their spacing needs, every
//! mark stays inside its axes, and the legend sits in its own strip sized for its longest name.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::FONT;
pub use super::canvas::{Picture, PlotError};

const WIDTH: u32 = 800;
const HEIGHT: u32 = 460;
const COLOURS: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];
/// Longest legend entry, in characters; longer names keep their end (a checkpoint's file name).
const LEGEND_CHARS: usize = 40;
/// An estimate of a character's width at the chart's text size, for sizing the legend strip.
const CHAR_PX: u32 = 7;

/// A point of a line: x, y and an optional (low, high) interval around y.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// A named series of points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

/// One group of bars (e.g. a variant) with a value and a (low, high) interval per category.
#[derive(Clone, Debug)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<(f64, f64, f64)>,
}

#[derive(Clone, Debug)]
enum Body {
    Lines(Vec<Series>),
    Bars {
        categories: Vec<String>,
        groups: Vec<BarGroup>,
    },
}

/// A chart, drawn to SVG or PNG on demand.
#[derive(Clone, Debug)]
pub struct Chart {
    title: String,
    x_label: String,
    y_label: String,
    y_range: Option<(f64, f64)>,
    x_marks: Option<Vec<(f64, String)>>,
    body: Body,
}

/// A line chart; series without points are left out.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> Chart {
    Chart {
        title: title.into(),
        x_label: x_label.into(),
        y_label: y_label.into(),
        y_range: None,
        x_marks: None,
        body: Body::Lines(
            series
                .iter()
                .filter(|s| !s.points.is_empty())
                .cloned()
                .collect(),
        ),
    }
}

/// A grouped bar chart; `categories` name the bars of each group. The y axis starts at 0.
pub fn bar_chart(title: &str, y_label: &str, categories: &[&str], groups: &[BarGroup]) -> Chart {
    Chart {
        title: title.into(),
        x_label: String::new(),
        y_label: y_label.into(),
        y_range: None,
        x_marks: None,
        body: Body::Bars {
            categories: categories.iter().map(|c| c.to_string()).collect(),
            groups: groups.to_vec(),
        },
    }
}

impl Picture for Chart {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }

    fn title(&self) -> String {
        self.title.clone()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let canvas = root;
        let root = root
            .titled(&self.title, (FONT, 17))
            .map_err(|e| e.to_string())?;
        let names: Vec<String> = self.names().iter().map(|n| shorten(n)).collect();
        let legend_px = names
            .iter()
            .map(|n| n.chars().count() as u32 * CHAR_PX + 40)
            .max()
            .unwrap_or(0);
        let (plot, legend) = root.split_horizontally(WIDTH - legend_px);
        match &self.body {
            Body::Lines(series) => self.draw_lines(&plot, series),
            Body::Bars { groups, .. } => self.draw_bars(canvas, &plot, groups),
        }?;
        for (i, name) in names.iter().enumerate() {
            let y = 30 + 22 * i as i32;
            let colour = COLOURS[i % COLOURS.len()];
            legend
                .draw(&Rectangle::new([(8, y), (20, y + 12)], colour.filled()))
                .and_then(|_| {
                    legend.draw(&Text::new(
                        name.clone(),
                        (28, y + 6),
                        TextStyle::from((FONT, 13)).pos(Pos::new(HPos::Left, VPos::Center)),
                    ))
                })
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

impl Chart {
    /// Fixes the y axis (shares go from 0 to 1) instead of fitting it to the data; points outside
    /// still widen it, so nothing is drawn beyond the axes.
    pub fn y_range(mut self, low: f64, high: f64) -> Chart {
        self.y_range = Some((low, high));
        self
    }

    /// Named marks on the x axis (e.g. strength levels) instead of round numbers.
    pub fn x_marks(mut self, marks: Vec<(f64, String)>) -> Chart {
        self.x_marks = Some(marks);
        self
    }

    fn names(&self) -> Vec<String> {
        match &self.body {
            Body::Lines(series) => series.iter().map(|s| s.name.clone()).collect(),
            Body::Bars { categories, .. } => categories.clone(),
        }
    }

    fn draw_lines<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        series: &[Series],
    ) -> Result<(), String> {
        let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
        let marked = self.x_marks.iter().flatten().map(|m| m.0);
        let x_span = span(xs.chain(marked), None);
        let x = match &self.x_marks {
            Some(marks) => {
                // named marks are wide: keep the outer ones off the edges
                let pad = (x_span.1 - x_span.0) * 0.1;
                Axis::marked((x_span.0 - pad, x_span.1 + pad), marks.clone())
            }
            None => Axis::round(x_span),
        };
        let y = Axis::round(span(
            series.iter().flat_map(|s| {
                s.points.iter().flat_map(|p| {
                    let (low, high) = p.2.unwrap_or((p.1, p.1));
                    [p.1, low, high]
                })
            }),
            self.y_range,
        ));
        let (y_low, y_high) = (y.low, y.high);
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(65)
            .build_cartesian_2d(x, y)
            .map_err(|e| e.to_string())?;
        self.mesh(&mut chart)?;
        for (i, s) in series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let points = s.points.iter().map(|p| (p.0, p.1));
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                .map_err(|e| e.to_string())?;
            // an unbounded interval (an Elo of +inf) runs to the edge of the axes
            let clamp = |v: f64| v.clamp(y_low, y_high);
            chart
                .draw_series(s.points.iter().filter_map(|p| {
                    p.2.map(|(low, high)| {
                        ErrorBar::new_vertical(p.0, clamp(low), p.1, clamp(high), colour, 8)
                    })
                }))
                .map_err(|e| e.to_string())?;
            if s.points.len() <= 40 {
                chart
                    .draw_series(
                        s.points
                            .iter()
                            .map(|p| Circle::new((p.0, p.1), 3, colour.filled())),
                    )
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn mesh<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<Axis, Axis>>,
    ) -> Result<(), String> {
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
            .draw()
            .map_err(|e| e.to_string())
    }

    /// Bars in `area`; the group labels, turned to read downwards, go on `canvas` (the whole
    /// image: plotters' axis labels would centre turned text on its tick, half inside the axes).
    fn draw_bars<DB: DrawingBackend>(
        &self,
        canvas: &DrawingArea<DB, Shift>,
        area: &DrawingArea<DB, Shift>,
        groups: &[BarGroup],
    ) -> Result<(), String> {
        let n = groups.len().max(1);
        // every bar starts at 0 and stays under the top of the axis, intervals included
        let (low, high) = span(
            groups
                .iter()
                .flat_map(|g| g.bars.iter().flat_map(|b| [0.0, b.0, b.2])),
            self.y_range,
        );
        let y = Axis::round((low.min(0.0), high));
        let y_low = y.low;
        let longest = groups
            .iter()
            .map(|g| g.label.chars().count() as u32)
            .max()
            .unwrap_or(0);
        // group i spans [i, i + 1]; its mark is unlabelled, its name drawn below
        let x = Axis::marked(
            (0.0, n as f64),
            (0..n).map(|i| (i as f64 + 0.5, String::new())).collect(),
        );
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(longest * CHAR_PX + 20)
            .y_label_area_size(65)
            .build_cartesian_2d(x, y)
            .map_err(|e| e.to_string())?;
        self.mesh(&mut chart)?;
        for (gi, g) in groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(gi as f64 + 0.5, y_low));
            canvas
                .draw(&Text::new(
                    g.label.clone(),
                    (x, y + 8),
                    TextStyle::from((FONT, 12))
                        .transform(FontTransform::Rotate90)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(|e| e.to_string())?;
            let width = 0.8 / g.bars.len().max(1) as f64;
            for (bi, &(value, low, high)) in g.bars.iter().enumerate() {
                let colour = COLOURS[bi % COLOURS.len()];
                let left = gi as f64 + 0.1 + bi as f64 * width;
                let right = left + width * 0.9;
                let centre = (left + right) / 2.0;
                chart
                    .draw_series([Rectangle::new(
                        [(left, 0.0), (right, value)],
                        colour.filled(),
                    )])
                    .map_err(|e| e.to_string())?;
                chart
                    .draw_series([ErrorBar::new_vertical(centre, low, value, high, BLACK, 4)])
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
}

/// A linear axis with its own marks: round numbers (1, 2 or 5 times a power of ten apart,
/// printed with the decimals that spacing needs) or named marks.
#[derive(Clone)]
struct Axis {
    low: f64,
    high: f64,
    marks: Vec<f64>,
    names: Option<Vec<String>>,
    step: f64,
}

impl Axis {
    /// Round marks over (low, high); the range grows to the marks just outside the data, so the
    /// axis begins and ends on a labelled value.
    fn round((low, high): (f64, f64)) -> Axis {
        let step = round_step((high - low) / 6.0);
        let first = (low / step).floor() * step;
        let last = (high / step).ceil() * step;
        let count = ((last - first) / step).round() as usize;
        Axis {
            low: first,
            high: last,
            marks: (0..=count).map(|i| first + i as f64 * step).collect(),
            names: None,
            step,
        }
    }

    fn marked((low, high): (f64, f64), marks: Vec<(f64, String)>) -> Axis {
        let (marks, names): (Vec<f64>, Vec<String>) = marks.into_iter().unzip();
        Axis {
            low,
            high,
            marks,
            names: Some(names),
            step: 1.0,
        }
    }
}

impl Ranged for Axis {
    type FormatOption = plotters::coord::ranged1d::NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value - self.low) / (self.high - self.low);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // bold marks only: no unlabelled light grid between them
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.marks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.low..self.high
    }
}

impl plotters::coord::ranged1d::ValueFormatter<f64> for Axis {
    fn format_ext(&self, value: &f64) -> String {
        match &self.names {
            Some(names) => self
                .marks
                .iter()
                .position(|m| (m - value).abs() < 1e-9)
                .and_then(|i| names.get(i))
                .cloned()
                .unwrap_or_default(),
            None => tick_label(*value, self.step),
        }
    }
}

/// The smallest of 1, 2 and 5 times a power of ten that is at least `raw`.
fn round_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// The range of these values, or `fixed` widened to take any value outside it (the axis then
/// rounds it out to its marks).
fn span(values: impl Iterator<Item = f64>, fixed: Option<(f64, f64)>) -> (f64, f64) {
    let (mut low, mut high) = fixed.unwrap_or((f64::INFINITY, f64::NEG_INFINITY));
    for v in values.filter(|v| v.is_finite()) {
        low = low.min(v);
        high = high.max(v);
    }
    if !low.is_finite() || !high.is_finite() {
        return (0.0, 1.0);
    }
    if (high - low).abs() < 1e-12 {
        return (low - 0.5, high + 0.5);
    }
    (low, high)
}

/// A tick label with the decimals that marks `step` apart need (no float noise such as
/// 0.30000000000000004, no "-0").
fn tick_label(value: f64, step: f64) -> String {
    let decimals = if step > 0.0 && step < 1.0 {
        (-step.log10()).ceil().clamp(0.0, 9.0) as usize
    } else {
        0
    };
    let text = format!("{value:.decimals$}");
    if text
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        text.trim_start_matches('-').to_string()
    } else {
        text
    }
}

/// A legend name cut to LEGEND_CHARS, keeping its end.
fn shorten(name: &str) -> String {
    let count = name.chars().count();
    if count <= LEGEND_CHARS {
        return name.to_string();
    }
    let tail: String = name.chars().skip(count - (LEGEND_CHARS - 1)).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::coord::ranged1d::ValueFormatter;

    fn lines() -> Chart {
        line_chart(
            "loss",
            "step",
            "loss",
            &[
                Series {
                    name: "policy".into(),
                    points: vec![(0.0, 2.0, None), (10.0, 1.0, Some((0.9, 1.2)))],
                },
                Series {
                    name: "empty".into(),
                    points: vec![],
                },
            ],
        )
    }

    fn bars() -> Chart {
        bar_chart(
            "balance",
            "share",
            &["att", "def"],
            &[BarGroup {
                label: "a<b".into(),
                bars: vec![(0.4, 0.3, 0.5), (0.6, 0.5, 0.7)],
            }],
        )
        .y_range(0.0, 1.0)
    }

    #[test]
    fn charts_are_svg_with_their_text_escaped_and_empty_series_left_out() {
        let s = lines().svg().unwrap();
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains("<polyline") && s.contains("policy") && !s.contains("empty"));
        let b = bars().svg().unwrap();
        assert!(b.contains("a&lt;b") && !b.contains("a<b"));
        assert!(b.matches("<rect").count() >= 4, "two bars and two swatches");
    }

    #[test]
    fn charts_are_png_images_of_the_chart_size() {
        for chart in [lines(), bars()] {
            let png = chart.png().unwrap();
            let decoder = png::Decoder::new(std::io::Cursor::new(png));
            let reader = decoder.read_info().unwrap();
            let info = reader.info();
            assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
        }
    }

    #[test]
    fn tick_labels_are_round_without_float_noise() {
        assert_eq!(tick_label(0.1 + 0.2, 0.1), "0.3");
        assert_eq!(tick_label(3.0, 1.0), "3");
        assert_eq!(tick_label(-0.0001, 1.0), "0");
        assert_eq!(tick_label(1200.0, 200.0), "1200");
        assert_eq!(tick_label(0.025, 0.005), "0.025");
        assert_eq!(tick_label(0.4, 0.2), "0.4");
    }

    #[test]
    fn axes_run_from_round_mark_to_round_mark() {
        assert_eq!(round_step(0.17), 0.2);
        assert_eq!(round_step(1.6), 2.0);
        assert_eq!(round_step(300.0), 500.0);
        assert_eq!(round_step(0.0), 1.0);
        let axis = Axis::round((-0.2, 9.2));
        assert_eq!((axis.low, axis.high, axis.step), (-2.0, 10.0, 2.0));
        assert_eq!(axis.marks, vec![-2.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let labels: Vec<String> = axis.marks.iter().map(|m| axis.format_ext(m)).collect();
        assert_eq!(labels, ["-2", "0", "2", "4", "6", "8", "10"]);
        let shares = Axis::round((0.0, 1.0));
        assert_eq!(shares.format_ext(&shares.marks[3]), "0.6");
        let named = Axis::marked(
            (0.0, 3.0),
            vec![(1.0, "t=10ms".into()), (2.0, "t=40ms".into())],
        );
        assert_eq!(named.format_ext(&2.0), "t=40ms");
    }

    #[test]
    fn fixed_ranges_hold_unless_data_falls_outside() {
        assert_eq!(span([0.2, 0.7].into_iter(), Some((0.0, 1.0))), (0.0, 1.0));
        assert_eq!(span([-0.2, 0.7].into_iter(), Some((0.0, 1.0))), (-0.2, 1.0));
        assert_eq!(span([0.2, 0.7].into_iter(), None), (0.2, 0.7));
        assert_eq!(span(std::iter::empty(), None), (0.0, 1.0));
        assert_eq!(span([2.0].into_iter(), None), (1.5, 2.5));
    }

    #[test]
    fn long_legend_names_keep_their_end() {
        let name = format!("net:{}/gen-008/model.safetensors:32", "x".repeat(60));
        let short = shorten(&name);
        assert_eq!(short.chars().count(), LEGEND_CHARS);
        assert!(short.starts_with('…') && short.ends_with("model.safetensors:32"));
        assert_eq!(shorten("policy"), "policy");
    }
}
