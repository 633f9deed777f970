//! Inline SVG charts for the statistics screens (a question's page, "Needs attention",
//! the dashboard) and the number formats they share with the pages around them.
//!
//! Each chart is a whole `<svg>` element as a `String`, for a template's `|safe`: every
//! text in it is escaped here (option texts come from staff), its colours are classes of
//! the console stylesheet (`svg.chart`), and it holds no script. A `viewBox` with
//! `width="100%"` scales it with its box; `role="img"` with an `aria-label` (and a
//! `<title>` for the tooltip) gives screen readers, which skip the shapes, the numbers.
//! Rendering is pure: no request, database or clock, so the tests here cover it all.
//! Its words (summaries, tooltips, "no data" texts) are the catalogues' `chart-*`
//! messages in the language the caller passes (the page's: `i18n::current()`).

use std::fmt::{self, Write as _};

use chrono::NaiveDate;

use super::i18n::Lang;

/// One answer option of a question, as the pick-rate chart shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionBar {
    pub text: String,
    pub is_correct: bool,
    /// How many answers picked this option.
    pub picks: i64,
    /// `picks` over the question's answers, `0..=1`; `None` while it has no answers.
    pub pick_rate: Option<f64>,
}

/// One day of a daily series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DailyPoint {
    pub day: NaiveDate,
    /// `None`: no data that day (drawn as a gap, never as a zero).
    pub value: Option<f64>,
}

/// How a series' values read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueFormat {
    /// A rate in `0..=1`, shown as a percentage on a 0–100 % axis.
    Percent,
    /// A count, shown as a whole number on a `0..max` axis.
    Count,
}

impl ValueFormat {
    /// `value` as the pages print it (`87.5 %`, `1,234`).
    pub fn format(self, value: f64) -> String {
        match self {
            Self::Percent => format_percent(value),
            // `as` saturates (and NaN is 0): no panic on any f64.
            Self::Count => format_count(value.round() as i64),
        }
    }
}

/// What a missing number prints as.
const NONE: &str = "–";

/// `1234567` → `1,234,567`.
pub(crate) fn format_count(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate in `0..=1` as `87.5 %` (one decimal); `–` for a NaN or an infinity.
pub(crate) fn format_percent(rate: f64) -> String {
    if !rate.is_finite() {
        return NONE.to_string();
    }
    let percent = rate * 100.0;
    // No `-0.0 %` for a rate that rounds to zero from below.
    let percent = if percent.abs() < 0.05 { 0.0 } else { percent };
    format!("{percent:.1} %")
}

/// `text` escaped for HTML and for SVG (inline SVG is parsed as HTML): both element
/// content and quoted attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate in the SVG: one decimal, and `0` for a non-finite number, so no `NaN`
/// or `inf` ever reaches the markup whatever the data.
struct N(f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = if self.0.is_finite() { self.0 } else { 0.0 };
        let v = (v * 10.0).round() / 10.0;
        if v.fract() == 0.0 {
            write!(f, "{}", v as i64)
        } else {
            write!(f, "{v:.1}")
        }
    }
}

/// The day as the x axis shows it (`11-24`).
fn short_day(day: NaiveDate) -> String {
    day.format("%m-%d").to_string()
}

/// Columns a character takes in the label: CJK and fullwidth characters (and emoji)
/// are about twice as wide as Latin letters.
fn char_units(c: char) -> usize {
    let wide = matches!(
        u32::from(c),
        0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x1F300..=0x1FAFF
            | 0x20000..=0x3FFFD
    );
    if wide { 2 } else { 1 }
}

/// `text` on one line (runs of whitespace as one space), cut to `max_units` columns with
/// `…` when longer.
fn truncate(text: &str, max_units: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let total: usize = line.chars().map(char_units).sum();
    if total <= max_units {
        return line;
    }
    let mut out = String::new();
    let mut used = 1; // the ellipsis
    for c in line.chars() {
        used += char_units(c);
        if used > max_units {
            break;
        }
        out.push(c);
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// The `<svg>` start tag and its `<title>`; the caller closes it.
fn open_svg(class: &str, width: f64, height: f64, summary: &str) -> String {
    let summary = escape(summary);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {class}\" role=\"img\" \
         aria-label=\"{summary}\" viewBox=\"0 0 {} {}\" width=\"100%\" \
         preserveAspectRatio=\"xMidYMid meet\"><title>{summary}</title>",
        N(width),
        N(height),
    )
}

/// A value if it is a number (a NaN or an infinity is no data).
fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

// ---------------------------------------------------------------------------------------
// Pick rates per option

const BARS_WIDTH: f64 = 640.0;
const BAR_ROW: f64 = 28.0;
const BAR_HEIGHT: f64 = 18.0;
/// The label column (0..`BAR_X`) holds about this many Latin letters at 13px.
const LABEL_UNITS: usize = 32;
const BAR_X: f64 = 236.0;
/// The longest bar (100 %), leaving room after it for `100.0 % (1,234,567)`.
const BAR_MAX: f64 = 260.0;

/// One horizontal bar per option, its length the option's pick rate, with the rate and
/// the pick count at its end; the correct option carries a ✓ and the class `correct`.
/// Without answers (every rate `None`) it says "No answers yet". Its words are in `lang`.
pub fn pick_rate_bars(options: &[OptionBar], lang: Lang) -> String {
    let say = lang;
    if options.iter().all(|o| finite(o.pick_rate).is_none()) {
        return no_answers(say);
    }
    let describe = |o: &OptionBar| {
        let value = match finite(o.pick_rate) {
            Some(rate) => say.t2(
                "chart-option-rate",
                "rate",
                format_percent(rate),
                "picks",
                format_count(o.picks),
            ),
            None => say.t("chart-option-no-answers"),
        };
        let id = if o.is_correct {
            "chart-correct-option"
        } else {
            "chart-option"
        };
        say.t2(id, "option", o.text.trim(), "value", value)
    };
    let summary = say.t1(
        "chart-picks-summary",
        "options",
        options
            .iter()
            .map(describe)
            .collect::<Vec<_>>()
            .join(&say.t("chart-list-sep")),
    );
    let height = BAR_ROW * options.len() as f64 + 8.0;
    let mut out = open_svg("chart-bars", BARS_WIDTH, height, &summary);
    for (i, option) in options.iter().enumerate() {
        let top = 4.0 + BAR_ROW * i as f64;
        let bar_y = top + (BAR_ROW - BAR_HEIGHT) / 2.0;
        let text_y = bar_y + 13.0;
        let rate = finite(option.pick_rate).unwrap_or(0.0).clamp(0.0, 1.0);
        let width = BAR_MAX * rate;
        let (class, mark) = if option.is_correct {
            ("bar-row correct", "✓ ")
        } else {
            ("bar-row", "")
        };
        let value = match finite(option.pick_rate) {
            Some(rate) => format!("{} ({})", format_percent(rate), format_count(option.picks)),
            None => NONE.to_string(),
        };
        let _ = write!(
            out,
            "<g class=\"{class}\"><title>{tooltip}</title>\
             <text class=\"bar-label\" x=\"0\" y=\"{ty}\">{mark}{label}</text>\
             <rect class=\"bar-track\" x=\"{bx}\" y=\"{by}\" width=\"{max}\" height=\"{bh}\" rx=\"3\"/>\
             <rect class=\"bar\" x=\"{bx}\" y=\"{by}\" width=\"{w}\" height=\"{bh}\" rx=\"3\"/>\
             <text class=\"bar-value\" x=\"{vx}\" y=\"{ty}\">{value}</text></g>",
            tooltip = escape(&describe(option)),
            ty = N(text_y),
            label = escape(&truncate(&option.text, LABEL_UNITS - mark.chars().count())),
            bx = N(BAR_X),
            by = N(bar_y),
            max = N(BAR_MAX),
            bh = N(BAR_HEIGHT),
            w = N(width),
            vx = N(BAR_X + width + 6.0),
        );
    }
    out.push_str("</svg>");
    out
}

/// The pick-rate chart of a question nobody has answered: one line that says so.
fn no_answers(say: Lang) -> String {
    let mut out = open_svg(
        "chart-bars",
        BARS_WIDTH,
        32.0,
        &say.t("chart-picks-empty-summary"),
    );
    let _ = write!(
        out,
        "<text class=\"chart-empty\" x=\"0\" y=\"21\">{}</text></svg>",
        escape(&say.t("chart-no-answers"))
    );
    out
}

// ---------------------------------------------------------------------------------------
// Daily series

/// The y axis: `0..max`, labelled at `ticks`.
struct Scale {
    max: f64,
    ticks: Vec<f64>,
}

impl Scale {
    /// 0–100 % for rates; for counts `0..` a round number at or above `data_max`, in
    /// steps of 1, 2 or 5 × 10ⁿ (at least 1: counts are whole).
    fn new(format: ValueFormat, data_max: f64) -> Self {
        match format {
            ValueFormat::Percent => Self {
                max: 1.0,
                ticks: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            },
            ValueFormat::Count => {
                let data_max = if data_max.is_finite() && data_max > 0.0 {
                    data_max
                } else {
                    0.0
                };
                let step = nice_step(data_max / 4.0);
                let steps = (data_max / step).ceil().max(1.0);
                let ticks = (0..=steps as u32).map(|i| f64::from(i) * step).collect();
                Self {
                    max: steps * step,
                    ticks,
                }
            }
        }
    }

    /// `value`'s share of the axis, `0..=1`.
    fn fraction(&self, value: f64) -> f64 {
        if self.max > 0.0 {
            (value / self.max).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    fn label(&self, format: ValueFormat, tick: f64) -> String {
        match format {
            ValueFormat::Percent => format!("{} %", N((tick * 100.0).round())),
            ValueFormat::Count => format_count(tick.round() as i64),
        }
    }
}

/// The round step (1, 2 or 5 × 10ⁿ, at least 1) at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    if !raw.is_finite() || raw <= 1.0 {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let fraction = raw / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// What the charts of a series say about it, worked out once.
struct Series {
    /// The points by day.
    points: Vec<DailyPoint>,
    first: Option<NaiveDate>,
    /// Days from the first to the last point.
    span: i64,
    /// The last point that has a value.
    latest: Option<(NaiveDate, f64)>,
    max: Option<f64>,
    min: Option<f64>,
    /// Points without a value.
    gaps: usize,
}

impl Series {
    fn new(points: &[DailyPoint]) -> Self {
        let mut points: Vec<DailyPoint> = points
            .iter()
            .map(|p| DailyPoint {
                day: p.day,
                value: finite(p.value),
            })
            .collect();
        points.sort_by_key(|p| p.day);
        let first = points.first().map(|p| p.day);
        let span = match (first, points.last()) {
            (Some(first), Some(last)) => (last.day - first).num_days(),
            _ => 0,
        };
        let values = || points.iter().filter_map(|p| p.value);
        let latest = points.iter().rev().find_map(|p| Some((p.day, p.value?)));
        let max = values().reduce(f64::max);
        let min = values().reduce(f64::min);
        let gaps = points.iter().filter(|p| p.value.is_none()).count();
        Self {
            points,
            first,
            span,
            latest,
            max,
            min,
            gaps,
        }
    }

    /// `day`'s place from the first day to the last, `0..=1` (`0.5` for a single day).
    fn position(&self, day: NaiveDate) -> f64 {
        match self.first {
            Some(first) if self.span > 0 => (day - first).num_days() as f64 / self.span as f64,
            _ => 0.5,
        }
    }

    /// `from 2024-11-01 to 2024-11-30` (or `on 2024-11-01`); None without points.
    fn range(&self, say: Lang) -> Option<String> {
        match (self.points.first(), self.points.last()) {
            (Some(first), Some(last)) if first.day != last.day => {
                Some(say.t2("chart-range", "from", first.day, "to", last.day))
            }
            (Some(only), _) => Some(say.t1("chart-range-day", "day", only.day)),
            _ => None,
        }
    }

    /// The screen reader's reading of the series.
    fn summary(&self, what: &str, format: ValueFormat, say: Lang) -> String {
        let detail = match (self.latest, self.max, self.min) {
            (Some((day, latest)), Some(max), Some(min)) => {
                let values = say.t_args(
                    "chart-detail",
                    &[
                        ("latest", format.format(latest)),
                        ("day", day.to_string()),
                        ("max", format.format(max)),
                        ("min", format.format(min)),
                    ],
                );
                if self.gaps > 0 {
                    let id = if self.gaps == 1 {
                        "chart-gap-day"
                    } else {
                        "chart-gap-days"
                    };
                    let gaps = say.t1(id, "days", self.gaps);
                    say.t2("chart-detail-gaps", "detail", values, "gaps", gaps)
                } else {
                    values
                }
            }
            _ => say.t("chart-detail-none"),
        };
        match self.range(say) {
            Some(range) => say.t_args(
                "chart-summary",
                &[
                    ("what", what.to_string()),
                    ("range", range),
                    ("detail", detail),
                ],
            ),
            None => say.t2("chart-summary-no-range", "what", what, "detail", detail),
        }
    }
}

const LINE_WIDTH: f64 = 640.0;
const LINE_HEIGHT: f64 = 220.0;
const PLOT_LEFT: f64 = 56.0;
/// Room on the right for the latest value (`1,234,567`).
const PLOT_RIGHT: f64 = 570.0;
const PLOT_TOP: f64 = 12.0;
const PLOT_BOTTOM: f64 = 192.0;

/// A line over the days, with a labelled y axis (0–100 % for [`ValueFormat::Percent`],
/// `0..max` for counts), the first and last day under it, a dot on each day with data
/// and the latest value printed beside its dot. A day without data breaks the line, as
/// does a day missing from `points`. `points` may come in any order. Its words are in
/// `lang`.
pub fn daily_line(points: &[DailyPoint], format: ValueFormat, lang: Lang) -> String {
    let say = lang;
    let series = Series::new(points);
    let scale = Scale::new(format, series.max.unwrap_or(0.0));
    let x = |day: NaiveDate| PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * series.position(day);
    let y = |value: f64| PLOT_BOTTOM - (PLOT_BOTTOM - PLOT_TOP) * scale.fraction(value);

    let mut out = open_svg(
        "chart-line",
        LINE_WIDTH,
        LINE_HEIGHT,
        &series.summary(&say.t("chart-daily-values"), format, say),
    );
    for &tick in &scale.ticks {
        let class = if tick == 0.0 { "axis" } else { "grid" };
        let _ = write!(
            out,
            "<line class=\"{class}\" x1=\"{l}\" x2=\"{r}\" y1=\"{ty}\" y2=\"{ty}\"/>\
             <text class=\"axis-label\" x=\"{lx}\" y=\"{ly}\" text-anchor=\"end\">{label}</text>",
            l = N(PLOT_LEFT),
            r = N(PLOT_RIGHT),
            ty = N(y(tick)),
            lx = N(PLOT_LEFT - 6.0),
            ly = N(y(tick) + 4.0),
            label = escape(&scale.label(format, tick)),
        );
    }
    let day_y = N(LINE_HEIGHT - 8.0);
    match (series.points.first(), series.points.last()) {
        (Some(first), Some(last)) if first.day != last.day => {
            let _ = write!(
                out,
                "<text class=\"axis-label\" x=\"{l}\" y=\"{day_y}\" text-anchor=\"start\">{a}</text>\
                 <text class=\"axis-label\" x=\"{r}\" y=\"{day_y}\" text-anchor=\"end\">{b}</text>",
                l = N(PLOT_LEFT),
                r = N(PLOT_RIGHT),
                a = short_day(first.day),
                b = short_day(last.day),
            );
        }
        (Some(only), _) => {
            let _ = write!(
                out,
                "<text class=\"axis-label\" x=\"{m}\" y=\"{day_y}\" text-anchor=\"middle\">{a}</text>",
                m = N(x(only.day)),
                a = short_day(only.day),
            );
        }
        _ => {}
    }

    let Some((latest_day, latest)) = series.latest else {
        let _ = write!(
            out,
            "<text class=\"chart-empty\" x=\"{m}\" y=\"{c}\" text-anchor=\"middle\">{none}</text></svg>",
            m = N((PLOT_LEFT + PLOT_RIGHT) / 2.0),
            c = N((PLOT_TOP + PLOT_BOTTOM) / 2.0),
            none = escape(&say.t("chart-no-data")),
        );
        return out;
    };

    // One subpath per run of consecutive days with data: a gap starts a new one.
    let mut path = String::new();
    let mut previous: Option<NaiveDate> = None;
    for point in &series.points {
        let Some(value) = point.value else {
            continue;
        };
        let joined = previous.is_some_and(|p| (point.day - p).num_days() <= 1);
        let _ = write!(
            path,
            "{}{} {} ",
            if joined { 'L' } else { 'M' },
            N(x(point.day)),
            N(y(value))
        );
        previous = Some(point.day);
    }
    let _ = write!(out, "<path class=\"line\" d=\"{}\"/>", path.trim_end());

    // Dots shrink when there are many days, so they do not merge into a band.
    let radius = if series.points.len() <= 62 { 3.0 } else { 1.5 };
    for point in &series.points {
        let Some(value) = point.value else {
            continue;
        };
        let class = if point.day == latest_day {
            "line-dot latest"
        } else {
            "line-dot"
        };
        let _ = write!(
            out,
            "<circle class=\"{class}\" cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\"><title>{tip}</title></circle>",
            cx = N(x(point.day)),
            cy = N(y(value)),
            r = N(radius),
            tip = escape(&say.t2(
                "chart-point",
                "day",
                point.day,
                "value",
                format.format(value)
            )),
        );
    }
    let _ = write!(
        out,
        "<text class=\"line-latest\" x=\"{lx}\" y=\"{ly}\">{v}</text></svg>",
        lx = N(x(latest_day) + 7.0),
        ly = N(y(latest) + 4.0),
        v = escape(&format.format(latest)),
    );
    out
}

const SMALL_WIDTH: f64 = 240.0;
const SMALL_HEIGHT: f64 = 110.0;
const COLUMNS_TOP: f64 = 52.0;
const COLUMNS_BOTTOM: f64 = 106.0;
/// The title's room beside `max …` at 12px.
const TITLE_UNITS: usize = 24;

/// A dashboard card: `title`, the latest value large, the highest value of the period
/// (`max …`), and a column per day under them (none for a day without data; a stub for
/// a zero, so the two differ). Rates share a 0–100 % scale, counts go up to their max.
/// `title` comes translated; the chart's other words are in `lang`.
pub fn small_chart(title: &str, points: &[DailyPoint], format: ValueFormat, lang: Lang) -> String {
    let say = lang;
    let series = Series::new(points);
    let mut out = open_svg(
        "chart-small",
        SMALL_WIDTH,
        SMALL_HEIGHT,
        &series.summary(title, format, say),
    );
    let latest = series
        .latest
        .map_or_else(|| NONE.to_string(), |(_, v)| format.format(v));
    let _ = write!(
        out,
        "<text class=\"chart-title\" x=\"0\" y=\"14\">{title}</text>\
         <text class=\"chart-value\" x=\"0\" y=\"42\">{latest}</text>",
        title = escape(&truncate(title, TITLE_UNITS)),
        latest = escape(&latest),
    );
    if let Some(max) = series.max {
        let _ = write!(
            out,
            "<text class=\"axis-label\" x=\"{r}\" y=\"14\" text-anchor=\"end\">{v}</text>",
            r = N(SMALL_WIDTH),
            v = escape(&say.t1("chart-max", "value", format.format(max))),
        );
    }
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"0\" x2=\"{r}\" y1=\"{b}\" y2=\"{b}\"/>",
        r = N(SMALL_WIDTH),
        b = N(COLUMNS_BOTTOM + 0.5),
    );
    let Some((latest_day, _)) = series.latest else {
        let _ = write!(
            out,
            "<text class=\"chart-empty\" x=\"{m}\" y=\"{c}\" text-anchor=\"middle\">{none}</text></svg>",
            m = N(SMALL_WIDTH / 2.0),
            c = N((COLUMNS_TOP + COLUMNS_BOTTOM) / 2.0 + 4.0),
            none = escape(&say.t("chart-no-data")),
        );
        return out;
    };
    let scale_max = match format {
        ValueFormat::Percent => 1.0,
        ValueFormat::Count => series.max.unwrap_or(0.0),
    };
    let slot = SMALL_WIDTH / (series.span + 1) as f64;
    let column = (slot * 0.75).max(0.5);
    let area = COLUMNS_BOTTOM - COLUMNS_TOP;
    for point in &series.points {
        let Some(value) = point.value else {
            continue;
        };
        let fraction = if scale_max > 0.0 {
            (value / scale_max).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let height = (area * fraction).max(1.0);
        let offset = series
            .first
            .map_or(0, |first| (point.day - first).num_days());
        let left = slot * offset as f64 + (slot - column) / 2.0;
        let class = if point.day == latest_day {
            "col latest"
        } else {
            "col"
        };
        let _ = write!(
            out,
            "<rect class=\"{class}\" x=\"{cx}\" y=\"{cy}\" width=\"{w}\" height=\"{h}\">\
             <title>{tip}</title></rect>",
            cx = N(left),
            cy = N(COLUMNS_BOTTOM - height),
            w = N(column),
            h = N(height),
            tip = escape(&say.t2(
                "chart-point",
                "day",
                point.day,
                "value",
                format.format(value)
            )),
        );
    }
    out.push_str("</svg>");
    out
}

// ---------------------------------------------------------------------------------------
// Wright map

const WRIGHT_WIDTH: f64 = 640.0;
const WRIGHT_HEIGHT: f64 = 236.0;
/// The row labels' column; the scale runs from here to the right edge.
const WRIGHT_X: f64 = 110.0;
/// The shared axis: players' columns rise above it, questions' hang below.
const WRIGHT_AXIS_Y: f64 = 108.0;
const WRIGHT_COLUMN_MAX: f64 = 90.0;
/// The scale's ends and step (logits): θ and b outside are drawn in the end columns.
const WRIGHT_FROM: f64 = -4.0;
const WRIGHT_TO: f64 = 4.0;
const WRIGHT_STEP: f64 = 0.5;

/// How many of `values` fall in each column of the scale (the ends take the outliers;
/// a NaN or an infinity counts nowhere).
fn wright_columns(values: &[f64]) -> Vec<usize> {
    let columns = ((WRIGHT_TO - WRIGHT_FROM) / WRIGHT_STEP).round() as usize;
    let mut counts = vec![0; columns];
    for v in values.iter().filter(|v| v.is_finite()) {
        let at = ((v - WRIGHT_FROM) / WRIGHT_STEP).floor().max(0.0) as usize;
        counts[at.min(columns - 1)] += 1;
    }
    counts
}

/// The median of the finite `values`, if any.
fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// A logit as the map prints it (`-0.75`).
fn logit(value: f64) -> String {
    format!("{value:.2}")
}

/// A Wright map: the players' skills θ (columns above the axis) and the questions'
/// difficulties b (columns below it) on one logit scale from −4 to +4, so staff see
/// whether the bank has questions where its players are. Each half is scaled to its own
/// tallest column; every column's tooltip gives its range and count. Its words are in
/// `lang`.
pub fn wright_map(player_skills: &[f64], question_difficulties: &[f64], lang: Lang) -> String {
    let say = lang;
    let players = wright_columns(player_skills);
    let questions = wright_columns(question_difficulties);
    let (player_total, question_total) = (
        players.iter().sum::<usize>(),
        questions.iter().sum::<usize>(),
    );
    let middle = |values: &[f64]| median(values).map_or_else(|| NONE.to_string(), logit);
    let summary = say.t_args(
        "chart-wright-summary",
        &[
            ("players", format_count(player_total as i64)),
            ("playerMedian", middle(player_skills)),
            ("questions", format_count(question_total as i64)),
            ("questionMedian", middle(question_difficulties)),
        ],
    );
    let mut out = open_svg("chart-wright", WRIGHT_WIDTH, WRIGHT_HEIGHT, &summary);
    let width = (WRIGHT_WIDTH - WRIGHT_X) / players.len() as f64;
    let halves = [
        (
            &players,
            "wright-player",
            "chart-wright-players",
            "chart-wright-player-column",
            -1.0,
        ),
        (
            &questions,
            "wright-question",
            "chart-wright-questions",
            "chart-wright-question-column",
            1.0,
        ),
    ];
    for (counts, class, label, column, direction) in halves {
        let total = counts.iter().sum::<usize>();
        let _ = write!(
            out,
            "<text class=\"axis-label\" x=\"0\" y=\"{y}\">{text}</text>",
            y = N(WRIGHT_AXIS_Y + direction * WRIGHT_COLUMN_MAX / 2.0 + 4.0),
            text = escape(&say.t1(label, "count", format_count(total as i64))),
        );
        let tallest = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
        for (i, &count) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            let from = WRIGHT_FROM + WRIGHT_STEP * i as f64;
            let height = (WRIGHT_COLUMN_MAX * count as f64 / tallest).max(1.0);
            let top = if direction < 0.0 {
                WRIGHT_AXIS_Y - height
            } else {
                WRIGHT_AXIS_Y
            };
            let range = say.t2(
                "chart-wright-range",
                "from",
                logit(from),
                "to",
                logit(from + WRIGHT_STEP),
            );
            let _ = write!(
                out,
                "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\">\
                 <title>{tip}</title></rect>",
                x = N(WRIGHT_X + width * i as f64 + 1.0),
                y = N(top),
                w = N(width - 2.0),
                h = N(height),
                tip = escape(&say.t2(column, "count", format_count(count as i64), "range", range)),
            );
        }
    }
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"{l}\" x2=\"{r}\" y1=\"{a}\" y2=\"{a}\"/>",
        l = N(WRIGHT_X),
        r = N(WRIGHT_WIDTH),
        a = N(WRIGHT_AXIS_Y + 0.5),
    );
    let mut tick = WRIGHT_FROM;
    while tick <= WRIGHT_TO {
        let x =
            WRIGHT_X + (tick - WRIGHT_FROM) / (WRIGHT_TO - WRIGHT_FROM) * (WRIGHT_WIDTH - WRIGHT_X);
        let anchor = if tick == WRIGHT_FROM {
            "start"
        } else if tick == WRIGHT_TO {
            "end"
        } else {
            "middle"
        };
        let _ = write!(
            out,
            "<text class=\"axis-label\" x=\"{x}\" y=\"{y}\" text-anchor=\"{anchor}\">{t}</text>",
            x = N(x),
            y = N(WRIGHT_HEIGHT - 18.0),
            t = N(tick),
        );
        tick += 1.0;
    }
    let _ = write!(
        out,
        "<text class=\"axis-label\" x=\"{l}\" y=\"{y}\">{low}</text>\
         <text class=\"axis-label\" x=\"{r}\" y=\"{y}\" text-anchor=\"end\">{high}</text>",
        l = N(WRIGHT_X),
        r = N(WRIGHT_WIDTH),
        y = N(WRIGHT_HEIGHT - 2.0),
        low = escape(&say.t("chart-wright-low")),
        high = escape(&say.t("chart-wright-high")),
    );
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // The charts in English, the language of most assertions here (Chinese: below).
    fn pick_rate_bars(options: &[OptionBar]) -> String {
        super::pick_rate_bars(options, Lang::En)
    }

    fn daily_line(points: &[DailyPoint], format: ValueFormat) -> String {
        super::daily_line(points, format, Lang::En)
    }

    fn small_chart(title: &str, points: &[DailyPoint], format: ValueFormat) -> String {
        super::small_chart(title, points, format, Lang::En)
    }

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2024, 11, d).unwrap()
    }

    fn series(values: &[Option<f64>]) -> Vec<DailyPoint> {
        values
            .iter()
            .enumerate()
            .map(|(i, &value)| DailyPoint {
                day: day(1) + chrono::Days::new(i as u64),
                value,
            })
            .collect()
    }

    fn option(text: &str, is_correct: bool, picks: i64, pick_rate: Option<f64>) -> OptionBar {
        OptionBar {
            text: text.into(),
            is_correct,
            picks,
            pick_rate,
        }
    }

    /// The values of `attr` on the elements whose start tag begins with `tag_start`.
    fn attrs(svg: &str, tag_start: &str, attr: &str) -> Vec<String> {
        svg.match_indices(tag_start)
            .map(|(at, _)| {
                let tag = &svg[at..];
                let tag = &tag[..tag.find('>').unwrap()];
                let key = format!(" {attr}=\"");
                let start = tag.find(&key).unwrap() + key.len();
                tag[start..start + tag[start..].find('"').unwrap()].to_string()
            })
            .collect()
    }

    /// What every chart must be, whatever its data.
    fn assert_well_formed(svg: &str) {
        assert!(svg.starts_with("<svg "), "{svg}");
        assert!(svg.ends_with("</svg>"), "{svg}");
        assert!(svg.contains("role=\"img\""));
        assert!(svg.contains("aria-label=\""));
        assert!(svg.contains("<title>"));
        assert!(svg.contains("viewBox=\"0 0 "));
        assert!(svg.contains("width=\"100%\""));
        assert!(!svg.contains("<script"), "{svg}");
        for bad in ["NaN", "inf"] {
            assert!(!svg.contains(bad), "{bad} in {svg}");
        }
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(999), "999");
        assert_eq!(format_count(1000), "1,000");
        assert_eq!(format_count(1_234_567), "1,234,567");
        assert_eq!(format_count(-1_234), "-1,234");
        assert_eq!(format_count(i64::MIN), "-9,223,372,036,854,775,808");
        assert_eq!(ValueFormat::Count.format(1234.6), "1,235");
        assert_eq!(ValueFormat::Count.format(f64::NAN), "0");
    }

    #[test]
    fn percentages_have_one_decimal() {
        assert_eq!(format_percent(0.875), "87.5 %");
        assert_eq!(format_percent(1.0), "100.0 %");
        assert_eq!(format_percent(0.0), "0.0 %");
        assert_eq!(format_percent(-0.0001), "0.0 %");
        assert_eq!(format_percent(2.0 / 3.0), "66.7 %");
        assert_eq!(format_percent(f64::NAN), "–");
        assert_eq!(format_percent(f64::INFINITY), "–");
        assert_eq!(ValueFormat::Percent.format(0.5), "50.0 %");
    }

    #[test]
    fn staff_text_is_escaped_everywhere() {
        let hostile = "<script>alert(1)</script>&\"'";
        let bars = pick_rate_bars(&[
            option(hostile, true, 3, Some(0.75)),
            option("b", false, 1, Some(0.25)),
        ]);
        let small = small_chart(hostile, &series(&[Some(1.0)]), ValueFormat::Count);
        for svg in [&bars, &small] {
            assert_well_formed(svg);
            assert!(!svg.contains("<script>"), "{svg}");
            assert!(!svg.contains("&\""), "{svg}");
            assert!(!svg.contains("'"), "{svg}");
            assert!(svg.contains("&lt;script&gt;"), "{svg}");
        }
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn bars_are_as_long_as_their_pick_rate() {
        let svg = pick_rate_bars(&[
            option("Paris", true, 60, Some(0.6)),
            option("Lyon", false, 30, Some(0.3)),
            option("Nice", false, 10, Some(0.1)),
            option("Lille", false, 0, Some(0.0)),
        ]);
        assert_well_formed(&svg);
        let widths: Vec<f64> = attrs(&svg, "<rect class=\"bar\"", "width")
            .iter()
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(widths.len(), 4);
        assert!((widths[0] - BAR_MAX * 0.6).abs() < 0.1, "{widths:?}");
        assert!((widths[0] / widths[1] - 2.0).abs() < 0.01, "{widths:?}");
        assert!((widths[0] / widths[2] - 6.0).abs() < 0.05, "{widths:?}");
        assert_eq!(widths[3], 0.0);
        assert!(svg.contains("60.0 % (60)"), "{svg}");
        assert!(svg.contains("0.0 % (0)"), "{svg}");
        // The correct option, and only it, is marked.
        assert_eq!(svg.matches("class=\"bar-row correct\"").count(), 1);
        assert!(svg.contains("✓ Paris"), "{svg}");
        assert!(!svg.contains("✓ Lyon"), "{svg}");
        assert!(svg.contains("Paris (correct): 60.0 % of answers, 60 picks"));
    }

    #[test]
    fn rates_out_of_range_stay_inside_the_track() {
        let svg = pick_rate_bars(&[
            option("a", false, 1, Some(1.7)),
            option("b", false, 1, Some(-0.2)),
            option("c", false, 1, Some(f64::NAN)),
        ]);
        assert_well_formed(&svg);
        let widths = attrs(&svg, "<rect class=\"bar\"", "width");
        assert_eq!(widths, [N(BAR_MAX).to_string(), "0".into(), "0".into()]);
    }

    #[test]
    fn long_labels_are_cut_with_the_full_text_in_the_tooltip() {
        let long = "An option text far too long to fit beside its bar in the chart";
        let chinese = "这是一个非常非常长的选项文本，用来测试截断是否按字符宽度进行";
        let svg = pick_rate_bars(&[
            option(long, false, 1, Some(0.5)),
            option(chinese, true, 1, Some(0.5)),
        ]);
        assert_well_formed(&svg);
        let labels: Vec<&str> = svg
            .split("<text class=\"bar-label\"")
            .skip(1)
            .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
            .collect();
        assert_eq!(labels.len(), 2);
        for label in &labels {
            assert!(label.ends_with('…'), "{label}");
            assert!(label.chars().map(char_units).sum::<usize>() <= LABEL_UNITS);
        }
        assert!(labels[1].starts_with("✓ 这是"), "{}", labels[1]);
        assert!(svg.contains(&format!("<title>{long}: ")));
        assert!(svg.contains(&format!("<title>{chinese} (correct): ")));
        // Short labels stay whole; line breaks become spaces.
        assert_eq!(truncate("a\n b", LABEL_UNITS), "a b");
    }

    #[test]
    fn without_answers_the_bars_say_so() {
        for options in [
            vec![],
            vec![option("a", true, 0, None), option("b", false, 0, None)],
        ] {
            let svg = pick_rate_bars(&options);
            assert_well_formed(&svg);
            assert!(svg.contains("No answers yet"), "{svg}");
            assert!(svg.contains("aria-label=\"Pick rate per option: no answers yet\""));
            assert!(!svg.contains("class=\"bar\""), "{svg}");
        }
    }

    #[test]
    fn a_day_without_data_breaks_the_line() {
        let svg = daily_line(
            &series(&[Some(0.5), Some(0.6), None, Some(0.7), Some(0.8)]),
            ValueFormat::Percent,
        );
        assert_well_formed(&svg);
        let d = &attrs(&svg, "<path class=\"line\"", "d")[0];
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 2, "{d}");
        // Four dots, none at zero for the missing day.
        assert_eq!(attrs(&svg, "<circle class=\"line-dot", "cy").len(), 4);
        assert!(!svg.contains("2024-11-03:"), "{svg}");
        assert!(svg.contains("no data on 1 day"), "{svg}");
        // The latest value, the axis in percent, and the first and last day.
        assert!(svg.contains(">80.0 %</text>"), "{svg}");
        assert!(svg.contains(">100 %</text>") && svg.contains(">0 %</text>"));
        assert!(svg.contains(">11-01</text>") && svg.contains(">11-05</text>"));
    }

    #[test]
    fn a_day_missing_from_the_points_is_a_gap_too() {
        let mut points = series(&[Some(3.0), Some(4.0)]);
        points.push(DailyPoint {
            day: day(5),
            value: Some(5.0),
        });
        points.reverse(); // any order
        let svg = daily_line(&points, ValueFormat::Count);
        assert_well_formed(&svg);
        let d = &attrs(&svg, "<path class=\"line\"", "d")[0];
        assert!(d.starts_with('M') && d.matches('M').count() == 2, "{d}");
        assert!(svg.contains(">11-01</text>") && svg.contains(">11-05</text>"));
        assert!(svg.contains("latest 5 (2024-11-05)"), "{svg}");
    }

    #[test]
    fn zero_one_and_thirty_points_draw() {
        let empty = daily_line(&[], ValueFormat::Percent);
        assert_well_formed(&empty);
        assert!(empty.contains("No data yet"));
        assert!(!empty.contains("<path"));

        let one = daily_line(&series(&[Some(0.42)]), ValueFormat::Percent);
        assert_well_formed(&one);
        assert_eq!(
            attrs(&one, "<circle", "cx"),
            [N(PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) / 2.0).to_string()]
        );
        assert!(one.contains(">42.0 %</text>") && one.contains(">11-01</text>"));

        let values: Vec<Option<f64>> = (0..30).map(|i| Some(f64::from(i) * 10.0)).collect();
        let thirty = daily_line(&series(&values), ValueFormat::Count);
        assert_well_formed(&thirty);
        assert_eq!(attrs(&thirty, "<circle", "cx").len(), 30);
        let d = &attrs(&thirty, "<path class=\"line\"", "d")[0];
        assert_eq!(d.matches('M').count(), 1);
        assert!(thirty.contains(">11-30</text>"));
        // 290 on an axis up to 300, in steps of 100.
        assert!(thirty.contains(">300</text>") && thirty.contains(">200</text>"));

        for points in [vec![], series(&[Some(7.0)]), series(&values)] {
            let svg = small_chart("Answers", &points, ValueFormat::Count);
            assert_well_formed(&svg);
            assert_eq!(attrs(&svg, "<rect class=\"col", "x").len(), points.len());
        }
    }

    #[test]
    fn all_zero_and_all_missing_series_divide_by_nothing() {
        let zeros = series(&[Some(0.0); 30]);
        let missing = series(&[None; 30]);
        let odd = series(&[Some(f64::NAN), Some(f64::INFINITY), Some(-3.0)]);
        for points in [&zeros, &missing, &odd] {
            for format in [ValueFormat::Count, ValueFormat::Percent] {
                assert_well_formed(&daily_line(points, format));
                assert_well_formed(&small_chart("Accuracy", points, format));
            }
        }
        let svg = daily_line(&zeros, ValueFormat::Count);
        assert!(
            svg.contains("latest 0 (2024-11-30), highest 0, lowest 0"),
            "{svg}"
        );
        assert!(daily_line(&missing, ValueFormat::Count).contains("no data yet"));
    }

    #[test]
    fn the_small_chart_labels_title_latest_and_max() {
        let svg = small_chart(
            "Daily active players",
            &series(&[
                Some(1200.0),
                None,
                Some(0.0),
                Some(1_234_567.0),
                Some(900.0),
            ]),
            ValueFormat::Count,
        );
        assert_well_formed(&svg);
        assert!(svg.contains(">Daily active players</text>"), "{svg}");
        assert!(
            svg.contains("class=\"chart-value\" x=\"0\" y=\"42\">900</text>"),
            "{svg}"
        );
        assert!(svg.contains(">max 1,234,567</text>"), "{svg}");
        // One column per day with data; the zero is a stub, the missing day nothing.
        let heights = attrs(&svg, "<rect class=\"col", "height");
        assert_eq!(heights.len(), 4);
        assert_eq!(heights[1], "1");
        assert_eq!(heights[2], N(COLUMNS_BOTTOM - COLUMNS_TOP).to_string());
        assert_eq!(svg.matches("class=\"col latest\"").count(), 1);

        let accuracy = small_chart(
            "Accuracy",
            &series(&[Some(0.5), Some(0.9)]),
            ValueFormat::Percent,
        );
        assert!(accuracy.contains(">90.0 %</text>") && accuracy.contains(">max 90.0 %</text>"));
        // Rates share the 0–100 % scale: 90 % is not a full column.
        let heights = attrs(&accuracy, "<rect class=\"col", "height");
        assert_eq!(
            heights[1],
            N((COLUMNS_BOTTOM - COLUMNS_TOP) * 0.9).to_string()
        );
    }

    #[test]
    fn count_axes_step_by_round_numbers() {
        let ticks = |max| Scale::new(ValueFormat::Count, max).ticks;
        assert_eq!(ticks(0.0), [0.0, 1.0]);
        assert_eq!(ticks(3.0), [0.0, 1.0, 2.0, 3.0]);
        assert_eq!(ticks(7.0), [0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(ticks(1000.0), [0.0, 500.0, 1000.0]);
        assert_eq!(
            ticks(1_234_567.0),
            [0.0, 500_000.0, 1_000_000.0, 1_500_000.0]
        );
        assert_eq!(ticks(f64::NAN), [0.0, 1.0]);
    }

    #[test]
    fn the_charts_speak_the_language_they_are_given() {
        let zh = Lang::ZhCn;
        let bars = super::pick_rate_bars(
            &[
                option("巴黎", true, 60, Some(0.6)),
                option("里昂", false, 40, Some(0.4)),
            ],
            zh,
        );
        assert_well_formed(&bars);
        assert!(
            bars.contains("巴黎（正确答案）：占作答的 60.0 %，被选 60 次"),
            "{bars}"
        );
        assert!(bars.contains("里昂：占作答的 40.0 %，被选 40 次"), "{bars}");
        let empty = super::pick_rate_bars(&[option("a", true, 0, None)], zh);
        assert!(empty.contains(">暂无作答</text>"), "{empty}");

        let line = super::daily_line(
            &series(&[Some(0.5), None, Some(0.8)]),
            ValueFormat::Percent,
            zh,
        );
        assert_well_formed(&line);
        assert!(
            line.contains("每日数值（2024-11-01 至 2024-11-03）：最新 80.0 %（2024-11-03），最高 80.0 %，最低 50.0 %，1 天无数据"),
            "{line}"
        );
        assert!(line.contains("<title>2024-11-01：50.0 %</title>"), "{line}");
        let none = super::daily_line(&[], ValueFormat::Count, zh);
        assert!(none.contains(">暂无数据</text>"), "{none}");

        let small = super::small_chart("作答数", &series(&[Some(3.0)]), ValueFormat::Count, zh);
        assert!(small.contains(">最高 3</text>"), "{small}");
        assert!(
            small.contains("作答数（2024-11-01）：最新 3（2024-11-01）"),
            "{small}"
        );
        // no English word is left in a Chinese chart
        for svg in [&bars, &empty, &line, &none, &small] {
            let words = svg.split(['<', '>']).step_by(2).collect::<String>();
            assert!(!words.chars().any(|c| c.is_ascii_alphabetic()), "{words}");
        }
    }

    #[test]
    fn wright_map_puts_players_above_and_questions_below_one_scale() {
        let players = [-0.2, -0.1, 0.1, 0.3, 1.2, 9.0];
        let questions = [-2.0, -1.9, 0.2, f64::NAN, -7.5];
        let svg = super::wright_map(&players, &questions, Lang::En);
        assert_well_formed(&svg);
        assert!(
            svg.contains(
                "skills of 6 players (median 0.20) and difficulties of 4 questions (median -1.95)"
            ),
            "{svg}"
        );
        // columns: two players in [-0.5, 0), two in [0, 0.5), one in [1, 1.5), the
        // outlier at the right end; questions two in [-2, -1.5), one in [0, 0.5), the
        // outlier at the left end; no column for the NaN
        assert_eq!(svg.matches("class=\"wright-player\"").count(), 4);
        assert_eq!(svg.matches("class=\"wright-question\"").count(), 3);
        assert!(
            svg.contains("Players of skill from -0.50 to 0.00: 2"),
            "{svg}"
        );
        assert!(
            svg.contains("Players of skill from 3.50 to 4.00: 1"),
            "{svg}"
        );
        assert!(
            svg.contains("Questions of difficulty from -2.00 to -1.50: 2"),
            "{svg}"
        );
        assert!(
            svg.contains("Questions of difficulty from -4.00 to -3.50: 1"),
            "{svg}"
        );
        // the tallest column of each half is the full height, on its side of the axis
        let players_y = attrs(&svg, "<rect class=\"wright-player\"", "y");
        let players_h = attrs(&svg, "<rect class=\"wright-player\"", "height");
        assert!(players_h.contains(&"90".to_string()), "{players_h:?}");
        for (y, h) in players_y.iter().zip(&players_h) {
            let bottom: f64 = y.parse::<f64>().unwrap() + h.parse::<f64>().unwrap();
            assert!((bottom - 108.0).abs() < 0.01, "{y} + {h}");
        }
        for y in attrs(&svg, "<rect class=\"wright-question\"", "y") {
            assert_eq!(y, "108");
        }
    }

    #[test]
    fn wright_map_of_nothing_is_an_empty_scale_in_either_language() {
        for lang in [Lang::En, Lang::ZhCn] {
            let svg = super::wright_map(&[], &[f64::INFINITY], lang);
            assert_well_formed(&svg);
            assert!(!svg.contains("<rect"), "{svg}");
        }
        let svg = super::wright_map(&[], &[], Lang::ZhCn);
        assert!(svg.contains("0 名玩家的能力（中位数 –）"), "{svg}");
    }
}
