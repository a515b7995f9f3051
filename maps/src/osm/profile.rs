//! The car profile: which ways a car may drive, in which directions, how fast,
//! and which turns it may not take. Modelled on OSRM's `car.lua` (speeds per
//! highway type, `maxspeed`, the access tag hierarchy, implied oneways), with
//! our own simplifications, each said where it is made.

use super::source::{Tags, tag};

/// How a car may use a way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WayRules {
    /// Average speed in km/h.
    pub speed_kmh: f64,
    /// May drive in the way's node order.
    pub forward: bool,
    /// May drive against it.
    pub backward: bool,
    /// Private or destination-only: used only to start or end a trip on it.
    pub restricted: bool,
    /// A motorway, its ramps, or a tunnel: nobody is picked up or set down
    /// there, so a trip's ends snap to another road when one is near.
    pub no_stopping: bool,
}

/// OSRM's default speeds (km/h) for ways without `maxspeed`.
fn default_speed(highway: &str) -> Option<f64> {
    Some(match highway {
        "motorway" => 90.0,
        "motorway_link" => 45.0,
        "trunk" => 85.0,
        "trunk_link" => 40.0,
        "primary" => 65.0,
        "primary_link" => 30.0,
        "secondary" => 55.0,
        "secondary_link" => 25.0,
        "tertiary" => 40.0,
        "tertiary_link" => 20.0,
        "unclassified" | "residential" | "road" => 25.0,
        "living_street" => 10.0,
        "service" => 15.0,
        _ => return None,
    })
}

/// Access for a car, from the most specific tag that is set (OSRM's
/// hierarchy: motorcar, motor_vehicle, vehicle, access).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Allowed,
    Restricted,
    Denied,
}

fn access(tags: &Tags) -> Access {
    for key in ["motorcar", "motor_vehicle", "vehicle", "access"] {
        let Some(value) = tag(tags, key) else { continue };
        return match value {
            "yes" | "permissive" | "designated" | "official" => Access::Allowed,
            "private" | "destination" | "customers" | "delivery" | "permit" => Access::Restricted,
            "no" | "agricultural" | "forestry" | "emergency" | "psv" | "bus" | "military" | "use_sidepath" => {
                Access::Denied
            }
            // An unknown value says nothing; ask the next, more general tag.
            _ => continue,
        };
    }
    Access::Allowed
}

/// `maxspeed` in km/h: a number, or a number with ` mph`; other forms
/// (`none`, `signals`, `US:urban`) leave the highway's default.
pub fn parse_maxspeed(value: &str) -> Option<f64> {
    let value = value.trim();
    let (number, factor) = match value.strip_suffix("mph") {
        Some(number) => (number.trim(), 1.609_344),
        None => (value.strip_suffix("km/h").unwrap_or(value).trim(), 1.0),
    };
    let speed: f64 = number.parse().ok()?;
    (speed.is_finite() && speed > 0.0).then_some(speed * factor)
}

/// Share of the posted limit a car averages (junctions, traffic); the
/// highway defaults above are already averages.
const MAXSPEED_FACTOR: f64 = 0.8;

/// The rules for a way, or `None` when a car may not use it at all.
pub fn way_rules(tags: &Tags) -> Option<WayRules> {
    let highway = tag(tags, "highway")?;
    let default = default_speed(highway)?;
    if tag(tags, "area") == Some("yes") || tag(tags, "impassable") == Some("yes") {
        return None;
    }
    if matches!(tag(tags, "service"), Some("emergency_access")) {
        return None;
    }
    let restricted = match access(tags) {
        Access::Denied => return None,
        Access::Restricted => true,
        Access::Allowed => false,
    };
    let speed_kmh =
        tag(tags, "maxspeed").and_then(parse_maxspeed).map(|limit| limit * MAXSPEED_FACTOR).unwrap_or(default);
    let implied_oneway = highway == "motorway" || matches!(tag(tags, "junction"), Some("roundabout" | "circular"));
    let oneway =
        tag(tags, "oneway:motorcar").or_else(|| tag(tags, "oneway:motor_vehicle")).or_else(|| tag(tags, "oneway"));
    let (forward, backward) = match oneway {
        Some("yes" | "true" | "1") => (true, false),
        Some("-1" | "reverse") => (false, true),
        Some("no" | "false" | "0") => (true, true),
        // Direction changes with the time of day: we cannot know which.
        Some("reversible" | "alternating") => return None,
        _ => (true, !implied_oneway),
    };
    let no_stopping = matches!(highway, "motorway" | "motorway_link")
        || tag(tags, "tunnel").is_some_and(|tunnel| tunnel != "no")
        || tag(tags, "layer").and_then(|layer| layer.parse::<i32>().ok()).is_some_and(|layer| layer < 0);
    Some(WayRules { speed_kmh, forward, backward, restricted, no_stopping })
}

/// A turn restriction's kind, from its `restriction` (or
/// `restriction:motorcar`) value: `no_*` forbids the one turn, `only_*`
/// forbids every other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestrictionKind {
    No,
    Only,
}

/// The kind of a `type=restriction` relation that applies to cars.
pub fn restriction_kind(tags: &Tags) -> Option<RestrictionKind> {
    if tag(tags, "type") != Some("restriction") {
        return None;
    }
    if let Some(except) = tag(tags, "except")
        && except.split(';').any(|mode| matches!(mode.trim(), "motorcar" | "motor_vehicle" | "vehicle"))
    {
        return None;
    }
    let value = tag(tags, "restriction:motorcar").or_else(|| tag(tags, "restriction"))?;
    if value.starts_with("no_") {
        Some(RestrictionKind::No)
    } else if value.starts_with("only_") {
        Some(RestrictionKind::Only)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        pairs.iter().map(|(key, value)| ((*key).to_owned(), (*value).to_owned())).collect()
    }

    #[test]
    fn footways_buildings_and_closed_roads_are_not_for_cars() {
        assert_eq!(way_rules(&tags(&[("highway", "footway")])), None);
        assert_eq!(way_rules(&tags(&[("building", "yes")])), None);
        assert_eq!(way_rules(&tags(&[("highway", "residential"), ("access", "no")])), None);
        assert_eq!(way_rules(&tags(&[("highway", "residential"), ("motor_vehicle", "no")])), None);
        assert_eq!(way_rules(&tags(&[("highway", "pedestrian")])), None);
    }

    #[test]
    fn the_most_specific_access_tag_wins() {
        // access=no, but cars are let in.
        let rules = way_rules(&tags(&[("highway", "service"), ("access", "no"), ("motorcar", "yes")])).unwrap();
        assert!(!rules.restricted);
        let rules = way_rules(&tags(&[("highway", "residential"), ("access", "private")])).unwrap();
        assert!(rules.restricted);
        let rules = way_rules(&tags(&[("highway", "residential"), ("motor_vehicle", "destination")])).unwrap();
        assert!(rules.restricted);
    }

    #[test]
    fn oneways_explicit_reversed_and_implied() {
        let both = way_rules(&tags(&[("highway", "primary")])).unwrap();
        assert!(both.forward && both.backward);
        let yes = way_rules(&tags(&[("highway", "primary"), ("oneway", "yes")])).unwrap();
        assert!(yes.forward && !yes.backward);
        let reversed = way_rules(&tags(&[("highway", "primary"), ("oneway", "-1")])).unwrap();
        assert!(!reversed.forward && reversed.backward);
        let roundabout = way_rules(&tags(&[("highway", "primary"), ("junction", "roundabout")])).unwrap();
        assert!(roundabout.forward && !roundabout.backward);
        let motorway = way_rules(&tags(&[("highway", "motorway")])).unwrap();
        assert!(motorway.forward && !motorway.backward);
        let open_motorway = way_rules(&tags(&[("highway", "motorway"), ("oneway", "no")])).unwrap();
        assert!(open_motorway.backward);
        assert_eq!(way_rules(&tags(&[("highway", "primary"), ("oneway", "reversible")])), None);
    }

    #[test]
    fn maxspeed_in_kmh_and_mph() {
        assert_eq!(parse_maxspeed("50"), Some(50.0));
        assert!((parse_maxspeed("30 mph").unwrap() - 48.28).abs() < 0.01);
        assert_eq!(parse_maxspeed("none"), None);
        assert_eq!(parse_maxspeed("US:urban"), None);
        let slow = way_rules(&tags(&[("highway", "primary"), ("maxspeed", "20")])).unwrap();
        assert!((slow.speed_kmh - 16.0).abs() < 1e-9);
        let fast = way_rules(&tags(&[("highway", "residential"), ("maxspeed", "100")])).unwrap();
        assert!((fast.speed_kmh - 80.0).abs() < 1e-9);
    }

    #[test]
    fn restrictions_for_cars_only() {
        let no_left = tags(&[("type", "restriction"), ("restriction", "no_left_turn")]);
        assert_eq!(restriction_kind(&no_left), Some(RestrictionKind::No));
        let only = tags(&[("type", "restriction"), ("restriction", "only_straight_on")]);
        assert_eq!(restriction_kind(&only), Some(RestrictionKind::Only));
        let except = tags(&[("type", "restriction"), ("restriction", "no_left_turn"), ("except", "bicycle;motorcar")]);
        assert_eq!(restriction_kind(&except), None);
        let bus_only = tags(&[("type", "restriction"), ("restriction:bus", "no_left_turn")]);
        assert_eq!(restriction_kind(&bus_only), None);
    }
}
