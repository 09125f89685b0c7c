//! Who is calling: `Authorization: Api-Key` (chat), `Bearer`/`Api-Key` (SCIM), and the
//! emulator's `X-Cube-Auth-Token` scheme.
//!
//! Token scheme: a JWT signed HS256 with the emulator's data secret (`serve` prints it as
//! `dataSecret`; `serve --token-for` mints tokens). For chat, its payload carries the identity
//! either at the top level (`externalId` or `internalId`, plus optional `email`,
//! `userAttributes`, `groups`, `roles`, `securityContext`) or under a `sessionSettings` key; for
//! the data API it is the security context (`sub`, `userAttributes`, `groups`). Unsigned
//! (`alg: none`) or wrongly signed tokens are refused; an `exp` claim (Unix seconds) is checked
//! against the server's clock.

// Handlers return `Result<_, Response>` so `?` can answer early; the error is built once per
// request and handed straight to axum, so boxing it would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

use super::clock::Clock;
use super::responses;
use crate::protocol::Dialect;
use crate::protocol::SessionSettings;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// The header of token auth.
pub(crate) const TOKEN_HEADER: &str = "x-cube-auth-token";

/// How a chat request authenticated.
pub(crate) enum ChatCaller {
    /// A valid API key: the identity comes from `sessionSettings`.
    ApiKey,
    /// A token: its claims are the identity, and `sessionSettings` is ignored.
    Token(Box<SessionSettings>),
}

/// [`chat_caller`] with this server's credentials, clock and dialect.
pub(crate) fn caller_of(
    shared: &super::shared::Shared,
    headers: &HeaderMap,
    token_only: bool,
) -> Result<ChatCaller, Response> {
    chat_caller(
        headers,
        &shared.account_keys(),
        &shared.data_secret,
        &shared.clock,
        token_only,
        shared.dialect,
    )
}

/// Check a chat or abort request's credentials: any of the account's API keys (`api_keys`).
/// `token_only` is the deployments URL form, which refuses API keys with 403 as the protocol
/// says. `Authorization` wins over the token.
pub(crate) fn chat_caller(
    headers: &HeaderMap,
    api_keys: &[&str],
    secret: &str,
    clock: &Clock,
    token_only: bool,
    dialect: Dialect,
) -> Result<ChatCaller, Response> {
    let unauthorized = |msg: &str| responses::unauthorized(dialect, msg);
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        if token_only {
            return Err(responses::error(
                StatusCode::FORBIDDEN,
                "this deployment URL accepts only token auth (X-Cube-Auth-Token), not an API key",
            ));
        }
        let value = value.to_str().unwrap_or("");
        return match split_scheme(value) {
            Some((scheme, key)) if scheme.eq_ignore_ascii_case("api-key") => {
                if api_keys.iter().any(|k| same_secret(key, k)) {
                    Ok(ChatCaller::ApiKey)
                } else {
                    Err(unauthorized("invalid API key"))
                }
            }
            _ => Err(unauthorized(
                "the Authorization header must be `Api-Key <key>`",
            )),
        };
    }
    match headers.get(TOKEN_HEADER) {
        Some(token) => token_claims(token.to_str().unwrap_or(""), secret, clock)
            .map(|s| ChatCaller::Token(Box::new(s)))
            .map_err(|problem| unauthorized(&format!("invalid X-Cube-Auth-Token: {problem}"))),
        None => Err(unauthorized(
            "missing credentials: send `Authorization: Api-Key <key>` or X-Cube-Auth-Token",
        )),
    }
}

/// Check a SCIM request's token (`Bearer` or `Api-Key`): PROTOCOL.md says the SCIM token is an
/// ordinary API key of the account, so any of `tokens` (the account's keys) is accepted. A
/// SCIM error body on failure.
pub(crate) fn scim_caller(headers: &HeaderMap, tokens: &[&str]) -> Result<(), Response> {
    let value = match headers.get(header::AUTHORIZATION) {
        Some(v) => v.to_str().unwrap_or(""),
        None => {
            return Err(responses::scim_error(
                StatusCode::UNAUTHORIZED,
                None,
                "missing Authorization: Bearer <token>",
            ));
        }
    };
    match split_scheme(value) {
        Some((scheme, given))
            if scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("api-key") =>
        {
            if tokens.iter().any(|t| same_secret(given, t)) {
                Ok(())
            } else {
                Err(responses::scim_error(
                    StatusCode::UNAUTHORIZED,
                    None,
                    "invalid SCIM token",
                ))
            }
        }
        _ => Err(responses::scim_error(
            StatusCode::UNAUTHORIZED,
            None,
            "the Authorization header must be `Bearer <token>`",
        )),
    }
}

fn split_scheme(value: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = value.trim().split_once(' ')?;
    Some((scheme, rest.trim()))
}

/// Compare secrets without stopping at the first difference, so timing does not leak a prefix.
fn same_secret(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// The identity a token carries, checked by the same rules as `sessionSettings`.
fn token_claims(token: &str, secret: &str, clock: &Clock) -> Result<SessionSettings, String> {
    let claims = verified_claims(token, secret, clock)?;
    let identity = claims.get("sessionSettings").unwrap_or(&claims);
    let settings: SessionSettings = serde_json::from_value(identity.clone())
        .map_err(|e| format!("its claims do not fit sessionSettings: {e}"))?;
    settings.validate().map_err(|e| e.to_string())?;
    Ok(settings)
}

/// The payload of a JWT signed HS256 with `secret`, unexpired; why not otherwise.
pub(crate) fn verified_claims(token: &str, secret: &str, clock: &Clock) -> Result<Value, String> {
    let token = token.trim();
    let mut parts = token.split('.');
    let (Some(head), Some(payload), Some(sig), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("expected a JWT: three base64url parts joined by dots".into());
    };
    let decode = |part: &str, what: &str| -> Result<Value, String> {
        let bytes = base64url_decode(part).ok_or(format!("its {what} is not base64url"))?;
        let value: Value =
            serde_json::from_slice(&bytes).map_err(|_| format!("its {what} is not JSON"))?;
        value
            .is_object()
            .then_some(value)
            .ok_or(format!("its {what} is not a JSON object"))
    };
    let header = decode(head, "header")?;
    if header.get("alg").and_then(Value::as_str) != Some("HS256") {
        return Err("it is not signed with HS256".into());
    }
    let signature = base64url_decode(sig).ok_or("its signature is not base64url")?;
    let signed = &token[..head.len() + 1 + payload.len()];
    let mut mac = hmac_sha256(secret);
    mac.update(signed.as_bytes());
    mac.verify_slice(&signature)
        .map_err(|_| "its signature does not match the server's secret".to_string())?;
    let claims = decode(payload, "payload")?;
    if let Some(exp) = claims.get("exp").and_then(Value::as_f64)
        && exp * 1000.0 <= clock.now_ms() as f64
    {
        return Err("it has expired (exp)".into());
    }
    Ok(claims)
}

fn hmac_sha256(secret: &str) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length")
}

const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Decode unpadded (or padded) base64url; `None` on any other character.
fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.trim_end_matches('=').bytes() {
        let v = B64URL.iter().position(|&b| b == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 3);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(B64URL[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A token with these claims signed HS256 with `secret`: the emulator accepts it for chat
/// (`X-Cube-Auth-Token`) and for the data API (`serve` prints one, `--token-for` mints them).
pub fn signed_token(claims: &Value, secret: &str) -> String {
    let head = json!({"alg": "HS256", "typ": "JWT"});
    let signed = format!(
        "{}.{}",
        base64url_encode(head.to_string().as_bytes()),
        base64url_encode(claims.to_string().as_bytes())
    );
    let mut mac = hmac_sha256(secret);
    mac.update(signed.as_bytes());
    let sig = mac.finalize().into_bytes();
    format!("{signed}.{}", base64url_encode(&sig))
}

/// An unsigned (`alg: none`) token, which the emulator refuses: for tests of that refusal.
pub fn unsigned_token(claims: &Value) -> String {
    let head = json!({"alg": "none", "typ": "JWT"});
    format!(
        "{}.{}.",
        base64url_encode(head.to_string().as_bytes()),
        base64url_encode(claims.to_string().as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for s in ["", "a", "ab", "abc", "abcd", "{\"x\":\"\u{e9}?>\"}"] {
            let enc = base64url_encode(s.as_bytes());
            assert_eq!(base64url_decode(&enc).unwrap(), s.as_bytes(), "{enc}");
        }
        assert_eq!(base64url_encode(b"\xfb\xff"), "-_8");
        assert!(base64url_decode("a+b").is_none());
    }

    #[test]
    fn tokens_carry_identity_and_expiry() {
        let clock = Clock::manual(1_700_000_000_000);
        let k = "sekret";
        let t = signed_token(&json!({"externalId": "bot", "exp": 1_700_000_100}), k);
        assert_eq!(
            token_claims(&t, k, &clock).unwrap().external_id.as_deref(),
            Some("bot")
        );
        let nested = signed_token(&json!({"sessionSettings": {"internalId": "a@b.c"}}), k);
        assert!(token_claims(&nested, k, &clock).is_ok());
        assert!(
            token_claims(&nested, "other", &clock)
                .unwrap_err()
                .contains("signature")
        );
        let unsigned = unsigned_token(&json!({"externalId": "bot"}));
        assert!(
            token_claims(&unsigned, k, &clock)
                .unwrap_err()
                .contains("HS256")
        );
        clock.advance(std::time::Duration::from_secs(100));
        assert!(token_claims(&t, k, &clock).unwrap_err().contains("expired"));
        assert!(token_claims("abc", k, &clock).is_err());
        let bad = signed_token(&json!({"externalId": "Has Space"}), k);
        assert!(
            token_claims(&bad, k, &clock)
                .unwrap_err()
                .contains("externalId")
        );
    }
}
