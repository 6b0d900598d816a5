//! `toybattle serve`: the local web page to play against the computer.

use super::CliResult;
use std::net::IpAddr;
use std::path::PathBuf;
use toybattle::web::{self, Config};

#[derive(clap::Args)]
pub struct Args {
    /// The address to listen on. Only 127.0.0.1 (this machine) is safe: the page has no login.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8137)]
    port: u16,
    /// The folder for games saved mid-game (they hold the hidden tiles, so they stay here)
    /// [default: `saves` in the data folder, see docs/play.md].
    #[arg(long, value_name = "DIR")]
    saves: Option<PathBuf>,
    /// Most games open at once; opening one more closes the least recently used.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=1000))]
    max_games: u32,
    /// Most search threads running at once over all games; the computer's turns beyond them
    /// wait for free cores (default: this machine's cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    search_threads: Option<u32>,
    /// Most connections served at once (and at most half the file descriptors this process may
    /// open); more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=65536))]
    max_connections: u32,
    /// Seconds a client may take to send a request's headers or body, and an idle connection is
    /// kept; slower clients are cut off, so that slow connections cannot hold the server.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=3600))]
    client_timeout: u32,
}

pub fn run(args: Args) -> CliResult {
    if !args.host.is_loopback() {
        eprintln!(
            "warning: listening on {}, which other machines can reach; the page has no login \
             and anyone who reaches it can play and read saved games",
            args.host
        );
    }
    let data = toybattle::session::data_folder();
    let config = Config {
        saves: args.saves.unwrap_or_else(|| data.join("saves")),
        data,
        max_games: args.max_games as usize,
        search_threads: args.search_threads.map(|n| n as usize),
        max_connections: args.max_connections as usize,
        client_timeout: std::time::Duration::from_secs(args.client_timeout.into()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server: {e}"))?;
    runtime.block_on(async {
        let listener = web::bind((args.host, args.port).into())
            .map_err(|e| format!("cannot listen on {}:{}: {e}", args.host, args.port))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?;
        println!("toybattle is ready: open http://{addr}/ in a browser (Ctrl-C stops it)");
        web::serve(listener, config)
            .await
            .map_err(|e| format!("the server stopped: {e}"))
    })
}
