//! Place search from the extract itself: addresses (`addr:housenumber` +
//! `addr:street` on nodes and buildings), named places and amenities,
//! streets, and intersections of two named streets ("Charles St & North
//! Ave"). Words are normalised (lower case, no punctuation, St → street,
//! N → north, …) the same way for the index and the query, so "n charles
//! st" finds "North Charles Street".
//!
//! Search: every query word must match a word of the entry — exactly, as a
//! prefix (the last word, as it is being typed), or within one typo (two for
//! long words). Entries score by how well they match, shorter names first,
//! then by distance to the focus point.

use super::network::metres;
use super::source::{Element, SourceError, Tags, read_elements, tag};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use wayfare_engine::LatLng;

/// At most this many suggestions per query.
pub const SEARCH_LIMIT: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryKind {
    Address,
    Place,
    Street,
    Intersection,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub kind: EntryKind,
    /// What the list shows first: "1234 Fleet Street", "Patterson Park".
    pub name: String,
    /// The rest: street, neighbourhood, city, postcode, as known.
    pub secondary: String,
    pub lat: f64,
    pub lng: f64,
    words: Vec<u32>,
}

impl Entry {
    /// Name and secondary text in one line, as an address is written.
    pub fn address(&self) -> String {
        if self.secondary.is_empty() { self.name.clone() } else { format!("{}, {}", self.name, self.secondary) }
    }
}

/// The search index of one extract.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlaceIndex {
    pub entries: Vec<Entry>,
    /// Every word, sorted (for prefix ranges), and the entries holding it.
    vocabulary: Vec<String>,
    postings: Vec<Vec<u32>>,
    /// The most common `addr:country` of the extract, upper case, if any.
    pub country: Option<String>,
}

const ABBREVIATIONS: &[(&str, &str)] = &[
    ("st", "street"),
    ("str", "street"),
    ("ave", "avenue"),
    ("av", "avenue"),
    ("rd", "road"),
    ("blvd", "boulevard"),
    ("dr", "drive"),
    ("ln", "lane"),
    ("ct", "court"),
    ("pl", "place"),
    ("sq", "square"),
    ("pkwy", "parkway"),
    ("hwy", "highway"),
    ("ter", "terrace"),
    ("cir", "circle"),
    ("n", "north"),
    ("s", "south"),
    ("e", "east"),
    ("w", "west"),
    ("ne", "northeast"),
    ("nw", "northwest"),
    ("se", "southeast"),
    ("sw", "southwest"),
    ("mt", "mount"),
    ("ft", "fort"),
];

/// Words for matching: lower case, letters and digits only, abbreviations
/// spelt out; "&" and "and" (joining two streets) are left out.
pub fn normalise(text: &str) -> Vec<String> {
    // "Max's" is one word, "maxs", whichever apostrophe is typed.
    let text: String = text.chars().filter(|character| !matches!(character, '\'' | '’')).collect();
    text.split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| word != "and")
        .map(|word| ABBREVIATIONS.iter().find(|(short, _)| *short == word).map_or(word, |(_, long)| (*long).to_owned()))
        .collect()
}

/// Whether two words are within `limit` edits (Levenshtein), cheaply.
fn within_edits(left: &str, right: &str, limit: usize) -> bool {
    let (left, right): (Vec<char>, Vec<char>) = (left.chars().collect(), right.chars().collect());
    if left.len().abs_diff(right.len()) > limit {
        return false;
    }
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    for (row, a) in left.iter().enumerate() {
        let mut current = vec![row + 1; right.len() + 1];
        for (column, b) in right.iter().enumerate() {
            let substitution = previous[column] + usize::from(a != b);
            current[column + 1] = substitution.min(previous[column + 1] + 1).min(current[column] + 1);
        }
        if current.iter().min().copied().unwrap_or(0) > limit {
            return false;
        }
        previous = current;
    }
    previous[right.len()] <= limit
}

/// Tags that make a named node or way a place worth finding.
const PLACE_KEYS: &[&str] =
    &["amenity", "shop", "tourism", "leisure", "place", "historic", "office", "railway", "aeroway", "building"];

fn is_place(tags: &Tags) -> bool {
    tag(tags, "name").is_some() && PLACE_KEYS.iter().any(|key| tag(tags, key).is_some())
}

fn has_address(tags: &Tags) -> bool {
    tag(tags, "addr:housenumber").is_some() && tag(tags, "addr:street").is_some()
}

/// "Baltimore, MD 21231" from the address tags an element has.
fn locality(tags: &Tags) -> String {
    let city = tag(tags, "addr:city").unwrap_or_default();
    let state = tag(tags, "addr:state").unwrap_or_default();
    let postcode = tag(tags, "addr:postcode").unwrap_or_default();
    let region = [state, postcode].iter().filter(|part| !part.is_empty()).copied().collect::<Vec<_>>().join(" ");
    [city, region.as_str()].iter().filter(|part| !part.is_empty()).copied().collect::<Vec<_>>().join(", ")
}

/// An `addr:interpolation` way: the houses between its numbered nodes.
struct Interpolation {
    nodes: Vec<i64>,
    step: u32,
    /// The way's own `addr:street`, else its ends'.
    street: String,
}

/// At most this many houses between two numbered nodes: more is a typo.
const MAX_INTERPOLATED: u32 = 500;

/// Every other number (`even`, `odd`), every number (`all`), or every n-th.
fn interpolation_step(value: &str) -> Option<u32> {
    match value {
        "even" | "odd" => Some(2),
        "all" => Some(1),
        other => other.parse().ok().filter(|step| *step > 0),
    }
}

impl Interpolation {
    /// The houses strictly between each pair of numbered nodes along the
    /// way, spaced evenly by distance along it.
    fn addresses(
        &self,
        coords: &HashMap<i64, [f64; 2]>,
        numbered: &HashMap<i64, (u32, String, String)>,
    ) -> Vec<Pending> {
        let points: Vec<[f64; 2]> = self.nodes.iter().filter_map(|node| coords.get(node)).copied().collect();
        if points.len() != self.nodes.len() {
            return Vec::new();
        }
        let mut along = vec![0.0];
        for pair in points.windows(2) {
            along.push(along.last().expect("starts at 0") + super::network::metres(pair[0], pair[1]));
        }
        // (index along the way, number, street, locality) of each numbered node.
        let stops: Vec<(usize, &(u32, String, String))> = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(index, node)| numbered.get(node).map(|stop| (index, stop)))
            .collect();
        let mut houses = Vec::new();
        for pair in stops.windows(2) {
            let ((from, (low, low_street, place)), (to, (high, high_street, _))) = (pair[0], pair[1]);
            let street = [self.street.as_str(), low_street, high_street].into_iter().find(|name| !name.is_empty());
            let Some(street) = street else { continue };
            let (first, last, forward) = if low <= high { (*low, *high, true) } else { (*high, *low, false) };
            if last - first > MAX_INTERPOLATED * self.step {
                continue;
            }
            let mut number = first + self.step;
            while number < last {
                let mut share = (number - first) as f64 / (last - first) as f64;
                if !forward {
                    share = 1.0 - share;
                }
                let at = along[from] + share * (along[to] - along[from]);
                houses.push(Pending {
                    kind: EntryKind::Address,
                    name: format!("{number} {street}"),
                    secondary: place.clone(),
                    at: Some(point_at(&points, &along, at)),
                    nodes: Vec::new(),
                });
                number += self.step;
            }
        }
        houses
    }
}

/// The point `at` metres along a line whose cumulative lengths are `along`.
fn point_at(points: &[[f64; 2]], along: &[f64], at: f64) -> [f64; 2] {
    let segment = along.windows(2).position(|pair| at <= pair[1]).unwrap_or(points.len().saturating_sub(2));
    let (start, end) = (along[segment], along[segment + 1]);
    let share = if end > start { ((at - start) / (end - start)).clamp(0.0, 1.0) } else { 0.0 };
    let (a, b) = (points[segment], points[segment + 1]);
    [a[0] + share * (b[0] - a[0]), a[1] + share * (b[1] - a[1])]
}

struct Pending {
    kind: EntryKind,
    name: String,
    secondary: String,
    /// Its own point, or the nodes whose middle it is.
    at: Option<[f64; 2]>,
    nodes: Vec<i64>,
}

impl PlaceIndex {
    /// Reads the extract twice: ways first (to know which nodes are
    /// needed for their positions and junctions), then nodes.
    pub fn from_file(path: &Path) -> Result<PlaceIndex, SourceError> {
        let mut pending: Vec<Pending> = Vec::new();
        let mut street_ways: BTreeMap<String, Vec<Vec<i64>>> = BTreeMap::new();
        let mut countries: HashMap<String, usize> = HashMap::new();
        let mut interpolations: Vec<Interpolation> = Vec::new();
        read_elements(path, |element| {
            let Element::Way(way) = element else { return };
            if let Some(step) = tag(&way.tags, "addr:interpolation").and_then(interpolation_step)
                && way.nodes.len() >= 2
            {
                let street = tag(&way.tags, "addr:street").unwrap_or_default().to_owned();
                interpolations.push(Interpolation { nodes: way.nodes.clone(), step, street });
            }
            if let Some(country) = tag(&way.tags, "addr:country") {
                *countries.entry(country.to_uppercase()).or_default() += 1;
            }
            if let (Some(name), Some(highway)) = (tag(&way.tags, "name"), tag(&way.tags, "highway"))
                && !matches!(highway, "footway" | "path" | "cycleway" | "steps" | "bridleway" | "corridor")
            {
                street_ways.entry(name.to_owned()).or_default().push(way.nodes.clone());
            }
            if has_address(&way.tags) {
                let street = tag(&way.tags, "addr:street").unwrap_or_default();
                let number = tag(&way.tags, "addr:housenumber").unwrap_or_default();
                pending.push(Pending {
                    kind: EntryKind::Address,
                    name: format!("{number} {street}"),
                    secondary: locality(&way.tags),
                    at: None,
                    nodes: way.nodes.clone(),
                });
            }
            if is_place(&way.tags) && tag(&way.tags, "highway").is_none() {
                let name = tag(&way.tags, "name").unwrap_or_default().to_owned();
                let secondary = place_secondary(&way.tags);
                pending.push(Pending { kind: EntryKind::Place, name, secondary, at: None, nodes: way.nodes });
            }
        })?;
        // Intersections: nodes shared by streets of two names.
        let mut names_at: HashMap<i64, Vec<&str>> = HashMap::new();
        for (name, ways) in &street_ways {
            for node in ways.iter().flatten() {
                let names = names_at.entry(*node).or_default();
                if !names.contains(&name.as_str()) {
                    names.push(name.as_str());
                }
            }
        }
        let mut crossings: BTreeMap<(String, String), i64> = BTreeMap::new();
        for (node, names) in &names_at {
            for (index, first) in names.iter().enumerate() {
                for second in &names[index + 1..] {
                    let pair = if first < second { (*first, *second) } else { (*second, *first) };
                    let slot = crossings.entry((pair.0.to_owned(), pair.1.to_owned())).or_insert(*node);
                    *slot = (*slot).min(*node);
                }
            }
        }
        let mut wanted: HashSet<i64> = pending.iter().flat_map(|entry| entry.nodes.iter().copied()).collect();
        wanted.extend(street_ways.values().flatten().flatten().copied());
        wanted.extend(interpolations.iter().flat_map(|line| line.nodes.iter().copied()));
        let interpolated: HashSet<i64> = interpolations.iter().flat_map(|line| line.nodes.iter().copied()).collect();
        let mut coords: HashMap<i64, [f64; 2]> = HashMap::new();
        // The numbered ends of interpolation lines: number, street, locality.
        let mut numbered: HashMap<i64, (u32, String, String)> = HashMap::new();
        read_elements(path, |element| {
            let Element::Node(node) = element else { return };
            if wanted.contains(&node.id) {
                coords.insert(node.id, [node.lat, node.lng]);
            }
            if interpolated.contains(&node.id)
                && let Some(number) = tag(&node.tags, "addr:housenumber").and_then(|text| text.trim().parse().ok())
            {
                let street = tag(&node.tags, "addr:street").unwrap_or_default().to_owned();
                numbered.insert(node.id, (number, street, locality(&node.tags)));
            }
            if let Some(country) = tag(&node.tags, "addr:country") {
                *countries.entry(country.to_uppercase()).or_default() += 1;
            }
            if has_address(&node.tags) {
                let street = tag(&node.tags, "addr:street").unwrap_or_default();
                let number = tag(&node.tags, "addr:housenumber").unwrap_or_default();
                pending.push(Pending {
                    kind: EntryKind::Address,
                    name: format!("{number} {street}"),
                    secondary: locality(&node.tags),
                    at: Some([node.lat, node.lng]),
                    nodes: Vec::new(),
                });
            }
            if is_place(&node.tags) {
                let name = tag(&node.tags, "name").unwrap_or_default().to_owned();
                let secondary = place_secondary(&node.tags);
                pending.push(Pending {
                    kind: EntryKind::Place,
                    name,
                    secondary,
                    at: Some([node.lat, node.lng]),
                    nodes: Vec::new(),
                });
            }
        })?;
        for line in &interpolations {
            pending.extend(line.addresses(&coords, &numbered));
        }
        for (name, ways) in &street_ways {
            // The street's point: the middle node of its longest way.
            let longest = ways.iter().max_by_key(|nodes| nodes.len()).expect("a street has a way");
            pending.push(Pending {
                kind: EntryKind::Street,
                name: name.clone(),
                secondary: String::new(),
                at: longest.get(longest.len() / 2).and_then(|node| coords.get(node)).copied(),
                nodes: Vec::new(),
            });
        }
        for ((first, second), node) in &crossings {
            pending.push(Pending {
                kind: EntryKind::Intersection,
                name: format!("{first} & {second}"),
                secondary: String::new(),
                at: coords.get(node).copied(),
                nodes: Vec::new(),
            });
        }
        let country = countries.into_iter().max_by_key(|(code, count)| (*count, std::cmp::Reverse(code.clone())));
        Ok(PlaceIndex::build(pending, &coords, country.map(|(code, _)| code)))
    }

    fn build(pending: Vec<Pending>, coords: &HashMap<i64, [f64; 2]>, country: Option<String>) -> PlaceIndex {
        let mut entries = Vec::with_capacity(pending.len());
        let mut seen: HashSet<(String, i64, i64)> = HashSet::new();
        let mut words_of: Vec<Vec<String>> = Vec::new();
        for item in pending {
            let at = item.at.or_else(|| {
                let points: Vec<[f64; 2]> = item.nodes.iter().filter_map(|node| coords.get(node)).copied().collect();
                (!points.is_empty()).then(|| {
                    let count = points.len() as f64;
                    [points.iter().map(|p| p[0]).sum::<f64>() / count, points.iter().map(|p| p[1]).sum::<f64>() / count]
                })
            });
            let Some([lat, lng]) = at else { continue };
            // The same name at the same spot (a building and its entrance node) once.
            let key = (item.name.to_lowercase(), (lat * 5000.0).round() as i64, (lng * 5000.0).round() as i64);
            if !seen.insert(key) {
                continue;
            }
            let mut words = normalise(&item.name);
            if item.kind == EntryKind::Address {
                words.extend(normalise(&item.secondary));
            }
            words_of.push(words);
            entries.push(Entry {
                kind: item.kind,
                name: item.name,
                secondary: item.secondary,
                lat,
                lng,
                words: Vec::new(),
            });
        }
        let mut vocabulary: Vec<String> =
            words_of.iter().flatten().cloned().collect::<HashSet<_>>().into_iter().collect();
        vocabulary.sort();
        let id_of: HashMap<&str, u32> =
            vocabulary.iter().enumerate().map(|(index, word)| (word.as_str(), index as u32)).collect();
        let mut postings = vec![Vec::new(); vocabulary.len()];
        for (index, words) in words_of.iter().enumerate() {
            let mut ids: Vec<u32> = words.iter().map(|word| id_of[word.as_str()]).collect();
            ids.dedup();
            for id in &ids {
                if postings[*id as usize].last() != Some(&(index as u32)) {
                    postings[*id as usize].push(index as u32);
                }
            }
            entries[index].words = ids;
        }
        PlaceIndex { entries, vocabulary, postings, country }
    }

    /// The vocabulary words a query word matches, with how well.
    fn matches(&self, word: &str, last: bool) -> Vec<(u32, f64)> {
        let mut found = Vec::new();
        if let Ok(index) = self.vocabulary.binary_search_by(|known| known.as_str().cmp(word)) {
            found.push((index as u32, 1.0));
        }
        let length = word.chars().count();
        if last && length >= 2 {
            let start = self.vocabulary.partition_point(|known| known.as_str() < word);
            for (offset, known) in self.vocabulary[start..].iter().enumerate() {
                if !known.starts_with(word) {
                    break;
                }
                if known != word {
                    found.push(((start + offset) as u32, 0.9));
                }
            }
        }
        if found.is_empty() && length >= 4 {
            // One typo (two in a long word); the first letter is trusted.
            let limit = if length >= 8 { 2 } else { 1 };
            let first = word.chars().next().expect("a word has a letter");
            let start = self.vocabulary.partition_point(|known| known.chars().next().is_some_and(|c| c < first));
            for (offset, known) in self.vocabulary[start..].iter().enumerate() {
                if !known.starts_with(first) {
                    break;
                }
                // A last word being typed may be a misspelt start of a word.
                let typed_part = || known.chars().take(length).collect::<String>();
                if within_edits(word, known, limit) || (last && within_edits(word, &typed_part(), limit)) {
                    found.push(((start + offset) as u32, 0.7));
                }
            }
        }
        found
    }

    /// The best entries for a query, nearest to `near` among equals.
    pub fn search(&self, query: &str, near: Option<LatLng>, country: Option<&str>) -> Vec<(usize, &Entry)> {
        if let (Some(wanted), Some(ours)) = (country.map(str::trim).filter(|code| !code.is_empty()), &self.country)
            && !wanted.eq_ignore_ascii_case(ours)
        {
            return Vec::new();
        }
        let words = normalise(query);
        if words.is_empty() {
            return Vec::new();
        }
        let mut scores: Option<HashMap<u32, f64>> = None;
        for (position, word) in words.iter().enumerate() {
            let mut these: HashMap<u32, f64> = HashMap::new();
            for (id, quality) in self.matches(word, position == words.len() - 1) {
                for entry in &self.postings[id as usize] {
                    let best = these.entry(*entry).or_insert(0.0);
                    *best = best.max(quality);
                }
            }
            scores = Some(match scores {
                None => these,
                Some(before) => before
                    .into_iter()
                    .filter_map(|(entry, score)| these.get(&entry).map(|quality| (entry, score + quality)))
                    .collect(),
            });
            if scores.as_ref().is_some_and(HashMap::is_empty) {
                return Vec::new();
            }
        }
        let near = near.filter(LatLng::is_valid);
        let count = words.len() as f64;
        let mut ranked: Vec<(f64, usize, &Entry)> = scores
            .unwrap_or_default()
            .into_iter()
            .map(|(index, score)| {
                let entry = &self.entries[index as usize];
                let extra_words = entry.words.len().saturating_sub(words.len()) as f64;
                let kind_bonus = match entry.kind {
                    EntryKind::Place => 0.04,
                    EntryKind::Street => 0.03,
                    EntryKind::Address | EntryKind::Intersection => 0.0,
                };
                let distance_km =
                    near.map_or(0.0, |near| metres([near.lat, near.lng], [entry.lat, entry.lng]) / 1000.0);
                let score = score / count - 0.03 * extra_words + kind_bonus - 0.05 * (1.0 + distance_km).ln();
                (score, index as usize, entry)
            })
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.name.cmp(&b.2.name)).then(a.1.cmp(&b.1)));
        ranked.into_iter().take(SEARCH_LIMIT).map(|(_, index, entry)| (index, entry)).collect()
    }

    /// The entry with this index (a place id is `osm:<index>`).
    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// The nearest address within `within_m` of a point.
    pub fn nearest_address(&self, point: LatLng, within_m: f64) -> Option<(&Entry, f64)> {
        // Addresses are few enough per city for a scan to cost well under a
        // millisecond; a country-sized extract would want an R-tree here.
        self.entries
            .iter()
            .filter(|entry| entry.kind == EntryKind::Address)
            .map(|entry| (entry, metres([point.lat, point.lng], [entry.lat, entry.lng])))
            .filter(|(_, distance)| *distance <= within_m)
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// A place's secondary text: its address when tagged, else what it is.
fn place_secondary(tags: &Tags) -> String {
    if has_address(tags) {
        let street = tag(tags, "addr:street").unwrap_or_default();
        let number = tag(tags, "addr:housenumber").unwrap_or_default();
        let locality = locality(tags);
        return if locality.is_empty() {
            format!("{number} {street}")
        } else {
            format!("{number} {street}, {locality}")
        };
    }
    locality(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_and_punctuation_normalise_alike() {
        assert_eq!(normalise("N. Charles St."), vec!["north", "charles", "street"]);
        assert_eq!(normalise("Charles St & North Ave"), vec!["charles", "street", "north", "avenue"]);
        assert_eq!(normalise("1600 E Fort Ave"), vec!["1600", "east", "fort", "avenue"]);
    }

    #[test]
    fn edits_are_counted_within_a_limit() {
        assert!(within_edits("eastren", "eastern", 2));
        assert!(within_edits("baltimor", "baltimore", 1));
        assert!(!within_edits("boston", "baltimore", 2));
    }
}
