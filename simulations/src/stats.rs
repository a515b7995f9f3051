//! The spread of a metric over runs repeated with different seeds: the mean
//! and its 95 % confidence interval by Student's t, which is right for the
//! few seeds a simulation is repeated with (a normal interval would be too
//! narrow below about thirty).

use serde::Serialize;

/// A metric over the seeds: its mean, the 95 % confidence interval of that
/// mean, and each seed's value in the order of the seeds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    pub values: Vec<f64>,
}

impl Interval {
    /// Whether the two intervals share any value: if they do, the
    /// difference of the means is within the spread across seeds.
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.low <= other.high && other.low <= self.high
    }

    /// Every seed gave the same value.
    pub fn is_constant(&self) -> bool {
        self.values.windows(2).all(|pair| pair[0] == pair[1])
    }
}

/// Student's t for a two-sided 95 % interval, by degrees of freedom 1 to 30.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The t quantile for `degrees` of freedom; past 30, the table's value at
/// the nearest tabled degrees below (40, 60, 120), which errs wide.
pub fn t_975(degrees: usize) -> f64 {
    match degrees {
        0 => f64::INFINITY,
        1..=30 => T_975[degrees - 1],
        31..=39 => 2.042,
        40..=59 => 2.021,
        60..=119 => 2.000,
        _ => 1.980,
    }
}

/// The mean of `values` and its 95 % interval; `None` for fewer than two
/// values, whose spread cannot be told.
pub fn interval(values: &[f64]) -> Option<Interval> {
    if values.len() < 2 || values.iter().any(|value| !value.is_finite()) {
        return None;
    }
    let count = values.len() as f64;
    let mean = values.iter().sum::<f64>() / count;
    let variance = values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / (count - 1.0);
    let half = t_975(values.len() - 1) * (variance / count).sqrt();
    Some(Interval { mean: tidy(mean), low: tidy(mean - half), high: tidy(mean + half), values: values.to_vec() })
}

/// Six decimals, as the report's other figures: no float noise in the JSON.
fn tidy(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_students_t_around_the_mean() {
        // Mean 10 over 5 seeds: 10 ± t(4) × s / √5, s the sample standard deviation.
        let spread = interval(&[7.5, 9.0, 10.0, 11.0, 12.5]).unwrap();
        let sd = ((2.5f64.powi(2) * 2.0 + 1.0 + 1.0) / 4.0).sqrt();
        let half = 2.776 * sd / 5f64.sqrt();
        assert_eq!(spread.mean, 10.0);
        assert!((spread.low - (10.0 - half)).abs() < 1e-6 && (spread.high - (10.0 + half)).abs() < 1e-6);
        assert!(!spread.is_constant());
    }

    #[test]
    fn one_value_has_no_interval_and_equal_values_have_no_width() {
        assert_eq!(interval(&[3.0]), None);
        let same = interval(&[4.0, 4.0, 4.0]).unwrap();
        assert_eq!((same.low, same.mean, same.high), (4.0, 4.0, 4.0));
        assert!(same.is_constant());
    }

    #[test]
    fn intervals_that_share_a_value_overlap() {
        let a = interval(&[10.0, 11.0, 12.0]).unwrap();
        let b = interval(&[11.5, 12.5, 13.5]).unwrap();
        let c = interval(&[30.0, 31.0, 32.0]).unwrap();
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c));
    }

    #[test]
    fn more_degrees_of_freedom_narrow_t_towards_the_normal() {
        assert_eq!(t_975(4), 2.776);
        assert!(t_975(45) < t_975(30) && t_975(45) > t_975(200));
        assert_eq!(t_975(1_000), 1.980);
    }
}
