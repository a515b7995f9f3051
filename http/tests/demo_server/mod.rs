//! A `wayfare serve --demo` child process for the tests that drive the real
//! binary (realtime.rs, simulate_live.rs): a free port, a fresh data
//! directory, its output in a log file shown when a check fails. Also the
//! nodes of a cluster (`start_node`), each killed and restarted on its own.
// Each test binary uses part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("a free port").port()
}

/// A `wayfare serve --demo` process; its output goes to a log file.
pub struct Server {
    pub child: Child,
    port: u16,
    data_dir: PathBuf,
    pub log: PathBuf,
    env: Vec<(String, String)>,
    database_url: Option<String>,
    /// What says it is up: `/healthz`, or `/readyz` for a cluster node.
    ready_path: &'static str,
}

fn owned(env: &[(&'static str, &'static str)]) -> Vec<(String, String)> {
    env.iter().map(|&(name, value)| (name.to_string(), value.to_string())).collect()
}

impl Server {
    pub fn start(directory: &Path, env: &[(&'static str, &'static str)]) -> Server {
        Server::start_on(&directory.join("data"), free_port(), &directory.join("server.log"), env.to_vec())
    }

    /// On a `postgres://` database instead of SQLite in the data directory.
    pub fn start_with_database(directory: &Path, database_url: &str, env: &[(&'static str, &'static str)]) -> Server {
        Server::launch(
            &directory.join("data"),
            Some(database_url.to_string()),
            free_port(),
            &directory.join("server.log"),
            owned(env),
            "/healthz",
        )
    }

    pub fn start_on(data_dir: &Path, port: u16, log: &Path, env: Vec<(&'static str, &'static str)>) -> Server {
        Server::launch(data_dir, None, port, log, owned(&env), "/healthz")
    }

    /// A node of a cluster on `database_url` and `port`, its data directory
    /// and log in `directory` (made if missing), `env` its cluster settings
    /// (`WAYFARE_CLUSTER__*`) and anything else; returns once `/readyz`
    /// answers 200. `kill` and `restart` act on this node only; a restart
    /// keeps its port, data, database and env.
    pub fn start_node(directory: &Path, database_url: &str, port: u16, env: Vec<(String, String)>) -> Server {
        std::fs::create_dir_all(directory).expect("the node's directory");
        Server::launch(
            &directory.join("data"),
            Some(database_url.to_string()),
            port,
            &directory.join("server.log"),
            env,
            "/readyz",
        )
    }

    fn launch(
        data_dir: &Path,
        database_url: Option<String>,
        port: u16,
        log: &Path,
        env: Vec<(String, String)>,
        ready_path: &'static str,
    ) -> Server {
        let output = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("server log file");
        let child = Command::new(env!("CARGO_BIN_EXE_wayfare"))
            .args(["serve", "--demo", "--data-dir"])
            .arg(data_dir)
            .args(database_url.iter().flat_map(|url| ["--database-url", url.as_str()]))
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("RUST_LOG", "info,wayfare_http=debug")
            // These tests play the demo people themselves: no living demo, no history.
            .env("WAYFARE_DEMO_SEED__LIVING", "false")
            .env("WAYFARE_DEMO_SEED__HISTORY_DAYS", "0")
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdout(output.try_clone().expect("server log file"))
            .stderr(output)
            .spawn()
            .expect("the wayfare binary starts");
        let mut server = Server {
            child,
            port,
            data_dir: data_dir.to_path_buf(),
            log: log.to_path_buf(),
            env,
            database_url,
            ready_path,
        };
        server.wait_healthy();
        server
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Until `/healthz` (`/readyz` for a cluster node) answers 200.
    pub fn wait_healthy(&mut self) {
        let path = self.ready_path;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().expect("server status") {
                panic!("the server exited with {status} before answering {path}\n{}", self.log_tail());
            }
            if answers_200(self.port, path) {
                return;
            }
            assert!(Instant::now() < deadline, "the server did not answer {path} in 60 s\n{}", self.log_tail());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL: no graceful shutdown, nothing flushed.
    pub fn kill(&mut self) {
        self.child.kill().expect("SIGKILL the server");
        self.child.wait().expect("the killed server is reaped");
    }

    pub fn restart(&mut self) {
        self.kill();
        *self = Server::launch(
            &self.data_dir.clone(),
            self.database_url.clone(),
            self.port,
            &self.log.clone(),
            self.env.clone(),
            self.ready_path,
        );
    }

    /// `wayfare audit` on this server's database: its report, and whether it is clean.
    pub fn audit(&self) -> (bool, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_wayfare"))
            .arg("audit")
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(self.database_url.iter().flat_map(|url| ["--database-url", url.as_str()]))
            .output()
            .expect("wayfare audit runs");
        let report = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        (output.status.success(), report)
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(80)..].join("\n");
        format!("--- last lines of the server log ({}) ---\n{tail}", self.log.display())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `GET path` on the server at `port` answers 200.
fn answers_200(port: u16, path: &str) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(500)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream.write_all(format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").as_bytes()).is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200")
}
