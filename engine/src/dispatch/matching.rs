//! The `batch` policy's matching (issue #16): given the bookings gathered in
//! one window and the drivers free to take them, with the pickup time of each
//! allowed pair, choose who goes where so that as many bookings as possible
//! get a driver and, among those choices, the total pickup time is least.
//!
//! A minimum-cost assignment (the Hungarian algorithm with potentials,
//! O(n² m) for n bookings and m drivers, n ≤ m after padding), solved on a
//! matrix where each booking may also stay unmatched at a penalty larger than
//! every pickup time together: a matching that serves one more booking always
//! costs less than one that serves fewer. Pairs not allowed (a driver too far,
//! the wrong car type) cost more than the penalty and are never chosen.
//!
//! Pure and deterministic: the same matrix gives the same pairs.

/// The pickup cost of each (booking, driver) pair, `None` where not allowed.
/// Rows are bookings, columns drivers; any unit (seconds, metres) as long as
/// it is one unit and not negative.
#[derive(Debug, Clone, PartialEq)]
pub struct CostMatrix {
    rows: usize,
    columns: usize,
    cells: Vec<Option<u64>>,
}

impl CostMatrix {
    /// A matrix of `rows` × `columns` with no pair allowed yet.
    pub fn new(rows: usize, columns: usize) -> CostMatrix {
        CostMatrix { rows, columns, cells: vec![None; rows * columns] }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn columns(&self) -> usize {
        self.columns
    }

    pub fn set(&mut self, row: usize, column: usize, cost: u64) {
        assert!(row < self.rows && column < self.columns, "cell ({row}, {column}) outside the matrix");
        self.cells[row * self.columns + column] = Some(cost);
    }

    pub fn get(&self, row: usize, column: usize) -> Option<u64> {
        self.cells[row * self.columns + column]
    }
}

/// The chosen pairs `(row, column)`, ordered by row, and their total cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    pub pairs: Vec<(usize, usize)>,
    pub total: u64,
}

/// The assignment that matches the most rows and, among those, costs least.
pub fn min_cost_matching(matrix: &CostMatrix) -> Matching {
    let mut pairs = Vec::new();
    for row in 0..matrix.rows {
        for column in 0..matrix.columns {
            if let Some(cost) = matrix.get(row, column) {
                pairs.push((row, column, cost));
            }
        }
    }
    min_cost_matching_pairs(matrix.rows, matrix.columns, &pairs)
}

/// [`min_cost_matching`] on a `rows` × `columns` problem given only its
/// allowed pairs `(row, column, cost)` (a later pair for the same cell
/// replaces an earlier one, as [`CostMatrix::set`] does): the same pairs
/// and total, at a cost that grows with the pairs rather than the cells.
pub fn min_cost_matching_pairs(rows: usize, columns: usize, pairs: &[(usize, usize, u64)]) -> Matching {
    let (n, m) = (rows, columns);
    if n == 0 || m == 0 {
        return Matching { pairs: Vec::new(), total: 0 };
    }
    if n > m {
        // The most pairs is the same count from either side, so solve the
        // narrow way round: O(m² n) instead of O(n² (n + m)) when many
        // bookings wait for few drivers.
        let flipped: Vec<(usize, usize, u64)> = pairs.iter().map(|&(row, column, cost)| (column, row, cost)).collect();
        let Matching { pairs, total } = min_cost_matching_pairs(m, n, &flipped);
        let mut pairs: Vec<(usize, usize)> = pairs.into_iter().map(|(column, row)| (row, column)).collect();
        pairs.sort_unstable();
        return Matching { pairs, total };
    }
    // Each row's allowed columns, ascending, the last pair given per cell.
    let mut allowed: Vec<Vec<(usize, u64)>> = vec![Vec::new(); n];
    for &(row, column, cost) in pairs.iter().rev() {
        assert!(row < n && column < m, "cell ({row}, {column}) outside the matrix");
        allowed[row].push((column, cost));
    }
    for list in &mut allowed {
        // Stable: of a cell given twice, the later pair (first here) stays.
        list.sort_by_key(|(column, _)| *column);
        list.dedup_by_key(|(column, _)| *column);
    }
    // Every allowed pickup together, plus one: the price of leaving a row out.
    let all: u64 = allowed.iter().flatten().fold(0u64, |sum, (_, cost)| sum.saturating_add(*cost));
    let skip = i128::from(all) + 1;
    let assigned = sparse_hungarian(m, &allowed, skip);
    let mut pairs = Vec::new();
    let mut total = 0u64;
    for (row, column) in assigned.into_iter().enumerate() {
        if column < m
            && let Ok(at) = allowed[row].binary_search_by_key(&column, |(column, _)| *column)
        {
            pairs.push((row, column));
            total += allowed[row][at].1;
        }
    }
    Matching { pairs, total }
}

/// The Hungarian algorithm below on the matrix it is given (the m drivers,
/// then one "stays unmatched" column per row at `skip`, only for its own
/// row; every other cell not allowed), step for step, visiting only the
/// columns a row may take. A cell not allowed costs more than leaving
/// every row out, so the dense algorithm never takes one as a step's
/// cheapest column (a row's own unmatched column is always cheaper); what
/// is left are the same steps, the same ties to the lowest column, the same
/// assignment.
fn sparse_hungarian(m: usize, allowed: &[Vec<(usize, u64)>], skip: i128) -> Vec<usize> {
    let n = allowed.len();
    let width = m + n;
    // 1-based as in the textbook form; index 0 is the virtual start column.
    let mut u = vec![0i128; n + 1];
    let mut v = vec![0i128; width + 1];
    let mut owner = vec![0usize; width + 1];
    let mut way = vec![0usize; width + 1];
    let mut least = vec![i128::MAX; width + 1];
    let mut used = vec![false; width + 1];
    // Columns reached and not yet used, the used ones (the tree), and every
    // column changed in this row's search (reset after it).
    let mut open: Vec<usize> = Vec::new();
    let mut tree: Vec<usize> = Vec::new();
    let mut changed: Vec<usize> = Vec::new();
    for row in 1..=n {
        owner[0] = row;
        let mut column0 = 0usize;
        loop {
            used[column0] = true;
            tree.push(column0);
            changed.push(column0);
            let row0 = owner[column0];
            let own = m + row0;
            let reachable =
                allowed[row0 - 1].iter().map(|&(column, cost)| (column + 1, i128::from(cost))).chain([(own, skip)]);
            for (column, cost) in reachable {
                if used[column] {
                    continue;
                }
                let reduced = cost - u[row0] - v[column];
                if reduced < least[column] {
                    if least[column] == i128::MAX {
                        open.push(column);
                        changed.push(column);
                    }
                    least[column] = reduced;
                    way[column] = column0;
                }
            }
            // The least open column; ties go to the lowest, as in the dense scan.
            let mut delta = i128::MAX;
            let mut pick = usize::MAX;
            for (at, &column) in open.iter().enumerate() {
                if pick == usize::MAX || least[column] < delta || (least[column] == delta && column < open[pick]) {
                    delta = least[column];
                    pick = at;
                }
            }
            let column1 = open.swap_remove(pick);
            for &column in &tree {
                u[owner[column]] += delta;
                v[column] -= delta;
            }
            for &column in &open {
                least[column] -= delta;
            }
            column0 = column1;
            if owner[column0] == 0 {
                break;
            }
        }
        // Flip the augmenting path back to the start.
        loop {
            let column1 = way[column0];
            owner[column0] = owner[column1];
            column0 = column1;
            if column0 == 0 {
                break;
            }
        }
        for column in changed.drain(..) {
            least[column] = i128::MAX;
            used[column] = false;
        }
        open.clear();
        tree.clear();
    }
    let mut assigned = vec![usize::MAX; n];
    for column in 1..=width {
        if owner[column] != 0 {
            assigned[owner[column] - 1] = column - 1;
        }
    }
    assigned
}

/// The dense matching [`min_cost_matching_pairs`] must equal: the textbook
/// algorithm on the whole padded matrix.
#[cfg(test)]
fn dense_matching(matrix: &CostMatrix) -> Matching {
    let (n, m) = (matrix.rows, matrix.columns);
    if n == 0 || m == 0 {
        return Matching { pairs: Vec::new(), total: 0 };
    }
    if n > m {
        let mut transposed = CostMatrix::new(m, n);
        for row in 0..n {
            for column in 0..m {
                if let Some(cost) = matrix.get(row, column) {
                    transposed.set(column, row, cost);
                }
            }
        }
        let Matching { pairs, total } = dense_matching(&transposed);
        let mut pairs: Vec<(usize, usize)> = pairs.into_iter().map(|(column, row)| (row, column)).collect();
        pairs.sort_unstable();
        return Matching { pairs, total };
    }
    let all: u64 = matrix.cells.iter().flatten().fold(0u64, |sum, cost| sum.saturating_add(*cost));
    let skip = i128::from(all) + 1;
    let forbidden = skip * (n as i128 + 1);
    let width = m + n;
    let cost = |row: usize, column: usize| -> i128 {
        if column < m {
            matrix.get(row, column).map_or(forbidden, i128::from)
        } else if column - m == row {
            skip
        } else {
            forbidden
        }
    };
    let assigned = hungarian(n, width, cost);
    let mut pairs = Vec::new();
    let mut total = 0u64;
    for (row, column) in assigned.into_iter().enumerate() {
        if column < m
            && let Some(price) = matrix.get(row, column)
        {
            pairs.push((row, column));
            total += price;
        }
    }
    Matching { pairs, total }
}

/// The classic O(n² m) Hungarian algorithm with row and column potentials
/// for n ≤ m: the column each row is assigned, minimising the sum of `cost`.
#[cfg(test)]
fn hungarian(n: usize, m: usize, cost: impl Fn(usize, usize) -> i128) -> Vec<usize> {
    debug_assert!(n <= m);
    // 1-based as in the textbook form; index 0 is the virtual start column.
    let mut u = vec![0i128; n + 1];
    let mut v = vec![0i128; m + 1];
    let mut owner = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    for row in 1..=n {
        owner[0] = row;
        let mut column0 = 0usize;
        let mut least = vec![i128::MAX; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[column0] = true;
            let row0 = owner[column0];
            let mut delta = i128::MAX;
            let mut column1 = 0usize;
            for column in 1..=m {
                if used[column] {
                    continue;
                }
                let reduced = cost(row0 - 1, column - 1) - u[row0] - v[column];
                if reduced < least[column] {
                    least[column] = reduced;
                    way[column] = column0;
                }
                // Ties go to the lowest column: the same input, the same answer.
                if least[column] < delta {
                    delta = least[column];
                    column1 = column;
                }
            }
            for column in 0..=m {
                if used[column] {
                    u[owner[column]] += delta;
                    v[column] -= delta;
                } else {
                    least[column] -= delta;
                }
            }
            column0 = column1;
            if owner[column0] == 0 {
                break;
            }
        }
        // Flip the augmenting path back to the start.
        loop {
            let column1 = way[column0];
            owner[column0] = owner[column1];
            column0 = column1;
            if column0 == 0 {
                break;
            }
        }
    }
    let mut assigned = vec![usize::MAX; n];
    for column in 1..=m {
        if owner[column] != 0 {
            assigned[owner[column] - 1] = column - 1;
        }
    }
    assigned
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way of giving each row a distinct column or none: the most rows
    /// matched, then the least total.
    fn brute_force(matrix: &CostMatrix) -> (usize, u64) {
        fn walk(
            matrix: &CostMatrix,
            row: usize,
            taken: &mut Vec<bool>,
            count: usize,
            total: u64,
            best: &mut (usize, u64),
        ) {
            if row == matrix.rows() {
                if count > best.0 || (count == best.0 && total < best.1) {
                    *best = (count, total);
                }
                return;
            }
            walk(matrix, row + 1, taken, count, total, best);
            for column in 0..matrix.columns() {
                if let (false, Some(cost)) = (taken[column], matrix.get(row, column)) {
                    taken[column] = true;
                    walk(matrix, row + 1, taken, count + 1, total + cost, best);
                    taken[column] = false;
                }
            }
        }
        let mut best = (0, 0);
        walk(matrix, 0, &mut vec![false; matrix.columns()], 0, 0, &mut best);
        best
    }

    fn check(matrix: &CostMatrix) {
        let found = min_cost_matching(matrix);
        let rows: std::collections::BTreeSet<usize> = found.pairs.iter().map(|pair| pair.0).collect();
        let columns: std::collections::BTreeSet<usize> = found.pairs.iter().map(|pair| pair.1).collect();
        assert_eq!(rows.len(), found.pairs.len(), "a row matched twice: {found:?}");
        assert_eq!(columns.len(), found.pairs.len(), "a driver given two bookings: {found:?}");
        let total: u64 =
            found.pairs.iter().map(|&(row, column)| matrix.get(row, column).expect("an allowed pair")).sum();
        assert_eq!(total, found.total);
        assert_eq!((found.pairs.len(), found.total), brute_force(matrix), "{matrix:?}");
    }

    /// A small deterministic generator (no dependency for tests).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % below
        }
    }

    #[test]
    fn the_nearest_driver_each_is_not_always_best_overall() {
        // Greedy gives booking 0 driver 0 (1 min), leaving booking 1 driver 1
        // (10 min): 11. Crossing them costs 2 + 3 = 5.
        let mut matrix = CostMatrix::new(2, 2);
        matrix.set(0, 0, 60);
        matrix.set(0, 1, 120);
        matrix.set(1, 0, 180);
        matrix.set(1, 1, 600);
        let found = min_cost_matching(&matrix);
        assert_eq!(found, Matching { pairs: vec![(0, 1), (1, 0)], total: 300 });
    }

    #[test]
    fn serving_one_more_booking_beats_any_saving_in_pickup_time() {
        // Driver 0 is the only one booking 1 may have; booking 0 could take
        // either but driver 0 is far nearer. Serving both wins.
        let mut matrix = CostMatrix::new(2, 2);
        matrix.set(0, 0, 10);
        matrix.set(0, 1, 5_000);
        matrix.set(1, 0, 20);
        let found = min_cost_matching(&matrix);
        assert_eq!(found.pairs, vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn nothing_allowed_matches_nothing_and_empty_inputs_are_fine() {
        assert_eq!(min_cost_matching(&CostMatrix::new(3, 2)).pairs, vec![]);
        assert_eq!(min_cost_matching(&CostMatrix::new(0, 4)), Matching { pairs: vec![], total: 0 });
        assert_eq!(min_cost_matching(&CostMatrix::new(4, 0)), Matching { pairs: vec![], total: 0 });
    }

    #[test]
    fn more_bookings_than_drivers_and_the_reverse_match_the_brute_force_optimum() {
        let mut random = Lcg(7);
        for _ in 0..2_000 {
            let rows = 1 + random.next(5) as usize;
            let columns = 1 + random.next(5) as usize;
            let mut matrix = CostMatrix::new(rows, columns);
            for row in 0..rows {
                for column in 0..columns {
                    // About one pair in four is not allowed (too far).
                    if random.next(4) != 0 {
                        matrix.set(row, column, random.next(900));
                    }
                }
            }
            check(&matrix);
        }
    }

    #[test]
    fn the_sparse_solver_gives_the_dense_solvers_pairs_exactly() {
        // The dense algorithm is the reference the simulator's reports were
        // made with: the same pairs, not only the same count and total, so
        // ties (common: whole seconds) go the same way.
        let mut random = Lcg(11);
        for round in 0..3_000 {
            let rows = 1 + random.next(if round % 10 == 0 { 60 } else { 14 }) as usize;
            let columns = 1 + random.next(if round % 10 == 0 { 60 } else { 14 }) as usize;
            // From nearly empty to nearly full, costs from all alike to spread.
            let density = 1 + random.next(10);
            let spread = [1, 3, 20, 900][random.next(4) as usize];
            let mut matrix = CostMatrix::new(rows, columns);
            let mut pairs = Vec::new();
            for row in 0..rows {
                for column in 0..columns {
                    if random.next(10) < density {
                        let cost = random.next(spread);
                        matrix.set(row, column, cost);
                        pairs.push((row, column, cost));
                    }
                }
            }
            let dense = dense_matching(&matrix);
            assert_eq!(min_cost_matching(&matrix), dense, "{matrix:?}");
            // The pairs in any order, as the dispatch window lists them.
            pairs.reverse();
            assert_eq!(min_cost_matching_pairs(rows, columns, &pairs), dense, "{matrix:?}");
        }
    }

    #[test]
    fn a_cell_given_twice_keeps_the_later_cost() {
        let found = min_cost_matching_pairs(1, 2, &[(0, 0, 5), (0, 1, 7), (0, 0, 9)]);
        assert_eq!(found, Matching { pairs: vec![(0, 1)], total: 7 });
    }

    #[test]
    fn ties_are_broken_the_same_way_every_time() {
        let mut matrix = CostMatrix::new(3, 3);
        for row in 0..3 {
            for column in 0..3 {
                matrix.set(row, column, 100);
            }
        }
        let first = min_cost_matching(&matrix);
        assert_eq!(first.total, 300);
        for _ in 0..10 {
            assert_eq!(min_cost_matching(&matrix), first);
        }
    }
}
