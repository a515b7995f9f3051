//! Places from a Nominatim server: `/search` for autocomplete, `/lookup`
//! for a place id, `/reverse` for an address, all as `format=jsonv2`.
//!
//! Place ids are `nominatim:<N|W|R><osm id>` (node, way, relation), what
//! `/lookup` takes; Nominatim's own `place_id` changes on every reimport.
//! Nominatim cannot focus on a point, so `near` becomes a preferred (not
//! bounding) `viewbox` around it. The public nominatim.openstreetmap.org
//! forbids autocomplete; run your own server.

use super::{Geocoding, HttpClient, RemoteError, SUGGESTION_LIMIT, endpoint, split_address};
use crate::error::{GeoCall, MapsError};
use crate::maps_provider::{PlaceDetails, Suggestion};
use async_trait::async_trait;
use reqwest::Url;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use wayfare_engine::LatLng;

const SERVICE: &str = "Nominatim";
const ID_PREFIX: &str = "nominatim:";

/// Half the side of the preferred box around `near`, in degrees: about
/// 55 km north-south, a metropolitan area.
const NEAR_BOX_DEGREES: f64 = 0.5;

#[derive(Debug, Clone)]
pub struct Nominatim {
    http: HttpClient,
    base: Url,
}

impl Nominatim {
    /// `base` is the server's address, e.g. `http://127.0.0.1:8080`.
    pub fn new(http: HttpClient, base: Url) -> Self {
        Self { http, base }
    }

    fn url(&self, path: &str, params: &[(&str, &str)]) -> Url {
        let mut url = endpoint(&self.base, path);
        url.query_pairs_mut().append_pair("format", "jsonv2").extend_pairs(params);
        url
    }

    async fn get<T: DeserializeOwned>(&self, call: GeoCall, url: Url) -> Result<T, MapsError> {
        self.http.get_json(SERVICE, call, url, &[]).await
    }
}

/// One place of a `/search` or `/lookup` answer (jsonv2).
#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    osm_type: Option<String>,
    #[serde(default)]
    osm_id: Option<u64>,
    // jsonv2 writes coordinates as strings.
    lat: String,
    lon: String,
    #[serde(default)]
    name: Option<String>,
    display_name: String,
}

impl Entry {
    /// `None` for an entry with no OSM object behind it (`/lookup` could not
    /// find it again).
    fn place_id(&self) -> Option<String> {
        let kind = match self.osm_type.as_deref()? {
            "node" => 'N',
            "way" => 'W',
            "relation" => 'R',
            _ => return None,
        };
        Some(format!("{ID_PREFIX}{kind}{}", self.osm_id?))
    }

    fn point(&self) -> Option<LatLng> {
        let point = LatLng::new(self.lat.trim().parse().ok()?, self.lon.trim().parse().ok()?);
        point.is_valid().then_some(point)
    }
}

/// `/reverse` answers one place, or `{"error": "Unable to geocode"}` with
/// HTTP 200 when there is nothing there.
#[derive(Deserialize)]
struct ReverseAnswer {
    #[serde(default)]
    display_name: Option<String>,
}

/// `N123`, `W123` or `R123` from a place id of ours.
fn osm_ids(place_id: &str) -> Option<&str> {
    let ids = place_id.strip_prefix(ID_PREFIX)?;
    let (kind, number) = ids.split_at_checked(1)?;
    let well_formed = matches!(kind, "N" | "W" | "R")
        && !number.is_empty()
        && number.len() <= 20
        && number.bytes().all(|byte| byte.is_ascii_digit());
    well_formed.then_some(ids)
}

#[async_trait]
impl Geocoding for Nominatim {
    async fn autocomplete(
        &self,
        query: &str,
        near: Option<LatLng>,
        country: Option<&str>,
    ) -> Result<Vec<Suggestion>, MapsError> {
        let limit = SUGGESTION_LIMIT.to_string();
        let mut params = vec![("q", query.to_owned()), ("limit", limit)];
        if let Some(country) = country {
            params.push(("countrycodes", country.to_ascii_lowercase()));
        }
        if let Some(near) = near {
            let (west, east) = ((near.lng - NEAR_BOX_DEGREES).max(-180.0), (near.lng + NEAR_BOX_DEGREES).min(180.0));
            let (south, north) = ((near.lat - NEAR_BOX_DEGREES).max(-90.0), (near.lat + NEAR_BOX_DEGREES).min(90.0));
            params.push(("viewbox", format!("{west},{south},{east},{north}")));
        }
        let params: Vec<(&str, &str)> = params.iter().map(|(name, value)| (*name, value.as_str())).collect();
        let entries: Vec<Entry> = self.get(GeoCall::Autocomplete, self.url("search", &params)).await?;
        Ok(entries
            .into_iter()
            .filter_map(|entry| {
                let place_id = entry.place_id()?;
                let (main_text, secondary_text) = split_address(entry.name.as_deref(), &entry.display_name);
                Some(Suggestion { place_id, description: entry.display_name, main_text, secondary_text })
            })
            .collect())
    }

    async fn place(&self, place_id: &str) -> Result<PlaceDetails, MapsError> {
        let ids = osm_ids(place_id).ok_or(MapsError::UnknownPlace)?;
        let call = GeoCall::PlaceCoords;
        let entries: Vec<Entry> = self.get(call, self.url("lookup", &[("osm_ids", ids)])).await?;
        let entry = entries.into_iter().next().ok_or(MapsError::UnknownPlace)?;
        let point = entry.point().ok_or_else(|| {
            let reason = format!("coordinates {:?}, {:?}", entry.lat, entry.lon);
            RemoteError::Unreadable { service: SERVICE, reason }.during(call)
        })?;
        Ok(PlaceDetails { place_id: place_id.to_owned(), lat: point.lat, lng: point.lng, address: entry.display_name })
    }

    async fn reverse(&self, point: LatLng) -> Result<Option<String>, MapsError> {
        let (lat, lon) = (point.lat.to_string(), point.lng.to_string());
        let answer: ReverseAnswer =
            self.get(GeoCall::Address, self.url("reverse", &[("lat", &lat), ("lon", &lon)])).await?;
        Ok(answer.display_name)
    }
}
