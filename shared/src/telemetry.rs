//! Logging: human-readable lines in development, JSON lines (`LOG_FORMAT=json`) for
//! production log pipelines. `RUST_LOG` refines the filter.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    // Colours only on a terminal: piped or redirected logs stay plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()));
    // try_init: a second call (tests start several apps) is harmless.
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Pretty => builder.compact().try_init(),
    };
}
