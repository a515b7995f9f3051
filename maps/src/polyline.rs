//! Google's encoded polyline format at precision 5, the `polylinePoints` of an
//! estimate and the overview polyline of spec §7's directions.
//!
//! Each coordinate is rounded to 1e-5 degrees, stored as the difference from
//! the previous point, zig-zag encoded so small negative numbers stay small,
//! and written in 5-bit chunks as printable characters (63 added), low chunk
//! first, with 0x20 set on every chunk but the last.

use wayfare_engine::LatLng;

const PRECISION: f64 = 1e5;
const CHUNK_BITS: u32 = 5;
const CHUNK_MASK: u64 = 0x1f;
const CONTINUATION: u64 = 0x20;
const CHARACTER_OFFSET: u8 = 63;
/// A latitude or longitude difference fits in 27 zig-zag bits (360° × 1e5
/// < 2^26): six chunks. Seven leave room; more means the text is not a polyline.
const MAX_CHUNKS_PER_VALUE: u32 = 7;

/// Why a text is not an encoded polyline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolylineError {
    #[error("character {character:?} at byte {position} is not part of an encoded polyline")]
    InvalidCharacter { character: char, position: usize },
    #[error("the polyline ends in the middle of a value")]
    Truncated,
    #[error("the polyline ends with a latitude and no longitude")]
    MissingLongitude,
    #[error("a value at byte {position} is too long for a coordinate")]
    ValueTooLong { position: usize },
}

/// Encodes the points. Coordinates are rounded to 5 decimals; callers pass
/// valid coordinates (the providers check them before routing).
pub fn encode(points: &[LatLng]) -> String {
    let mut encoded = String::with_capacity(points.len() * 8);
    let (mut previous_lat, mut previous_lng) = (0_i64, 0_i64);
    for point in points {
        debug_assert!(point.is_valid(), "encoding an invalid point {point:?}");
        let (lat, lng) = (to_fixed(point.lat), to_fixed(point.lng));
        encode_value(lat - previous_lat, &mut encoded);
        encode_value(lng - previous_lng, &mut encoded);
        (previous_lat, previous_lng) = (lat, lng);
    }
    encoded
}

/// Decodes an encoded polyline into its points (5 decimals each).
pub fn decode(encoded: &str) -> Result<Vec<LatLng>, PolylineError> {
    let bytes = encoded.as_bytes();
    let mut points = Vec::with_capacity(bytes.len() / 8);
    let (mut lat, mut lng) = (0_i64, 0_i64);
    let mut position = 0;
    while position < bytes.len() {
        lat += decode_value(encoded, &mut position)?;
        if position == bytes.len() {
            return Err(PolylineError::MissingLongitude);
        }
        lng += decode_value(encoded, &mut position)?;
        points.push(LatLng::new(lat as f64 / PRECISION, lng as f64 / PRECISION));
    }
    Ok(points)
}

fn to_fixed(degrees: f64) -> i64 {
    (degrees * PRECISION).round() as i64
}

fn encode_value(value: i64, encoded: &mut String) {
    // Zig-zag: the sign goes to the lowest bit, so -1 becomes 1 and 1 becomes 2.
    let zigzag = if value < 0 { !(value << 1) } else { value << 1 };
    let mut remaining = zigzag as u64;
    while remaining >= CONTINUATION {
        encoded.push(char::from(((remaining & CHUNK_MASK) | CONTINUATION) as u8 + CHARACTER_OFFSET));
        remaining >>= CHUNK_BITS;
    }
    encoded.push(char::from(remaining as u8 + CHARACTER_OFFSET));
}

fn decode_value(encoded: &str, position: &mut usize) -> Result<i64, PolylineError> {
    let bytes = encoded.as_bytes();
    let start = *position;
    let mut zigzag = 0_u64;
    for chunk_index in 0..MAX_CHUNKS_PER_VALUE {
        let Some(&byte) = bytes.get(*position) else {
            return Err(PolylineError::Truncated);
        };
        if !(CHARACTER_OFFSET..=CHARACTER_OFFSET + 63).contains(&byte) {
            let character = encoded[*position..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
            return Err(PolylineError::InvalidCharacter { character, position: *position });
        }
        *position += 1;
        let chunk = u64::from(byte - CHARACTER_OFFSET);
        zigzag |= (chunk & CHUNK_MASK) << (chunk_index * CHUNK_BITS);
        if chunk & CONTINUATION == 0 {
            let magnitude = (zigzag >> 1) as i64;
            return Ok(if zigzag & 1 == 1 { !magnitude } else { magnitude });
        }
    }
    Err(PolylineError::ValueTooLong { position: start })
}

/// Douglas–Peucker: the fewest points within `tolerance` of the line (the
/// basemap's tiles and the simulation report's road layer draw with it).
pub fn simplify(points: &[[f64; 2]], tolerance: f64) -> Vec<[f64; 2]> {
    if tolerance <= 0.0 || points.len() < 3 {
        return points.to_vec();
    }
    let mut keep = vec![false; points.len()];
    keep[0] = true;
    keep[points.len() - 1] = true;
    let mut stack = vec![(0, points.len() - 1)];
    while let Some((first, last)) = stack.pop() {
        let mut farthest = (0.0, 0);
        for index in first + 1..last {
            let distance = segment_distance(points[index], points[first], points[last]);
            if distance > farthest.0 {
                farthest = (distance, index);
            }
        }
        if farthest.0 > tolerance {
            keep[farthest.1] = true;
            stack.push((first, farthest.1));
            stack.push((farthest.1, last));
        }
    }
    points.iter().zip(keep).filter(|(_, keep)| *keep).map(|(point, _)| *point).collect()
}

fn segment_distance(point: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let [dx, dy] = [b[0] - a[0], b[1] - a[1]];
    let length = dx * dx + dy * dy;
    let t =
        if length == 0.0 { 0.0 } else { (((point[0] - a[0]) * dx + (point[1] - a[1]) * dy) / length).clamp(0.0, 1.0) };
    let [px, py] = [a[0] + t * dx - point[0], a[1] + t * dy - point[1]];
    (px * px + py * py).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The worked example of Google's "Encoded Polyline Algorithm Format" page.
    const GOOGLE_EXAMPLE: &str = "_p~iF~ps|U_ulLnnqC_mqNvxq`@";

    fn google_example_points() -> Vec<LatLng> {
        vec![LatLng::new(38.5, -120.2), LatLng::new(40.7, -120.95), LatLng::new(43.252, -126.453)]
    }

    #[test]
    fn encoding_googles_example_gives_googles_text() {
        assert_eq!(encode(&google_example_points()), GOOGLE_EXAMPLE);
    }

    #[test]
    fn decoding_googles_example_gives_googles_points() {
        assert_eq!(decode(GOOGLE_EXAMPLE).unwrap(), google_example_points());
    }

    #[test]
    fn a_single_value_encodes_as_in_googles_step_by_step_example() {
        // Google's page walks -179.9832104 through every step to "`~oia@".
        let mut encoded = String::new();
        encode_value(to_fixed(-179.9832104), &mut encoded);
        assert_eq!(encoded, "`~oia@");
        let mut position = 0;
        assert_eq!(decode_value(&encoded, &mut position).unwrap(), -17998321);
        assert_eq!(position, encoded.len());
    }

    #[test]
    fn no_points_encode_as_an_empty_text_and_back() {
        assert_eq!(encode(&[]), "");
        assert_eq!(decode("").unwrap(), Vec::<LatLng>::new());
    }

    #[test]
    fn coordinates_are_rounded_to_five_decimals() {
        let point = LatLng::new(39.285_714_9, -76.607_204_4);
        assert_eq!(decode(&encode(&[point])).unwrap(), [LatLng::new(39.28571, -76.6072)]);
    }

    #[test]
    fn text_that_is_not_a_polyline_is_refused_without_panicking() {
        assert_eq!(decode("_p~iF"), Err(PolylineError::MissingLongitude));
        assert_eq!(decode("_p~iF~ps|"), Err(PolylineError::Truncated));
        assert_eq!(decode("_p~iF ps|U"), Err(PolylineError::InvalidCharacter { character: ' ', position: 5 }));
        assert_eq!(decode("_p~iF~ps|Ué"), Err(PolylineError::InvalidCharacter { character: 'é', position: 10 }));
        assert_eq!(decode("~~~~~~~~~~?"), Err(PolylineError::ValueTooLong { position: 0 }));
    }

    fn valid_point() -> impl Strategy<Value = LatLng> {
        (-90.0..=90.0_f64, -180.0..=180.0_f64).prop_map(|(lat, lng)| LatLng::new(lat, lng))
    }

    proptest! {
        #[test]
        fn decoding_an_encoded_track_gives_the_track_rounded_to_five_decimals(
            points in prop::collection::vec(valid_point(), 0..60)
        ) {
            let rounded: Vec<LatLng> = points
                .iter()
                .map(|point| LatLng::new((point.lat * 1e5).round() / 1e5, (point.lng * 1e5).round() / 1e5))
                .collect();
            prop_assert_eq!(decode(&encode(&points)).unwrap(), rounded);
        }

        #[test]
        fn decoding_arbitrary_text_never_panics(text in ".{0,40}") {
            let _ = decode(&text);
        }
    }
}
