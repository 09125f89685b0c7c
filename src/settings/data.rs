//! The data query API's settings: its root URL and its token (CLI.md, "Settings and their
//! sources"). With token auth for chat, the chat token is the data token's default.

use super::{ChatAuth, Resolver, Secret, ServiceFlags, data_root};
use crate::exit::usage;
use anyhow::Result;
use std::path::Path;
use url::Url;

/// Where the data query API is and the token it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataSettings {
    /// The root, ending in `/cubejs-api` (or whatever path was given).
    pub root: Url,
    /// The JWT, sent as `Authorization: <token>`.
    pub token: Secret,
}

impl Resolver {
    /// The data API root: `--data-url`, `ANALYST_DATA_URL`, `data_url`; missing is exit 2.
    pub fn data_url(&self, flag: Option<&str>) -> Result<Url> {
        let (url, origin) = flag
            .map(|u| (u.to_owned(), "--data-url"))
            .or_else(|| self.env.get("ANALYST_DATA_URL").map(|u| (u, "ANALYST_DATA_URL")))
            .or_else(|| self.profile.data_url.clone().map(|u| (u, "data_url")))
            .ok_or_else(|| {
                usage(
                    "no data URL: pass --data-url (the data query API, e.g. https://x.example.com/cubejs-api), \
                     or set ANALYST_DATA_URL, or data_url in a config profile",
                )
            })?;
        data_root(&url, origin)
    }

    /// The data API token: `--data-token-file`, `ANALYST_DATA_TOKEN`, `data_token` /
    /// `data_token_env` / `data_token_command`, else the chat token when chat uses token auth.
    /// Missing is exit 2 naming every source.
    pub fn data_token(&self, file: Option<&Path>, chat: &ServiceFlags) -> Result<Secret> {
        if let Some(f) = file {
            return Secret::from_file(f, "--data-token-file");
        }
        if let Some(v) = self.env.get("ANALYST_DATA_TOKEN") {
            return Secret::new(v, "ANALYST_DATA_TOKEN");
        }
        let p = &self.profile;
        if let Some(t) = self.profile_secret(
            &p.data_token,
            &p.data_token_env,
            &p.data_token_command,
            "data_token",
        )? {
            return Ok(t);
        }
        if let Some(ChatAuth::Token(t)) = self.chat_auth(chat)? {
            return Ok(t);
        }
        Err(usage(
            "no data API token: pass --data-token-file FILE, or set ANALYST_DATA_TOKEN, or data_token / \
             data_token_env / data_token_command in a config profile (with token auth, the chat token \
             of --token-file / ANALYST_TOKEN / token_env is used)",
        ))
    }

    /// Both, URL first (so a missing URL is named before a token command runs).
    pub fn data(
        &self,
        url_flag: Option<&str>,
        token_file: Option<&Path>,
        chat: &ServiceFlags,
    ) -> Result<DataSettings> {
        let root = self.data_url(url_flag)?;
        let token = self.data_token(token_file, chat)?;
        Ok(DataSettings { root, token })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Env;

    fn resolver(env: &[(&str, &str)]) -> Resolver {
        Resolver::load(None, None, Env::from_pairs(env.iter().copied())).unwrap()
    }

    #[test]
    fn a_bare_origin_gets_cubejs_api() {
        let r = resolver(&[]);
        for (given, root) in [
            ("https://x.example.com", "https://x.example.com/cubejs-api"),
            ("https://x.example.com/", "https://x.example.com/cubejs-api"),
            (
                "http://127.0.0.1:4000/cubejs-api/",
                "http://127.0.0.1:4000/cubejs-api",
            ),
            ("https://h/custom/api", "https://h/custom/api"),
        ] {
            assert_eq!(r.data_url(Some(given)).unwrap().as_str(), root, "{given}");
        }
        let e = r.data_url(None).unwrap_err().to_string();
        assert!(
            e.contains("--data-url") && e.contains("ANALYST_DATA_URL") && e.contains("data_url"),
            "{e}"
        );
    }

    #[test]
    fn token_precedence_and_the_chat_token_default() {
        let none = ServiceFlags::default();
        let r = resolver(&[("ANALYST_DATA_TOKEN", "d1"), ("ANALYST_TOKEN", "c1")]);
        assert_eq!(r.data_token(None, &none).unwrap().expose(), "d1");
        let r = resolver(&[("ANALYST_TOKEN", "c1")]);
        assert_eq!(r.data_token(None, &none).unwrap().expose(), "c1");
        // An API key is no data token.
        let r = resolver(&[("ANALYST_API_KEY", "k")]);
        let e = r.data_token(None, &none).unwrap_err().to_string();
        for named in [
            "--data-token-file",
            "ANALYST_DATA_TOKEN",
            "data_token_command",
        ] {
            assert!(e.contains(named), "{e}");
        }
    }
}
