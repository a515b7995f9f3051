//! `payment_settings/{gateway}` into Wayfare's gateway settings (what the
//! panel saves, `http/src/payments/settings.rs`): the fields Wayfare's
//! gateway of that name has, by the same names; secrets sealed with
//! `payments.secrets_key` (without one they are left out and reported,
//! never stored in clear); fields and switches `wayfare.toml` sets stay the
//! file's. A value already stored is not written again, so a second import
//! changes nothing.

use crate::config::PaymentsConfig;
use crate::payments::gateway::FieldKind;
use crate::payments::registry::Gateways;
use crate::payments::settings::{self, GatewayEdit, Seal};
use crate::payments::{TEST_GATEWAY, gateways};
use std::collections::BTreeMap;
use wayfare_engine::Millis;
use wayfare_engine::exicube::{GatewayImport, Report};
use wayfare_storage::{GatewayChange, Storage, StoredGateway};

const NODE: &str = "payment_settings";

/// Imports the gateways' settings; with no storage (a dry run) only checks
/// them.
pub(super) async fn import(
    storage: Option<&dyn Storage>,
    config: &PaymentsConfig,
    imports: &[GatewayImport],
    now: Millis,
    report: &mut Report,
) -> anyhow::Result<()> {
    let registry = Gateways::from_config(config)?;
    let key = registry.secrets();
    for import in imports {
        let path = format!("{NODE}/{}", import.name);
        let Some(gateway) = gateways::find(&import.name) else {
            report.skip(NODE, path, "Wayfare has no gateway of this name");
            continue;
        };
        if gateway.name() == TEST_GATEWAY {
            report.skip(NODE, path, "the test gateway is turned on in wayfare.toml only");
            continue;
        }
        let stored = match storage {
            Some(storage) => storage.payment_gateway(gateway.name()).await?,
            None => None,
        };
        let file = registry.from_file(gateway);
        let mut edit = GatewayEdit {
            active: Some(import.active).filter(|_| !file.is_some_and(|file| file.fixed_active)),
            testing: Some(import.testing).filter(|_| !file.is_some_and(|file| file.fixed_testing)),
            fields: BTreeMap::new(),
        };
        for (name, value) in &import.fields {
            let Some(field) = gateway.fields().iter().find(|field| field.name == name) else {
                report.unknown_key(NODE, name);
                continue;
            };
            if file.is_some_and(|file| file.value(field.name).is_some()) {
                report.adjust("gateway_field_set_in_wayfare_toml_kept", format!("{path}/{name}"));
                continue;
            }
            let current = stored.as_ref().and_then(|stored| stored.fields.get(field.name));
            let same = match (field.kind, current, key) {
                (FieldKind::Text, Some(current), _) => current == value,
                (FieldKind::Secret, Some(sealed), Some(key)) => {
                    key.open(gateway.name(), field.name, sealed).is_ok_and(|plain| plain == *value)
                }
                _ => false,
            };
            if same {
                continue;
            }
            if field.kind == FieldKind::Secret && key.is_none() {
                report.adjust("gateway_secret_left_out_without_payments_secrets_key", format!("{path}/{name}"));
                continue;
            }
            edit.fields.insert(name.clone(), Some(value.clone()));
        }
        let seal = |field: &str, value: &str| key.expect("sealing only with a key").seal(gateway.name(), field, value);
        let seal: Option<Seal<'_>> = key.map(|_| &seal as Seal<'_>);
        let edited = match settings::apply_edit(gateway, file, stored.as_ref(), &edit, seal) {
            Ok(edited) => edited,
            Err(error) => {
                report.skip(NODE, path, error.to_string());
                continue;
            }
        };
        report.imported(NODE);
        let Some(storage) = storage.filter(|_| !edited.changed.is_empty()) else { continue };
        let saved = StoredGateway {
            name: gateway.name().to_string(),
            active: edited.active,
            testing: edited.testing,
            fields: edited.fields,
            updated_by: None,
            updated_at: now,
        };
        let change = GatewayChange {
            id: uuid::Uuid::now_v7(),
            gateway: gateway.name().to_string(),
            changed_by: None,
            changed_at: now,
            changed: edited.changed,
        };
        storage.save_payment_gateway(&saved, &change).await?;
    }
    Ok(())
}
