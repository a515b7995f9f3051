//! OpenAPI schemas of the types whose JSON is written by hand rather than
//! derived (feature `openapi`): the booking otp, the requested drivers, and
//! the translation keys (their names come out of a macro, which the derive
//! cannot read).

use super::{Otp, RequestedDrivers};
use crate::ErrorKey;
use utoipa::openapi::schema::{AdditionalProperties, KnownFormat, ObjectBuilder, OneOfBuilder, SchemaFormat, Type};
use utoipa::openapi::{RefOr, Schema};

/// A 5-digit number, or `false` when `otp_secure` is off.
impl utoipa::PartialSchema for Otp {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(99_999)))
            .item(ObjectBuilder::new().schema_type(Type::Boolean).enum_values(Some([false])))
            .description(Some("The booking otp: a 5-digit number, or `false` when `otp_secure` is off"))
            .examples([serde_json::json!(40217), serde_json::json!(false)])
            .into()
    }
}

impl utoipa::ToSchema for Otp {}

/// A map of driver id to `true`, as the spec writes the set.
impl utoipa::PartialSchema for RequestedDrivers {
    fn schema() -> RefOr<Schema> {
        let always_true = ObjectBuilder::new().schema_type(Type::Boolean).enum_values(Some([true]));
        let driver_id =
            ObjectBuilder::new().schema_type(Type::String).format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property_names(Some(driver_id))
            .additional_properties(Some(AdditionalProperties::RefOr(RefOr::T(always_true.into()))))
            .description(Some("The drivers the booking is offered to: driver id → `true`"))
            .examples([serde_json::json!({ "0190f5a4-7c1e-7b52-9d43-1b2f5c6d7e8f": true })])
            .into()
    }
}

impl utoipa::ToSchema for RequestedDrivers {}

/// Every translation key the server can answer with.
impl utoipa::PartialSchema for ErrorKey {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(ErrorKey::ALL.iter().map(|key| key.as_str())))
            .description(Some("A translation key: every refusal's `error.code` is one of these"))
            .into()
    }
}

impl utoipa::ToSchema for ErrorKey {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::UserId;
    use utoipa::PartialSchema;

    /// The schema's examples are what serde writes.
    #[test]
    fn the_hand_written_schemas_describe_the_hand_written_json() {
        let otp = serde_json::to_value(Otp::schema()).unwrap();
        assert_eq!(otp["oneOf"][0]["type"], "integer");
        assert_eq!(otp["oneOf"][1]["enum"], serde_json::json!([false]));
        assert_eq!(serde_json::to_value(Otp(None)).unwrap(), serde_json::json!(false));
        assert_eq!(serde_json::to_value(Otp(Some(40217))).unwrap(), serde_json::json!(40217));

        let drivers = serde_json::to_value(RequestedDrivers::schema()).unwrap();
        assert_eq!(drivers["type"], "object");
        assert_eq!(drivers["additionalProperties"]["enum"], serde_json::json!([true]));
        assert_eq!(drivers["propertyNames"]["format"], "uuid");
        let one = RequestedDrivers([UserId::from_u128(7)].into_iter().collect());
        let written = serde_json::to_value(&one).unwrap();
        assert!(written.as_object().unwrap().values().all(|value| value == &serde_json::json!(true)));

        let keys = serde_json::to_value(ErrorKey::schema()).unwrap();
        let listed: Vec<serde_json::Value> =
            ErrorKey::ALL.iter().map(|key| serde_json::to_value(key).unwrap()).collect();
        assert_eq!(keys["enum"], serde_json::Value::Array(listed), "the keys as serde writes them");
    }
}
