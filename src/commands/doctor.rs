//! `analyst doctor`: check the settings, the way to the service and the credentials, one line
//! per check with the fix for anything not ok. It sends no chat message and changes nothing:
//! the credentials are tried with an abort of a thread that does not exist (the service's 404
//! for an unknown thread means the key and the agent are right).

use super::Ctx;
use crate::cli::{DoctorArgs, Format};
use crate::exit::Status;
use crate::render::pick_format;
use crate::settings::{ChatAuth, Resolver, ServiceFlags};
use anyhow::Result;
use serde_json::{Value, json};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

/// One check's outcome.
struct Check {
    name: &'static str,
    status: &'static str,
    detail: String,
    fix: Option<String>,
}

fn ok(name: &'static str, detail: String) -> Check {
    Check {
        name,
        status: "ok",
        detail,
        fix: None,
    }
}
fn warn(name: &'static str, detail: String, fix: &str) -> Check {
    Check {
        name,
        status: "warn",
        detail,
        fix: Some(fix.into()),
    }
}
fn fail(name: &'static str, detail: String, fix: &str) -> Check {
    Check {
        name,
        status: "fail",
        detail,
        fix: Some(fix.into()),
    }
}

/// What doctor checks against: URLs and secrets, from the profile or from the demo.
struct Target {
    chat_url: url::Url,
    abort_url: url::Url,
    auth: Option<ChatAuth>,
    identity: Value,
    scim: Option<(url::Url, String)>,
    data: Option<(url::Url, String)>,
}

/// Run the command.
pub fn run(ctx: &Ctx, args: DoctorArgs) -> Result<Status> {
    checks_to(ctx, args, false)
}

/// Run the checks and print them on stdout, or on stderr (after `config init`, whose stdout
/// stays empty); the status is doctor's.
pub fn checks_to(ctx: &Ctx, args: DoctorArgs, stderr: bool) -> Result<Status> {
    let format = pick_format(
        ctx.global.output,
        &[Format::Text, Format::Json],
        Format::Text,
        Format::Text,
        "doctor",
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let checks = runtime.block_on(async {
        let mut checks = Vec::new();
        let mut _demo = None;
        let target = if args.demo {
            let running =
                crate::emulator::server::start(crate::emulator::server::ServeOptions::demo())
                    .await?;
            checks.push(ok(
                "config",
                "the built-in emulator (--demo); no config file is read".into(),
            ));
            let t = Target {
                chat_url: running.chat_url.parse()?,
                abort_url: running
                    .chat_url
                    .replace("/stream-chat-state", "/abort")
                    .parse()?,
                auth: Some(ChatAuth::ApiKey(crate::settings::Secret::new(
                    running.api_key.clone(),
                    "demo",
                )?)),
                identity: json!({"externalId": "demo"}),
                scim: Some((running.scim_url.parse()?, running.scim_token.clone())),
                data: Some((running.data_url.parse()?, running.data_token.clone())),
            };
            _demo = Some(running);
            Some(t)
        } else {
            settings(ctx, &mut checks)
        };
        if let Some(t) = target {
            network(&t, &mut checks).await;
        }
        anyhow::Ok(checks)
    })?;
    let failed = checks.iter().any(|c| c.status == "fail");
    let unconfigured = checks
        .iter()
        .any(|c| c.name == "config" && c.status == "fail");
    let mut out: Box<dyn Write> = if stderr {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(crate::exit::stdout_lock())
    };
    if format == Format::Json {
        let list: Vec<Value> = checks
            .iter()
            .map(|c| json!({"name": c.name, "status": c.status, "detail": c.detail, "fix": c.fix}))
            .collect();
        writeln!(out, "{}", json!({"checks": list}))?;
    } else {
        for c in &checks {
            writeln!(out, "{:4}  {:11} {}", c.status, c.name, c.detail)?;
            if let Some(f) = &c.fix {
                writeln!(out, "      {:11} fix: {f}", "")?;
            }
        }
    }
    out.flush()?;
    Ok(if unconfigured {
        Status::Usage
    } else if failed {
        Status::Failure
    } else {
        Status::Success
    })
}

/// The config file, the profile and the chat URL's shape; the target to check, when there is one.
fn settings(ctx: &Ctx, checks: &mut Vec<Check>) -> Option<Target> {
    let path = crate::settings::config_path(ctx.global.config.as_deref(), &ctx.env);
    let resolver = match Resolver::load(
        ctx.global.config.as_deref(),
        ctx.global.profile.as_deref(),
        ctx.env.clone(),
    ) {
        Ok(r) => r,
        Err(e) => {
            checks.push(fail(
                "config",
                format!("{e:#}"),
                "fix the file (analyst config path names it) or run: analyst config init",
            ));
            return None;
        }
    };
    let file = match &path {
        Some(p) if p.exists() => format!("{}", p.display()),
        _ => "no config file".into(),
    };
    let profile = resolver
        .profile_name
        .clone()
        .unwrap_or_else(|| "(none)".into());
    let flags = ServiceFlags::default();
    let endpoint = match resolver.chat_endpoint(&flags) {
        Ok(e) => e,
        Err(e) => {
            checks.push(fail(
                "config",
                format!("{file}, profile {profile}: {e:#}"),
                "run: analyst config init (or set ANALYST_CHAT_URL)",
            ));
            return None;
        }
    };
    checks.push(ok("config", format!("{file}, profile {profile}")));
    checks.push(ok("chat url", endpoint.stream.as_str().to_string()));
    let auth = match resolver.chat_auth(&flags) {
        Ok(a) => a,
        Err(e) => {
            checks.push(fail(
                "credentials",
                format!("{e:#}"),
                "set the variable the profile names, or: analyst config set api_key_env VAR",
            ));
            None
        }
    };
    let identity = resolver
        .identity(&Default::default(), None, false)
        .ok()
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or_else(|| json!({"externalId": "analyst-doctor"}));
    let configured_scim =
        resolver.env.get("ANALYST_SCIM_URL").is_some() || resolver.profile.scim_url.is_some();
    let scim = configured_scim
        .then(|| resolver.scim(None, None))
        .and_then(|r| match r {
            Ok(s) => Some((s.root, s.token.expose().to_owned())),
            Err(e) => {
                checks.push(fail(
                    "scim",
                    format!("{e:#}"),
                    "set the SCIM token's variable, or: analyst config set scim_token_env VAR",
                ));
                None
            }
        });
    let configured_data =
        resolver.env.get("ANALYST_DATA_URL").is_some() || resolver.profile.data_url.is_some();
    let data = configured_data
        .then(|| resolver.data(None, None, &flags))
        .and_then(|r| match r {
            Ok(d) => Some((d.root.clone(), d.token.expose().to_owned())),
            Err(e) => {
                checks.push(fail(
                    "data api",
                    format!("{e:#}"),
                    "set the data token's variable, or: analyst config set data_token_env VAR",
                ));
                None
            }
        });
    Some(Target {
        chat_url: endpoint.stream,
        abort_url: endpoint.abort,
        auth,
        identity,
        scim,
        data,
    })
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// DNS, TCP (and TLS within the first request), credentials and agent, SCIM, data API, clock.
async fn network(t: &Target, checks: &mut Vec<Check>) {
    let host = t.chat_url.host_str().unwrap_or_default().to_string();
    let port = t.chat_url.port_or_known_default().unwrap_or(443);
    let start = Instant::now();
    let addrs: Vec<std::net::SocketAddr> = match tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::lookup_host((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(a)) => a.collect(),
        Ok(Err(e)) => {
            checks.push(fail(
                "dns",
                format!("{host}: {e}"),
                "check the host name in the chat URL, and your network or VPN",
            ));
            return;
        }
        Err(_) => {
            checks.push(fail(
                "dns",
                format!("{host}: no answer in 10 s"),
                "check your network or DNS server",
            ));
            return;
        }
    };
    checks.push(ok(
        "dns",
        format!(
            "{host} -> {} ({})",
            addrs
                .first()
                .map(|a| a.ip().to_string())
                .unwrap_or_default(),
            ms(start.elapsed())
        ),
    ));
    let start = Instant::now();
    let mut connected = None;
    for a in &addrs {
        if let Ok(Ok(_)) =
            tokio::time::timeout(Duration::from_secs(10), tokio::net::TcpStream::connect(a)).await
        {
            connected = Some(*a);
            break;
        }
    }
    match connected {
        Some(a) => checks.push(ok("tcp", format!("{a} ({})", ms(start.elapsed())))),
        None => {
            checks.push(fail("tcp", format!("cannot connect to {host}:{port}"), "the host does not accept connections on that port: check the URL's host and port, a firewall or a proxy"));
            return;
        }
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let Ok(http) = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
    else {
        return;
    };
    // Credentials and agent: abort a thread that does not exist.
    let body = json!({
        "chatId": format!("analyst-doctor-{}", std::process::id()),
        "sessionSettings": t.identity,
    });
    let mut req = http
        .post(t.abort_url.clone())
        .header("Content-Type", "application/json")
        .body(body.to_string());
    match &t.auth {
        Some(ChatAuth::ApiKey(k)) => {
            req = req.header("Authorization", format!("Api-Key {}", k.expose()))
        }
        Some(ChatAuth::Token(k)) => req = req.header("X-Cube-Auth-Token", k.expose()),
        None => {}
    }
    let start = Instant::now();
    let tls = if t.chat_url.scheme() == "https" {
        "TLS and "
    } else {
        ""
    };
    match req.send().await {
        Err(e) => checks.push(fail("request", format!("{tls}request to {host}: {e}"), "check the URL's scheme and port, and certificates (a proxy that intercepts TLS needs its CA installed)")),
        Ok(resp) => {
            let took = start.elapsed();
            let date = resp.headers().get("date").and_then(|d| d.to_str().ok()).map(str::to_string);
            let status = resp.status().as_u16();
            let ctype = resp.headers().get("content-type").and_then(|c| c.to_str().ok()).unwrap_or("").to_string();
            let body = resp.text().await.unwrap_or_default();
            checks.push(ok("request", format!("{tls}first answer in {}", ms(took))));
            let json: Option<Value> = serde_json::from_str(&body).ok();
            let rpc_auth = json.as_ref().is_some_and(|v| v.get("jsonrpc").is_some() && v.get("error").is_some());
            let html = ctype.contains("html") || body.trim_start().starts_with('<');
            checks.push(match status {
                _ if t.auth.is_none() => fail("credentials", "no API key or token configured".into(), "set ANALYST_API_KEY, or: analyst config set api_key_env VAR"),
                401 | 403 => fail("credentials", format!("the service refused the credentials (HTTP {status})"), "check the API key (and that the URL's agent belongs to its account)"),
                _ if rpc_auth => fail("credentials", format!("the service refused the credentials: {}", body.trim().chars().take(200).collect::<String>()), "check the API key"),
                404 | 204 | 200 if json.is_some() || status == 204 => ok("credentials", format!("key accepted, agent found (HTTP {status} for an unknown thread)")),
                _ if html => fail("chat url", format!("HTTP {status} with an HTML page: the URL is not the Chat API"), "copy the Chat API URL from the agent's settings"),
                _ => fail("chat url", format!("HTTP {status}: not the service's answer for an unknown thread"), "copy the Chat API URL from the agent's settings"),
            });
            checks.push(clock(date.as_deref()));
        }
    }
    if let Some((root, token)) = &t.scim {
        let url = format!(
            "{}/ServiceProviderConfig",
            root.as_str().trim_end_matches('/')
        );
        let r = http.get(&url).bearer_auth(token).send().await;
        checks.push(match r {
            Ok(r) if r.status().is_success() => {
                ok("scim", format!("{} answered ServiceProviderConfig", root))
            }
            Ok(r) if matches!(r.status().as_u16(), 401 | 403) => fail(
                "scim",
                format!("the SCIM token was refused (HTTP {})", r.status().as_u16()),
                "check the SCIM token (an API key of the account)",
            ),
            Ok(_) => {
                let users = format!("{}/Users?count=1", root.as_str().trim_end_matches('/'));
                match http.get(&users).bearer_auth(token).send().await {
                    Ok(r) if r.status().is_success() => {
                        ok("scim", format!("{root} answered /Users"))
                    }
                    Ok(r) if matches!(r.status().as_u16(), 401 | 403) => fail(
                        "scim",
                        format!("the SCIM token was refused (HTTP {})", r.status().as_u16()),
                        "check the SCIM token",
                    ),
                    Ok(r) => fail(
                        "scim",
                        format!("HTTP {} from {users}", r.status().as_u16()),
                        "check the SCIM URL (it ends in /scim/v2)",
                    ),
                    Err(e) => fail("scim", format!("{e}"), "check the SCIM URL's host"),
                }
            }
            Err(e) => fail("scim", format!("{e}"), "check the SCIM URL's host"),
        });
    }
    if let Some((root, token)) = &t.data {
        let url = format!("{}/v1/cubesql", root.as_str().trim_end_matches('/'));
        let r = http
            .post(&url)
            .header("Authorization", token)
            .header("Content-Type", "application/json")
            .body(json!({"query": "SELECT 1"}).to_string())
            .send()
            .await;
        checks.push(match r {
            Ok(r) if r.status().is_success() => ok("data api", format!("{root} ran SELECT 1")),
            Ok(r) if r.status().as_u16() == 400 => {
                let body = r.text().await.unwrap_or_default();
                if serde_json::from_str::<Value>(&body).is_ok() {
                    ok(
                        "data api",
                        format!(
                            "{root} reachable, token accepted (it refuses a query naming no cube)"
                        ),
                    )
                } else {
                    fail(
                        "data api",
                        format!("HTTP 400 without a JSON body from {url}"),
                        "check the data URL (it ends in /cubejs-api)",
                    )
                }
            }
            Ok(r) if matches!(r.status().as_u16(), 401 | 403) => fail(
                "data api",
                format!(
                    "the data API token was refused (HTTP {})",
                    r.status().as_u16()
                ),
                "check the data token (a JWT signed with the deployment's secret)",
            ),
            Ok(r) => fail(
                "data api",
                format!("HTTP {} from {url}", r.status().as_u16()),
                "check the data URL (it ends in /cubejs-api)",
            ),
            Err(e) => fail("data api", format!("{e}"), "check the data URL's host"),
        });
    }
}

/// The service's `Date` against the local clock: signed tokens expire, so a clock minutes off
/// makes good tokens fail.
fn clock(date: Option<&str>) -> Check {
    let Some(d) = date.and_then(|d| httpdate::parse_http_date(d).ok()) else {
        return warn(
            "clock",
            "the service sent no Date header".into(),
            "nothing to do unless tokens fail as expired",
        );
    };
    let now = SystemTime::now();
    let skew = now
        .duration_since(d)
        .or_else(|_| d.duration_since(now))
        .unwrap_or_default();
    if skew > Duration::from_secs(300) {
        warn(
            "clock",
            format!("the local clock is {} s off the service's", skew.as_secs()),
            "set the clock right (NTP): signed tokens expire",
        )
    } else {
        ok(
            "clock",
            format!("within {} s of the service's", skew.as_secs()),
        )
    }
}
