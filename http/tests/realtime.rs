//! The realtime edge driven by a Socket.IO client nobody here wrote: the
//! official `socket.io-client` under Node, against the real `wayfare` binary
//! (`serve --demo` on a fresh data directory and a free port).
//!
//! The scenarios are the Node scripts in `tests/realtime/` (their
//! `package.json` pins the client; `make test` runs `npm ci` there first).
//! This file starts the server, runs a script, and — for the crash scenario —
//! SIGKILLs the server when the script prints `@@KILL`, starts it again on the
//! same data directory and port, and writes `@@RESTARTED` to the script
//! (on a cluster, `@@KILL <index>` names the node). Missing Node or modules
//! fail the test: it never skips. The PostgreSQL and cluster tests are not run
//! without their database and Redis, except in CI, where that fails them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

mod demo_server;
use demo_server::{Server, free_port};

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("realtime")
}

/// The load generator of docs/benchmarks.md, smoke-tested here so it cannot rot.
fn load_generator_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("benches").join("realtime")
}

/// Node 20 or newer and the pinned client in `package_dir`, or a failure
/// saying how to get them.
fn require_node(package_dir: &Path) {
    let version = Command::new("node")
        .arg("--version")
        .output()
        .unwrap_or_else(|error| panic!("the realtime tests need Node 20 or newer on PATH (`node`: {error})"));
    let version = String::from_utf8_lossy(&version.stdout);
    let major: u32 =
        version.trim().trim_start_matches('v').split('.').next().and_then(|major| major.parse().ok()).unwrap_or(0);
    assert!(major >= 20, "the realtime tests need Node 20 or newer, found {}", version.trim());
    let client = package_dir.join("node_modules").join("socket.io-client").join("package.json");
    assert!(
        client.exists(),
        "socket.io-client is not installed in {}: run `npm ci --prefix` there (`make test` does it)",
        package_dir.display()
    );
}

/// Every demo Economy driver near the pickup is offered a booking at once, so
/// five can race to accept it (`waves` offers three at a time; the default,
/// `batch`, one driver per booking when its window closes).
const BROADCAST: (&str, &str) = ("WAYFARE_DEMO_SEED__DISPATCH_POLICY", "broadcast");
/// Three drivers a wave, offered at once: what the console and load scripts
/// were written against (the default, `batch`, is in `routes/dispatch.rs`
/// and `actors/tests/policies.rs`).
const WAVES: (&str, &str) = ("WAYFARE_DEMO_SEED__DISPATCH_POLICY", "waves");

/// Runs a Node script of `tests/realtime` against the server; `on_line` sees
/// each line it prints and may answer on its stdin.
fn run_script(
    script: &str,
    server: &mut Server,
    on_line: impl FnMut(&str, &mut Server, &mut ChildStdin),
) -> (ExitStatus, String) {
    let mut node = Command::new("node");
    node.arg(script).current_dir(scripts_dir()).env("WAYFARE_URL", server.url());
    run_node(node, server, on_line)
}

/// Runs a Node command; `on_line` sees each line it prints, with `servers`
/// (a `Server`, or a cluster's nodes), and may answer on its stdin.
fn run_node<S>(
    mut command: Command,
    servers: &mut S,
    mut on_line: impl FnMut(&str, &mut S, &mut ChildStdin),
) -> (ExitStatus, String) {
    let mut node =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("node starts");
    let mut stdin = node.stdin.take().expect("node stdin");
    let stderr = node.stderr.take().expect("node stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut text);
        text
    });
    let mut output = String::new();
    for line in BufReader::new(node.stdout.take().expect("node stdout")).lines() {
        let line = line.expect("node output");
        println!("{line}");
        output.push_str(&line);
        output.push('\n');
        on_line(&line, servers, &mut stdin);
    }
    let status = node.wait().expect("node exits");
    let errors = errors.join().unwrap_or_default();
    eprint!("{errors}");
    output.push_str(&errors);
    (status, output)
}

#[test]
fn bad_tokens_are_refused_at_the_handshake() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    let mut server = Server::start(directory.path(), &[]);
    let (status, output) = run_script("handshake.mjs", &mut server, |_, _, _| {});
    assert!(status.success(), "handshake.mjs failed ({status})\n{output}\n{}", server.log_tail());
    assert!(output.contains("handshake: passed"), "{output}");
}

#[test]
fn a_trip_runs_over_sockets_and_survives_a_server_kill() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    let mut server = Server::start(directory.path(), &[BROADCAST]);
    let mut restarts = 0;
    let (status, output) = run_script("trip.mjs", &mut server, |line, server, stdin| {
        if line.trim() == "@@KILL" {
            server.restart();
            restarts += 1;
            writeln!(stdin, "@@RESTARTED").and_then(|()| stdin.flush()).expect("tell node the server is back");
        }
    });
    assert!(status.success(), "trip.mjs failed ({status})\n{output}\n{}", server.log_tail());
    assert_eq!(restarts, 1, "the scenario kills the server once mid-trip");
    assert!(output.contains("trip: passed"), "{output}");
}

/// Issue #15: the console's feed and log, and what a fleet admin's socket
/// may receive (the `waves` policy).
#[test]
fn the_console_sees_dispatch_and_a_fleet_admin_only_their_fleet() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    let mut server = Server::start(directory.path(), &[WAVES]);
    let (status, output) = run_script("console.mjs", &mut server, |_, _, _| {});
    assert!(status.success(), "console.mjs failed ({status})\n{output}\n{}", server.log_tail());
    assert!(output.contains("console: passed"), "{output}");
}

/// Issue #33: a rider's SOS reaches the admins' and the right fleet admin's
/// sockets within a second, and nobody else's.
#[test]
fn an_sos_reaches_the_admins_and_the_right_fleet_admin_only() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    let mut server = Server::start(directory.path(), &[WAVES]);
    let (status, output) = run_script("sos.mjs", &mut server, |_, _, _| {});
    assert!(status.success(), "sos.mjs failed ({status})\n{output}\n{}", server.log_tail());
    assert!(output.contains("sos: passed"), "{output}");
}

/// SIGTERM with a console and a driver connected: the server closes their
/// sockets, its fan-out (still ticking) does not panic on the closed
/// namespace, and it exits 0 within a few seconds.
#[test]
fn sigterm_closes_the_sockets_and_the_server_exits_cleanly() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    // Pushes every 10 ms, so some fall between closing the sockets and the
    // end of the runtime (where `io.to` used to panic).
    let fast = [("WAYFARE_REALTIME__CONSOLE_MS", "10"), ("WAYFARE_REALTIME__DRIVERS_FEED_MS", "10")];
    let mut server = Server::start(directory.path(), &fast);
    let mut signalled = None;
    let (status, output) = run_script("shutdown.mjs", &mut server, |line, server, _| {
        if line.trim() == "@@TERM" {
            let pid = server.child.id().to_string();
            let sent = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
            assert!(sent.success(), "SIGTERM sent");
            signalled = Some(Instant::now());
        }
    });
    assert!(status.success(), "shutdown.mjs failed ({status})\n{output}\n{}", server.log_tail());
    let signalled = signalled.expect("the scenario asked for SIGTERM");
    let exited = loop {
        if let Some(exited) = server.child.try_wait().expect("server status") {
            break exited;
        }
        assert!(signalled.elapsed() < Duration::from_secs(15), "no exit 15 s after SIGTERM\n{}", server.log_tail());
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exited.success(), "the server exited with {exited}\n{}", server.log_tail());
    let log = std::fs::read_to_string(&server.log).unwrap_or_default();
    assert!(!log.contains("panicked"), "a panic during shutdown\n{}", server.log_tail());
}

/// Issue #17, one node: crash.mjs books and runs trips in an open loop while
/// the server is SIGKILLed and started again on the same database; then the
/// script checks what its clients were told against the server and
/// `wayfare audit` checks the database's invariants. `CRASH_*` variables in
/// the environment reach the script (`make chaos` runs it at 100 bookings/s).
fn bookings_pouring_in_survive_sigkill(mut server: Server) {
    let mut kills = 0;
    let (status, output) = run_script("crash.mjs", &mut server, |line, server, stdin| {
        if line.trim() == "@@KILL" {
            server.kill();
            // Requests meet a closed port for a moment, as after a real crash.
            std::thread::sleep(Duration::from_millis(500));
            server.restart();
            kills += 1;
            writeln!(stdin, "@@RESTARTED").and_then(|()| stdin.flush()).expect("tell node the server is back");
        }
    });
    assert!(status.success(), "crash.mjs failed ({status})\n{output}\n{}", server.log_tail());
    assert!(kills >= 1, "the scenario killed the server");
    assert!(output.contains("crash: passed"), "{output}");
    let (clean, report) = server.audit();
    println!("{report}");
    assert!(clean, "wayfare audit found broken invariants after {kills} kills:\n{report}");
}

#[test]
fn bookings_pouring_in_survive_sigkill_on_sqlite() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    bookings_pouring_in_survive_sigkill(Server::start(directory.path(), &[]));
}

/// The same on PostgreSQL (`WAYFARE_TEST_POSTGRES_URL`, which `make test`
/// always sets; CI fails without it), in a fresh schema.
#[test]
fn bookings_pouring_in_survive_sigkill_on_postgres() {
    let Some(base) = test_postgres() else { return };
    require_node(&scripts_dir());
    in_fresh_schema(&base, "crash", |url| {
        let directory = tempfile::tempdir().expect("temp dir");
        bookings_pouring_in_survive_sigkill(Server::start_with_database(directory.path(), url, &[]));
    });
}

fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// `WAYFARE_TEST_POSTGRES_URL`; without it, None (the test is not run),
/// or a failure in CI.
fn test_postgres() -> Option<String> {
    let Ok(base) = std::env::var("WAYFARE_TEST_POSTGRES_URL") else {
        assert!(!in_ci(), "CI runs this test on PostgreSQL: set WAYFARE_TEST_POSTGRES_URL");
        eprintln!("not run: WAYFARE_TEST_POSTGRES_URL is not set");
        return None;
    };
    Some(base)
}

/// The Redis of `WAYFARE_TEST_REDIS_URL` (redis://127.0.0.1:6379 by
/// default) when it answers; else None (the test is not run), or a failure
/// in CI.
fn test_redis() -> Option<String> {
    let url = std::env::var("WAYFARE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string());
    if redis_answers(&url) {
        return Some(url);
    }
    assert!(!in_ci(), "CI runs this test with Redis at {url} (WAYFARE_TEST_REDIS_URL), which does not answer");
    eprintln!("not run: no Redis answers at {url} (set WAYFARE_TEST_REDIS_URL)");
    None
}

/// Whether something that speaks Redis answers a `PING` at `url`
/// (`redis://[user:password@]host[:port][/db]`); an error reply such as
/// `-NOAUTH` is an answer too.
fn redis_answers(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let address = if host_port.contains(':') { host_port.to_string() } else { format!("{host_port}:6379") };
    let Some(address) = address.to_socket_addrs().ok().and_then(|mut found| found.next()) else { return false };
    let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut reply = [0u8; 1];
    stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut reply).is_ok() && matches!(reply[0], b'+' | b'-')
}

/// Runs `test` with the URL of a fresh schema (`{prefix}_{uuid}`) of the
/// PostgreSQL at `base`, and drops the schema after, also when `test`
/// panics (the panic goes on).
fn in_fresh_schema(base: &str, prefix: &str, test: impl FnOnce(&str)) {
    let schema = format!("{prefix}_{}", uuid::Uuid::now_v7().simple());
    let admin = |sql: String| {
        tokio::runtime::Runtime::new().expect("runtime").block_on(async move {
            let pool = sqlx::PgPool::connect(base).await.expect("PostgreSQL answers");
            sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&pool).await.expect("schema statement");
            pool.close().await;
        })
    };
    admin(format!("CREATE SCHEMA {schema}"));
    let separator = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{separator}options[search_path]={schema}");
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(url.as_str())));
    admin(format!("DROP SCHEMA {schema} CASCADE"));
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// A metric's value on a node's `/metrics` (0 when it is not there yet).
fn metric(node: &Server, series: &str) -> f64 {
    let address = node.url().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&address).expect("the node answers");
    write!(stream, "GET /metrics HTTP/1.0\r\nHost: {address}\r\n\r\n").expect("request sent");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("metrics read");
    text.lines().find_map(|line| line.strip_prefix(series).and_then(|rest| rest.trim().parse().ok())).unwrap_or(0.0)
}

fn log_tails(nodes: &[Server]) -> String {
    nodes.iter().map(Server::log_tail).collect::<Vec<_>>().join("\n")
}

/// How long a cluster node's leases last in the cluster test: a dead
/// node's bookings are taken over within about this long.
const LEASE_TTL_MS: u64 = 2_000;

/// Issue #17, a cluster: two nodes on one PostgreSQL schema and Redis, the
/// riders' and drivers' sockets and requests spread over both; crash.mjs
/// books and runs trips while node-a (which seeded the demo city) is
/// SIGKILLed, left down past its leases so node-b takes its bookings over,
/// and started again. Meanwhile the clients of node-a go to node-b. Then
/// the script checks what its clients were told against the cluster and
/// `wayfare audit` checks the database. Needs `WAYFARE_TEST_POSTGRES_URL`
/// and Redis (`WAYFARE_TEST_REDIS_URL`, redis://127.0.0.1:6379 by default);
/// not run without them, except in CI, where that fails it. Other `CRASH_*`
/// variables in the environment reach the script.
#[test]
fn bookings_pouring_in_survive_a_node_killed_in_a_cluster() {
    let Some(base) = test_postgres() else { return };
    let Some(redis) = test_redis() else { return };
    require_node(&scripts_dir());
    in_fresh_schema(&base, "cluster", |url| {
        let directory = tempfile::tempdir().expect("temp dir");
        // Channels of its own, so tests running at once do not hear each other.
        let prefix = format!("wayfare-test-{}", uuid::Uuid::now_v7().simple());
        let start = |name: &str| {
            let env = [
                ("WAYFARE_CLUSTER__REDIS_URL", redis.clone()),
                ("WAYFARE_CLUSTER__NODE", name.to_string()),
                ("WAYFARE_CLUSTER__PREFIX", prefix.clone()),
                ("WAYFARE_CLUSTER__LEASE_TTL_MS", LEASE_TTL_MS.to_string()),
                // Twice the default: a test machine starved for a second
                // (debug builds, other tests) would have a live node buried.
                ("WAYFARE_CLUSTER__HEARTBEAT_TTL_MS", "2000".to_string()),
            ];
            let env: Vec<(String, String)> =
                env.into_iter().map(|(variable, value)| (variable.to_string(), value)).collect();
            Server::start_node(&directory.path().join(name), url, free_port(), env)
        };
        // node-a seeds the demo city and is ready before node-b starts.
        let mut nodes = vec![start("node-a")];
        nodes.push(start("node-b"));
        let urls: Vec<String> = nodes.iter().map(Server::url).collect();

        let mut script = Command::new("node");
        script
            .arg("crash.mjs")
            .current_dir(scripts_dir())
            .env("WAYFARE_URL", &urls[0])
            .env("CRASH_URLS", urls.join(","))
            .env("CRASH_KILLS", "1");
        let mut killed = Vec::new();
        let (status, output) = run_node(script, &mut nodes, |line, nodes: &mut Vec<Server>, stdin| {
            let Some(index) = line.trim().strip_prefix("@@KILL ") else { return };
            let index: usize = index.parse().unwrap_or_else(|_| panic!("not a node index: {line}"));
            let node = &mut nodes[index];
            node.kill();
            // Down for longer than its leases (and heartbeat), so the other
            // node takes its bookings over, with room for a starved machine.
            std::thread::sleep(Duration::from_millis(LEASE_TTL_MS + 3_000));
            node.restart();
            killed.push(index);
            writeln!(stdin, "@@RESTARTED").and_then(|()| stdin.flush()).expect("tell the script the node is back");
        });
        assert!(status.success(), "crash.mjs failed ({status})\n{output}\n{}", log_tails(&nodes));
        assert_eq!(killed, [0], "the scenario killed node-a once\n{output}");
        assert!(output.contains("crash: passed"), "{output}");
        // The run crossed nodes: commands went to the node serving their
        // booking, and node-b took node-a's bookings over while it was down.
        let forwarded: f64 =
            nodes.iter().map(|node| metric(node, "wayfare_cluster_forwarded_total{outcome=\"ok\"}")).sum();
        assert!(forwarded > 0.0, "no command was forwarded between the nodes\n{output}");
        let taken_over = metric(&nodes[1], "wayfare_cluster_bookings_taken_over_total");
        assert!(taken_over > 0.0, "node-b took none of node-a's bookings over\n{output}\n{}", log_tails(&nodes));
        let (clean, report) = nodes[0].audit();
        println!("{report}");
        assert!(
            clean,
            "wayfare audit found broken invariants after node-a was killed:\n{report}\n{}",
            log_tails(&nodes)
        );
    });
}

/// Issue #39: a node started under the name of a live node (here both
/// named "twin") refuses to start, saying why, and the live one serves on.
/// Needs `WAYFARE_TEST_POSTGRES_URL` and Redis, as the cluster test above.
#[test]
fn a_second_node_under_a_live_nodes_name_refuses_to_start() {
    let Some(base) = test_postgres() else { return };
    let Some(redis) = test_redis() else { return };
    in_fresh_schema(&base, "twins", |url| {
        let directory = tempfile::tempdir().expect("temp dir");
        let prefix = format!("wayfare-test-{}", uuid::Uuid::now_v7().simple());
        let env: Vec<(String, String)> = [
            ("WAYFARE_CLUSTER__REDIS_URL", redis.clone()),
            ("WAYFARE_CLUSTER__NODE", "twin".to_string()),
            ("WAYFARE_CLUSTER__PREFIX", prefix),
        ]
        .into_iter()
        .map(|(variable, value)| (variable.to_string(), value))
        .collect();
        let mut first = Server::start_node(&directory.path().join("one"), url, free_port(), env.clone());
        let log = directory.path().join("two.log");
        let output = std::fs::File::create(&log).expect("log file");
        let mut second = Command::new(env!("CARGO_BIN_EXE_wayfare"))
            .args(["serve", "--demo", "--data-dir"])
            .arg(directory.path().join("two"))
            .args(["--database-url", url, "--listen", &format!("127.0.0.1:{}", free_port())])
            .env("WAYFARE_DEMO_SEED__LIVING", "false")
            .env("WAYFARE_DEMO_SEED__HISTORY_DAYS", "0")
            .envs(env.iter().map(|(variable, value)| (variable, value)))
            .stdout(output.try_clone().expect("log file"))
            .stderr(output)
            .spawn()
            .expect("the second node runs");
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = second.try_wait().expect("second node's status") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = second.kill();
                panic!("the second node named twin still runs after 60 s\n{}", std::fs::read_to_string(&log).unwrap());
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let text = std::fs::read_to_string(&log).expect("log");
        assert!(!status.success(), "the second node started\n{text}");
        assert!(text.contains("another live node is named \"twin\""), "{text}");
        assert!(first.child.try_wait().expect("first node's status").is_none(), "the first node serves on");
        first.kill();
    });
}

/// Issue #15: the `console` and `hexes` pushes for a known set of drivers
/// and bookings are what the engine's `figures` and `hexagons` give on the
/// same data (read back over REST and from the drivers feed).
#[test]
fn the_console_pushes_the_engines_figures_and_hexes() {
    require_node(&scripts_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    let mut server = Server::start(directory.path(), &[WAVES]);
    let mut check = None;
    let (status, output) = run_script("figures.mjs", &mut server, |line, _, _| {
        if let Some(json) = line.strip_prefix("@@CHECK ") {
            check = Some(serde_json::from_str::<serde_json::Value>(json).expect("the check is JSON"));
        }
    });
    assert!(status.success(), "figures.mjs failed ({status})\n{output}\n{}", server.log_tail());
    let check = check.expect("figures.mjs printed its check");
    console_check::expect_engine_results(&check);
}

mod console_check {
    use serde_json::{Value, json};
    use wayfare_engine::console::{self, Demand, DemandKind, DispatchSample, OfferTally, Outcome};
    use wayfare_engine::{LatLng, Millis};

    fn millis(value: &Value) -> Millis {
        value.as_i64().unwrap_or_else(|| panic!("not a time: {value}"))
    }

    pub fn expect_engine_results(check: &Value) {
        let pushed = &check["console"]["figures"];
        let now = millis(&pushed["at"]);
        let feed = check["feed"].as_array().unwrap();
        let online = feed.len() as u32;
        let available: Vec<LatLng> = feed
            .iter()
            .filter(|driver| driver["available"] == true)
            .map(|driver| LatLng::new(driver["lat"].as_f64().unwrap(), driver["lng"].as_f64().unwrap()))
            .collect();
        let mut waiting_since = Vec::new();
        let mut samples = Vec::new();
        let mut offers = OfferTally::default();
        let mut demand = Vec::new();
        for booking in check["bookings"].as_array().unwrap() {
            let created = millis(&booking["bookingDate"]);
            let pickup =
                LatLng::new(booking["pickup"]["lat"].as_f64().unwrap(), booking["pickup"]["lng"].as_f64().unwrap());
            let timeline = check["timelines"][booking["id"].as_str().unwrap()].as_array().unwrap();
            let mut first_offer = None;
            let mut time_to_accept = None;
            for entry in timeline {
                let at = millis(&entry["at"]);
                let drivers = entry["drivers"].as_array().map(Vec::len).unwrap_or(0) as u32;
                match entry["kind"].as_str().unwrap() {
                    "offered" => {
                        first_offer.get_or_insert(at);
                    }
                    "withdrawn" if entry["reason"] == "declined" => offers.declined += drivers,
                    "withdrawn" if entry["reason"] == "expired" => offers.expired += drivers,
                    "accepted" => {
                        offers.accepted += 1;
                        let offered = timeline
                            .iter()
                            .filter(|offer| offer["kind"] == "offered")
                            .find(|offer| offer["drivers"].as_array().unwrap().contains(&entry["driver"]))
                            .expect("the accepting driver was offered it");
                        time_to_accept = Some(at - millis(&offered["at"]));
                    }
                    _ => {}
                }
            }
            let status = booking["status"].as_str().unwrap();
            let outcome = if !booking["driver"].is_null() {
                Some(Outcome::Assigned)
            } else if status == "CANCELLED" {
                Some(Outcome::Unserved)
            } else {
                None
            };
            samples.push(DispatchSample { created, first_offer, time_to_accept, outcome });
            if status == "NEW" {
                waiting_since.push(created);
                demand.push(Demand { pickup, kind: DemandKind::Open });
            }
            demand.push(Demand { pickup, kind: DemandKind::Recent });
            if outcome == Some(Outcome::Unserved) {
                demand.push(Demand { pickup, kind: DemandKind::Unserved });
            }
        }
        let expected = console::figures(now, online, available.len() as u32, &waiting_since, &samples, offers);
        assert_eq!(*pushed, json!(expected), "the console's figures are the engine's");
        assert_eq!((expected.online, expected.available, expected.open), (3, 2, 1));
        assert_eq!((offers.accepted, offers.declined), (1, 2));
        assert_eq!(expected.fulfilment, Some(0.5));
        let resolution = check["hexes"]["resolution"].as_u64().unwrap() as u8;
        assert_eq!(resolution, 9);
        let cells = console::hexagons(resolution, available, demand).expect("a console resolution");
        // Boundaries are compared to a nanodegree: serde_json's default
        // float parsing may differ from the printed value in the last bit.
        let pushed_cells = check["hexes"]["cells"].as_array().unwrap();
        assert_eq!(pushed_cells.len(), cells.len(), "{pushed_cells:?}");
        for (pushed, expected) in pushed_cells.iter().zip(&cells) {
            let mut counts = pushed.clone();
            counts.as_object_mut().unwrap().remove("boundary");
            let mut expected_counts = json!(expected);
            expected_counts.as_object_mut().unwrap().remove("boundary");
            assert_eq!(counts, expected_counts, "the console's cells are the engine's");
            let corners = pushed["boundary"].as_array().unwrap();
            assert_eq!(corners.len(), expected.boundary.len());
            for (corner, [lng, lat]) in corners.iter().zip(&expected.boundary) {
                assert!((corner[0].as_f64().unwrap() - lng).abs() < 1e-9, "{corner} vs {lng}");
                assert!((corner[1].as_f64().unwrap() - lat).abs() < 1e-9, "{corner} vs {lat}");
            }
        }
        assert!(cells.iter().any(|cell| cell.short), "the waiting booking's cell is short of drivers");
    }
}

/// A short run of the load generator on the 20 demo drivers: it must connect
/// them all, have every update acknowledged and every booking offered.
#[test]
fn the_load_generator_runs() {
    require_node(&load_generator_dir());
    let directory = tempfile::tempdir().expect("temp dir");
    // Twenty-odd sign-ins from one address in a few seconds.
    let mut server = Server::start(directory.path(), &[("WAYFARE_AUTH__CODES_PER_CLIENT", "1000"), WAVES]);
    let mut node = Command::new("node");
    node.arg("load.mjs").current_dir(load_generator_dir()).args([
        "--url",
        &server.url(),
        "--drivers",
        "20",
        "--seconds",
        "3",
        "--warmup",
        "1",
        "--rate",
        "400",
        "--booking-rate",
        "3",
    ]);
    let (status, output) = run_node(node, &mut server, |_, _, _| {});
    assert!(status.success(), "load.mjs failed ({status})\n{output}\n{}", server.log_tail());
    assert!(output.contains("RESULT {"), "{output}");
}
