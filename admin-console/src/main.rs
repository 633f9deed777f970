use std::process::ExitCode;

use shared::config::Settings;

// Under load glibc's per-thread arenas kept about twice the live heap resident.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: admin-console            serve the console and the admin API
       admin-console backup PATH  write a consistent copy of the SQLite database to PATH";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match args.as_slice() {
        [] => Command::Serve,
        [verb, path] if verb == "backup" => Command::Backup(path.into()),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match shared::http::runtime() {
        Ok(runtime) => runtime.block_on(run(command)),
        Err(e) => {
            eprintln!("admin-console: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

enum Command {
    Serve,
    Backup(std::path::PathBuf),
}

async fn run(command: Command) -> ExitCode {
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("admin-console: {e}");
            return ExitCode::from(2);
        }
    };
    shared::telemetry::init(settings.log_format);
    let done = match command {
        Command::Serve => admin_console::run(settings).await,
        Command::Backup(target) => admin_console::backup(settings, &target).await,
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "admin-console failed");
            ExitCode::FAILURE
        }
    }
}
