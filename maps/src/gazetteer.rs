//! An in-memory list of named places: autocomplete, place lookup and the
//! nearest place to a point, for providers that have no geocoder of their own.
//!
//! Search is a scan, which is fine for the tens or hundreds of places a
//! gazetteer holds (the Baltimore list answers in microseconds); a city-sized
//! geocoder belongs to the OpenStreetMap provider.

use crate::maps_provider::{PlaceDetails, Suggestion};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use wayfare_engine::LatLng;
use wayfare_engine::geo::distance_km;

/// Landmarks and addresses of the demo city, inside the map extract in `data/`.
const BALTIMORE_PLACES_JSON: &str = include_str!("../data/baltimore_places.json");

/// One named place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GazetteerPlace {
    /// Stable, e.g. `bmore:inner-harbor`: bookings and clients may keep it.
    pub id: String,
    pub name: String,
    pub address: String,
    /// ISO 3166-1 alpha-2 code, lower case (`us`).
    pub country: String,
    pub lat: f64,
    pub lng: f64,
}

impl GazetteerPlace {
    pub fn point(&self) -> LatLng {
        LatLng::new(self.lat, self.lng)
    }

    /// The name and the address, as autocomplete shows a place.
    pub fn description(&self) -> String {
        format!("{}, {}", self.name, self.address)
    }

    pub fn suggestion(&self) -> Suggestion {
        Suggestion {
            place_id: self.id.clone(),
            description: self.description(),
            main_text: self.name.clone(),
            secondary_text: self.address.clone(),
        }
    }

    /// The description is the address a booking keeps: it is what the rider picked.
    pub fn details(&self) -> PlaceDetails {
        PlaceDetails { place_id: self.id.clone(), lat: self.lat, lng: self.lng, address: self.description() }
    }
}

/// Why a list of places cannot be a gazetteer.
#[derive(Debug, thiserror::Error)]
pub enum GazetteerError {
    #[error("the place list is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("place id {0:?} appears more than once")]
    DuplicateId(String),
    #[error("place {0:?} has an empty id or name")]
    Unnamed(String),
    #[error("place {0:?} has coordinates out of range")]
    InvalidCoordinates(String),
}

/// The file format: the places and whatever notes (source, attribution) go with them.
#[derive(Deserialize)]
struct PlaceList {
    places: Vec<GazetteerPlace>,
}

/// The words a place is found by, lower case, computed once.
#[derive(Debug, Clone)]
struct SearchKey {
    name_words: Vec<String>,
    address_words: Vec<String>,
    /// The name's words joined by single spaces, for exact and prefix ranking.
    name_phrase: String,
}

/// How well a place's name answers a query; lower ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum MatchRank {
    NameIsTheQuery,
    NameStartsWithTheQuery,
    EveryWordInTheName,
    SomeWordsOnlyInTheAddress,
}

#[derive(Debug, Clone)]
pub struct Gazetteer {
    places: Vec<GazetteerPlace>,
    keys: Vec<SearchKey>,
    index_by_id: HashMap<String, usize>,
}

impl Gazetteer {
    /// Autocomplete answers at most this many places (Google answers five;
    /// ten leaves room for the rest of the street).
    pub const SEARCH_LIMIT: usize = 10;

    pub fn new(places: Vec<GazetteerPlace>) -> Result<Self, GazetteerError> {
        let mut index_by_id = HashMap::with_capacity(places.len());
        for (index, place) in places.iter().enumerate() {
            if place.id.trim().is_empty() || place.name.trim().is_empty() {
                return Err(GazetteerError::Unnamed(place.id.clone()));
            }
            if !place.point().is_valid() {
                return Err(GazetteerError::InvalidCoordinates(place.id.clone()));
            }
            if index_by_id.insert(place.id.clone(), index).is_some() {
                return Err(GazetteerError::DuplicateId(place.id.clone()));
            }
        }
        let keys = places
            .iter()
            .map(|place| {
                let name_words = words(&place.name);
                SearchKey { name_phrase: name_words.join(" "), name_words, address_words: words(&place.address) }
            })
            .collect();
        Ok(Self { places, keys, index_by_id })
    }

    /// Reads `{"places": [{"id", "name", "address", "country", "lat", "lng"}, …]}`;
    /// other top-level fields (notes, attribution) are ignored.
    pub fn from_json(json: &str) -> Result<Self, GazetteerError> {
        let list: PlaceList = serde_json::from_str(json)?;
        Self::new(list.places)
    }

    /// The demo city's landmarks and addresses (`maps/data/baltimore_places.json`),
    /// all inside the map extract in `data/`.
    pub fn baltimore() -> Self {
        Self::from_json(BALTIMORE_PLACES_JSON).expect("the embedded Baltimore place list is valid (tested)")
    }

    pub fn places(&self) -> &[GazetteerPlace] {
        &self.places
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    pub fn place(&self, id: &str) -> Option<&GazetteerPlace> {
        self.index_by_id.get(id).map(|&index| &self.places[index])
    }

    /// Places where every word of the query begins some word of the name or
    /// the address (case-insensitive). Best first: the name is the query,
    /// then the name starts with it, then every word is in the name, then
    /// the rest; within each, nearest to `near` first when given, else by
    /// name. At most [`Self::SEARCH_LIMIT`]. An empty `country` restricts nothing.
    pub fn search(&self, query: &str, near: Option<LatLng>, country: Option<&str>) -> Vec<&GazetteerPlace> {
        let query_words = words(query);
        if query_words.is_empty() {
            return Vec::new();
        }
        let query_phrase = query_words.join(" ");
        let country = country.map(str::trim).filter(|code| !code.is_empty());
        // An invalid bias point biases nothing rather than failing the search.
        let near = near.filter(LatLng::is_valid);
        let mut matches: Vec<(MatchRank, f64, &GazetteerPlace)> = self
            .places
            .iter()
            .zip(&self.keys)
            .filter(|(place, _)| country.is_none_or(|code| place.country.eq_ignore_ascii_case(code)))
            .filter_map(|(place, key)| {
                let rank = rank(key, &query_words, &query_phrase)?;
                let distance = near.map_or(0.0, |point| distance_km(point, place.point()));
                Some((rank, distance, place))
            })
            .collect();
        matches.sort_by(|left, right| {
            left.0.cmp(&right.0).then(left.1.total_cmp(&right.1)).then_with(|| left.2.name.cmp(&right.2.name))
        });
        matches.into_iter().take(Self::SEARCH_LIMIT).map(|(_, _, place)| place).collect()
    }

    /// The place nearest to `point` and its distance in km; `None` when empty.
    pub fn nearest(&self, point: LatLng) -> Option<(&GazetteerPlace, f64)> {
        self.places
            .iter()
            .map(|place| (place, distance_km(point, place.point())))
            .min_by(|left, right| left.1.total_cmp(&right.1))
    }
}

/// `None` when some query word begins no word of the name or address.
fn rank(key: &SearchKey, query_words: &[String], query_phrase: &str) -> Option<MatchRank> {
    let begins_one_of = |words: &[String], query_word: &str| words.iter().any(|word| word.starts_with(query_word));
    let mut all_in_name = true;
    for query_word in query_words {
        if begins_one_of(&key.name_words, query_word) {
            continue;
        }
        if !begins_one_of(&key.address_words, query_word) {
            return None;
        }
        all_in_name = false;
    }
    Some(if key.name_phrase == query_phrase {
        MatchRank::NameIsTheQuery
    } else if key.name_phrase.starts_with(query_phrase) {
        MatchRank::NameStartsWithTheQuery
    } else if all_in_name {
        MatchRank::EveryWordInTheName
    } else {
        MatchRank::SomeWordsOnlyInTheAddress
    })
}

/// Lower-case words: apostrophes dropped (so "O'Donnell" is "odonnell"), any
/// other non-alphanumeric character separates words.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\'', '’'], "")
        .split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clip box in the header of `data/baltimore.osm.pbf`: the extract
    /// has roads only inside it, so a place outside could never be routed to
    /// by the OpenStreetMap provider.
    const EXTRACT_SOUTH: f64 = 39.2586;
    const EXTRACT_NORTH: f64 = 39.3065;
    const EXTRACT_WEST: f64 = -76.6081;
    const EXTRACT_EAST: f64 = -76.5288;

    fn names<'a>(places: &[&'a GazetteerPlace]) -> Vec<&'a str> {
        places.iter().map(|place| place.name.as_str()).collect()
    }

    fn place(id: &str, name: &str, address: &str, lat: f64, lng: f64) -> GazetteerPlace {
        GazetteerPlace { id: id.into(), name: name.into(), address: address.into(), country: "us".into(), lat, lng }
    }

    #[test]
    fn the_baltimore_list_loads_with_at_least_forty_places() {
        let gazetteer = Gazetteer::baltimore();
        assert!(gazetteer.len() >= 40, "{} places", gazetteer.len());
        for id in [
            "bmore:inner-harbor",
            "bmore:national-aquarium",
            "bmore:fort-mchenry",
            "bmore:johns-hopkins-hospital",
            "bmore:fells-point",
            "bmore:federal-hill-park",
            "bmore:patterson-park",
        ] {
            assert!(gazetteer.place(id).is_some(), "{id} is listed");
        }
    }

    #[test]
    fn every_baltimore_place_lies_inside_the_map_extract() {
        for place in Gazetteer::baltimore().places() {
            assert!(
                (EXTRACT_SOUTH..=EXTRACT_NORTH).contains(&place.lat)
                    && (EXTRACT_WEST..=EXTRACT_EAST).contains(&place.lng),
                "{} ({}, {}) is outside the extract",
                place.id,
                place.lat,
                place.lng
            );
        }
    }

    #[test]
    fn every_baltimore_place_has_a_stable_id_an_address_and_the_us_country_code() {
        for place in Gazetteer::baltimore().places() {
            let slug = place.id.strip_prefix("bmore:").unwrap_or_else(|| panic!("{} has the bmore: prefix", place.id));
            assert!(
                !slug.is_empty()
                    && slug.chars().all(|character| character.is_ascii_lowercase()
                        || character.is_ascii_digit()
                        || character == '-'),
                "{} is a lower-case slug",
                place.id
            );
            assert!(
                place.address.contains(", Baltimore, MD 212"),
                "{} has a Baltimore address: {}",
                place.id,
                place.address
            );
            assert_eq!(place.country, "us", "{}", place.id);
        }
    }

    #[test]
    fn a_query_finds_places_by_word_prefixes_in_any_case() {
        // spec §7: place autocomplete
        let gazetteer = Gazetteer::baltimore();
        let fort = gazetteer.search("fort mc", None, None);
        assert_eq!(fort[0].id, "bmore:fort-mchenry");
        let harbor = gazetteer.search("harbor", None, None);
        assert!(harbor.iter().any(|place| place.id == "bmore:inner-harbor"), "{:?}", names(&harbor));
        assert_eq!(gazetteer.search("FELLS", None, None)[0].id, "bmore:fells-point");
        assert_eq!(gazetteer.search("aquar nat", None, None)[0].id, "bmore:national-aquarium");
        // "arbor" is inside "harbor" but begins no word.
        assert!(gazetteer.search("arbor", None, None).is_empty());
        assert!(gazetteer.search("  ", None, None).is_empty());
        assert!(gazetteer.search("fort zzz", None, None).is_empty());
    }

    #[test]
    fn apostrophes_do_not_split_words() {
        let gazetteer = Gazetteer::baltimore();
        assert_eq!(gazetteer.search("o'donnell sq", None, None)[0].id, "bmore:odonnell-square");
        assert_eq!(gazetteer.search("odonnell square", None, None)[0].id, "bmore:odonnell-square");
    }

    #[test]
    fn a_query_matches_words_of_the_address_too() {
        let gazetteer = Gazetteer::baltimore();
        let found = gazetteer.search("1800 orleans", None, None);
        assert_eq!(names(&found), ["The Johns Hopkins Hospital"]);
    }

    #[test]
    fn the_name_that_is_the_query_ranks_before_names_that_start_with_it_then_names_that_contain_it() {
        let gazetteer = Gazetteer::new(vec![
            place("a", "Market Square", "1 Any St", 39.29, -76.60),
            place("b", "Old Market", "2 Any St", 39.29, -76.60),
            place("c", "Market", "3 Any St", 39.29, -76.60),
            place("d", "Depot", "4 Market St", 39.29, -76.60),
        ])
        .unwrap();
        assert_eq!(names(&gazetteer.search("market", None, None)), ["Market", "Market Square", "Old Market", "Depot"]);
    }

    #[test]
    fn among_equal_matches_the_nearest_to_the_bias_point_comes_first() {
        let gazetteer = Gazetteer::baltimore();
        let hopkins = LatLng::new(39.2964, -76.5924);
        let bayview = LatLng::new(39.2900, -76.5463);
        let near_hopkins = gazetteer.search("johns hopkins", Some(hopkins), None);
        let near_bayview = gazetteer.search("johns hopkins", Some(bayview), None);
        assert_eq!(near_bayview[0].id, "bmore:johns-hopkins-bayview");
        assert_ne!(near_hopkins[0].id, "bmore:johns-hopkins-bayview");
        let distances: Vec<f64> = near_hopkins.iter().map(|place| distance_km(hopkins, place.point())).collect();
        // "The Johns Hopkins Hospital" does not start with the query: it ranks after those that do.
        assert_eq!(near_hopkins.last().unwrap().id, "bmore:johns-hopkins-hospital");
        assert!(distances[..distances.len() - 1].windows(2).all(|pair| pair[0] <= pair[1]), "{distances:?}");
    }

    #[test]
    fn a_country_restriction_finds_only_places_of_that_country() {
        // spec §7: autocomplete restricted to restrictCountry
        let gazetteer = Gazetteer::baltimore();
        assert!(gazetteer.search("harbor", None, Some("de")).is_empty());
        assert!(!gazetteer.search("harbor", None, Some("us")).is_empty());
        assert!(!gazetteer.search("harbor", None, Some("US")).is_empty());
        assert!(!gazetteer.search("harbor", None, Some("")).is_empty(), "an empty restriction restricts nothing");
    }

    #[test]
    fn search_answers_at_most_ten_places() {
        let gazetteer = Gazetteer::baltimore();
        let everything_in_baltimore = gazetteer.search("baltimore", None, None);
        assert_eq!(everything_in_baltimore.len(), Gazetteer::SEARCH_LIMIT);
    }

    #[test]
    fn a_place_is_found_by_its_id_and_an_unknown_id_finds_nothing() {
        let gazetteer = Gazetteer::baltimore();
        let inner_harbor = gazetteer.place("bmore:inner-harbor").unwrap();
        assert_eq!(inner_harbor.name, "Inner Harbor");
        assert!(gazetteer.place("bmore:camden-yards-nope").is_none());
        assert!(gazetteer.place("").is_none());
    }

    #[test]
    fn the_nearest_place_and_its_distance_are_found() {
        let gazetteer = Gazetteer::baltimore();
        let fort = gazetteer.place("bmore:fort-mchenry").unwrap();
        let (nearest, distance) = gazetteer.nearest(LatLng::new(fort.lat + 0.0005, fort.lng)).unwrap();
        assert_eq!(nearest.id, fort.id);
        assert!((distance - 0.0556).abs() < 0.001, "{distance}");
        assert!(Gazetteer::new(Vec::new()).unwrap().nearest(LatLng::new(0.0, 0.0)).is_none());
    }

    #[test]
    fn a_place_list_with_a_repeated_id_bad_coordinates_or_no_name_is_refused() {
        let harbor = place("x:1", "Harbor", "1 Light St", 39.28, -76.61);
        assert!(matches!(
            Gazetteer::new(vec![harbor.clone(), harbor.clone()]),
            Err(GazetteerError::DuplicateId(id)) if id == "x:1"
        ));
        assert!(matches!(
            Gazetteer::new(vec![place("x:2", "Nowhere", "", 91.0, 0.0)]),
            Err(GazetteerError::InvalidCoordinates(_))
        ));
        assert!(matches!(Gazetteer::new(vec![place("x:3", " ", "", 0.0, 0.0)]), Err(GazetteerError::Unnamed(_))));
        assert!(matches!(Gazetteer::from_json("[]"), Err(GazetteerError::Json(_))));
    }

    #[test]
    fn suggestions_and_details_carry_the_name_and_the_address() {
        let gazetteer = Gazetteer::baltimore();
        let aquarium = gazetteer.place("bmore:national-aquarium").unwrap();
        let suggestion = aquarium.suggestion();
        assert_eq!(suggestion.place_id, "bmore:national-aquarium");
        assert_eq!(suggestion.main_text, "National Aquarium");
        assert_eq!(suggestion.secondary_text, "501 E Pratt St, Baltimore, MD 21202");
        assert_eq!(suggestion.description, "National Aquarium, 501 E Pratt St, Baltimore, MD 21202");
        let details = aquarium.details();
        assert_eq!(details.address, suggestion.description);
        assert_eq!(details.point(), aquarium.point());
    }
}
