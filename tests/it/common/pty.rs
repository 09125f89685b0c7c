//! A child on a pseudo-terminal, driven as a user drives it: what it writes, and a way to type.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A child on a pseudo-terminal: what it writes, and a way to type.
pub struct Pty {
    master: File,
    child: Child,
    /// Everything the terminal received.
    pub seen: Arc<Mutex<Vec<u8>>>,
    /// How much of `seen` earlier `expect`s consumed.
    at: usize,
}

impl Pty {
    /// Spawn `cmd` on a terminal of 100 columns.
    pub fn spawn(cmd: Command) -> Pty {
        Pty::spawn_sized(cmd, 100)
    }

    /// Spawn `cmd` on a terminal of `cols` columns.
    pub fn spawn_sized(mut cmd: Command, cols: u16) -> Pty {
        // SAFETY: plain libc calls on fds we own; the pre_exec closure only calls
        // async-signal-safe functions (setsid, ioctl).
        unsafe {
            let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(master >= 0);
            assert_eq!(libc::grantpt(master), 0);
            assert_eq!(libc::unlockpt(master), 0);
            let name = std::ffi::CStr::from_ptr(libc::ptsname(master)).to_owned();
            let slave = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
            assert!(slave >= 0);
            let size = libc::winsize {
                ws_row: 50,
                ws_col: cols,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            libc::ioctl(slave, libc::TIOCSWINSZ, &size);
            let slave = OwnedFd::from_raw_fd(slave);
            cmd.stdin(Stdio::from(slave.try_clone().unwrap()))
                .stdout(Stdio::from(slave.try_clone().unwrap()))
                .stderr(Stdio::from(slave));
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
            let child = cmd.spawn().unwrap();
            let master = File::from_raw_fd(master);
            let seen = Arc::new(Mutex::new(Vec::new()));
            let mut reader = master.try_clone().unwrap();
            let sink = seen.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    sink.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            });
            Pty {
                master,
                child,
                seen,
                at: 0,
            }
        }
    }

    /// Type `s`.
    pub fn send(&mut self, s: &str) {
        self.master.write_all(s.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the terminal received so far, as text.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    /// Wait until `what` appears after what earlier calls consumed.
    pub fn expect(&mut self, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            {
                let seen = self.seen.lock().unwrap();
                let text = String::from_utf8_lossy(&seen[self.at..]).into_owned();
                if let Some(i) = text.find(what) {
                    self.at += text[..i + what.len()].len();
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "never saw {what:?}; the terminal shows:\n{}",
                    String::from_utf8_lossy(&seen)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The exit code (-1 when killed by a signal).
    pub fn wait(self) -> i32 {
        self.wait_status().code().unwrap_or(-1)
    }

    /// How the child ended.
    pub fn wait_status(mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "the prompt did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `analyst` isolated from the user's environment, for a terminal.
pub fn prompt_cmd(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_analyst"));
    cmd.env_clear()
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", super::isolation::SHARED_CACHE)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .current_dir(home);
    cmd
}
