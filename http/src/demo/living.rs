//! Starts the living demo ([`wayfare_simulations::players::living`]) beside a
//! `--demo` server: its demo drivers and riders, signed in by the server
//! itself (a session each, as a sign-in would make), play against the
//! server's own address through its public API. Only `serve` with `--demo`
//! calls this; the panel's `livingDemo` setting switches the play on and off.

use crate::state::AppState;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use wayfare_engine::{Role, User};
use wayfare_simulations::players::client::Person;
use wayfare_simulations::players::living::{LivingCity, LivingStats, Sockets, run};
use wayfare_storage::Session;

/// Riders book within this distance of the demo's centre (inside the extract).
const RADIUS_KM: f64 = 3.0;
/// How often the demo's counts go to the log.
const LOG_EVERY: Duration = Duration::from_secs(300);

/// The living demo at play beside the server.
pub struct Living {
    task: tokio::task::JoinHandle<()>,
    sockets: Sockets,
}

impl Living {
    /// Stops the players, then closes their sockets: the server's own
    /// sockets then close at once.
    pub async fn stop(self) {
        self.task.abort();
        let _ = self.task.await;
        self.sockets.close_all().await;
    }
}

/// Starts the living demo; the server stops it when it stops.
pub fn spawn(state: AppState, listening: SocketAddr) -> Living {
    let sockets = Sockets::default();
    let open = sockets.clone();
    let task = tokio::spawn(async move {
        let city = match city(&state, listening).await {
            Ok(city) => city,
            Err(error) => {
                tracing::error!(%error, "the living demo cannot start");
                return;
            }
        };
        tracing::info!(
            drivers = city.drivers.len(),
            riders = city.riders.len(),
            "living demo ready (the panel's settings switch it on and off)"
        );
        let stats = Arc::new(LivingStats::default());
        let log = {
            let stats = stats.clone();
            async move {
                loop {
                    tokio::time::sleep(LOG_EVERY).await;
                    tracing::info!("living demo: {}", stats.line());
                }
            }
        };
        tokio::join!(run(city, stats, open), log);
    });
    Living { task, sockets }
}

/// The address the server answers on from this machine.
fn loopback(listening: SocketAddr) -> SocketAddr {
    match listening.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), listening.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), listening.port()),
        _ => listening,
    }
}

/// The demo's people as stored (marked `demo`), each with a new session.
async fn city(state: &AppState, listening: SocketAddr) -> anyhow::Result<LivingCity> {
    let storage = state.storage.as_ref();
    let admin = storage
        .user_by_email(super::ADMIN_EMAIL)
        .await?
        .ok_or_else(|| anyhow::anyhow!("no demo admin ({})", super::ADMIN_EMAIL))?;
    let (mut drivers, mut riders) = (Vec::new(), Vec::new());
    for seeded in super::users_with(state.config.demo_seed.drivers) {
        if !seeded.demo {
            continue;
        }
        // As stored: an operator may have changed or removed a demo person.
        let Some(user) = storage.user_by_email(&seeded.email).await? else { continue };
        if !user.demo || !user.approved {
            continue;
        }
        let person = session(state, &user).await?;
        match user.usertype {
            Role::Driver => drivers.push(person),
            Role::Rider => riders.push(person),
            _ => {}
        }
    }
    Ok(LivingCity {
        url: format!("http://{}", loopback(listening)),
        admin: session(state, &admin).await?,
        drivers,
        riders,
        centre: super::CENTRE,
        radius_km: RADIUS_KM,
        speed: Some(state.config.demo_seed.living_speed)
            .filter(|speed| speed.is_finite() && *speed > 0.0)
            .unwrap_or(1.0),
        seed: state.now() as u64,
    })
}

async fn session(state: &AppState, user: &User) -> anyhow::Result<Person> {
    let now = state.now();
    let token = crate::auth::tokens::new_token();
    let days = i64::from(state.config.auth.session_days);
    let session = Session {
        token_hash: crate::auth::tokens::hash(&token),
        user: user.id,
        created_at: now,
        expires_at: now + days * 24 * 3_600_000,
        revoked_at: None,
    };
    state.storage.insert_session(&session).await?;
    Ok(Person { email: user.email.clone(), id: user.id.to_string(), token })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_on_every_address_is_reached_on_the_loopback() {
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(loopback(any).to_string(), "127.0.0.1:8080");
        let v6: SocketAddr = "[::]:9000".parse().unwrap();
        assert_eq!(loopback(v6).to_string(), "127.0.0.1:9000");
        let one: SocketAddr = "192.168.1.5:8080".parse().unwrap();
        assert_eq!(loopback(one), one);
    }
}
