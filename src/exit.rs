//! The exit-status table of CLI.md, and the error type that carries a status to `main`.

use std::fmt;

/// Every exit status the program can end with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Success = 0,
    /// The service reported a failure, or some ids of a bulk run failed.
    Failure = 1,
    /// Usage error: bad flags, identity, body or input file; also a 400 from the service.
    Usage = 2,
    /// Authentication or permission refused (401, 403, auth error object).
    Auth = 3,
    /// Not found (404).
    NotFound = 4,
    /// Conflict: thread already streaming, 409, 412.
    Conflict = 5,
    /// Network: cannot connect, TLS, timeout, connection lost and not resumable.
    Network = 6,
    /// No final answer.
    NoAnswer = 7,
    /// Interrupted (Ctrl-C).
    Interrupted = 130,
}

impl Status {
    /// The process exit code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The status for an HTTP error response.
    pub fn from_http(code: u16) -> Status {
        match code {
            400 | 413 | 422 => Status::Usage,
            401 | 403 | 407 => Status::Auth,
            404 | 410 => Status::NotFound,
            409 | 412 | 423 => Status::Conflict,
            408 => Status::Network,
            _ => Status::Failure,
        }
    }

    /// How bad a status is, for runs that combine several outcomes: an interruption, then a
    /// usage error (the run was not what was asked for), then refusals, then failures of the
    /// service or network, then a missing answer.
    fn severity(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::NoAnswer => 1,
            Status::Failure => 2,
            Status::Network => 3,
            Status::Conflict => 4,
            Status::NotFound => 5,
            Status::Auth => 6,
            Status::Usage => 7,
            Status::Interrupted => 8,
        }
    }

    /// The worse of two statuses, whatever their order.
    pub fn worst(self, other: Status) -> Status {
        if other.severity() > self.severity() {
            other
        } else {
            self
        }
    }
}

/// An error with the exit status it should end the program with.
#[derive(Debug)]
pub struct Failure {
    /// The exit status.
    pub status: Status,
    /// What happened, in words the user can act on.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Build an `anyhow::Error` that ends the program with `status`. Registered secrets in `message` (a server may echo a key
/// back in its error) become `***` here, so no output that carries the message (stderr, the
/// `error` of `-o json`, an eval report, an MCP tool error) can show them.
pub fn fail(status: Status, message: impl Into<String>) -> anyhow::Error {
    let message = message.into();
    anyhow::Error::new(Failure {
        status,
        message: crate::term::masked(&message).into_owned(),
    })
}

/// A usage error (exit 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    fail(Status::Usage, message)
}

/// Marks an error of a write to stdout. A broken pipe is only "`| head` closed stdout" (exit 0)
/// when it carries this marker: the same EPIPE from a socket (the server hung up while we were
/// uploading) is a network failure.
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// A writer to stdout whose broken-pipe errors carry [`StdoutClosed`]. Every command writes its
/// data through one of these (see [`stdout`] and [`stdout_lock`]), never to `std::io::stdout()`.
#[derive(Debug)]
pub struct StdoutWriter<W>(W);

/// Unlocked stdout, marked.
pub fn stdout() -> StdoutWriter<std::io::Stdout> {
    StdoutWriter(std::io::stdout())
}

/// Locked stdout, marked.
pub fn stdout_lock() -> StdoutWriter<std::io::StdoutLock<'static>> {
    StdoutWriter(std::io::stdout().lock())
}

fn mark(err: std::io::Error) -> std::io::Error {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        crate::term::note_stdout_closed();
        std::io::Error::new(std::io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        err
    }
}

impl<W: std::io::Write> std::io::Write for StdoutWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(mark)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.write_all(buf).map_err(mark)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(mark)
    }
}

/// Whether an error chain holds a broken pipe on stdout: `| head` closed it, which is not an
/// error. Only errors marked [`StdoutClosed`] count.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.is::<StdoutClosed>()
            || cause
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(|inner| inner.is::<StdoutClosed>())
    })
}

/// The status an error maps to: its own `Failure` status, else network errors 6, else 1.
pub fn status_of(err: &anyhow::Error) -> Status {
    for cause in err.chain() {
        if let Some(failure) = cause.downcast_ref::<Failure>() {
            return failure.status;
        }
    }
    for cause in err.chain() {
        if let Some(req) = cause.downcast_ref::<reqwest::Error>()
            && (req.is_connect() || req.is_timeout() || req.is_request() || req.is_body())
        {
            return Status::Network;
        }
    }
    Status::Failure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_statuses_map_to_the_table() {
        assert_eq!(Status::from_http(400), Status::Usage);
        assert_eq!(Status::from_http(401), Status::Auth);
        assert_eq!(Status::from_http(403), Status::Auth);
        assert_eq!(Status::from_http(404), Status::NotFound);
        assert_eq!(Status::from_http(409), Status::Conflict);
        assert_eq!(Status::from_http(412), Status::Conflict);
        assert_eq!(Status::from_http(500), Status::Failure);
        assert_eq!(Status::from_http(503), Status::Failure);
    }

    #[test]
    fn worst_does_not_depend_on_order() {
        for (a, b, w) in [
            (Status::NoAnswer, Status::Usage, Status::Usage),
            (Status::Success, Status::Failure, Status::Failure),
            (Status::Auth, Status::NotFound, Status::Auth),
        ] {
            assert_eq!(a.worst(b), w);
            assert_eq!(b.worst(a), w);
        }
    }

    #[test]
    fn failure_status_is_found_through_context() {
        let err = usage("bad flag").context("while starting");
        assert_eq!(status_of(&err), Status::Usage);
        assert_eq!(status_of(&anyhow::anyhow!("plain")), Status::Failure);
    }

    #[test]
    fn only_a_broken_pipe_on_stdout_is_recognised() {
        struct Closed;
        impl std::io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        use std::io::Write;
        let io = StdoutWriter(Closed).write_all(b"x").unwrap_err();
        let err = anyhow::Error::new(io).context("writing stdout");
        assert!(is_broken_pipe(&err));
        assert!(!is_broken_pipe(&anyhow::anyhow!("x")));
        // EPIPE from a socket (the server hung up during an upload) is not a closed stdout.
        let net = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("sending the request");
        assert!(!is_broken_pipe(&net));
    }
}
