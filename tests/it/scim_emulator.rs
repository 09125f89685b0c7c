//! `analyst scim patch` against the built-in emulator (`analyst serve`), in-process: deactivate a
//! user and see the service refuse that user's chat; bulk runs; throttling faults.

use crate::common;

use analyst::emulator::http::faults::Fault;
use analyst::emulator::server::{Running, ServeOptions, start};
use common::scim::analyst;
use serde_json::{Value, json};

struct Emulator {
    rt: tokio::runtime::Runtime,
    running: Running,
    http: reqwest::Client,
}

impl Emulator {
    fn start(faults: &[&str]) -> Emulator {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let mut opts = ServeOptions::demo();
        opts.pace = std::time::Duration::ZERO;
        opts.faults = faults.iter().map(|f| f.parse::<Fault>().unwrap()).collect();
        let running = rt.block_on(start(opts)).expect("the emulator starts");
        Emulator {
            rt,
            running,
            http: common::http_client().build().unwrap(),
        }
    }

    fn patch(&self, args: &[&str]) -> (i32, String, String) {
        let home = tempfile::tempdir().unwrap();
        let out = analyst(&home)
            .args(["scim", "patch"])
            .args(args)
            .env("ANALYST_SCIM_URL", &self.running.scim_url)
            .env("ANALYST_SCIM_TOKEN", &self.running.scim_token)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// A chat request for an internal user, sent directly; (status, body).
    fn chat_as(&self, internal_id: &str) -> (u16, String) {
        let req = self
            .http
            .post(&self.running.chat_url)
            .header("authorization", format!("Api-Key {}", self.running.api_key))
            .header("content-type", "application/json")
            .body(
                json!({"input": "How many orders?", "sessionSettings": {"internalId": internal_id}})
                    .to_string(),
            );
        self.rt.block_on(async {
            let resp = req.send().await.unwrap();
            let status = resp.status().as_u16();
            (status, resp.text().await.unwrap_or_default())
        })
    }

    fn scim(&self, req: reqwest::RequestBuilder) -> (u16, Value) {
        self.rt.block_on(async {
            let resp = req
                .bearer_auth(&self.running.scim_token)
                .send()
                .await
                .unwrap();
            let status = resp.status().as_u16();
            let body = resp.bytes().await.unwrap_or_default();
            (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
        })
    }

    fn get_user(&self, id: &str) -> Value {
        let (status, user) = self.scim(
            self.http
                .get(format!("{}/Users/{id}", self.running.scim_url)),
        );
        assert_eq!(status, 200, "{user}");
        user
    }

    fn create_user(&self, user_name: &str) -> String {
        let (status, user) = self.scim(
            self.http
                .post(format!("{}/Users", self.running.scim_url))
                .header("content-type", "application/scim+json")
                .body(json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": user_name, "active": true}).to_string()),
        );
        assert_eq!(status, 201, "{user}");
        user["id"].as_str().unwrap().to_owned()
    }
}

#[test]
fn a_deactivated_user_can_no_longer_chat() {
    let emu = Emulator::start(&[]);
    let ana = emu
        .running
        .users
        .iter()
        .find(|u| u.active)
        .expect("an active seeded user")
        .clone();
    let (status, body) = emu.chat_as(&ana.user_name);
    assert_eq!(status, 200, "{body}");

    let (code, out, err) =
        emu.patch(&["--user-name", &ana.user_name, "--deactivate", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(printed["id"], ana.id.as_str());
    assert_eq!(printed["active"], false);
    assert_eq!(emu.get_user(&ana.id)["active"], false);

    let (status, body) = emu.chat_as(&ana.user_name);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("deactivated"), "{body}");

    // And back: --activate by id lets the user chat again.
    let (code, _, err) = emu.patch(&[&ana.id, "--activate"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(emu.chat_as(&ana.user_name).0, 200);
}

#[test]
fn bulk_ids_from_stdin_with_unknown_ids() {
    let emu = Emulator::start(&[]);
    let ids: Vec<String> = (0..40)
        .map(|i| emu.create_user(&format!("u{i}@example.com")))
        .collect();
    let mut input = ids.join("\n");
    input.push_str("\nno-such-id\n");
    let home = tempfile::tempdir().unwrap();
    let out = analyst(&home)
        .args([
            "scim",
            "patch",
            "--ids-from",
            "-",
            "--deactivate",
            "-j",
            "6",
            "-o",
            "ndjson",
        ])
        .env("ANALYST_SCIM_URL", &emu.running.scim_url)
        .env("ANALYST_SCIM_TOKEN", &emu.running.scim_token)
        .write_stdin(input)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 41);
    assert!(err.contains("patched 40 of 41 users; 1 failed"), "{err}");
    for id in &ids {
        assert_eq!(emu.get_user(id)["active"], false);
    }
}

#[test]
fn throttling_faults_are_retried() {
    // The emulator answers the first two SCIM requests with 429 and Retry-After: 0.
    let emu = Emulator::start(&["status=429x2,retry-after=0,on=scim"]);
    let id = emu.running.users[0].id.clone();
    let (code, _, err) = emu.patch(&[&id, "--deactivate", "-v"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("< 429").count(), 2, "{err}");
    assert_eq!(emu.get_user(&id)["active"], false);
}
