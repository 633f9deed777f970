use std::process::ExitCode;

use shared::config::Settings;

// Under load glibc's per-thread arenas kept about twice the live heap resident.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("player-api: {e}");
            return ExitCode::from(2);
        }
    };
    shared::telemetry::init(settings.log_format);
    match player_api::run(settings).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "player-api failed");
            ExitCode::FAILURE
        }
    }
}
