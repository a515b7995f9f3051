//! Which gateways are on, and with what settings: `[payments.<name>]` of
//! `wayfare.toml` over what the panel saved. A field the file sets is the
//! file's (the panel shows it read-only), and so are `active` and `testing`
//! where the file decides them (`settings::from_table`). Read from the database at each use,
//! so a change in the panel reaches every node of a cluster at once.

use super::gateway::{FieldKind, Gateway};
use super::gateways;
use super::secrets::{SecretsError, SecretsKey};
use super::settings::{self, GatewaySettings, SettingsError};
use crate::config::PaymentsConfig;
use crate::error::ApiResult;
use std::collections::BTreeMap;
use wayfare_engine::ErrorKey;
use wayfare_storage::{Storage, StoredGateway};

#[derive(Debug, Default)]
pub struct Gateways {
    /// From the file, by gateway name.
    file: BTreeMap<&'static str, GatewaySettings>,
    /// The test gateway pays without money: on only when the file asks.
    test_gateway: bool,
    secrets: Option<SecretsKey>,
}

/// Why the payments configuration was refused at start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Secrets(#[from] SecretsError),
}

impl Gateways {
    pub fn from_config(config: &PaymentsConfig) -> Result<Gateways, ConfigError> {
        let file = settings::from_config(gateways::ALL, &config.gateways)?;
        let secrets =
            config.secrets_key.as_deref().filter(|key| !key.trim().is_empty()).map(SecretsKey::from_hex).transpose()?;
        Ok(Gateways { file, test_gateway: config.test_gateway, secrets })
    }

    pub fn secrets(&self) -> Option<&SecretsKey> {
        self.secrets.as_ref()
    }

    /// The file's settings of a gateway, if it has a table there.
    pub fn from_file(&self, gateway: &dyn Gateway) -> Option<&GatewaySettings> {
        self.file.get(gateway.name())
    }

    /// A gateway's settings from the file over the panel's saved ones.
    pub fn merge(&self, gateway: &dyn Gateway, stored: Option<&StoredGateway>) -> GatewaySettings {
        if gateway.name() == gateways::test::NAME {
            return GatewaySettings::new(self.test_gateway, false, []);
        }
        let file = self.from_file(gateway);
        let pick = |fixed: Option<bool>, stored: Option<bool>| fixed.or(stored).unwrap_or(false);
        let mut merged = GatewaySettings::new(
            pick(file.filter(|file| file.fixed_active).map(|file| file.active), stored.map(|stored| stored.active)),
            pick(file.filter(|file| file.fixed_testing).map(|file| file.testing), stored.map(|stored| stored.testing)),
            [],
        );
        if let Some(stored) = stored {
            for field in gateway.fields() {
                let Some(value) = stored.fields.get(field.name) else { continue };
                let value = match field.kind {
                    FieldKind::Text => value.clone(),
                    FieldKind::Secret => match self.open(gateway.name(), field.name, value) {
                        Some(plain) => plain,
                        None => continue,
                    },
                };
                merged.set(field.name, value);
            }
        }
        if let Some(file) = file {
            for (name, value) in file.fields() {
                merged.set(name, value);
            }
            merged.api_base = file.api_base.clone();
        }
        merged
    }

    fn open(&self, gateway: &str, field: &str, sealed: &str) -> Option<String> {
        let Some(key) = &self.secrets else {
            tracing::error!(gateway, field, "a stored gateway secret, but no payments.secrets_key to open it");
            return None;
        };
        key.open(gateway, field, sealed)
            .inspect_err(|error| tracing::error!(gateway, field, %error, "gateway secret left out"))
            .ok()
    }

    /// A gateway's settings as they now are.
    pub async fn settings(&self, storage: &dyn Storage, gateway: &dyn Gateway) -> ApiResult<GatewaySettings> {
        let stored = storage.payment_gateway(gateway.name()).await?;
        Ok(self.merge(gateway, stored.as_ref()))
    }

    /// The gateway of a provider name when it is on; `no_provider_found` otherwise.
    pub async fn usable(
        &self,
        storage: &dyn Storage,
        name: &str,
    ) -> ApiResult<(&'static dyn Gateway, GatewaySettings)> {
        let gateway = gateways::find(name).ok_or(ErrorKey::NoProviderFound)?;
        let settings = self.settings(storage, gateway).await?;
        if !settings.usable(gateway) {
            return Err(ErrorKey::NoProviderFound.into());
        }
        Ok((gateway, settings))
    }

    /// The gateways that are on, in the spec's order.
    pub async fn active(&self, storage: &dyn Storage) -> ApiResult<Vec<&'static dyn Gateway>> {
        let stored: BTreeMap<String, StoredGateway> =
            storage.payment_gateways().await?.into_iter().map(|gateway| (gateway.name.clone(), gateway)).collect();
        Ok(gateways::ALL
            .iter()
            .copied()
            .filter(|gateway| self.merge(*gateway, stored.get(gateway.name())).usable(*gateway))
            .collect())
    }
}
