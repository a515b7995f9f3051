//! The catalogue: settings, cancellation reasons, car types (with their
//! cancel slabs, parcel types and options), promos, broadcast notifications,
//! languages and the payment gateways' settings.

use super::read::{self, Record, children, count_of, decimal_of, flag_of, float_of, text_of};
use super::types::{Context, GatewayImport, ImportedRecord, Mapped};
use crate::ids::{CarTypeId, LanguageId, NotificationId, PromoId};
use crate::model::{
    AmountType, CancelSlab, CarType, DeviceTarget, Language, Notification, PricedChoice, Promo, Settings, UserTarget,
};
use crate::money;
use crate::rules::catalogue::{validate_car_type, validate_language};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};

/// The original's settings laid over `base` (Wayfare's, or the defaults):
/// each key Wayfare has takes the original's value, read in the type
/// Wayfare keeps it in (a number given as text, a phone number given as a
/// number); a value that does not fit leaves Wayfare's and is reported.
pub(super) fn settings(value: Option<&Value>, base: &Settings, mapped: &mut Mapped) -> Settings {
    let Some(value) = value.filter(|value| !value.is_null()) else { return base.clone() };
    let node = "settings";
    mapped.report.read(node);
    let Some(original) = value.as_object() else {
        mapped.report.skip(node, node, "not an object");
        return base.clone();
    };
    let mut merged = match serde_json::to_value(base) {
        Ok(Value::Object(fields)) => fields,
        _ => unreachable!("settings serialise as an object"),
    };
    let mut extra = Map::new();
    for (key, value) in original {
        let Some(current) = merged.get(key) else {
            mapped.report.unknown_key(node, key);
            extra.insert(key.clone(), value.clone());
            continue;
        };
        let fitted = fit_to(current, value);
        let mut candidate = merged.clone();
        let accepted = fitted.and_then(|fitted| {
            candidate.insert(key.clone(), fitted);
            serde_json::from_value::<Settings>(Value::Object(candidate.clone())).ok()
        });
        match accepted {
            Some(settings) if key != "decimal" || settings.decimal <= money::MAX_DECIMALS => merged = candidate,
            _ => {
                mapped.report.adjust("setting_not_readable_kept_wayfare_value", format!("settings/{key}"));
                extra.insert(key.clone(), value.clone());
            }
        }
    }
    let settings = serde_json::from_value::<Settings>(Value::Object(merged)).unwrap_or_else(|_| base.clone());
    mapped.report.imported(node);
    mapped.records.push(ImportedRecord { node: node.into(), key: node.into(), entity: None, extra });
    mapped.settings = Some(settings.clone());
    settings
}

/// `value` in the JSON type of `like`: a flag, a number or a text.
fn fit_to(like: &Value, value: &Value) -> Option<Value> {
    match like {
        Value::Bool(_) => flag_of(value).ok().flatten().map(Value::Bool),
        Value::Number(_) => match value {
            Value::Number(_) => Some(value.clone()),
            other => float_of(other).ok().flatten().and_then(|number| {
                if number.fract() == 0.0 && number.abs() < 9e15 {
                    Some(Value::from(number as i64))
                } else {
                    serde_json::Number::from_f64(number).map(Value::Number)
                }
            }),
        },
        Value::String(_) => text_of(value).ok().map(|text| Value::String(text.unwrap_or_default())),
        // Lists and objects (Wayfare's own knobs) only in the same shape.
        Value::Array(_) => value.is_array().then(|| value.clone()),
        _ => Some(value.clone()),
    }
}

pub(super) fn map(context: &mut Context, mapped: &mut Mapped) {
    cancel_reasons(context, mapped);
    car_types(context, mapped);
    promos(context, mapped);
    notifications(context, mapped);
    languages(context, mapped);
    gateways(context, mapped);
}

/// `cancel_reason`: `[{label, value}]` (or plain texts) in `value` order.
fn cancel_reasons(context: &Context, mapped: &mut Mapped) {
    let node = "cancel_reason";
    let Some(value) = context.node(node) else { return };
    let mut reasons: Vec<(u64, String)> = Vec::new();
    for (index, item) in read::list_of(value).into_iter().enumerate() {
        mapped.report.read(node);
        let path = format!("{node}/{index}");
        let (order, label) = match item {
            Value::Object(fields) => {
                let mut record = Record::new(path.clone(), fields);
                let label = record.text("label");
                let order = record.count("value").unwrap_or(index as u64);
                let extra = record.finish(node, &mut mapped.report);
                if !extra.is_empty() {
                    mapped.records.push(ImportedRecord {
                        node: node.into(),
                        key: index.to_string(),
                        entity: None,
                        extra,
                    });
                }
                (order, label)
            }
            other => (index as u64, text_of(other).ok().flatten()),
        };
        let Some(label) = label else {
            mapped.report.skip(node, format!("{path}/label"), "no reason text");
            continue;
        };
        if reasons.iter().any(|(_, seen)| seen.to_lowercase() == label.to_lowercase()) {
            mapped.report.skip(node, path, "the same reason twice");
            continue;
        }
        mapped.report.imported(node);
        reasons.push((order, label));
    }
    reasons.sort_by_key(|(order, _)| *order);
    mapped.cancel_reasons = Some(reasons.into_iter().map(|(_, label)| label).collect());
}

/// A list of `{description, amount}`.
fn choices(record: &mut Record, field: &str, decimals: u32) -> Vec<PricedChoice> {
    record
        .list(field)
        .into_iter()
        .filter_map(|item| {
            let fields = item.as_object()?;
            let description = fields.get("description").and_then(|value| text_of(value).ok().flatten())?;
            let amount = fields.get("amount").and_then(|value| decimal_of(value).ok().flatten()).unwrap_or_default();
            Some(PricedChoice { description, amount: money::round(amount, decimals) })
        })
        .collect()
}

fn amount_type(record: &mut Record, field: &str, mapped: &mut Mapped) -> AmountType {
    match record.text(field).map(|text| text.to_lowercase()).as_deref() {
        Some("percentage") | Some("percent") => AmountType::Percentage,
        Some("flat") | None => AmountType::Flat,
        Some(_) => {
            mapped.report.adjust("unknown_amount_type_read_as_flat", record.field_path(field));
            AmountType::Flat
        }
    }
}

fn car_types(context: &Context, mapped: &mut Mapped) {
    let node = "cartypes";
    let Some(value) = context.node(node) else { return };
    let decimals = context.decimals;
    let mut names: HashSet<String> = HashSet::new();
    for (key, item) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(node, path, "not an object");
            continue;
        };
        let Some(name) = record.text("name") else {
            mapped.report.skip(node, format!("{path}/name"), "a car type needs a name");
            continue;
        };
        if !names.insert(name.to_lowercase()) {
            mapped.report.skip(node, format!("{path}/name"), "another car type has this name");
            continue;
        }
        let existing = context.existing.car_types.iter().find(|(_, other)| other.to_lowercase() == name.to_lowercase());
        let id = existing.map_or_else(|| CarTypeId(super::ids::original_id(node, &key)), |(id, _)| *id);
        let slabs = record
            .list("cancelSlab")
            .into_iter()
            .filter_map(|slab| {
                let fields = slab.as_object()?;
                let minutes = fields.get("minsDelayed").and_then(|value| count_of(value).ok().flatten())?;
                let amount = fields.get("amount").and_then(|value| decimal_of(value).ok().flatten())?;
                Some(CancelSlab {
                    minsDelayed: minutes.min(u64::from(u32::MAX)) as u32,
                    amount: money::round(amount, decimals),
                })
            })
            .collect();
        let mut car_type = CarType {
            id,
            name,
            image: record.text_or_empty("image"),
            base_fare: record.money("base_fare", decimals),
            rate_per_unit_distance: record.decimal("rate_per_unit_distance").unwrap_or_default(),
            rate_per_hour: record.decimal("rate_per_hour").unwrap_or_default(),
            min_fare: record.money("min_fare", decimals),
            convenience_fees: record.decimal("convenience_fees").unwrap_or_default(),
            convenience_fee_type: amount_type(&mut record, "convenience_fee_type", mapped),
            extra_info: record.text_or_empty("extra_info"),
            createdAt: record.millis("createdAt").unwrap_or_default(),
            parcelTypes: choices(&mut record, "parcelTypes", decimals),
            options: choices(&mut record, "options", decimals),
            cancelSlab: slabs,
            optionRequired: false,
        };
        // Wayfare's panel rules normalise it (slabs in order); one that they
        // refuse still comes over as it was, for an admin to mend.
        match validate_car_type(&car_type, &[]) {
            Ok(valid) => car_type = valid,
            Err(_) => mapped.report.adjust("car_type_outside_wayfare_rules", path.clone()),
        }
        let extra = record.finish(node, &mut mapped.report);
        mapped.report.imported(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: Some(car_type.id.0), extra });
        mapped.car_types.push(car_type);
    }
}

/// Wayfare's promo name is the code riders type: upper case letters, digits,
/// `-` and `_`. The original's `promo_code` when it has one, else its name
/// with other characters turned into `_`.
pub(super) fn promo_code(code: Option<&str>, name: &str) -> String {
    let clean = |text: &str| -> String {
        text.trim()
            .to_uppercase()
            .chars()
            .map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .take(crate::promo::MAX_PROMO_NAME)
            .collect()
    };
    match code.map(clean).filter(|code| !code.is_empty()) {
        Some(code) => code,
        None => clean(name),
    }
}

fn promos(context: &mut Context, mapped: &mut Mapped) {
    let node = "promos";
    let Some(value) = context.node(node) else { return };
    let decimals = context.decimals;
    for (key, item) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(node, path, "not an object");
            continue;
        };
        let original_name = record.text("promo_name");
        let code = record.text("promo_code");
        let Some(name) = original_name.as_deref().or(code.as_deref()).map(|name| promo_code(code.as_deref(), name))
        else {
            mapped.report.skip(node, format!("{path}/promo_name"), "a promo needs a name or a code");
            continue;
        };
        if mapped.promos.iter().any(|promo| promo.promo_name == name) {
            mapped.report.skip(node, format!("{path}/promo_name"), "another promo has this code");
            continue;
        }
        for original in [&original_name, &code].into_iter().flatten() {
            context.promo_names.insert(original.clone(), name.clone());
        }
        let existing = context.existing.promos.iter().find(|(_, other)| *other == name);
        let id = existing.map_or_else(|| PromoId(super::ids::original_id(node, &key)), |(id, _)| *id);
        let mut description = record.text_or_empty("promo_description");
        if description.is_empty() && original_name.as_ref().is_some_and(|original| *original != name) {
            description = original_name.clone().unwrap_or_default();
        }
        let discount_type = amount_type(&mut record, "promo_discount_type", mapped);
        let validity = record.millis("promo_validity");
        if validity.is_none() {
            mapped.report.adjust("promo_without_validity_expired", format!("{path}/promo_validity"));
        }
        let promo = Promo {
            id,
            promo_name: name,
            promo_description: description,
            promo_discount_type: discount_type,
            promo_discount_value: record.money("promo_discount_value", decimals),
            max_promo_discount_value: record.money("max_promo_discount_value", decimals),
            min_order: record.money("min_order", decimals),
            // A promo with no end date ends before the import: an admin gives it one.
            promo_validity: validity.unwrap_or(1),
            promo_usage_limit: record.count("promo_usage_limit").unwrap_or_default().min(u64::from(u32::MAX)) as u32,
            user_avail: record.count("user_avail").unwrap_or_default().min(u64::from(u32::MAX)) as u32,
            createdAt: record.millis("createdAt").unwrap_or_default(),
        };
        if crate::promo::validate(&promo, context.options.now, false, decimals).is_err() {
            mapped.report.adjust("promo_outside_wayfare_rules", path.clone());
        }
        let extra = record.finish(node, &mut mapped.report);
        mapped.report.imported(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: Some(promo.id.0), extra });
        mapped.promos.push(promo);
    }
}

fn notifications(context: &Context, mapped: &mut Mapped) {
    let node = "notifications";
    let Some(value) = context.node(node) else { return };
    for (key, item) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(node, path, "not an object");
            continue;
        };
        let (Some(title), Some(body)) = (record.text("title"), record.text("body")) else {
            mapped.report.skip(node, path, "a notification needs a title and a body");
            continue;
        };
        let devicetype = match record.text("devicetype").map(|text| text.to_uppercase()).as_deref() {
            Some("ANDROID") => DeviceTarget::Android,
            Some("IOS") => DeviceTarget::Ios,
            _ => DeviceTarget::All,
        };
        let usertype = match record.text("usertype").map(|text| text.to_lowercase()).as_deref() {
            Some("rider") | Some("customer") => UserTarget::Rider,
            Some("driver") => UserTarget::Driver,
            _ => UserTarget::All,
        };
        let created = record.millis("createdAt").or_else(|| record.millis("date")).unwrap_or_default();
        let notification = Notification {
            id: NotificationId(super::ids::original_id(node, &key)),
            devicetype,
            usertype,
            title,
            body,
            createdAt: created,
        };
        let extra = record.finish(node, &mut mapped.report);
        mapped.report.imported(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: Some(notification.id.0), extra });
        mapped.notifications.push(notification);
    }
}

/// Languages: one of the same locale already in Wayfare is updated (its id
/// kept), and a dictionary the original lacks keys of keeps Wayfare's text
/// for them. Exactly one default: the original's when it marks one.
fn languages(context: &Context, mapped: &mut Mapped) {
    let node = "languages";
    let Some(value) = context.node(node) else { return };
    for (key, item) in children(value) {
        mapped.report.read(node);
        let path = format!("{node}/{key}");
        let Some(mut record) = read::record(path.clone(), item) else {
            mapped.report.skip(node, path, "not an object");
            continue;
        };
        let name = record.text_or_empty("langName");
        let locale = record.text_or_empty("langLocale");
        let date_locale = record.text_or_empty("dateLocale");
        let Ok((name, locale, date_locale)) = validate_language(&name, &locale, &date_locale) else {
            mapped.report.skip(node, format!("{path}/langLocale"), "a language needs a name and a locale such as en");
            continue;
        };
        if mapped.languages.iter().any(|language| language.langLocale.eq_ignore_ascii_case(&locale)) {
            mapped.report.skip(node, format!("{path}/langLocale"), "another language has this locale");
            continue;
        }
        let existing =
            context.existing.languages.iter().find(|language| language.langLocale.eq_ignore_ascii_case(&locale));
        let mut pairs: BTreeMap<String, String> =
            existing.map(|language| language.keyValuePairs.clone()).unwrap_or_default();
        if let Some(original) = record.object("keyValuePairs") {
            for (pair_key, text) in original {
                if let Ok(Some(text)) = text_of(text) {
                    pairs.insert(pair_key.clone(), text);
                }
            }
        }
        let language = Language {
            id: existing.map_or_else(|| LanguageId(super::ids::original_id(node, &key)), |language| language.id),
            langName: name,
            langLocale: locale,
            dateLocale: date_locale,
            default: record.flag("default").unwrap_or(false),
            keyValuePairs: pairs,
            createdAt: record.millis("createdAt").unwrap_or_default(),
        };
        let extra = record.finish(node, &mut mapped.report);
        mapped.report.imported(node);
        mapped.records.push(ImportedRecord { node: node.into(), key, entity: Some(language.id.0), extra });
        mapped.languages.push(language);
    }
    let defaults = mapped.languages.iter().filter(|language| language.default).count();
    if defaults > 1 {
        for language in mapped.languages.iter_mut().filter(|language| language.default).skip(1) {
            language.default = false;
            mapped.report.adjust("second_default_language_unset", format!("languages/{}", language.langLocale));
        }
    }
}

/// `payment_settings/{gateway}`: `active`, `testing` (or `testingMode`) and
/// the provider's fields as text.
fn gateways(context: &Context, mapped: &mut Mapped) {
    let node = "payment_settings";
    let Some(value) = context.node(node) else { return };
    for (name, item) in children(value) {
        mapped.report.read(node);
        let Some(fields) = item.as_object() else {
            mapped.report.skip(node, format!("{node}/{name}"), "not an object");
            continue;
        };
        let mut gateway = GatewayImport { name: name.clone(), active: false, testing: false, fields: BTreeMap::new() };
        for (field, value) in fields {
            match field.as_str() {
                "active" => gateway.active = flag_of(value).ok().flatten().unwrap_or(false),
                "testing" | "testingMode" => gateway.testing = flag_of(value).ok().flatten().unwrap_or(false),
                _ => {
                    if let Ok(Some(text)) = text_of(value) {
                        gateway.fields.insert(field.clone(), text);
                    }
                }
            }
        }
        // Counted as imported by the server, which knows its gateways.
        mapped.gateways.push(gateway);
    }
}
