//! `analyst serve`: run the emulator until Ctrl-C or SIGTERM, after printing how to reach it.

use super::Ctx;
use crate::cli::{Format, ServeArgs};
use crate::emulator::server::{self, Clock, Fault, Running, ServeOptions};
use crate::exit::{Status, usage};
use crate::render::pick_format;
use crate::settings::{Secret, parse_duration};
use crate::term::shell_word;
use anyhow::{Context, Result};
use serde_json::json;
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};

/// Start the emulator, print its URLs and credentials, and serve until interrupted.
pub fn run(ctx: &Ctx, args: ServeArgs) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Text, Format::Json],
        Format::Text,
        Format::Text,
        "serve",
    )?;
    if let Some(user) = &args.token_for {
        return token_for(user, &args);
    }
    if let Some(path) = &args.write_sample {
        return write_sample(ctx, path, &args);
    }
    let mut opts = ServeOptions {
        log: ctx.global.verbose,
        ..options(&args)?
    };
    opts.scim = scim_seed(args.config.as_deref(), args.scim_users as usize)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let running = server::start(opts).await?;
        let mut out = crate::exit::stdout_lock();
        match format {
            Format::Json => {
                writeln!(out, "{}", summary(&running, &args))?;
            }
            _ => write_text(&mut out, &running, &args)?,
        }
        out.flush()?;
        drop(out);
        if ctx.chatty() {
            crate::term::diag(format_args!("Serving; press Ctrl-C to stop."));
        }
        stop_signal().await;
        // A second Ctrl-C while shutting down exits at once, as fd does.
        tokio::spawn(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(Status::Interrupted.code());
            }
        });
        running.shutdown().await;
        Ok(Status::Success)
    })
}

/// Resolve the flags into options; every problem is a usage error naming its flag.
fn options(args: &ServeArgs) -> Result<ServeOptions> {
    let listen = listen_addr(&args.listen)?;
    let pace =
        parse_duration(&args.pace).map_err(|e| usage(format!("--pace {}: {e}", args.pace)))?;
    let faults = args
        .faults
        .iter()
        .map(|spec| {
            spec.parse::<Fault>()
                .map_err(|e| usage(format!("--fault {spec:?}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let files = args.model.iter().map(|p| ("--model", p));
    for (flag, path) in files.chain(args.data.iter().map(|p| ("--data", p))) {
        {
            std::fs::File::open(path)
                .map_err(|e| usage(format!("{flag}: cannot read {}: {e}", path.display())))?;
            // Opening a directory succeeds on Unix; reading it would fail later as exit 1.
            if path.is_dir() {
                return Err(usage(format!("{flag}: {} is a directory", path.display())));
            }
        }
    }
    let csv = |p: &std::path::PathBuf| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    match args.data.as_slice() {
        [] => {}
        [one] if !csv(one) => check_sqlite(one)?,
        files if files.iter().all(csv) => {
            crate::emulator::check_csv_files(files).map_err(|e| usage(format!("--data: {e:#}")))?
        }
        _ => {
            return Err(usage(
                "--data takes one SQLite file, or one or more .csv files, not both",
            ));
        }
    }
    // A model that does not parse is a bad input file (exit 2), said before anything starts.
    if let Some(model) = &args.model {
        crate::emulator::model_yaml::load(model).map_err(|e| usage(format!("--model: {e:#}")))?;
    }
    let secret = |path: &Option<std::path::PathBuf>, flag: &str| -> Result<Option<String>> {
        path.as_deref()
            .map(|p| Secret::from_file(p, flag).map(|s| s.expose().to_owned()))
            .transpose()
    };
    Ok(ServeOptions {
        listen,
        account: non_empty("--account", &args.account)?,
        agent: non_empty("--agent", &args.agent)?,
        api_key: secret(&args.api_key_file, "--api-key-file")?,
        scim_token: secret(&args.scim_token_file, "--scim-token-file")?,
        data_secret: secret(&args.data_secret_file, "--data-secret-file")?,
        model: args.model.clone(),
        data: args.data.clone(),
        pace,
        faults,
        clock: Clock::real(),
        today: today_arg(args.today.as_deref())?,
        dialect: args.dialect.into(),
        log: 0,
        scim: server::ScimSeed::default(),
    })
}

/// `--write-sample FILE`: the sample as of `--today` (default: the real date) into a new file.
fn write_sample(ctx: &Ctx, path: &std::path::Path, args: &ServeArgs) -> Result<Status> {
    if path.exists() {
        return Err(usage(format!(
            "--write-sample: {} exists; remove it or name a new file",
            path.display()
        )));
    }
    let today = today_arg(args.today.as_deref())?.unwrap_or_else(|| Clock::real().today());
    crate::emulator::write_sample(path, today)
        .map_err(|e| usage(format!("--write-sample: {e:#}")))?;
    if ctx.chatty() {
        let (y, m, d) = today;
        crate::term::diag(format_args!(
            "wrote the sample as of {y:04}-{m:02}-{d:02} to {}; serve it with: analyst serve --data {}",
            path.display(),
            shell_word(&path.to_string_lossy())
        ));
    }
    Ok(Status::Success)
}

/// `--token-for USER [--attr NAME=VALUE]...`: print one data API token and exit.
fn token_for(user: &str, args: &ServeArgs) -> Result<Status> {
    let path = args
        .data_secret_file
        .as_deref()
        .ok_or_else(|| usage("--token-for needs --data-secret-file (the server's dataSecret)"))?;
    let secret = Secret::from_file(path, "--data-secret-file")?;
    let attrs = args
        .attrs
        .iter()
        .map(|a| match a.split_once('=') {
            Some((n, v)) if !n.is_empty() => Ok((n.to_owned(), v.to_owned())),
            _ => Err(usage(format!("--attr {a:?}: expected NAME=VALUE"))),
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = crate::exit::stdout_lock();
    writeln!(out, "{}", server::data_token(user, &attrs, secret.expose()))?;
    out.flush()?;
    Ok(Status::Success)
}

/// `--data` must be a SQLite database: a CSV or an empty file is a bad input file (exit 2),
/// said before anything starts, not a failure of the emulator (1).
fn check_sqlite(path: &std::path::Path) -> Result<()> {
    use std::io::Read;
    const MAGIC: &[u8; 16] = b"SQLite format 3\0";
    let mut head = [0u8; 16];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| usage(format!("--data: cannot read {}: {e}", path.display())))?;
    if read < head.len() || &head != MAGIC {
        return Err(usage(format!(
            "--data: {} is not a SQLite database (it does not start with the SQLite file header); \
             pass a .sqlite file, or CSV files named *.csv",
            path.display()
        )));
    }
    Ok(())
}

/// `--today DATE` (serve and `chat --demo`), a usage error naming the flag when malformed.
pub(crate) fn today_arg(value: Option<&str>) -> Result<Option<(i32, u32, u32)>> {
    value
        .map(|v| crate::emulator::parse_today(v).map_err(|e| usage(format!("--today: {e}"))))
        .transpose()
}

fn non_empty(flag: &str, value: &str) -> Result<String> {
    let ok = !value.is_empty() && !value.contains(['/', '?', '#', ' ']);
    ok.then(|| value.to_owned()).ok_or_else(|| {
        usage(format!(
            "{flag} {value:?}: must be a non-empty URL path segment"
        ))
    })
}

/// The SCIM users and groups to start with: the `users:` and `groups:` of the `--config`
/// document (only the flag: `ANALYST_CONFIG` names the client's settings), and `--scim-users`.
fn scim_seed(config: Option<&std::path::Path>, synthetic: usize) -> Result<server::ScimSeed> {
    let mut seed = match config {
        None => server::ScimSeed::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| usage(format!("--config: cannot read {}: {e}", path.display())))?;
            server::ScimSeed::from_document(&text)
                .map_err(|e| usage(format!("--config {}: {e:#}", path.display())))?
        }
    };
    seed.synthetic_users = synthetic;
    Ok(seed)
}

/// `127.0.0.1:8787`, `[::1]:0`, or a host name such as `localhost:8787`.
fn listen_addr(s: &str) -> Result<SocketAddr> {
    if let Ok(addr) = s.parse() {
        return Ok(addr);
    }
    s.to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| {
            usage(format!(
                "--listen {s:?}: expected HOST:PORT, e.g. 127.0.0.1:8787"
            ))
        })
}

/// The `-o json` object: one line, so `| head -1` gets all of it.
fn summary(r: &Running, args: &ServeArgs) -> serde_json::Value {
    json!({
        "chatUrl": r.chat_url,
        "scimUrl": r.scim_url,
        "apiKey": r.api_key,
        "scimToken": r.scim_token,
        "token": r.token,
        "dataUrl": r.data_url,
        "dataToken": r.data_token,
        "dataSecret": r.data_secret,
        "account": args.account,
        "agent": args.agent,
        "listen": r.addr.to_string(),
        "attributes": r.attributes,
        "users": r.users.iter().map(|u| json!({"id": u.id, "userName": u.user_name, "active": u.active})).collect::<Vec<_>>(),
        "groups": r.groups.iter().map(|g| json!({"id": g.id, "displayName": g.display_name})).collect::<Vec<_>>(),
        "faults": args.faults,
    })
}

fn write_text(out: &mut impl Write, r: &Running, args: &ServeArgs) -> Result<()> {
    let users = user_lines(r);
    // A value the data has, so the example line finds rows when pasted.
    let example = r.attribute_example();
    let attributes = attributes_line(r, example.as_ref());
    writeln!(out, "analyst emulator listening on {}", r.addr)?;
    writeln!(out)?;
    writeln!(out, "  Chat URL      {}", r.chat_url)?;
    writeln!(out, "  SCIM URL      {}", r.scim_url)?;
    writeln!(out, "  API key       {}", r.api_key)?;
    writeln!(out, "  SCIM token    {}", r.scim_token)?;
    writeln!(
        out,
        "  Token auth    {} (X-Cube-Auth-Token for externalId demo-user; HS256 with the data secret)",
        r.token
    )?;
    writeln!(out, "  Data URL      {}", r.data_url)?;
    writeln!(
        out,
        "  Data token    {} (sub demo-user, no attributes)",
        r.data_token
    )?;
    writeln!(
        out,
        "  Data secret   {} (HS256; mint tokens: serve --data-secret-file FILE --token-for USER --attr NAME=VALUE)",
        r.data_secret
    )?;
    for (i, user) in users.iter().enumerate() {
        let label = if i == 0 { "SCIM users" } else { "" };
        writeln!(out, "  {label:<14}{user}")?;
    }
    writeln!(
        out,
        "                (internal users: --internal-id USERNAME)"
    )?;
    if args.scim_users > 0 {
        writeln!(
            out,
            "                (and {} synthetic users, user000001@example.com ...)",
            args.scim_users
        )?;
    }
    for (i, g) in r.groups.iter().enumerate() {
        let label = if i == 0 { "SCIM groups" } else { "" };
        writeln!(out, "  {label:<14}id {}  {}", g.id, g.display_name)?;
    }
    writeln!(out, "  Attributes    {attributes}")?;
    if !args.faults.is_empty() {
        writeln!(out, "  Faults        {}", args.faults.join("  "))?;
    }
    let attr = example
        .map(|(n, v)| format!(" --attr {n}={}", shell_word(&v)))
        .unwrap_or_default();
    writeln!(out)?;
    write_try(out, r, &attr)
}

/// One line per seeded user with its SCIM id (which `scim patch ID` takes), names aligned.
fn user_lines(r: &Running) -> Vec<String> {
    let width = r.users.iter().map(|u| u.user_name.len()).max().unwrap_or(0);
    r.users
        .iter()
        .map(|u| {
            format!(
                "id {}  {:width$}  {}",
                u.id,
                u.user_name,
                if u.active { "active" } else { "inactive" }
            )
        })
        .collect()
}

/// The model's user attributes for row-level security, with an example `--attr` when the data
/// has a value.
fn attributes_line(r: &Running, example: Option<&(String, String)>) -> String {
    if r.attributes.is_empty() {
        "none (the model has no row-level security)".to_owned()
    } else {
        let e_g = example
            .map(|(n, v)| format!("; e.g. --attr {n}={}", shell_word(v)))
            .unwrap_or_default();
        format!(
            "{} (sessionSettings.userAttributes{e_g})",
            r.attributes.join(", ")
        )
    }
}

/// The "Try:" lines: chat, curl, sql and scim commands that work against this server.
fn write_try(out: &mut impl Write, r: &Running, attr: &str) -> Result<()> {
    writeln!(out, "Try:")?;
    writeln!(
        out,
        "  ANALYST_API_KEY={} analyst chat --url {} --external-id demo-user{attr} \"What was revenue in 2025?\"",
        r.api_key, r.chat_url
    )?;
    writeln!(
        out,
        "  curl -N {} -H 'Authorization: Api-Key {}' -H 'Content-Type: application/json' \\\n       -d '{{\"input\":\"What was revenue in 2025?\",\"sessionSettings\":{{\"externalId\":\"demo-user\"}}}}'",
        r.chat_url, r.api_key
    )?;
    writeln!(
        out,
        "  ANALYST_DATA_TOKEN={} analyst sql --data-url {} 'SELECT MEASURE(revenue) FROM sales'",
        r.data_token, r.data_url
    )?;
    writeln!(
        out,
        "  ANALYST_SCIM_TOKEN={} analyst scim patch --scim-url {} --user-name bo@example.com --deactivate",
        r.scim_token, r.scim_url
    )?;
    Ok(())
}

/// Ctrl-C, or SIGTERM on Unix.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(listen_addr("127.0.0.1:0").unwrap().port(), 0);
        assert!(listen_addr("[::1]:8787").is_ok());
        assert!(listen_addr("nonsense").is_err());
        assert!(non_empty("--account", "a/b").is_err());
    }

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("Europe"), "Europe");
        assert_eq!(shell_word("Asia Pacific"), "'Asia Pacific'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
