use std::process::ExitCode;

use shared::config::Settings;

// Under load glibc's per-thread arenas kept about twice the live heap resident.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match shared::http::runtime() {
        Ok(runtime) => runtime.block_on(serve()),
        Err(e) => {
            eprintln!("player-api: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> ExitCode {
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
