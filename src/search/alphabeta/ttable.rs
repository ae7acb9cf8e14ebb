//! The alpha-beta transposition table: one slot per index, keyed on `Position::key()` (board,
//! side to move, berserk piece, die roll). Win scores are stored relative to the node, so a
//! position reached at another depth reads them right. The slots are allocated at the first
//! store, so an agent that never searches (a server keeps one per game) costs no table.

use crate::rules::Move;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The value is at least the score (the search failed high).
    Lower,
    /// The value is at most the score (every move failed low).
    Upper,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub score: i32,
    pub depth: u32,
    pub bound: Bound,
    pub mv: Option<Move>,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    mv: u32,
    score: i32,
    depth: u8,
    /// 0 = none; 1..=3 = `Bound` + 1.
    bound: u8,
    /// The search that wrote it; 0 marks an empty slot.
    generation: u8,
    has_move: bool,
    /// The table's epoch when written: a slot of an older epoch is empty (`clear`).
    epoch: u16,
}

pub struct TTable {
    /// Empty until the first store, then `mask + 1` slots.
    slots: Vec<Slot>,
    mask: usize,
    generation: u8,
    epoch: u16,
}

impl TTable {
    /// A table of about `megabytes` (rounded down to a power of two of slots, at least 1024).
    pub fn new(megabytes: usize) -> TTable {
        let wanted = (megabytes.max(1) << 20) / std::mem::size_of::<Slot>();
        let slots = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        }
        .max(1024);
        TTable {
            slots: Vec::new(),
            mask: slots - 1,
            generation: 1,
            epoch: 1,
        }
    }

    /// Marks later stores as newer, so they replace what earlier searches left.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
    }

    /// Empties the table by starting a new epoch (slots of older ones read as empty): a match
    /// clears before every move, inside the move's time, and writing 16 MB each time cost
    /// more than half a millisecond. Every 65,535th clear really wipes the slots.
    pub fn clear(&mut self) {
        if self.slots.is_empty() {
            return;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.slots.fill(Slot::default());
            self.epoch = 1;
        }
    }

    /// The memory its slots hold (0 before the first store).
    pub fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    /// Gives the slots' memory back; the next store allocates them again.
    pub fn release(&mut self) {
        self.slots = Vec::new();
    }

    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let slot = self.slots.get(key as usize & self.mask)?;
        if slot.generation == 0 || slot.epoch != self.epoch || slot.key != key {
            return None;
        }
        let bound = match slot.bound {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(TtEntry {
            score: slot.score,
            depth: slot.depth as u32,
            bound,
            mv: slot.has_move.then(|| Move::from_bits(slot.mv)),
        })
    }

    /// Stores unless the slot holds a deeper result for another position from this search.
    pub fn store(&mut self, key: u64, entry: TtEntry) {
        let generation = self.generation;
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); self.mask + 1];
        }
        let slot = &mut self.slots[key as usize & self.mask];
        let depth = entry.depth.min(u8::MAX as u32) as u8;
        let live = slot.epoch == self.epoch && slot.generation != 0;
        if live && slot.generation == generation && slot.key != key && slot.depth > depth {
            return;
        }
        // keep a move already known for this position when the new result brings none
        let (has_move, mv) = match entry.mv {
            Some(mv) => (true, mv.bits()),
            None if live && slot.key == key => (slot.has_move, slot.mv),
            None => (false, 0),
        };
        *slot = Slot {
            key,
            mv,
            score: entry.score,
            depth,
            bound: match entry.bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            generation,
            has_move,
            epoch: self.epoch,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(score: i32, depth: u32) -> TtEntry {
        TtEntry {
            score,
            depth,
            bound: Bound::Exact,
            mv: None,
        }
    }

    #[test]
    fn clearing_empties_the_table_through_every_epoch_wrap() {
        let mut table = TTable::new(1);
        table.store(42, entry(7, 3));
        assert_eq!(table.probe(42), Some(entry(7, 3)));
        table.clear();
        assert_eq!(table.probe(42), None, "a cleared entry is gone");
        // a shallower entry for another key in the same slot is not blocked by the old one
        let other = 42 + (table.mask + 1) as u64;
        table.store(other, entry(1, 1));
        assert_eq!(table.probe(other), Some(entry(1, 1)));
        table.store(42, entry(9, 2));
        // across the wrap of the epoch counter, old slots stay empty
        for _ in 0..u16::MAX as u32 + 3 {
            table.clear();
            assert_eq!(table.probe(42), None);
        }
        table.store(42, entry(5, 4));
        assert_eq!(table.probe(42), Some(entry(5, 4)));
    }

    #[test]
    fn the_slots_are_allocated_at_the_first_store_and_given_back_on_release() {
        let mut table = TTable::new(2);
        assert_eq!(
            table.allocated_bytes(),
            0,
            "a table nobody stored in holds no memory"
        );
        table.clear();
        table.new_search();
        assert_eq!(table.probe(42), None);
        assert_eq!(table.allocated_bytes(), 0);
        table.store(42, entry(7, 3));
        let bytes = table.allocated_bytes();
        assert!(
            (1 << 20..=2 << 20).contains(&bytes),
            "{bytes} bytes for a 2 MiB table"
        );
        assert_eq!(table.probe(42), Some(entry(7, 3)));
        table.release();
        assert_eq!(table.allocated_bytes(), 0);
        assert_eq!(table.probe(42), None, "a released table is empty");
        table.store(43, entry(1, 1));
        assert_eq!(table.probe(43), Some(entry(1, 1)));
    }
}
