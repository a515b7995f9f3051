//! Places from a Photon server (komoot's search-as-you-type geocoder for
//! OpenStreetMap data): `/api` for autocomplete, `/reverse` for an
//! address; both answer GeoJSON features with the address in `properties`.
//!
//! Photon has no lookup by id, so a place id carries what `place` answers:
//! `photon:<lat>,<lng>,<label>` (the label may hold commas; the first two
//! fields never do), and `place` asks the server nothing.

use super::{Geocoding, HttpClient, SUGGESTION_LIMIT, endpoint};
use crate::error::{GeoCall, MapsError};
use crate::maps_provider::{PlaceDetails, Suggestion};
use async_trait::async_trait;
use reqwest::Url;
use serde::Deserialize;
use wayfare_engine::LatLng;

const SERVICE: &str = "Photon";
const ID_PREFIX: &str = "photon:";

#[derive(Debug, Clone)]
pub struct Photon {
    http: HttpClient,
    base: Url,
}

impl Photon {
    /// `base` is the server's address, e.g. `http://127.0.0.1:2322`.
    pub fn new(http: HttpClient, base: Url) -> Self {
        Self { http, base }
    }

    async fn features(&self, call: GeoCall, path: &str, params: &[(&str, &str)]) -> Result<Vec<Feature>, MapsError> {
        let mut url = endpoint(&self.base, path);
        url.query_pairs_mut().extend_pairs(params);
        let answer: FeatureCollection = self.http.get_json(SERVICE, call, url, &[]).await?;
        Ok(answer.features)
    }
}

#[derive(Deserialize)]
struct FeatureCollection {
    #[serde(default)]
    features: Vec<Feature>,
}

#[derive(Deserialize)]
struct Feature {
    geometry: Geometry,
    #[serde(default)]
    properties: Properties,
}

#[derive(Deserialize)]
struct Geometry {
    /// GeoJSON order: longitude, latitude.
    coordinates: [f64; 2],
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Properties {
    name: Option<String>,
    housenumber: Option<String>,
    street: Option<String>,
    postcode: Option<String>,
    city: Option<String>,
    state: Option<String>,
    country: Option<String>,
    countrycode: Option<String>,
}

impl Feature {
    fn point(&self) -> LatLng {
        LatLng::new(self.geometry.coordinates[1], self.geometry.coordinates[0])
    }

    /// The name, or the street address when the place has none, then the
    /// rest of the address: "Fort McHenry, 2400 East Fort Avenue, Baltimore, …".
    fn address_parts(&self) -> Vec<String> {
        let properties = &self.properties;
        let street = match (&properties.housenumber, &properties.street) {
            (Some(number), Some(street)) => Some(format!("{number} {street}")),
            (None, Some(street)) => Some(street.clone()),
            _ => None,
        };
        let state = match (&properties.state, &properties.postcode) {
            (Some(state), Some(postcode)) => Some(format!("{state} {postcode}")),
            (state, postcode) => state.clone().or_else(|| postcode.clone()),
        };
        let mut parts: Vec<String> = Vec::new();
        for part in [properties.name.clone(), street, properties.city.clone(), state, properties.country.clone()]
            .into_iter()
            .flatten()
        {
            let part = part.trim().to_owned();
            if !part.is_empty() && !parts.contains(&part) {
                parts.push(part);
            }
        }
        parts
    }

    fn in_country(&self, country: &str) -> bool {
        self.properties.countrycode.as_deref().is_some_and(|code| code.eq_ignore_ascii_case(country))
    }
}

/// The point and label of a place id of ours.
fn parse_id(place_id: &str) -> Option<(LatLng, &str)> {
    let mut fields = place_id.strip_prefix(ID_PREFIX)?.splitn(3, ',');
    let lat = fields.next()?.parse().ok()?;
    let lng = fields.next()?.parse().ok()?;
    let label = fields.next()?.trim();
    let point = LatLng::new(lat, lng);
    (point.is_valid() && !label.is_empty()).then_some((point, label))
}

#[async_trait]
impl Geocoding for Photon {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError> {
        let limit = SUGGESTION_LIMIT.to_string();
        let mut params = vec![("q", query.to_owned()), ("limit", limit)];
        if let Some(near) = near {
            params.extend([("lat", near.lat.to_string()), ("lon", near.lng.to_string())]);
        }
        if let Some(country) = country {
            params.push(("countrycode", country.to_ascii_uppercase()));
        }
        let params: Vec<(&str, &str)> = params.iter().map(|(name, value)| (*name, value.as_str())).collect();
        let features = self.features(GeoCall::Autocomplete, "api", &params).await?;
        Ok(features
            .into_iter()
            // Older Photon servers ignore `countrycode`: filter here as well.
            .filter(|feature| country.is_none_or(|country| feature.in_country(country)))
            .filter(|feature| feature.point().is_valid())
            .filter_map(|feature| {
                let parts = feature.address_parts();
                let (main_text, rest) = parts.split_first()?;
                let description = parts.join(", ");
                let point = feature.point();
                Some(Suggestion {
                    place_id: format!("{ID_PREFIX}{},{},{description}", point.lat, point.lng),
                    main_text: main_text.clone(),
                    secondary_text: rest.join(", "),
                    description,
                })
            })
            .collect())
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        let (point, label) = parse_id(place_id).ok_or(MapsError::UnknownPlace)?;
        Ok(PlaceDetails { place_id: place_id.to_owned(), lat: point.lat, lng: point.lng, address: label.to_owned() })
    }

    async fn reverse(&self, point: LatLng) -> Result<Option<String>, MapsError> {
        let (lat, lon) = (point.lat.to_string(), point.lng.to_string());
        let features =
            self.features(GeoCall::Address, "reverse", &[("lat", &lat), ("lon", &lon), ("limit", "1")]).await?;
        Ok(features.first().map(|feature| feature.address_parts().join(", ")).filter(|address| !address.is_empty()))
    }
}
