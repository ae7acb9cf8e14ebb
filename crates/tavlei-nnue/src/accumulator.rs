//! The first layer's output for one position, kept by the search and updated move by move.

/// The `N` i16 sums `ft.bias + sum of ft.weight rows of the active features`, plus scratch lists
/// an update reuses so that the search's hot path never allocates.
#[derive(Clone)]
pub struct Accumulator {
    /// `stride` sums; the columns past `width` are padding and stay zero.
    pub(crate) values: Vec<i16>,
    width: usize,
    pub(crate) removed: Vec<u32>,
    pub(crate) added: Vec<u32>,
}

impl Accumulator {
    pub(crate) fn new(width: usize, stride: usize, max_active: usize) -> Accumulator {
        Accumulator {
            values: vec![0; stride],
            width,
            removed: Vec::with_capacity(max_active),
            added: Vec::with_capacity(max_active),
        }
    }

    /// The sums (quantised by 127), one per accumulator column.
    pub fn values(&self) -> &[i16] {
        &self.values[..self.width]
    }
}

/// Two accumulators are equal when their sums are (the scratch lists are not state).
impl PartialEq for Accumulator {
    fn eq(&self, other: &Accumulator) -> bool {
        self.values == other.values
    }
}

impl Eq for Accumulator {}

/// The sums only (the scratch lists are not state).
impl std::fmt::Debug for Accumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Accumulator").field(&self.values()).finish()
    }
}
